"""Who a patron is: records, lookup, the seat's id, identification reads and the
self-exclusion check. Names and numbers compare as rounds/engine/persons.py compares
player ids (case, and UTS #39 look-alikes), through their stored `person_keys`, and as
people write them (patrons/folding.py: accents, punctuation and spacing in numbers, the
order of names, suffixes), through their stored folds: each an indexed equality. A name
near a listed one (`near_name`) holds the command for a supervisor (`check_required`)."""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from datetime import date
from functools import cache

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from cardroom import statements, wire
from cardroom.access import Actor
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from rounds.engine.errors import CodedError
from rounds.engine.persons import person_keys, printed

from .folding import SUFFIXES, fold_name, fold_number, near_name
from .models import (
    ExclusionEntry,
    ExclusionHit,
    ExclusionImport,
    ExclusionRemoval,
    ExclusionRemovalDecision,
    ExclusionReview,
    ExclusionReviewDecision,
    Patron,
    PatronKey,
    PatronLink,
    PatronMerge,
    UnidentifiedPatron,
    entries_digest,
)

# Who reads identification (issue 27): compliance and the floor's supervisors.
IDENTIFICATION_ROLES = ("compliance", "supervisor")
IDENTIFICATION_FIELDS = ("legal_name", "date_of_birth", "id_type", "id_number", "id_issuer", "address", "card")
MAX_STATE_LIST_BYTES = 5 * 1024 * 1024
# The state list's upload has a route of its own, the one request body allowed past the
# 64 KiB every other route keeps (cardroom.wire.MAX_BODY_BYTES): the file, and room for
# the form around it (its boundaries, the CSRF token). config/asgi.py gives the route
# this limit; docker/nginx.conf gives its `location` a client_max_body_size above it.
STATE_LIST_UPLOAD_PATH = "/compliance/self-exclusion/state-list/"
STATE_LIST_BODY_BYTES = MAX_STATE_LIST_BYTES + 64 * 1024
# The message of a refusal about a listed or alerted patron (`self_excluded`, and a hold
# for a person to check): the tablet that shows it is in the patron's sight, so it names
# no reason. The code on the wire says it for the software; the hit, with the reason,
# goes to the floor and compliance.
DISCREET_MESSAGE = "Call a supervisor before going on."
# The names compared word by word (patrons/folding.py `fold_name`); the other keys are numbers.
NAME_FIELDS = ("display_name", "legal_name")
# The tablet's lookup: at most this many results, and a query of at least this many
# letters and digits, so nobody lists the patrons by typing one letter after another.
LOOKUP_LIMIT = 10
LOOKUP_MIN_CHARACTERS = 2


class PatronError(CodedError):
    codes = frozenset(
        {
            "invalid_patron", "duplicate_patron", "unknown_patron", "not_authorized", "invalid_description",
            "already_linked", "invalid_list", "invalid_amount", "invalid_command", "self_excluded", "tppp_mismatch",
            # A progressive award's cash payout (patrons/cash.py): the award it names is not
            # at that table; its confirmer may not record it; the log's head is gone.
            "unknown_award", "second_person_required", "wrong_state",
            # The lists changed carefully (issue 34): a header-only state list; a house
            # entry or removal not known; a patron on the house's list already.
            "empty_list", "unknown_entry", "already_listed",
            # An award is cashed out once (patrons.cash.award_already_paid).
            "award_paid",
            # Cash corrections (patrons/cash.py, docs/patrons.md "Corrections"): a possible
            # double entry; a reversal's request and decision.
            "possible_duplicate", "reason_required", "unknown_cash", "unknown_request", "already_requested",
            "already_reversed", "not_reversible", "already_decided",
            # A seat id or patron near a listed person's name: held until a supervisor
            # clears or confirms it (ExclusionReview); the review asked for is unknown.
            "check_required", "unknown_review",
            # One person, one record (issue 34): the same legal name and date of birth as
            # another record, sent again with `confirm` when it is another person; a record
            # already merged into another, or a merge request that is not waiting.
            "possible_duplicate_patron", "already_merged", "unknown_merge",
            # An award is a cash-out (patrons/awards.py): paid only once its winner is
            # known (`award_owed`), to that winner and for its amount (`award_mismatch`);
            # identified with a record that holds identification above the CTR line.
            "award_owed", "award_mismatch", "identification_required",
        }
    )


def refuse_unfit(record, code: str, where: str = "") -> None:
    """Refuse (`code`) a record a text of which is longer than its column: the lengths are
    the model's own `max_length`, checked by Django's field validation before the row is
    written, so PostgreSQL never refuses it with a 500."""
    try:
        record.clean_fields(exclude=[f.name for f in record._meta.concrete_fields if not f.max_length])
    except ValidationError as invalid:
        field, problems = next(iter(invalid.message_dict.items()))
        raise PatronError(code, f"{where}{field}: {' '.join(problems)}") from None


def refuse_unstorable(texts, code: str) -> None:
    """Refuse (`code`) a NUL or a lone surrogate in any of these (name, text) pairs
    (cardroom.wire's text check, the one every input meets)."""
    for name, text in texts:
        problem = wire.text_refusal(text) if isinstance(text, str) else None
        if problem:
            raise PatronError(code, f"{name} {problem}")


# --- records --------------------------------------------------------------------------


def patron_create(*, actor: Actor, number: str, display_name: str, legal_name: str, card: str = "",
                  date_of_birth: date | None = None, id_type: str = "", id_number: str = "",
                  id_issuer: str = "", address: str = "", tppp_company: str = "", tppp_badge: str = "",
                  confirm: bool = False) -> Patron:
    """A new patron (compliance or a supervisor). Its number and card must not name a
    patron already known, in any case or look-alike spelling, nor its ID another
    patron's (`duplicate_patron`); the same legal name and date of birth as another
    record is recorded only when confirmed (`confirm`) to be another person, and the
    confirmation is audited (`duplicates_refused`)."""
    if actor.role not in IDENTIFICATION_ROLES and not actor.is_system:
        raise PatronError("not_authorized", "compliance or a supervisor records a patron")
    number, card = printed(number or ""), printed(card or "")
    display_name, legal_name = printed(display_name or ""), printed(legal_name or "")
    if not number or not display_name or not legal_name:
        raise PatronError("invalid_patron", "a patron needs a number, a display name and a legal name")
    tppp_company, tppp_badge = printed(tppp_company or ""), printed(tppp_badge or "")
    if bool(tppp_company) != bool(tppp_badge):
        raise PatronError("invalid_patron", "a TPPP link names both the company and the badge number")
    if number.startswith(UnidentifiedPatron.PREFIX):
        raise PatronError("invalid_patron", f"patron numbers do not start with {UnidentifiedPatron.PREFIX!r}")
    patron = Patron(
        number=number, card=card, display_name=display_name, legal_name=legal_name, date_of_birth=date_of_birth,
        id_type=id_type or "", id_number=printed(id_number or ""), id_issuer=id_issuer or "", address=address or "",
        tppp_company=tppp_company, tppp_badge=tppp_badge, created_at=timezone.now(), created_by=actor.name,
    )
    refuse_unfit(patron, "invalid_patron")
    with transaction.atomic():
        for value in filter(None, (number, card)):
            clash = _matching_keys(value, fields=("number", "card")).first()
            if clash is not None:
                raise PatronError("duplicate_patron", f"{value!r} is already patron {clash.patron.number}'s number or card")
        namesakes = duplicates_refused(patron, confirm=confirm)
        patron.save(force_insert=True)
        _keys_write(patron)
        audit_record(actor=actor, action="patron", summary=f"patron {number} recorded", detail={"patron": patron.pk})
        if namesakes:
            audit_record(
                actor=actor, action="patron",
                summary=(f"patron {number} confirmed another person than {', '.join(p.number for p in namesakes)} "
                         "(same legal name and date of birth)")[:200],
                detail={"patron": patron.pk, "namesakes": [p.pk for p in namesakes]},
            )
    return patron


def _same_text(a: str, b: str) -> bool:
    return fold_name(a or "") == fold_name(b or "")


def duplicates_refused(patron: Patron, *, confirm: bool) -> list[Patron]:
    """One person, one record, for a new or edited record (`patron`, saved or not):
    - its ID (type, number and issuer; the number folded as people write it, the type and
      issuer as names are) is no other record's: `duplicate_patron`, naming the record;
    - a record of the same date of birth whose legal name folds alike may be the same
      person, or a namesake born the same day: `possible_duplicate_patron` until the
      caller confirms (`confirm`); the namesakes are returned for the caller's audit row.
    The ID number is matched on its stored fold (an index); the names are folded here over
    the candidates of the same date of birth."""
    others = Patron.objects.exclude(pk=patron.pk) if patron.pk else Patron.objects.all()
    number = fold_number(patron.id_number or "")
    if number:
        # The stored fold of each record's ID number (PatronKey.fold): an indexed equality.
        ids = others.filter(keys__field="id_number", keys__fold=number).values_list("number", "id_type", "id_issuer")
        for other_number, id_type, id_issuer in ids:
            if _same_text(id_type, patron.id_type) and _same_text(id_issuer, patron.id_issuer):
                raise PatronError(
                    "duplicate_patron",
                    f"the ID {patron.id_type or '(no type)'} {patron.id_number} of {patron.id_issuer or '(no issuer)'} "
                    f"is already patron {other_number}'s: one person, one record",
                )
    if patron.date_of_birth is None:
        return []
    name = fold_name(patron.legal_name)
    namesakes = [other for other in others.filter(date_of_birth=patron.date_of_birth).order_by("number")
                 if fold_name(other.legal_name) == name]
    if namesakes and not confirm:
        raise PatronError(
            "possible_duplicate_patron",
            f"patron {', '.join(p.number for p in namesakes)} has the same legal name and date of birth: "
            "if this is another person, confirm it (the confirmation is recorded)",
        )
    return namesakes


# --- one person: records merged ---------------------------------------------------------


@dataclass(frozen=True)
class Person:
    """A person as the cash totals see them: the surviving record (`survivor`) and every
    record merged into it, itself included (`records`)."""

    survivor: int
    records: tuple[int, ...]

    @property
    def subject(self) -> str:
        return f"patron:{self.survivor}"


def survivors() -> dict[int, int]:
    """{merged record: the surviving record of its person} for every merged record, the
    merges followed to their end (a survivor later merged itself carries its merged
    records along). A record missing from the map is its own survivor."""
    direct = dict(PatronMerge.objects.values_list("merged_id", "survivor_id"))
    resolved = {}
    for merged in direct:
        survivor = merged
        while survivor in direct:  # no cycle: a record is merged once, never into a merged one
            survivor = direct[survivor]
        resolved[merged] = survivor
    return resolved


def person_of(patron_id: int, merged: dict[int, int] | None = None) -> Person:
    """The person a patron record belongs to: THE resolution every total, alert, CTR,
    history and export uses (`merged`: `survivors()` when the caller read it already)."""
    merged = survivors() if merged is None else merged
    survivor = merged.get(patron_id, patron_id)
    records = sorted({survivor, *(record for record, root in merged.items() if root == survivor)})
    return Person(survivor=survivor, records=tuple(records))


def _keys_write(patron: Patron) -> None:
    PatronKey.objects.filter(patron=patron).delete()
    rows = []
    for field in ("number", "card", "display_name", "legal_name", "id_number"):
        value = getattr(patron, field)
        if value:
            folded, skel, fold_skel = person_keys(value)
            rows.append(PatronKey(patron=patron, field=field, folded=folded, skeleton=skel, fold_skeleton=fold_skel,
                                  fold=_key_fold(field, value)))
    for row in rows:
        # A name within its column may still grow when folded (ß is ss) past the key's.
        refuse_unfit(row, "invalid_patron", f"{row.field} compared as ")
    PatronKey.objects.bulk_create(rows)


def _key_fold(field: str, value: str) -> str:
    return fold_number(value) if field in PatronKey.NUMBER_FIELDS else fold_name(value)


def _matching_keys(text: str, *, fields):
    folded, skel, fold_skel = person_keys(text)
    return PatronKey.objects.select_related("patron").filter(
        Q(folded=folded) | Q(skeleton=skel) | Q(fold_skeleton=fold_skel), field__in=fields
    )


def patron_lookup(query: str, *, actor: Actor, limit: int = LOOKUP_LIMIT) -> list[dict]:
    """Patrons a person at a table may be looking for, as people write them: a number or
    card whatever its case, punctuation or look-alike letters ("P1001" is P-1001), or a
    name by the start of its words, accents folded ("Maria" finds "María L.").

    A dealer searches the display name, the number and the card: a legal name is
    identification, so a dealer's search by it finds nothing (it would confirm who is a
    patron). Compliance and supervisors search legal names too. Whoever asks, each result
    is what anyone at the table may see (display name and number), at most `limit` of
    them, and a query with too few letters to name anyone finds nothing."""
    query = printed(query or "")
    names, number = fold_name(query), fold_number(query)
    # Counted as typed: a fold may be longer than the text ("m" has the skeleton "rn").
    if sum(ch.isalnum() for ch in query) < LOOKUP_MIN_CHARACTERS:
        return []
    name_fields = NAME_FIELDS if actor.role in IDENTIFICATION_ROLES else ("display_name",)
    # A name matches when each word typed starts one of its words (folded, sorted words
    # joined by spaces: "l maria"); the folded words hold letters and digits only, so
    # nothing typed is a LIKE wildcard.
    by_name = Q(field__in=name_fields)
    for word in names.split():
        by_name &= Q(fold__startswith=word) | Q(fold__contains=f" {word}")
    keys = PatronKey.objects.filter(by_name | Q(field__in=("number", "card"), fold=number))
    patrons = Patron.objects.filter(pk__in=keys.values("patron_id")).order_by("number")[:limit]
    return [patron.public() for patron in patrons]


class SeatIdentity:
    """Whom a seat's id names, found with one indexed query: the patrons whose number or
    card it is (`candidates`: as typed, modulo case and look-alikes, or folded as people
    write it, "P_1001" for "P-1001"), or an unidentified patron's "U-<id>" and the patron
    it was linked to. `patron` is the one patron it names, None when none or ambiguous."""

    def __init__(self, player: str):
        self.player = printed(player or "")
        self.patron: Patron | None = None
        self.unidentified: UnidentifiedPatron | None = None
        self.candidates: list[Patron] = []
        if self.player.upper().startswith(UnidentifiedPatron.PREFIX) and self.player[2:].isdigit():
            self.unidentified = UnidentifiedPatron.objects.filter(pk=int(self.player[2:])).first()
            if self.unidentified is not None:
                link = PatronLink.objects.select_related("patron").filter(unidentified=self.unidentified).first()
                self.patron = link.patron if link else None
                self.candidates = [self.patron] if self.patron else []
                return
        folded = fold_number(self.player)
        if not folded:
            return
        as_typed = person_keys(self.player)
        found = statements.cursor()
        found.execute(_seat_keys_sql(), [*as_typed, *as_typed, folded])
        exact, everyone = set(), {}
        for named_as_typed, *patron in found.fetchall():
            person = statements.instance(Patron, patron)
            everyone.setdefault(person.pk, person)
            if named_as_typed:
                exact.add(person.pk)
        self.candidates = sorted(everyone.values(), key=lambda p: p.pk)
        if len(everyone) == 1:
            self.patron = self.candidates[0]
        elif len(exact) == 1:  # two patrons fold alike: the one written so (case, look-alikes) is named
            self.patron = everyone[exact.pop()]

    @property
    def seated_as(self) -> str:
        """The id the engine is given (docs/rules-decisions.md): a linked U-id, or an id
        that folds to exactly one patron's number or card, is that patron's number, so the
        engine, the rotation log and the history see one id for one person; an id that
        names no patron or two is kept as typed."""
        if self.unidentified is not None:
            return self.patron.number if self.patron is not None else self.player
        return self.candidates[0].number if len(self.candidates) == 1 else self.player


def patron_of_player(player: str) -> tuple[Patron | None, UnidentifiedPatron | None]:
    """The patron a seat's id names: a patron number or card (case, look-alikes, and as
    people write it), or an unidentified patron's "U-<id>" (and the patron it was linked
    to, if it was)."""
    seat = SeatIdentity(player)
    return seat.patron, seat.unidentified


def governing_id(player: str) -> str:
    """The id a person is seated under (SeatIdentity.seated_as)."""
    return SeatIdentity(player).seated_as


def identification_read(patron: Patron, *, actor: Actor, why: str = "") -> dict:
    """A patron's identification, for compliance and supervisors only; every read leaves
    an audit row (action `identification_read`)."""
    if actor.role not in IDENTIFICATION_ROLES:
        raise PatronError("not_authorized", "only compliance and supervisors see a patron's identification")
    audit_record(
        actor=actor, action="identification_read", summary=f"identification of patron {patron.number} read",
        detail={"patron": patron.pk, "why": why[:100]},
    )
    ident = {field: getattr(patron, field) for field in IDENTIFICATION_FIELDS}
    if ident["date_of_birth"] is not None:
        ident["date_of_birth"] = ident["date_of_birth"].isoformat()
    return {**patron.public(), **ident}


def unidentified_create(*, table_id: int, description: str, actor: Actor) -> UnidentifiedPatron:
    description = printed(description or "")
    if not 3 <= len(description) <= 200:
        raise PatronError("invalid_description", "describe the patron in 3 to 200 characters")
    now = timezone.now()
    return UnidentifiedPatron.objects.create(
        description=description, table_id=table_id, created_at=now, gaming_day=calendar().gaming_day(now),
        created_by=actor.name,
    )



def _entry_keys(prefix: str, value: str) -> dict:
    if not value:
        return {}
    folded, skel, fold_skel = person_keys(value)
    fold = fold_name(value) if prefix == "name" else fold_number(value)
    return {f"{prefix}_folded": folded, f"{prefix}_skeleton": skel, f"{prefix}_fold_skeleton": fold_skel,
            f"{prefix}_fold": fold}


def _matches(prefix: str, value: str) -> Q:
    """Entries whose name (or id number) is `value`: as written (case, look-alikes), or
    folded as people write it (accents, punctuation, word order, suffix spellings)."""
    folded, skel, fold_skel = person_keys(value)
    match = (
        Q(**{f"{prefix}_folded": folded}) | Q(**{f"{prefix}_skeleton": skel}) | Q(**{f"{prefix}_fold_skeleton": fold_skel})
    )
    fold = fold_name(value) if prefix == "name" else fold_number(value)
    if fold:  # an empty fold would match every entry without a name or number
        match |= Q(**{f"{prefix}_fold": fold})
    return match


def state_imports_in_force() -> list[int]:
    """The ids of the state imports whose entries are in force, newest first: the latest
    import in force on its own (it removed nobody, or a second compliance person
    confirmed its removals) and every later one whose removals wait (or were declined):
    their additions count at once, the people they would drop stay listed."""
    found = statements.cursor()
    found.execute(_imports_in_force_sql())
    return [pk for (pk,) in found.fetchall()]


def entries_in_force(imports: list[int] | None = None):
    """The house's list (less the entries whose removal a second person confirmed) and
    the state's imports in force (`imports`, read by state_imports_in_force when None: a
    caller asking several questions of the lists in one check reads them once)."""
    taken_off = ExclusionRemovalDecision.objects.filter(removal__entry=OuterRef("pk"), outcome="confirmed")
    in_force = state_imports_in_force() if imports is None else imports
    return ExclusionEntry.objects.alias(taken_off=Exists(taken_off)).filter(
        Q(source="state", list_import__in=in_force) | Q(source="house", taken_off=False)
    )


def listed_entry(player: str, patron: Patron | None, *, also: list[Patron] | None = None,
                 imports: list[int] | None = None) -> ExclusionEntry | None:
    """The list entry that names this seat's id or patron, if any: the patron itself (the
    house's list), their legal name (with the date of birth when both carry one), their
    id number, or the seat's id read as a name or number; compared as written and folded.
    `also`: other patrons the id may name (it folds to two numbers): any listed refuses.
    One fixed statement whatever the number of patrons (_listed_sql)."""
    people = list({p.pk: p for p in [patron, *(also or [])] if p is not None}.values())
    texts = [printed(player or "")]
    for person in people:
        texts += [person.number, person.card]
    texts = [text for text in texts if text]
    names = [person_keys(person.legal_name) for person in people]
    name_folds = [fold_name(person.legal_name) for person in people]
    ids = [person for person in people if person.id_number]
    id_keys = [person_keys(person.id_number) for person in ids]
    id_folds = [fold_number(person.id_number) for person in ids]
    text_keys = [person_keys(text) for text in texts]
    text_name_folds = [fold_name(text) for text in texts]
    text_number_folds = [fold_number(text) for text in texts]
    params = [
        _in_force(imports),
        [person.pk for person in people],
        # The names, for the index (any person's) and then paired with their own date of birth.
        [k[0] for k in names], [k[1] for k in names], [k[2] for k in names], [f for f in name_folds if f],
        [k[0] for k in names], [k[1] for k in names], [k[2] for k in names], name_folds,
        [person.date_of_birth for person in people],
        # The id numbers: no pairing needed (any one's keys).
        [k[0] for k in id_keys], [k[1] for k in id_keys], [k[2] for k in id_keys], [f for f in id_folds if f],
        # The seat's id and the patrons' numbers and cards, each read as a name and as a number.
        [k[0] for k in text_keys], [k[1] for k in text_keys], [k[2] for k in text_keys],
        [f for f in text_name_folds if f],
        [k[0] for k in text_keys], [k[1] for k in text_keys], [k[2] for k in text_keys],
        [f for f in text_number_folds if f],
    ]
    found = statements.cursor()
    found.execute(_listed_sql(), params)
    first = found.fetchone()
    return statements.instance(ExclusionEntry, first) if first else None


def near_entry(player: str, patron: Patron | None, *, imports: list[int] | None = None) -> ExclusionEntry | None:
    """A list entry in force whose name is near the seat's id or the patron's legal name
    (patrons/folding.py `near_name`): never a number (a seat id with a digit is a number,
    and P-1001 is not P-1002), and never a person born on another day than the entry
    says. The candidates share a word of the folded name (an indexed table of a few
    thousand names at most); `near_name` decides."""
    texts = [printed(player or "")] if not any(ch.isdigit() for ch in player or "") else []
    if patron is not None and patron.legal_name:
        texts.append(patron.legal_name)
    words = {w for text in texts for w in fold_name(text).split() if len(w) > 1 and w not in SUFFIXES.values()}
    if not words:
        return None
    shares = Q()
    for word in words:
        shares |= Q(name_fold__contains=word)
    for entry in entries_in_force(imports).filter(shares).exclude(name="").order_by("id"):
        if patron is not None and patron.date_of_birth and entry.date_of_birth and patron.date_of_birth != entry.date_of_birth:
            continue
        if any(near_name(text, entry.name) for text in texts):
            return entry
    return None


def _confirmed_entry(player: str, patron: Patron | None, *, imports: list[int] | None = None) -> ExclusionEntry | None:
    """The entry a supervisor confirmed this seat id (folded) or this patron to be."""
    found = statements.cursor()
    found.execute(_confirmed_sql(), [_in_force(imports), fold_name(player), [patron.pk] if patron is not None else []])
    first = found.fetchone()
    return statements.instance(ExclusionEntry, first) if first else None


# The fixed statements of the seat's check (issue 37): each built once from the models and
# prepared once per connection (cardroom/statements.py), where the ORM compiled five
# queries for every seat taken. `entries_in_force`, `near_entry` and the pages keep the ORM.

def _in_force(imports: list[int] | None) -> list[int]:
    return state_imports_in_force() if imports is None else list(imports)


@cache
def _seat_keys_sql() -> str:
    """The patrons whose number or card the seat's id is, as typed or folded, each with
    whether it is as typed (case and look-alikes). Values: the three keys as typed (the
    flag), then the three again and the folded id (the match)."""
    t, c = statements.table, statements.column
    typed = f"(k.{c(PatronKey, 'folded')} = %s OR k.{c(PatronKey, 'skeleton')} = %s OR k.{c(PatronKey, 'fold_skeleton')} = %s)"
    return (
        f"SELECT {typed}, {statements.columns(Patron, 'p')} FROM {t(PatronKey)} k "
        f"JOIN {t(Patron)} p ON p.{c(Patron, 'id')} = k.{c(PatronKey, 'patron')} "
        f"WHERE ({typed[1:-1]} OR k.{c(PatronKey, 'fold')} = %s) AND k.{c(PatronKey, 'field')} IN ('number', 'card')"
    )


@cache
def _imports_in_force_sql() -> str:
    """state_imports_in_force: newest first, down to the first import that removed nobody
    or whose removals were confirmed (all of them when none did)."""
    t, c = statements.table, statements.column
    confirmed = (
        f"EXISTS (SELECT 1 FROM {t(ExclusionRemovalDecision)} d JOIN {t(ExclusionRemoval)} r "
        f"ON r.{c(ExclusionRemoval, 'id')} = d.{c(ExclusionRemovalDecision, 'removal')} "
        f"WHERE r.{c(ExclusionRemoval, 'list_import')} = i.{c(ExclusionImport, 'id')} "
        f"AND d.{c(ExclusionRemovalDecision, 'outcome')} = 'confirmed')"
    )
    return (
        f"WITH newest AS (SELECT i.{c(ExclusionImport, 'id')} AS id, "
        f"(COALESCE(i.{c(ExclusionImport, 'removed')}, 0) = 0 OR {confirmed}) AS stands_alone, "
        f"row_number() OVER (ORDER BY i.{c(ExclusionImport, 'imported_at')} DESC, i.{c(ExclusionImport, 'id')} DESC) AS n "
        f"FROM {t(ExclusionImport)} i) "
        "SELECT id FROM newest WHERE n <= COALESCE((SELECT min(n) FROM newest WHERE stands_alone), "
        "(SELECT max(n) FROM newest)) ORDER BY n"
    )


def _entry_in_force(alias: str) -> str:
    """`alias`, an entry, is in force (entries_in_force): a state entry of an import in force
    (the statement's first value, an array), or a house entry not taken off."""
    t, c = statements.table, statements.column
    taken_off = (
        f"EXISTS (SELECT 1 FROM {t(ExclusionRemovalDecision)} d JOIN {t(ExclusionRemoval)} r "
        f"ON r.{c(ExclusionRemoval, 'id')} = d.{c(ExclusionRemovalDecision, 'removal')} "
        f"WHERE r.{c(ExclusionRemoval, 'entry')} = {alias}.{c(ExclusionEntry, 'id')} "
        f"AND d.{c(ExclusionRemovalDecision, 'outcome')} = 'confirmed')"
    )
    return (
        f"(({alias}.{c(ExclusionEntry, 'source')} = 'state' AND {alias}.{c(ExclusionEntry, 'list_import')} = ANY(%s::bigint[])) "
        f"OR ({alias}.{c(ExclusionEntry, 'source')} = 'house' AND NOT {taken_off}))"
    )


def _keys_match(prefix: str, folds_too: bool = True) -> str:
    """The entry `e`'s `prefix` (name, number) keys equal any of three arrays (as written)
    and, with `folds_too`, its fold any of a fourth (the non-empty folds): _matches over a
    list of values."""
    c = lambda name: f"e.{statements.column(ExclusionEntry, name)}"  # noqa: E731
    match = (f"{c(prefix + '_folded')} = ANY(%s::text[]) OR {c(prefix + '_skeleton')} = ANY(%s::text[]) "
             f"OR {c(prefix + '_fold_skeleton')} = ANY(%s::text[])")
    return f"({match} OR {c(prefix + '_fold')} = ANY(%s::text[]))" if folds_too else f"({match})"


@cache
def _listed_sql() -> str:
    """listed_entry's question, the first entry in force (by id) named by any of: the
    patrons; a patron's legal name, with their date of birth when both carry one; a
    patron's id number; the seat's id or a patron's number or card read as a name or as a
    number. The names are asked twice: of any patron (so the indexes answer), then paired
    with that patron's date of birth."""
    c = lambda name: f"e.{statements.column(ExclusionEntry, name)}"  # noqa: E731
    paired = (
        "EXISTS (SELECT 1 FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::date[]) "
        "AS p(folded, skel, fold_skel, fold, born) "
        f"WHERE ({c('name_folded')} = p.folded OR {c('name_skeleton')} = p.skel OR {c('name_fold_skeleton')} = p.fold_skel "
        f"OR (p.fold <> '' AND {c('name_fold')} = p.fold)) "
        f"AND (p.born IS NULL OR {c('date_of_birth')} IS NULL OR {c('date_of_birth')} = p.born))"
    )
    return (
        f"SELECT {statements.columns(ExclusionEntry, 'e')} FROM {statements.table(ExclusionEntry)} e "
        f"WHERE {_entry_in_force('e')} AND ({c('patron')} = ANY(%s::bigint[]) "
        f"OR ({_keys_match('name')} AND {paired}) "
        f"OR {_keys_match('number')} "
        f"OR {_keys_match('name')} OR {_keys_match('number')}) "
        f"ORDER BY {c('id')} LIMIT 1"
    )


@cache
def _confirmed_sql() -> str:
    """_confirmed_entry's question: the entry in force of the first confirmed review of this
    seat id (folded) or this patron."""
    t, c = statements.table, statements.column
    return (
        f"SELECT {statements.columns(ExclusionEntry, 'e')} FROM {t(ExclusionReviewDecision)} d "
        f"JOIN {t(ExclusionReview)} r ON r.{c(ExclusionReview, 'id')} = d.{c(ExclusionReviewDecision, 'review')} "
        f"JOIN {t(ExclusionEntry)} e ON e.{c(ExclusionEntry, 'id')} = r.{c(ExclusionReview, 'entry')} "
        f"WHERE {_entry_in_force('e')} AND d.{c(ExclusionReviewDecision, 'decision')} = 'confirmed' "
        f"AND (r.{c(ExclusionReview, 'player_fold')} = %s OR r.{c(ExclusionReview, 'patron')} = ANY(%s::bigint[])) "
        f"ORDER BY d.{c(ExclusionReviewDecision, 'id')} LIMIT 1"
    )


def exclusion_check(*, player: str, table_id: int, action: str, actor: Actor, amount: int = 0,
                    seat: SeatIdentity | None = None) -> None:
    """Refuse (`self_excluded`) a listed patron, named exactly (as written or folded) or
    confirmed by a supervisor to be the listed person; the hit is recorded for the floor
    and compliance. Hold (`check_required`) a name near a listed one, unless a
    supervisor cleared that seat id at this table for that entry: the review row goes to
    the floor. Called inside the caller's transaction: the rows stay with the refusal.
    `seat`: the caller's SeatIdentity of `player`, when it has one (one query fewer)."""
    seat = seat or SeatIdentity(player)
    patron = seat.patron
    imports = state_imports_in_force()  # read once for the three questions below
    entry = (listed_entry(player, patron, also=seat.candidates, imports=imports)
             or _confirmed_entry(player, patron, imports=imports))
    if entry is not None:
        now = timezone.now()  # read only for a row written: a command's clock is its own
        hit = ExclusionHit(
            action=action, entry=entry, patron=patron, player=printed(player)[:64], table_id=table_id, amount=amount,
            employee=actor.name, created_at=now, gaming_day=calendar().gaming_day(now),
        )
        hit.seal()
        hit.save(force_insert=True)
        raise PatronError("self_excluded", DISCREET_MESSAGE)
    near = near_entry(player, patron, imports=imports)
    if near is None:
        return
    typed = printed(player)[:64]
    reviews = ExclusionReview.objects.filter(table_id=table_id, player=typed, entry=near)
    if reviews.filter(decision__decision="cleared").exists():
        return  # a supervisor looked: not the listed person (this seat id, this table, this entry)
    if not reviews.filter(decision__isnull=True, action=action).exists():
        now = timezone.now()
        ExclusionReview.objects.create(
            action=action, entry=near, patron=patron, player=typed, player_fold=fold_name(player)[:400],
            table_id=table_id, amount=amount, employee=actor.name, employee_user_id=actor.user_id,
            created_at=now, gaming_day=calendar().gaming_day(now),
        )
    # Discreet: the answer reaches a tablet in the patron's sight; the floor has the reason.
    raise PatronError("check_required", DISCREET_MESSAGE)


REVIEW_DECISIONS = ("cleared", "confirmed")


def exclusion_review_decide(*, actor: Actor, review_id: int, decision: str, reason: str) -> ExclusionReviewDecision:
    """A supervisor decides a held near match, with a reason: `cleared` (not the listed
    person: the dealer resends and that seat id passes that entry at that table) or
    `confirmed` (the listed person: refused `self_excluded` from then on). Not the
    employee who sent the held command: two people, two user ids. Audited."""
    if actor.role != "supervisor" or actor.user_id is None:
        raise PatronError("not_authorized", "a floor supervisor decides a held check")
    if decision not in REVIEW_DECISIONS:
        raise PatronError("invalid_command", "the decision is 'cleared' or 'confirmed'")
    reason = printed(reason if isinstance(reason, str) else "")
    refuse_unstorable([("reason", reason)], "invalid_command")
    if not 3 <= len(reason) <= 200:
        raise PatronError("invalid_command", "give the reason in 3 to 200 characters")
    review = ExclusionReview.objects.filter(pk=review_id).first()
    if review is None:
        raise PatronError("unknown_review", "no such held check")
    if review.employee_user_id == actor.user_id or review.employee == actor.name:
        raise PatronError("second_person_required", "the person who sent the held command does not decide it")
    with transaction.atomic():
        # One decision per review: the unique review column answers two supervisors at once.
        try:
            with transaction.atomic():
                decided = ExclusionReviewDecision.objects.create(
                    review=review, decision=decision, reason=reason, decided_by=actor.name,
                    decided_by_user_id=actor.user_id, decided_at=timezone.now(),
                )
        except IntegrityError:
            raise PatronError("wrong_state", "this check is decided already") from None
        audit_record(
            actor=actor, action="self_exclusion", table_id=review.table_id,
            summary=f"held check {review.pk} ({review.player!r} at table {review.table_id}) {decision}: {reason}",
            detail={"review": review.pk, "decision": decision, "entry": review.entry_id, "reason": reason},
        )
    return decided


def tppp_check(*, player: str, tppp) -> None:
    """A patron linked to a TPPP company sits as a TPPP only under that company and
    badge (`tppp_mismatch`); compared as ids are (case and look-alikes). A TPPP the house
    has no patron record of, or a patron with no link, is left to the engine's checks."""
    if not isinstance(tppp, dict):
        return
    patron, _ = patron_of_player(player)
    if patron is None or not patron.tppp_badge:
        return
    for field, recorded in (("badge", patron.tppp_badge), ("company", patron.tppp_company)):
        sent = tppp.get(field)
        if not isinstance(sent, str) or person_keys(printed(sent))[0] != person_keys(recorded)[0]:
            raise PatronError("tppp_mismatch", f"patron {patron.number} is linked to a TPPP {field} other than {sent!r}")


STATE_LIST_COLUMNS = ("name", "date_of_birth", "id_number", "state_ref")


def state_list_import(*, actor: Actor, filename: str, content: bytes) -> ExclusionImport:
    """The state's list from a CSV the compliance officer uploads: a header with `name`
    and any of `date_of_birth` (YYYY-MM-DD), `id_number`, `state_ref`. All or nothing: a
    bad row refuses the file (`invalid_list`, naming the row); a file that lists nobody is
    refused `empty_list`. An upload that removes nobody from the list in force replaces
    it at once; one that removes anyone adds its new people at once and files its
    removals (an ExclusionRemoval) for a second compliance person to confirm: until then
    the people it drops stay listed. Earlier imports stay on record."""
    if actor.role != "compliance" and not actor.is_system:
        raise PatronError("not_authorized", "the compliance officer imports the state's list")
    if len(content) > MAX_STATE_LIST_BYTES:
        raise PatronError("invalid_list", f"the file is over {MAX_STATE_LIST_BYTES} bytes")
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PatronError("invalid_list", "the file is not UTF-8 text") from None
    refuse_unstorable([("the file", text), ("the file's name", filename)], "invalid_list")
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if "name" not in header or not set(header) <= set(STATE_LIST_COLUMNS):
        raise PatronError("invalid_list", f"the header must hold 'name' and only {', '.join(STATE_LIST_COLUMNS)}")
    now, entries = timezone.now(), []
    for line, raw in enumerate(reader, start=2):
        if None in raw:  # more cells than the header names
            raise PatronError("invalid_list", f"line {line}: more cells than the header has")
        row = {(k or "").strip(): printed(v or "") for k, v in raw.items()}
        if not row.get("name"):
            raise PatronError("invalid_list", f"line {line}: a name is required")
        try:
            born = date.fromisoformat(row["date_of_birth"]) if row.get("date_of_birth") else None
        except ValueError:
            raise PatronError("invalid_list", f"line {line}: date_of_birth is written YYYY-MM-DD") from None
        entry = ExclusionEntry(
            source="state", name=row["name"], date_of_birth=born, id_number=row.get("id_number", ""),
            state_ref=row.get("state_ref", ""), added_at=now, added_by=actor.name,
            **_entry_keys("name", row["name"]), **_entry_keys("number", row.get("id_number", "")),
        )
        # The columns' own lengths; a name is named before its comparison forms.
        refuse_unfit(entry, "invalid_list", f"line {line}: ")
        entries.append(entry)
    if not entries:
        # A header alone would empty the state's list in force: never what the state sends.
        raise PatronError("empty_list", "the file lists nobody: the list in force is kept")
    with transaction.atomic():
        lists_lock()
        now = timezone.now()  # under the lock: the imports' order is the order of their diffs
        for entry in entries:
            entry.added_at = now
        base = state_imports_in_force()
        before = {listed_person(entry): entry for entry in ExclusionEntry.objects.filter(source="state", list_import__in=base)}
        listed = {listed_person(entry): entry for entry in entries}
        added = [listed[k] for k in listed.keys() - before.keys()]
        removed = [before[k] for k in before.keys() - listed.keys()]
        batch = ExclusionImport(
            filename=filename[:200], sha256=hashlib.sha256(content).hexdigest(), rows=len(entries),
            entries_sha256=entries_digest(entries), imported_by=actor.name, imported_at=now,
            base=base, added=len(added), removed=len(removed),
            diff={"added": _shown(added), "removed": _shown(removed)},
        )
        batch.seal()  # its count and digest of the list in force cannot be changed unseen
        batch.save(force_insert=True)
        for entry in entries:
            entry.list_import = batch
        ExclusionEntry.objects.bulk_create(entries)
        audit_record(actor=actor, action="self_exclusion", summary=f"state list imported: {len(entries)} people",
                     detail={"import": batch.pk, "sha256": batch.sha256, "added": batch.added, "removed": batch.removed})
        if batch.removed:
            _removal_file(actor=actor, people=batch.removed, list_import=batch,
                          summary=f"state list import {batch.pk} takes {batch.removed} people off the list")
    return batch


# --- changes to the lists: additions at once, removals under two people -----------------

LISTS_LOCK_KEY = "cardroom.self_exclusion_lists"


def lists_lock() -> None:
    """One change of the lists at a time (transaction-scoped): an upload's diff is against
    the list in force as it stands, and a removal is decided once."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [LISTS_LOCK_KEY])


def listed_person(entry: ExclusionEntry) -> tuple:
    """Who a state-list row names, folded as people write (patrons/folding.py): the same
    person spelled "Smith, John" in one list and "JOHN SMITH" in the next is no change."""
    return (fold_name(entry.name), entry.date_of_birth, fold_number(entry.id_number), fold_number(entry.state_ref))


DIFF_SHOWN = 200  # people of each side of an upload's diff kept for its page


def _shown(entries) -> list[dict]:
    """The first DIFF_SHOWN of these entries by name, as the diff page lists them."""
    first = sorted(entries, key=lambda e: (e.name, e.state_ref, e.id_number))[:DIFF_SHOWN]
    return [{"name": e.name, "date_of_birth": e.date_of_birth.isoformat() if e.date_of_birth else "",
             "id_number": e.id_number, "state_ref": e.state_ref} for e in first]


def import_diff(batch: ExclusionImport) -> dict | None:
    """Who an upload added and removed against the list in force when it was uploaded
    (its `base`): the counts and the first DIFF_SHOWN of each, by name, kept at upload.
    None for an import made before uploads kept their diff."""
    if batch.diff is None:
        return None
    return {**batch.diff, "added_count": batch.added, "removed_count": batch.removed, "limit": DIFF_SHOWN}


def _removal_file(*, actor: Actor, people: int, summary: str, list_import=None, entry=None, reason: str = ""):
    removal = ExclusionRemoval(
        list_import=list_import, entry=entry, people=people, reason=reason, requested_by=actor.name,
        requested_by_user=actor.user_id, requested_at=timezone.now(),
    )
    removal.seal()
    removal.save(force_insert=True)
    audit_record(actor=actor, action="list_removal", summary=f"{summary}: waits for a second compliance person",
                 detail={"removal": removal.pk, "requested": people})
    return removal


def removal_status(removal: ExclusionRemoval) -> str:
    """`waiting`, `confirmed`, `declined`, or `superseded` (a state upload whose removals
    a later list in force made moot)."""
    decision = ExclusionRemovalDecision.objects.filter(removal=removal).first()
    if decision is not None:
        return decision.outcome
    if removal.list_import_id is not None and removal.list_import_id not in state_imports_in_force():
        return "superseded"
    return "waiting"


def house_list_remove_request(*, actor: Actor, entry_id: int, reason: str) -> ExclusionRemoval:
    """Compliance asks to take a patron off the house's list; they stay listed until
    another compliance person confirms (removal_decide)."""
    if actor.role != "compliance":
        raise PatronError("not_authorized", "compliance asks for a removal from the house's list")
    reason = printed(reason or "")
    refuse_unstorable([("the reason", reason)], "invalid_command")
    if not reason:
        raise PatronError("invalid_command", "say why the patron comes off the house's list")
    with transaction.atomic():
        lists_lock()
        entry = entries_in_force().filter(source="house", pk=entry_id).select_related("patron").first()
        if entry is None:
            raise PatronError("unknown_entry", "no such entry on the house's list in force")
        if ExclusionRemoval.objects.filter(entry=entry, decision__isnull=True).exists():
            raise PatronError("wrong_state", "a removal of this entry already waits for a second person")
        return _removal_file(actor=actor, people=1, entry=entry, reason=reason[:200],
                             summary=f"patron {entry.patron.number if entry.patron else entry.name} off the house's list")


def removal_decide(*, actor: Actor, removal_id: int, outcome: str, reason: str = "") -> ExclusionRemovalDecision:
    """A compliance person confirms (the people come off the list) or declines (they stay)
    a removal. The requester may withdraw (decline) their own; confirming takes another
    person: another user id, not another session of the same login."""
    if actor.role != "compliance":
        raise PatronError("not_authorized", "compliance decides a removal from a list")
    if outcome not in ("confirmed", "declined"):
        raise PatronError("invalid_command", "a removal is confirmed or declined")
    reason = printed(reason or "")
    refuse_unstorable([("the reason", reason)], "invalid_command")
    with transaction.atomic():
        lists_lock()
        removal = ExclusionRemoval.objects.filter(pk=removal_id).first()
        if removal is None:
            raise PatronError("unknown_entry", "no such removal")
        status = removal_status(removal)
        if status != "waiting":
            raise PatronError("wrong_state", f"this removal is {status}")
        if outcome == "confirmed" and (actor.user_id is None or actor.user_id == removal.requested_by_user):
            raise PatronError("second_person_required", "a compliance person other than the requester confirms a removal")
        decision = ExclusionRemovalDecision(
            removal=removal, outcome=outcome, reason=reason[:200], decided_by=actor.name,
            decided_by_user=actor.user_id, decided_at=timezone.now(),
        )
        decision.seal()
        decision.save(force_insert=True)
        audit_record(actor=actor, action="list_removal",
                     summary=f"removal {removal.pk} ({removal.people} people) {outcome}, asked by {removal.requested_by}",
                     detail={"removal": removal.pk, "decision": decision.pk, "outcome": outcome})
    return decision


def house_list_add(*, actor: Actor, patron_id: int, reason: str = "") -> ExclusionEntry:
    """The house's own list: a patron excluded by the house (or at their own request)."""
    if actor.role not in IDENTIFICATION_ROLES and not actor.is_system:
        raise PatronError("not_authorized", "compliance or a supervisor adds to the house's list")
    patron = Patron.objects.filter(pk=patron_id).first()
    if patron is None:
        raise PatronError("unknown_patron", "no such patron")
    reason = printed(reason or "")
    refuse_unstorable([("the reason", reason)], "invalid_command")
    with transaction.atomic():
        lists_lock()
        if entries_in_force().filter(source="house", patron=patron).exists():
            raise PatronError("already_listed", f"patron {patron.number} is on the house's list already")
        entry = ExclusionEntry.objects.create(
            source="house", patron=patron, name=patron.legal_name, date_of_birth=patron.date_of_birth,
            id_number=patron.id_number, reason=reason[:200], added_at=timezone.now(), added_by=actor.name,
            **_entry_keys("name", patron.legal_name), **_entry_keys("number", patron.id_number),
        )
        audit_record(actor=actor, action="self_exclusion", summary=f"patron {patron.number} on the house's list",
                     detail={"entry": entry.pk})
    return entry

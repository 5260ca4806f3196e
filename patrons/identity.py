"""Who a patron is: records, lookup, the seat's id, identification reads and the
self-exclusion check. Names and numbers compare as rounds/engine/persons.py compares
player ids (case, and UTS #39 look-alikes), through their stored `person_keys`."""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from cardroom import wire
from cardroom.access import Actor
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from rounds.engine.errors import CodedError
from rounds.engine.persons import person_keys, printed

from .folding import fold_name, fold_number
from .models import (
    ExclusionEntry,
    ExclusionHit,
    ExclusionImport,
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


class PatronError(CodedError):
    codes = frozenset(
        {
            "invalid_patron", "duplicate_patron", "unknown_patron", "not_authorized", "invalid_description",
            "already_linked", "invalid_list", "invalid_amount", "invalid_command", "self_excluded", "tppp_mismatch",
            # A progressive award's cash payout (patrons/cash.py): the award it names is not
            # at that table; its confirmer may not record it; the log's head is gone.
            "unknown_award", "second_person_required", "wrong_state",
            # One person, one record (issue 34): the same legal name and date of birth as
            # another record, sent again with `confirm` when it is another person; a record
            # already merged into another, or a merge request that is not waiting.
            "possible_duplicate_patron", "already_merged", "unknown_merge",
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
    The folds are computed here over candidates SQL narrows (an ID number at all; the
    same date of birth): patrons are thousands, and this runs once per record written."""
    others = Patron.objects.exclude(pk=patron.pk) if patron.pk else Patron.objects.all()
    number = fold_number(patron.id_number or "")
    if number:
        ids = others.exclude(id_number="").values_list("number", "id_type", "id_number", "id_issuer")
        for other_number, id_type, id_number, id_issuer in ids.iterator(chunk_size=2000):
            if (fold_number(id_number) == number and _same_text(id_type, patron.id_type)
                    and _same_text(id_issuer, patron.id_issuer)):
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
            rows.append(PatronKey(patron=patron, field=field, folded=folded, skeleton=skel, fold_skeleton=fold_skel))
    for row in rows:
        # A name within its column may still grow when folded (ß is ss) past the key's.
        refuse_unfit(row, "invalid_patron", f"{row.field} compared as ")
    PatronKey.objects.bulk_create(rows)


def _matching_keys(text: str, *, fields):
    folded, skel, fold_skel = person_keys(text)
    return PatronKey.objects.select_related("patron").filter(
        Q(folded=folded) | Q(skeleton=skel) | Q(fold_skeleton=fold_skel), field__in=fields
    )


def patron_lookup(query: str, *, limit: int = 10) -> list[dict]:
    """Patrons whose card, number or name is the query (case and look-alikes caught):
    what a dealer sees of each (display name and number; no identification)."""
    query = printed(query or "")
    if not query:
        return []
    found = {}
    for key in _matching_keys(query, fields=("number", "card", "display_name", "legal_name"))[:50]:
        found.setdefault(key.patron.pk, key.patron)
    return [p.public() for p in list(found.values())[:limit]]


def patron_of_player(player: str) -> tuple[Patron | None, UnidentifiedPatron | None]:
    """The patron a seat's id names: a patron number or card (case and look-alikes), or an
    unidentified patron's "U-<id>" (and the patron it was linked to, if it was)."""
    player = printed(player or "")
    if player.upper().startswith(UnidentifiedPatron.PREFIX) and player[2:].isdigit():
        unidentified = UnidentifiedPatron.objects.filter(pk=int(player[2:])).first()
        if unidentified is not None:
            link = PatronLink.objects.select_related("patron").filter(unidentified=unidentified).first()
            return (link.patron if link else None), unidentified
    key = _matching_keys(player, fields=("number", "card")).first() if player else None
    return (key.patron if key else None), None


def governing_id(player: str) -> str:
    """The id a person is seated under: an unidentified patron's U-id once linked is the
    patron's number, so the patron governs from then on (rotation, offers and limits are
    the engine's, kept per id: one id for one person). Any other id is kept as given."""
    patron, unidentified = patron_of_player(player)
    return patron.number if unidentified is not None and patron is not None else player


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
    return {f"{prefix}_folded": folded, f"{prefix}_skeleton": skel, f"{prefix}_fold_skeleton": fold_skel}


def _matches(prefix: str, value: str) -> Q:
    folded, skel, fold_skel = person_keys(value)
    return (
        Q(**{f"{prefix}_folded": folded}) | Q(**{f"{prefix}_skeleton": skel}) | Q(**{f"{prefix}_fold_skeleton": fold_skel})
    )


def entries_in_force():
    """The house's list and the latest state import."""
    latest = ExclusionImport.objects.order_by("-imported_at", "-id").first()
    in_force = Q(source="house")
    if latest is not None:
        in_force |= Q(source="state", list_import=latest)
    return ExclusionEntry.objects.filter(in_force)


def listed_entry(player: str, patron: Patron | None) -> ExclusionEntry | None:
    """The list entry that names this seat's id or patron, if any: the patron itself (the
    house's list), their legal name (with the date of birth when both carry one), their
    id number, or the seat's id read as a name or number."""
    match = Q()
    texts = [printed(player or "")]
    if patron is not None:
        match |= Q(patron=patron)
        name = _matches("name", patron.legal_name)
        if patron.date_of_birth is not None:
            name &= Q(date_of_birth__isnull=True) | Q(date_of_birth=patron.date_of_birth)
        match |= name
        if patron.id_number:
            match |= _matches("number", patron.id_number)
        texts += [patron.number, patron.card]
    for text in filter(None, texts):
        match |= _matches("name", text) | _matches("number", text)
    return entries_in_force().filter(match).order_by("id").first()


def exclusion_check(*, player: str, table_id: int, action: str, actor: Actor, amount: int = 0) -> None:
    """Refuse (`self_excluded`) a listed patron; the hit is recorded for the floor and
    compliance. Called inside the caller's transaction: the hit stays with its refusal."""
    patron, _ = patron_of_player(player)
    entry = listed_entry(player, patron)
    if entry is None:
        return
    now = timezone.now()
    hit = ExclusionHit(
        action=action, entry=entry, patron=patron, player=printed(player)[:64], table_id=table_id, amount=amount,
        employee=actor.name, created_at=now, gaming_day=calendar().gaming_day(now),
    )
    hit.seal()
    hit.save(force_insert=True)
    raise PatronError("self_excluded", "this patron is on a self-exclusion list: the floor has been alerted")


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
    bad row refuses the file (`invalid_list`, naming the row). The new list replaces the
    previous one in force; earlier imports stay on record."""
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
    with transaction.atomic():
        batch = ExclusionImport(
            filename=filename[:200], sha256=hashlib.sha256(content).hexdigest(), rows=len(entries),
            entries_sha256=entries_digest(entries), imported_by=actor.name, imported_at=now,
        )
        batch.seal()  # its count and digest of the list in force cannot be changed unseen
        batch.save(force_insert=True)
        for entry in entries:
            entry.list_import = batch
        ExclusionEntry.objects.bulk_create(entries)
        audit_record(actor=actor, action="self_exclusion", summary=f"state list imported: {len(entries)} people",
                     detail={"import": batch.pk, "sha256": batch.sha256})
    return batch


def house_list_add(*, actor: Actor, patron_id: int, reason: str = "") -> ExclusionEntry:
    """The house's own list: a patron excluded by the house (or at their own request)."""
    if actor.role not in IDENTIFICATION_ROLES and not actor.is_system:
        raise PatronError("not_authorized", "compliance or a supervisor adds to the house's list")
    patron = Patron.objects.filter(pk=patron_id).first()
    if patron is None:
        raise PatronError("unknown_patron", "no such patron")
    with transaction.atomic():
        entry = ExclusionEntry.objects.create(
            source="house", patron=patron, name=patron.legal_name, date_of_birth=patron.date_of_birth,
            id_number=patron.id_number, reason=reason[:200], added_at=timezone.now(), added_by=actor.name,
            **_entry_keys("name", patron.legal_name), **_entry_keys("number", patron.id_number),
        )
        audit_record(actor=actor, action="self_exclusion", summary=f"patron {patron.number} on the house's list",
                     detail={"entry": entry.pk})
    return entry

"""Patrons, their cash at the tables, and the self-exclusion lists (docs/patrons.md).

Every table here but Patron and CashLog (the cash log's head) is append-only (a database trigger refuses UPDATE and DELETE,
cardroom/ledger.py): a link, a transaction, an alert, an import, a hit is a new row.
A patron's record is the one row the house keeps current (an address changes).
"""

import hashlib
from datetime import UTC

from django.conf import settings
from django.db import models
from django.db.models import Q

from cardroom.hashchain import GENESIS, canonical
from cardroom.models import ChainedRow, SealedRow, SignedCheckpoint


class Patron(models.Model):
    """A person the house knows. `number` is the house's patron number, `card` the club
    card's; a dealer sees only `display_name` and `number`. Every other field is
    identification: compliance and supervisors read it, and each read is audited
    (patrons/identity.py `identification_read`)."""

    number = models.CharField(max_length=32, unique=True)
    card = models.CharField(max_length=32, blank=True)
    display_name = models.CharField(max_length=64)
    # Identification (31 CFR 1021.311-312 asks for these on a CTR).
    legal_name = models.CharField(max_length=150)
    date_of_birth = models.DateField(null=True, blank=True)
    id_type = models.CharField(max_length=32, blank=True)
    id_number = models.CharField(max_length=64, blank=True)
    id_issuer = models.CharField(max_length=64, blank=True)
    address = models.CharField(max_length=200, blank=True)
    # A third-party proposition player's link (issue 27): the TPPP company they play for
    # and their badge number. Seated as a TPPP, they must sit under this badge and company.
    tppp_company = models.CharField(max_length=150, blank=True)
    tppp_badge = models.CharField(max_length=32, blank=True)
    created_at = models.DateTimeField()
    created_by = models.CharField(max_length=150)

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"{self.number} {self.display_name}"

    def public(self) -> dict:
        """What anyone at the table may see."""
        return {"patron": self.pk, "number": self.number, "display_name": self.display_name}


class PatronKey(models.Model):
    """The comparison forms (rounds/engine/persons.py `person_keys`) of each name and
    number of a patron, so a lookup by card, number or name catches case and look-alike
    spellings with an indexed equality. Rewritten when the patron's record is.

    `fold` is the form people write it in (patrons/folding.py: `fold_number` for the
    number, card and id number, `fold_name` for the names): "P_1001" and "P-1001", "Smith,
    Jóhn" and "John Smith" are one key, so matching a patron is an indexed equality."""

    FIELDS = [(f, f) for f in ("number", "card", "display_name", "legal_name", "id_number")]

    patron = models.ForeignKey(Patron, on_delete=models.CASCADE, related_name="keys")
    field = models.CharField(max_length=16, choices=FIELDS)
    folded = models.CharField(max_length=200, db_index=True)
    skeleton = models.CharField(max_length=400, db_index=True)
    fold_skeleton = models.CharField(max_length=400, db_index=True)
    # As people write it (patrons/folding.py): a name's words folded and sorted ("l maria"),
    # a number's or card's letters and digits ("p1001"). The tablet's lookup matches a
    # number or card on it exactly and a name by the start of its words (a LIKE).
    fold = models.CharField(max_length=400, default="", db_index=True)

    NUMBER_FIELDS = ("number", "card", "id_number")


class UnidentifiedPatron(models.Model):
    """A patron seated or paid before they are identified (the MTL practice): a short
    description ("male, 40s, red cap") and the table. Seated under `player_id` ("U-<id>");
    identified later by a PatronLink."""

    description = models.CharField(max_length=200)
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()
    gaming_day = models.DateField()
    created_by = models.CharField(max_length=150)

    PREFIX = "U-"

    @property
    def player_id(self) -> str:
        return f"{self.PREFIX}{self.pk}"


class PatronLink(models.Model):
    """An unidentified patron identified: from then on the patron governs, and their
    earlier transactions count toward the patron's totals. One link per unidentified
    patron (a wrong link is a compliance matter, not an edit)."""

    unidentified = models.OneToOneField(UnidentifiedPatron, on_delete=models.PROTECT, related_name="link")
    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, related_name="links")
    linked_at = models.DateTimeField()
    linked_by = models.CharField(max_length=150)
    reason = models.CharField(max_length=200, blank=True)


class PatronMergeRequest(models.Model):
    """Compliance found two records to be one person and asks that `merged` be merged
    into `survivor`, with the reason. Nothing follows until a second compliance person,
    another user, approves it (a PatronMerge row; patrons/identity.py `merge_approve`)."""

    survivor = models.ForeignKey(Patron, on_delete=models.PROTECT, related_name="+")
    merged = models.ForeignKey(Patron, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=200)
    requested_by = models.CharField(max_length=150)
    requester_user_id = models.BigIntegerField()
    requested_at = models.DateTimeField()

    class Meta:
        ordering = ["-requested_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(survivor=models.F("merged")), name="merge_request_two_records"),
        ]


class PatronMerge(models.Model):
    """Two records of one person, merged: from `approved_at` on, cash totals, alerts, the
    CTR, histories and exports count `merged` (and everything already merged into it) as
    `survivor`'s person (patrons/identity.py `person_of`). Cash rows keep the record they
    were written under: their patron is in the chain's hash. A record is merged once; two
    people by user id, enforced by the database as well as by the code."""

    request = models.OneToOneField(PatronMergeRequest, on_delete=models.PROTECT, related_name="merge")
    survivor = models.ForeignKey(Patron, on_delete=models.PROTECT, related_name="+")
    merged = models.OneToOneField(Patron, on_delete=models.PROTECT, related_name="merged_into")
    reason = models.CharField(max_length=200)
    requested_by = models.CharField(max_length=150)
    requester_user_id = models.BigIntegerField()
    requested_at = models.DateTimeField()
    approved_by = models.CharField(max_length=150)
    approver_user_id = models.BigIntegerField()
    approved_at = models.DateTimeField()

    class Meta:
        ordering = ["approved_at", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(survivor=models.F("merged")), name="merge_two_records"),
            models.CheckConstraint(
                condition=~Q(requester_user_id=models.F("approver_user_id")), name="merge_two_people"
            ),
        ]


class CashTransaction(ChainedRow):
    """Cash at a table: a chip purchase for cash (in) or a cash payout such as a jackpot
    award (out). One hash chain for the whole house (cash adds up across tables), written
    under one advisory lock (patrons/cash.py)."""

    KINDS = [("chip_purchase", "chip_purchase"), ("cash_payout", "cash_payout")]
    DIRECTIONS = {"chip_purchase": "in", "cash_payout": "out"}

    seq = models.PositiveBigIntegerField(unique=True, help_text="position in the cash chain")
    kind = models.CharField(max_length=16, choices=KINDS)
    direction = models.CharField(max_length=3)
    amount = models.PositiveBigIntegerField(help_text="cents")
    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, null=True, blank=True, related_name="cash")
    unidentified = models.ForeignKey(
        UnidentifiedPatron, on_delete=models.PROTECT, null=True, blank=True, related_name="cash"
    )
    player = models.CharField(max_length=64, help_text="the patron number or U-id, as seated")
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    employee = models.CharField(max_length=150)
    employee_role = models.CharField(max_length=16)
    note = models.CharField(max_length=200, blank=True)
    mtl = models.BooleanField(help_text="at or over the MTL threshold when recorded")
    created_at = models.DateTimeField()
    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    # Optional chained fields (hashed only when set, so the rows written before them keep
    # their hashes): the cash row this one reverses, and the progressive award (round and
    # seat) a payout pays. A payout naming an award is recorded by someone other than the
    # supervisor who confirmed it (patrons/cash.py, docs/controls.md).
    reverses = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    award_round = models.ForeignKey("rounds.Round", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    award_seat = models.PositiveSmallIntegerField(null=True, blank=True)

    OPTIONAL_CHAINED = ("reverses", "award_round", "award_seat")
    # The tablet's own id of the entry (as a command's `id`): a retransmission with the same
    # id at the same table is answered with this row, never a second one. A transport
    # fact, not a cash fact: not chained (the row itself is append-only).
    client_id = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["seq"]
        indexes = [models.Index(fields=["gaming_day", "direction"], name="cash_day_direction")]
        constraints = [
            # A row is reversed at most once (patrons/cash.py also checks it under the lock).
            models.UniqueConstraint(fields=["reverses"], condition=Q(reverses__isnull=False), name="cash_reversed_once"),
            models.UniqueConstraint(
                fields=["table", "client_id"], condition=~Q(client_id=""), name="cash_client_id_once_per_table"
            ),
            models.CheckConstraint(
                condition=Q(patron__isnull=True, unidentified__isnull=False)
                | Q(patron__isnull=False, unidentified__isnull=True),
                name="cash_has_one_patron",
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="cash_amount_positive"),
            models.CheckConstraint(
                condition=Q(award_round__isnull=True, award_seat__isnull=True)
                | Q(award_round__isnull=False, award_seat__isnull=False, kind="cash_payout"),
                name="cash_award_is_a_payout_of_a_seat",
            ),
            # A progressive award is cashed out once: a second payout of the same round's
            # seat while an earlier one stands (not reversed) is refused (patrons.cash
            # `award_already_paid`); the database's word is the trigger `cash_award_paid_once`
            # (patrons/migrations/0014_award_paid_once_unless_reversed.py): a unique index
            # cannot see a reversal, which is another row.
        ]

    def chain_content(self) -> dict:
        # No identification: the chain, and its export, name the patron by number only.
        content = {
            "seq": self.seq,
            "kind": self.kind,
            "direction": self.direction,
            "amount": self.amount,
            "patron": self.patron_id,
            "unidentified": self.unidentified_id,
            "player": self.player,
            "table": self.table_id,
            "employee": self.employee,
            "employee_role": self.employee_role,
            "note": self.note,
            "mtl": self.mtl,
            "created_at": self.created_at.astimezone(UTC).isoformat(),
            "gaming_day": self.gaming_day.isoformat(),
            "shift": self.shift,
        }
        # As CollectionEntry.box: a field is chained only when set, so every row written
        # before these fields existed hashes as it always did.
        for name, value in (("reverses", self.reverses_id), ("award_round", self.award_round_id),
                            ("award_seat", self.award_seat)):
            if value is not None:
                content[name] = value
        return content


# What a cash row counts for in a total, in SQL (patrons/cash.py `counted_total` is the
# ORM's): an original its amount, a reversal minus it. `{t}` is the row's alias.
COUNTED_SQL = "CASE WHEN {t}.reverses_id IS NULL THEN {t}.amount ELSE -{t}.amount END"


class CashReversalRequest(models.Model):
    """A request to reverse a cash row (a mistaken or doubled entry): by the table's
    dealer, a supervisor or compliance, with its reason. Decided by another person
    (CashReversalDecision); the reversal itself is a new cash row naming the original in
    `reverses`, never an edit of it (patrons/cash.py, docs/controls.md)."""

    original = models.ForeignKey(CashTransaction, on_delete=models.PROTECT, related_name="reversal_requests")
    reason = models.CharField(max_length=200)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_name = models.CharField(max_length=150)
    requested_role = models.CharField(max_length=16)
    requested_at = models.DateTimeField()

    class Meta:
        ordering = ["-requested_at", "-id"]


class CashReversalDecision(models.Model):
    """The second person's decision on a reversal request: approved (the reversal row it
    wrote) or declined, with who decided. One per request; neither is ever edited."""

    request = models.OneToOneField(CashReversalRequest, on_delete=models.PROTECT, related_name="decision")
    approved = models.BooleanField()
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_name = models.CharField(max_length=150)
    decided_role = models.CharField(max_length=16)
    note = models.CharField(max_length=200, blank=True)
    reversal = models.OneToOneField(CashTransaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    decided_at = models.DateTimeField()


class CashLog(models.Model):
    """The cash log's head: where its one chain stands (the last seq and row hash), as a
    table row holds the head of its event chain. One row (pk 1), updated with every
    transaction under the cash lock (patrons/cash.py); never deleted. The day of its
    last transaction (`chain_day`) tells the first transaction of a later gaming day to
    sign where the log stood at the end of the earlier one (cardroom/checkpoints.py)."""

    seq = models.PositiveBigIntegerField(default=0)
    head = models.CharField(max_length=64, default=GENESIS)
    chain_day = models.DateField(null=True, blank=True)

    @property
    def transactions(self):
        """The chain's rows (cardroom.checkpoints reaches a chain through its owner)."""
        return CashTransaction.objects


class CashCheckpoint(SignedCheckpoint):
    """A signed checkpoint of the cash log (cardroom.models.SignedCheckpoint), as
    tables.ChainCheckpoint anchors a table's chains: `day_end` (the first transaction of a
    later gaming day) or `on_demand` (verify_logs --checkpoint, a cash export)."""

    KINDS = [("day_end", "day_end"), ("on_demand", "on_demand")]

    ledger = models.ForeignKey(CashLog, on_delete=models.PROTECT, related_name="checkpoints")
    kind = models.CharField(max_length=12, choices=KINDS)

    class Meta:
        ordering = ["last_seq", "id"]

    @classmethod
    def for_chain(cls, owner, *, log: str, kind: str) -> "CashCheckpoint":
        return cls(ledger=owner, kind=kind)

    def chain_identity(self) -> dict:
        return {"log": "cash", "kind": self.kind}


class CashAlert(models.Model):
    """A patron's cash total of a gaming day crossed a line: `warning` (the floor and
    compliance are told; CARDROOM_CASH_WARNING_CENTS) or `ctr_required` (above
    CARDROOM_CTR_THRESHOLD_CENTS). `subject` is "patron:<id>" or "unidentified:<id>":
    whose total it is: a patron's person, named by its surviving record (PatronMerge).
    `transaction` is the one that crossed (or the link, `link`, or the merge of two
    records, `merge`, that joined the totals)."""

    KINDS = [("warning", "warning"), ("ctr_required", "ctr_required")]

    kind = models.CharField(max_length=16, choices=KINDS)
    subject = models.CharField(max_length=40)
    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    direction = models.CharField(max_length=3)
    gaming_day = models.DateField()
    total = models.PositiveBigIntegerField()
    transaction = models.ForeignKey(CashTransaction, on_delete=models.PROTECT, related_name="+")
    link = models.ForeignKey(PatronLink, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # Or the merge of two records of one person that did (PatronMerge).
    merge = models.ForeignKey("PatronMerge", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]


class ExclusionImport(SealedRow):
    """One upload of the state's self-exclusion list (CSV): the latest one is in force.

    It keeps the file's SHA-256, how many people it listed (`rows`) and the SHA-256 of
    the entries as stored (`entries_sha256`, `entries_digest`), sealed with the ledger key
    (cardroom.models.SealedRow): an entry deleted from, altered in or added to the list in
    force is named by verify_logs."""

    filename = models.CharField(max_length=200)
    sha256 = models.CharField(max_length=64)
    rows = models.PositiveIntegerField()
    entries_sha256 = models.CharField(
        max_length=64, blank=True, default="", help_text="SHA-256 of the imported entries as stored (entries_digest)"
    )
    imported_by = models.CharField(max_length=150)
    imported_at = models.DateTimeField()
    # The diff against the list in force when it was uploaded (issue 34): the imports that
    # made that list (`base`), how many people the upload adds and how many it removes. An
    # upload that removes nobody is in force at once; one that removes anyone keeps the
    # list before it in force beside it (its additions count at once) until a second
    # compliance person confirms its ExclusionRemoval. Null on imports made before.
    base = models.JSONField(null=True, blank=True, help_text="ids of the imports in force when it was uploaded")
    added = models.PositiveIntegerField(null=True, blank=True)
    removed = models.PositiveIntegerField(null=True, blank=True)
    # The first people of each side of that diff, as the page shows them (patrons.identity
    # .DIFF_SHOWN): kept at upload, so the page never recomputes a list of 100,000.
    diff = models.JSONField(null=True, blank=True, help_text='{"added": [...], "removed": [...]}, the first of each')

    class Meta:
        ordering = ["-imported_at", "-id"]

    def sealed_content(self) -> dict:
        content = {
            "filename": self.filename,
            "sha256": self.sha256,
            "rows": self.rows,
            "entries_sha256": self.entries_sha256,
            "imported_by": self.imported_by,
            "imported_at": self.imported_at.astimezone(UTC).isoformat(),
        }
        # Sealed only when set, so the imports sealed before these fields keep their seals.
        if self.removed is not None:
            content.update(base=self.base, added=self.added, removed=self.removed, diff=self.diff)
        return content


def entries_digest(entries) -> str:
    """SHA-256 of a state list's entries as the matching reads them, in import order:
    the same list hashes the same whoever stored it."""
    listed = [entry.listed_content() for entry in entries]
    return hashlib.sha256(canonical(listed).encode("utf-8")).hexdigest()


class ExclusionEntry(models.Model):
    """A listed person: from the state's list (`state`, with its import) or the house's
    own (`house`, naming the patron). Names and numbers carry their comparison forms."""

    SOURCES = [("state", "state"), ("house", "house")]

    source = models.CharField(max_length=8, choices=SOURCES)
    list_import = models.ForeignKey(ExclusionImport, on_delete=models.PROTECT, null=True, blank=True, related_name="entries")
    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    name = models.CharField(max_length=150, blank=True)
    date_of_birth = models.DateField(null=True, blank=True)
    id_number = models.CharField(max_length=64, blank=True)
    state_ref = models.CharField(max_length=64, blank=True, help_text="the state list's own id of the person")
    name_folded = models.CharField(max_length=200, blank=True, db_index=True)
    name_skeleton = models.CharField(max_length=400, blank=True, db_index=True)
    name_fold_skeleton = models.CharField(max_length=400, blank=True, db_index=True)
    number_folded = models.CharField(max_length=200, blank=True, db_index=True)
    number_skeleton = models.CharField(max_length=400, blank=True, db_index=True)
    number_fold_skeleton = models.CharField(max_length=400, blank=True, db_index=True)
    # The forms people write them in (patrons/folding.py), derived from `name` and
    # `id_number` (which the list's digest covers): an exact match is an indexed equality.
    name_fold = models.CharField(max_length=400, blank=True, default="", db_index=True)
    number_fold = models.CharField(max_length=400, blank=True, default="", db_index=True)
    reason = models.CharField(max_length=200, blank=True)
    added_at = models.DateTimeField()
    added_by = models.CharField(max_length=150)

    def listed_content(self) -> dict:
        """What makes the entry match a person (its comparison forms derive from these)."""
        return {
            "name": self.name,
            "date_of_birth": self.date_of_birth.isoformat() if self.date_of_birth else None,
            "id_number": self.id_number,
            "state_ref": self.state_ref,
            "name_folded": self.name_folded,
            "name_skeleton": self.name_skeleton,
            "name_fold_skeleton": self.name_fold_skeleton,
            "number_folded": self.number_folded,
            "number_skeleton": self.number_skeleton,
            "number_fold_skeleton": self.number_fold_skeleton,
        }


class ExclusionHit(SealedRow):
    """A listed patron met at a table: refused a seat, a chip purchase, a payout, or an
    award withheld. The floor and compliance see it. Sealed with the ledger key
    (cardroom.models.SealedRow); a seat's or a backline's hit is also held against the
    refused command it came with (tables/record_checks.py)."""

    ACTIONS = [(a, a) for a in ("seat", "backline", "chip_purchase", "cash_payout", "award")]

    action = models.CharField(max_length=16, choices=ACTIONS)
    entry = models.ForeignKey(ExclusionEntry, on_delete=models.PROTECT, related_name="hits")
    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    player = models.CharField(max_length=64)
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    amount = models.PositiveBigIntegerField(default=0)
    employee = models.CharField(max_length=150)
    created_at = models.DateTimeField()
    gaming_day = models.DateField()

    class Meta:
        ordering = ["-created_at", "-id"]

    def sealed_content(self) -> dict:
        return {
            "action": self.action,
            "entry": self.entry_id,
            "patron": self.patron_id,
            "player": self.player,
            "table": self.table_id,
            "amount": self.amount,
            "employee": self.employee,
            "created_at": self.created_at.astimezone(UTC).isoformat(),
            "gaming_day": self.gaming_day.isoformat(),
        }


class ExclusionRemoval(SealedRow):
    """Someone asks to take people off a list in force: a state upload that removes
    anyone (`list_import`, filed by the upload itself) or one house-list entry (`entry`).
    Nothing comes off until a compliance person other than the requester (another user
    id) confirms it (ExclusionRemovalDecision); until then everyone stays listed."""

    list_import = models.OneToOneField(
        ExclusionImport, on_delete=models.PROTECT, null=True, blank=True, related_name="removal"
    )
    entry = models.ForeignKey(ExclusionEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="removals")
    people = models.PositiveIntegerField(help_text="how many people it takes off")
    reason = models.CharField(max_length=200, blank=True)
    requested_by = models.CharField(max_length=150)
    requested_by_user = models.IntegerField(null=True, blank=True, help_text="the requester's user id")
    requested_at = models.DateTimeField()

    class Meta:
        ordering = ["-requested_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(list_import__isnull=True, entry__isnull=False)
                | Q(list_import__isnull=False, entry__isnull=True),
                name="removal_names_one_list_change",
            ),
        ]

    def sealed_content(self) -> dict:
        return {
            "list_import": self.list_import_id,
            "entry": self.entry_id,
            "people": self.people,
            "reason": self.reason,
            "requested_by": self.requested_by,
            "requested_by_user": self.requested_by_user,
            "requested_at": self.requested_at.astimezone(UTC).isoformat(),
        }


class ExclusionRemovalDecision(SealedRow):
    """The second person's answer to a removal: `confirmed` (the people come off the list;
    never by the requester) or `declined` (they stay). One per removal."""

    OUTCOMES = [("confirmed", "confirmed"), ("declined", "declined")]

    removal = models.OneToOneField(ExclusionRemoval, on_delete=models.PROTECT, related_name="decision")
    outcome = models.CharField(max_length=10, choices=OUTCOMES)
    reason = models.CharField(max_length=200, blank=True)
    decided_by = models.CharField(max_length=150)
    decided_by_user = models.IntegerField(help_text="the decider's user id")
    decided_at = models.DateTimeField()

    def sealed_content(self) -> dict:
        return {
            "removal": self.removal_id,
            "outcome": self.outcome,
            "reason": self.reason,
            "decided_by": self.decided_by,
            "decided_by_user": self.decided_by_user,
            "decided_at": self.decided_at.astimezone(UTC).isoformat(),
        }


class ExclusionReview(models.Model):
    """A near match held for a person to look at (`check_required`): a seat id, or the
    patron it names, is not a listed person's name as written but is near it (an initial
    and the family name, a suffix more or less, one letter off: patrons/folding.py
    `near_name`). The floor sees it; a supervisor other than the employee who sent the
    command decides it (ExclusionReviewDecision). Append-only."""

    action = models.CharField(max_length=16, choices=ExclusionHit.ACTIONS)
    entry = models.ForeignKey(ExclusionEntry, on_delete=models.PROTECT, related_name="reviews")
    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    player = models.CharField(max_length=64)
    player_fold = models.CharField(max_length=400, db_index=True, help_text="fold_name of the seat id")
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    amount = models.PositiveBigIntegerField(default=0)
    employee = models.CharField(max_length=150)
    employee_user_id = models.IntegerField(null=True, blank=True)
    created_at = models.DateTimeField()
    gaming_day = models.DateField()

    class Meta:
        ordering = ["-created_at", "-id"]


class ExclusionReviewDecision(models.Model):
    """A supervisor's decision on a held near match, with the reason: `cleared` (not the
    listed person: that seat id at that table passes that list entry from then on) or
    `confirmed` (the listed person: refused `self_excluded` from then on). One decision
    per review; append-only."""

    DECISIONS = [("cleared", "cleared"), ("confirmed", "confirmed")]

    review = models.OneToOneField(ExclusionReview, on_delete=models.PROTECT, related_name="decision")
    decision = models.CharField(max_length=16, choices=DECISIONS)
    reason = models.CharField(max_length=200)
    decided_by = models.CharField(max_length=150)
    decided_by_user_id = models.IntegerField()
    decided_at = models.DateTimeField()


class AwardCashOut(models.Model):
    """A confirmed progressive award as the cash-out it is (31 CFR 1021.313: an award is
    cash out of the house to its winner): who won, how much, and where its payment stands.

    Written once by the award's confirmation (patrons/awards.py `award_confirmed`), in the
    command's transaction. `owed` waits for a person: the winner names no patron or
    unidentified patron, or the award is above the CTR line and the winner's record holds
    no identification; a supervisor or compliance officer other than the confirming
    supervisor identifies the winner (`due`). A due award is paid by the cash payout that
    names it (`award_round`, `award_seat`), once (`paid`). Not "withheld": a withheld award
    (a self-excluded winner) is never paid; an owed one is paid when its winner is known."""

    STATES = [("owed", "owed"), ("due", "due"), ("paid", "paid")]

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    round = models.ForeignKey("rounds.Round", on_delete=models.PROTECT, related_name="+")
    seat = models.PositiveSmallIntegerField()
    player = models.CharField(max_length=64, help_text="the winner's seat id as the round recorded it")
    hand = models.CharField(max_length=32)
    amount = models.PositiveBigIntegerField(help_text="cents, fixed at the confirmation")
    confirmed_by = models.CharField(max_length=150)
    confirmed_at = models.DateTimeField()
    state = models.CharField(max_length=8, choices=STATES)
    why_owed = models.CharField(max_length=200, blank=True, help_text="what the confirmation found missing")
    winner = models.CharField(max_length=64, blank=True, help_text="the patron number or U-id the award is paid to")
    identified_by = models.CharField(max_length=150, blank=True)
    identified_at = models.DateTimeField(null=True, blank=True)
    payout = models.OneToOneField(CashTransaction, on_delete=models.PROTECT, null=True, blank=True, related_name="award")

    class Meta:
        ordering = ["confirmed_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "seat"], name="award_cash_out_once"),
            models.CheckConstraint(condition=Q(amount__gt=0), name="award_cash_out_positive"),
            # Paid means its payout row exists; owed means no winner is named yet.
            models.CheckConstraint(
                condition=Q(state="paid", payout__isnull=False) | (~Q(state="paid") & Q(payout__isnull=True)),
                name="award_cash_out_paid_has_its_row",
            ),
            models.CheckConstraint(condition=~Q(state="due", winner=""), name="award_cash_out_due_names_its_winner"),
        ]

    def __str__(self) -> str:
        return f"award round {self.round_id} seat {self.seat}: {self.state}"

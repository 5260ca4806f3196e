"""Patrons, their cash at the tables, and the self-exclusion lists (docs/patrons.md).

Every table here but Patron and CashLog (the cash log's head) is append-only (a database trigger refuses UPDATE and DELETE,
cardroom/ledger.py): a link, a transaction, an alert, an import, a hit is a new row.
A patron's record is the one row the house keeps current (an address changes).
"""

import hashlib
from datetime import UTC

from django.db import models
from django.db.models import Q

from cardroom.hashchain import GENESIS, canonical
from cardroom.models import SealedRow, SignedCheckpoint


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
    spellings with an indexed equality. Rewritten when the patron's record is."""

    FIELDS = [(f, f) for f in ("number", "card", "display_name", "legal_name", "id_number")]

    patron = models.ForeignKey(Patron, on_delete=models.CASCADE, related_name="keys")
    field = models.CharField(max_length=16, choices=FIELDS)
    folded = models.CharField(max_length=200, db_index=True)
    skeleton = models.CharField(max_length=400, db_index=True)
    fold_skeleton = models.CharField(max_length=400, db_index=True)


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


class CashTransaction(models.Model):
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
    prev_hash = models.CharField(max_length=64)
    row_hash = models.CharField(max_length=64)
    hash_key = models.CharField(max_length=32)
    # Optional chained fields (hashed only when set, so the rows written before them keep
    # their hashes): the cash row this one reverses, and the progressive award (round and
    # seat) a payout pays. A payout naming an award is recorded by someone other than the
    # supervisor who confirmed it (patrons/cash.py, docs/controls.md).
    reverses = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    award_round = models.ForeignKey("rounds.Round", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    award_seat = models.PositiveSmallIntegerField(null=True, blank=True)

    OPTIONAL_CHAINED = ("reverses", "award_round", "award_seat")

    class Meta:
        ordering = ["seq"]
        indexes = [models.Index(fields=["gaming_day", "direction"], name="cash_day_direction")]
        constraints = [
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

    class Meta:
        ordering = ["-imported_at", "-id"]

    def sealed_content(self) -> dict:
        return {
            "filename": self.filename,
            "sha256": self.sha256,
            "rows": self.rows,
            "entries_sha256": self.entries_sha256,
            "imported_by": self.imported_by,
            "imported_at": self.imported_at.astimezone(UTC).isoformat(),
        }


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

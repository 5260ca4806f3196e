"""Fee schedules (versioned, never edited) and the collection log (append-only)."""

from datetime import UTC

from django.db import models
from django.db.models import Q

from cardroom.models import ChainedRow, SealedRow, SignedCheckpoint, legacy_hash_key


class FeeSchedule(models.Model):
    PAYERS = [(p, p) for p in ("all_players", "players_not_pd", "pd_only")]
    PLAYER_BASES = [(b, b) for b in ("ante", "initial_total")]
    PD_BASES = [(b, b) for b in ("per_betting_square", "total_table_action")]

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="fee_schedules")
    version = models.PositiveIntegerField()
    payers = models.CharField(max_length=16, choices=PAYERS)
    player_basis = models.CharField(max_length=16, choices=PLAYER_BASES)
    pd_basis = models.CharField(max_length=20, choices=PD_BASES)
    effective_from = models.DateTimeField()
    created_by = models.CharField(max_length=150)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "version"], name="fee_schedule_version_unique")]

    def to_config(self, rates=None) -> dict:
        rates = self.rates.order_by("index") if rates is None else rates
        return {
            "payers": self.payers,
            "player_basis": self.player_basis,
            "pd_basis": self.pd_basis,
            "rates": [{"min": r.min, "max": r.max, "player_fee": r.player_fee, "pd_fee": r.pd_fee} for r in rates],
        }


class FeeRate(models.Model):
    """A collection rate; the regulation allows at most five per table (index 1..5)."""

    schedule = models.ForeignKey(FeeSchedule, on_delete=models.PROTECT, related_name="rates")
    index = models.PositiveSmallIntegerField()
    min = models.PositiveBigIntegerField()
    max = models.PositiveBigIntegerField()
    player_fee = models.PositiveBigIntegerField()
    pd_fee = models.PositiveBigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["schedule", "index"], name="fee_rate_index_unique"),
            models.CheckConstraint(condition=Q(index__gte=1, index__lte=5), name="at_most_five_fee_rates"),
            models.CheckConstraint(condition=Q(min__lte=models.F("max")), name="fee_rate_min_le_max"),
        ]


class CollectionEntry(ChainedRow):
    """One fee line (kind=fee) or its refund (kind=refund, pointing at the fee)."""

    KINDS = [("fee", "fee"), ("refund", "refund")]
    # A backline bettor pays as a player (game-rules 12); `player` is then the bettor.
    PAYERS = [("player", "player"), ("player_dealer", "player_dealer"), ("backline", "backline")]

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="collections")
    seq = models.PositiveBigIntegerField(help_text="position in the table's collection chain")
    round = models.ForeignKey("rounds.Round", on_delete=models.PROTECT, related_name="collections")
    event = models.ForeignKey("tables.TableEvent", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=8, choices=KINDS)
    seat = models.PositiveSmallIntegerField()
    player = models.CharField(max_length=64)
    payer = models.CharField(max_length=16, choices=PAYERS)
    amount = models.PositiveBigIntegerField(help_text="cents; a refund gives back this amount")
    basis = models.PositiveBigIntegerField()
    rate_index = models.PositiveSmallIntegerField()
    schedule = models.ForeignKey(FeeSchedule, on_delete=models.PROTECT, related_name="+")
    refund_of = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True, related_name="refund")
    reason = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField()
    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    # The id of the ledger key that signed row_hash ("": hashed before the chains were keyed).
    hash_key = legacy_hash_key()
    # The drop box on the table's fee slot when the line was written (BoxPlacement); none
    # when no box had been placed for the shift.
    box = models.ForeignKey("DropBox", on_delete=models.PROTECT, null=True, blank=True, related_name="collections")

    class Meta:
        ordering = ["table", "seq"]
        indexes = [
            models.Index(fields=["gaming_day", "table"], name="collection_day_table"),
            # The log's keyset order over a day range (docs/scaling.md), and the daily
            # totals read from the index alone (kind and amount carried in it).
            models.Index(fields=["table", "gaming_day", "seq"], name="collection_table_day_seq"),
            models.Index(fields=["gaming_day", "table"], include=["kind", "amount"], name="collection_day_table_sums"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="collection_seq_unique"),
            models.CheckConstraint(
                condition=Q(kind="fee", refund_of__isnull=True) | Q(kind="refund", refund_of__isnull=False),
                name="refund_points_at_fee",
            ),
        ]

    def chain_content(self) -> dict:
        content = {
            "table": self.table_id,
            "seq": self.seq,
            "round": self.round_id,
            "event": self.event_id,
            "kind": self.kind,
            "seat": self.seat,
            "player": self.player,
            "payer": self.payer,
            "amount": self.amount,
            "basis": self.basis,
            "rate_index": self.rate_index,
            "schedule": self.schedule_id,
            "refund_of": self.refund_of_id,
            "reason": self.reason,
            "created_at": self.created_at.astimezone(UTC).isoformat(),  # as stored: UTC
            "gaming_day": self.gaming_day.isoformat(),
            "shift": self.shift,
        }
        # Rows written before boxes existed, or with no box placed, hash as they always did.
        if self.box_id is not None:
            content["box"] = self.box_id
        return content


class DropCount(models.Model):
    """What the count team found in a table's drop box for one gaming day.

    Append-only (a database trigger refuses UPDATE and DELETE): a recount is a new row,
    and the latest row for a table and gaming day is the count in force, so every earlier
    figure and who entered it stays on record.
    """

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="drop_counts")
    gaming_day = models.DateField()
    amount = models.PositiveBigIntegerField(help_text="cents counted in the drop box")
    counted_by = models.CharField(max_length=150)
    counted_at = models.DateTimeField()
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["table", "gaming_day", "counted_at", "id"]
        indexes = [models.Index(fields=["table", "gaming_day", "counted_at"], name="drop_count_table_day")]


class ExportManifest(SealedRow):
    """The record of one finished export: what was asked for, what was sent, who asked.

    Written once, when the last byte of the export has been produced, and never changed
    (append-only trigger). A compliance officer checks a file against it: the SHA-256 of
    the file's bytes and its row count must equal the ones recorded here
    (docs/compliance-exports.md). Sealed with the ledger key (cardroom.models.SealedRow):
    a stored SHA-256 changed to match an altered file is named by verify_logs.
    """

    KINDS = [
        (k, k)
        for k in (
            "collections", "rotation", "rounds", "daily_summary", "jackpot",
            "count_sheet", "count_print", "closer_summary", "closer_print",
            # The patron records (docs/patrons.md).
            "mtl", "cash", "ctr", "self_exclusion", "patron_history",
            # The dealers' hand-overs at relief pushes (collections_fees/handovers.py).
            "handovers",
            # A round played again for surveillance (tables/surveillance.py).
            "round_replay",
        )
    ]
    SOURCES = [("http", "http"), ("cli", "cli")]

    id = models.UUIDField(primary_key=True)
    kind = models.CharField(max_length=16, choices=KINDS)
    media_type = models.CharField(max_length=100)
    filename = models.CharField(max_length=200)
    filters = models.JSONField()
    columns = models.JSONField()
    time_zone = models.CharField(max_length=64)
    rows = models.PositiveBigIntegerField(help_text="data rows, the header row excluded")
    bytes = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    requested_by = models.CharField(max_length=150)
    source = models.CharField(max_length=8, choices=SOURCES)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    # The signed chain checkpoints (tables.ChainCheckpoint, as documents) the exported
    # rows can be checked against offline: `verify_logs --checkpoints FILE.manifest.json`.
    checkpoints = models.JSONField(default=list, blank=True)
    # The rule set versions in force over the export's gaming days (tables/rule_sets.py), for
    # the tables it covers: which posted rules its rows were played under.
    rule_sets = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-finished_at"]

    def sealed_content(self) -> dict:
        return {
            "export_id": str(self.id),
            "kind": self.kind,
            "media_type": self.media_type,
            "filename": self.filename,
            "filters": self.filters,
            "columns": self.columns,
            "time_zone": self.time_zone,
            "rows": self.rows,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "requested_by": self.requested_by,
            "source": self.source,
            "started_at": self.started_at.astimezone(UTC).isoformat(),
            "finished_at": self.finished_at.astimezone(UTC).isoformat(),
            "checkpoints": self.checkpoints,
            # Sealed when there are any: a manifest sealed before rule sets existed (none
            # named) still verifies.
            **({"rule_sets": self.rule_sets} if self.rule_sets else {}),
        }


class JackpotMeter(models.Model):
    """A progressive's meter (game-rules 10.3): a shared object that any number of tables
    name in their configuration (a linked progressive). Its amounts are the fund: what the
    meter shows and the reserve behind it, plus what awards the fund could not pay (owed).

    Not the ledger: the row is updated by every contribution and award, always locked
    (`select_for_update`) after the table row, so two tables settling at once never lose an
    update. The ledger is its JackpotEntry chain, whose head the row keeps.
    """

    name = models.CharField(max_length=64, unique=True)
    meter = models.PositiveBigIntegerField(help_text="cents on the meter")
    reserve = models.PositiveBigIntegerField(help_text="cents held to reseed the meter")
    owed = models.PositiveBigIntegerField(default=0, help_text="cents of awards the fund could not pay")
    entry_seq = models.PositiveBigIntegerField(default=0)
    entry_head = models.CharField(max_length=64, default="0" * 64)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class JackpotEntry(ChainedRow):
    """One movement of a jackpot fund, apart from the collection log (4 CCR 12384: jackpot
    collections are not the house's). Append-only (trigger) and hash-chained per meter.

    Kinds: `opening` (the meter's starting amounts), `contribution` (a progressive wager at
    no more bets), `award` (paid at settle; `owed` is what the fund could not pay),
    `withheld` (an award won by a self-excluded patron: recorded, not paid, both deltas
    zero, so the fund keeps it; docs/patrons.md), `reseed` (the seed moved from the
    reserve after a 100% award), `reversal` (a void).
    `meter_delta` and `reserve_delta` are signed cents; `meter_after`/`reserve_after` the
    fund after the row. Contributions are the jackpot collections a drop count reconciles:
    each carries its table, round and gaming day for that.
    """

    KINDS = [(k, k) for k in ("opening", "contribution", "award", "withheld", "reseed", "reversal")]

    meter = models.ForeignKey(JackpotMeter, on_delete=models.PROTECT, related_name="entries")
    seq = models.PositiveBigIntegerField(help_text="position in the meter's chain")
    kind = models.CharField(max_length=12, choices=KINDS)
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    round = models.ForeignKey("rounds.Round", on_delete=models.PROTECT, null=True, blank=True, related_name="jackpot")
    event = models.ForeignKey("tables.TableEvent", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    player = models.CharField(max_length=64, blank=True)
    amount = models.PositiveBigIntegerField(help_text="the wager, the award, the seed moved")
    meter_delta = models.BigIntegerField()
    reserve_delta = models.BigIntegerField()
    owed = models.PositiveBigIntegerField(default=0)
    hand = models.CharField(max_length=20, blank=True)
    confirmed = models.BooleanField(default=False, help_text="a percentage award confirmed by a supervisor")
    # The jackpot drop box on the table when a contribution went in (or a void's reversal
    # came out): none for awards and reseeds, which move the fund, not chips in a box.
    box = models.ForeignKey("DropBox", on_delete=models.PROTECT, null=True, blank=True, related_name="jackpot_entries")
    meter_after = models.PositiveBigIntegerField()
    reserve_after = models.PositiveBigIntegerField()
    created_at = models.DateTimeField()
    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)

    class Meta:
        ordering = ["meter", "seq"]
        indexes = [models.Index(fields=["gaming_day", "meter"], name="jackpot_day_meter")]
        constraints = [models.UniqueConstraint(fields=["meter", "seq"], name="jackpot_seq_unique")]

    def chain_content(self) -> dict:
        content = {
            "meter": self.meter_id,
            "seq": self.seq,
            "kind": self.kind,
            "table": self.table_id,
            "round": self.round_id,
            "event": self.event_id,
            "seat": self.seat,
            "player": self.player,
            "amount": self.amount,
            "meter_delta": self.meter_delta,
            "reserve_delta": self.reserve_delta,
            "owed": self.owed,
            "hand": self.hand,
            "confirmed": self.confirmed,
            "meter_after": self.meter_after,
            "reserve_after": self.reserve_after,
            "created_at": self.created_at.astimezone(UTC).isoformat(),
            "gaming_day": self.gaming_day.isoformat(),
            "shift": self.shift,
        }
        # Rows written before jackpot boxes, or with no box placed, hash as they always did.
        if self.box_id is not None:
            content["box"] = self.box_id
        return content


class JackpotCheckpoint(SignedCheckpoint):
    """A signed checkpoint of a meter's fund chain (cardroom.models.SignedCheckpoint), as
    tables.ChainCheckpoint anchors a table's chains; written by cardroom/checkpoints.py
    (`verify_logs --checkpoint`, a jackpot export)."""

    kind = "on_demand"  # the only kind so far (the table chains' checker reads it)

    meter = models.ForeignKey(JackpotMeter, on_delete=models.PROTECT, related_name="checkpoints")

    class Meta:
        ordering = ["meter", "last_seq", "id"]

    @classmethod
    def for_chain(cls, owner, *, log: str, kind: str) -> "JackpotCheckpoint":
        return cls(meter=owner)  # one log, one kind: neither is a column

    def chain_identity(self) -> dict:
        return {"meter": self.meter_id, "log": "jackpot"}


# --- Drop boxes, the count and the shift close (4 CCR 12384-12385) -----------------------
# Every table below is append-only (a database trigger refuses UPDATE and DELETE): a box
# swap, a recount, a signature, a close and a reopen are each a new row, so the whole
# history of the money stays on record. The rules that govern them are in
# collections_fees/counts.py.

BOX_SLOTS = {"fees": "fees", "emergency": "fees", "jackpot": "jackpot"}


class DropBox(models.Model):
    """A physical drop box. Its identifier is painted on it and names its table; a
    `jackpot` box keeps jackpot collections apart from the fees; an `emergency` box
    stands in for a table's fee box (full, damaged)."""

    KINDS = [("fees", "fees"), ("jackpot", "jackpot"), ("emergency", "emergency")]

    identifier = models.CharField(max_length=32, unique=True)
    kind = models.CharField(max_length=10, choices=KINDS)
    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="drop_boxes",
        help_text="the table whose identifier the box carries (none for an emergency box)",
    )
    registered_by = models.CharField(max_length=150)
    registered_at = models.DateTimeField()

    class Meta:
        ordering = ["identifier"]

    def __str__(self):
        return self.identifier

    @property
    def slot(self) -> str:
        return BOX_SLOTS[self.kind]


class BoxPlacement(models.Model):
    """A box put on a table for a gaming day and shift. The box in force in a slot
    (`fees` or `jackpot`) is the latest placement of that table, day, shift and slot; a
    placement that replaces another one mid-shift is a swap and says why."""

    box = models.ForeignKey(DropBox, on_delete=models.PROTECT, related_name="placements")
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="box_placements")
    slot = models.CharField(max_length=10)
    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    replaces = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    reason = models.CharField(max_length=200, blank=True)
    placed_by = models.CharField(max_length=150)
    placed_at = models.DateTimeField()

    class Meta:
        ordering = ["gaming_day", "shift", "table", "placed_at", "id"]
        indexes = [models.Index(fields=["table", "gaming_day", "shift", "slot", "placed_at"], name="box_placement_in_force")]


class CountSheet(models.Model):
    """The count team's sheet for one gaming day and shift: one per shift."""

    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    opened_by = models.CharField(max_length=150)
    opened_at = models.DateTimeField()

    class Meta:
        ordering = ["gaming_day", "shift"]
        constraints = [models.UniqueConstraint(fields=["gaming_day", "shift"], name="one_count_sheet_per_shift")]


class BoxCount(models.Model):
    """What a counter found in one box: the pieces per denomination (cents -> pieces), the
    total they make, what the collection log expected in that box then, and the variance.
    A recount is a new row; the latest row of a box on a sheet is the count in force."""

    sheet = models.ForeignKey(CountSheet, on_delete=models.PROTECT, related_name="counts")
    box = models.ForeignKey(DropBox, on_delete=models.PROTECT, related_name="counts")
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+")
    denominations = models.JSONField(help_text='{"<cents>": pieces}')
    counted = models.PositiveBigIntegerField(help_text="cents: the sum of the denominations")
    expected = models.BigIntegerField(help_text="cents: fees less refunds of the box's collection entries")
    variance = models.BigIntegerField(help_text="cents: counted - expected")
    explanation = models.CharField(max_length=500, blank=True)
    counted_by = models.CharField(max_length=150)
    counted_at = models.DateTimeField()

    class Meta:
        ordering = ["sheet", "box", "counted_at", "id"]


class VarianceApproval(models.Model):
    """A manager's approval of a count whose variance is above the escalation threshold."""

    count = models.OneToOneField(BoxCount, on_delete=models.PROTECT, related_name="approval")
    approved_by = models.CharField(max_length=150)
    approved_at = models.DateTimeField()
    note = models.CharField(max_length=500, blank=True)


class CountSignature(models.Model):
    """A counter signs the sheet with their own account, as it stands (`last_count`: the
    latest count row they saw). The sheet is complete when two different counters have
    signed the same latest row."""

    sheet = models.ForeignKey(CountSheet, on_delete=models.PROTECT, related_name="signatures")
    signed_by = models.CharField(max_length=150)
    user_id = models.IntegerField()
    last_count = models.ForeignKey(BoxCount, on_delete=models.PROTECT, related_name="+")
    # The session by its tag (cardroom.access.session_tag), never the key, which is a login.
    session = models.CharField(max_length=64, blank=True, help_text="the session's tag (access.session_tag)")
    signed_at = models.DateTimeField()

    class Meta:
        ordering = ["sheet", "signed_at", "id"]


class ShiftReopenRequest(models.Model):
    """Someone asks for a closed shift to be reopened; a manager other than them decides."""

    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    reason = models.CharField(max_length=500)
    requested_by = models.CharField(max_length=150)
    requested_at = models.DateTimeField()


class ShiftClose(models.Model):
    """A shift closed (its count frozen, its closer summary produced) or reopened (with a
    manager's approved request). The latest row of a gaming day and shift says which."""

    ACTIONS = [("close", "close"), ("reopen", "reopen")]

    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    action = models.CharField(max_length=8, choices=ACTIONS)
    sheet = models.ForeignKey(CountSheet, on_delete=models.PROTECT, related_name="closes")
    reopen_request = models.OneToOneField(
        ShiftReopenRequest, on_delete=models.PROTECT, null=True, blank=True, related_name="reopen"
    )
    by = models.CharField(max_length=150)
    at = models.DateTimeField()

    class Meta:
        ordering = ["gaming_day", "shift", "at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(action="close", reopen_request__isnull=True) | Q(action="reopen", reopen_request__isnull=False),
                name="reopen_has_its_approved_request",
            )
        ]

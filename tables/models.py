"""Tables, their versioned configuration, who sits where, and the per-table event log.

No rule lives here: the rules engine (rounds/engine) decides, the command service
(tables/services.py) writes these rows.
"""

from datetime import UTC

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.fields.json import KeyTextTransform

from cardroom.hashchain import GENESIS
from cardroom.models import ChainedRow, SignedCheckpoint, legacy_hash_key


class Table(models.Model):
    name = models.CharField(max_length=64)
    seats = models.PositiveSmallIntegerField()
    config = models.ForeignKey("TableConfig", on_delete=models.PROTECT, null=True, related_name="+")
    # The table's state version: the sequence number of its last event. Clients send it
    # back as `version` to detect that someone else changed the table meanwhile.
    version = models.PositiveBigIntegerField(default=0)
    # Opened and closed by a supervisor; a closed table takes no command.
    is_open = models.BooleanField(default=True)
    # Whether the configuration in force was made by the system (seed_demo, replay) or
    # approved by a second supervisor: a table a person created stays closed, and cannot
    # open, until its first configuration is approved (tables/services.py).
    config_approved = models.BooleanField(default=True)
    # A retired table keeps every record (its rows are never deleted: every ledger points
    # at it) but cannot open and is not on the floor. Its history is TableStatusChange.
    retired = models.BooleanField(default=False)
    # The rules engine's state (rounds.engine.table.TableGame.to_dict), kept with the row
    # that every command locks, so loading it costs no extra query.
    state = models.JSONField()
    # Heads of the table's two hash chains (cardroom/hashchain.py), kept on the row every
    # command locks so that appending a link costs no extra query.
    event_head = models.CharField(max_length=64, default=GENESIS)
    collection_seq = models.PositiveBigIntegerField(default=0)
    collection_head = models.CharField(max_length=64, default=GENESIS)
    # Head of the table's audit chain: the audit rows of its accepted commands
    # (cardroom/audit.py `audit_chained`), linked in memory and written with this row.
    audit_seq = models.PositiveBigIntegerField(default=0)
    audit_head = models.CharField(max_length=64, default=GENESIS)
    # The gaming day of the table's last event: the first command of a later day writes
    # the signed end-of-day checkpoints of this one (cardroom/checkpoints.py).
    chain_day = models.DateField(null=True, blank=True)
    # The drop boxes on the table (collections_fees/counts.py, `box_place`): {"gaming_day",
    # "shift", "fees": {"id", "identifier"} or None, "jackpot": ...} for the shift they were
    # placed in. Kept on the row every command locks, so stamping a fee line with its box
    # and showing the box on every snapshot cost no query; placements are the record.
    boxes_placed = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Who may drive the table, as a counter: moved on by the database itself whenever a row
    # of the table's dealer assignments is inserted, updated or deleted (a trigger on
    # tables_dealerassignment, migration 0018), so the admin, a raw SQL update and the
    # relief hand-over cannot change a dealer's right to drive without it. A socket holds
    # the answer it found for a counter and a shift (cardroom.access.can_drive_row), and
    # the command service compares it with this row, locked: no assignment query while
    # both match. Only that trigger may move it (an UPDATE by anyone else is refused).
    drivers_version = models.PositiveBigIntegerField(default=0, db_default=0, editable=False)
    # The rule set the table plays under (tables/rule_sets.py), if any: its approved rules
    # override the table's own configuration for the keys they name, from the first round
    # of the gaming day they take effect.
    rule_set = models.ForeignKey("RuleSet", on_delete=models.PROTECT, null=True, blank=True, related_name="tables")

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(seats__gte=2, seats__lte=8), name="table_seats_2_to_8")]

    def __str__(self):
        return self.name


class TableConfig(models.Model):
    """One version of a table's configuration. Never edited: a change is a new version."""

    DEALING = [("shoe", "Card shoe"), ("shuffler", "Automatic shuffler"), ("community_first", "Community first")]

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="configs")
    version = models.PositiveIntegerField()
    paytable = models.JSONField(help_text="UTH-01..UTH-04 or a custom table")
    ante_min = models.PositiveIntegerField(null=True, blank=True)
    ante_max = models.PositiveIntegerField(null=True, blank=True)
    trips_min = models.PositiveIntegerField(null=True, blank=True)
    trips_max = models.PositiveIntegerField(null=True, blank=True)
    dealing = models.CharField(max_length=20, choices=DEALING)
    max_consecutive_banks = models.PositiveSmallIntegerField()
    fee_schedule = models.ForeignKey(
        "collections_fees.FeeSchedule", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    rotation_policy = models.JSONField(
        null=True, blank=True, help_text="game-rules 2A's parameters when the policy is on; null: section 2 alone"
    )
    notice = models.TextField(blank=True, default="", help_text="the notice posted at the table in this version")
    side_bets = models.JSONField(
        null=True,
        blank=True,
        help_text="the side bets offered in this version (docs/commands.md `side_bets`: pay tables, limits, the "
        "progressive's wager and meter with its share, seed and starting amounts); null: none",
    )
    backline = models.JSONField(
        null=True, blank=True, help_text="the backline offer in this version (max_per_seat, trips); null: none"
    )
    effective_from = models.DateTimeField()
    created_by = models.CharField(max_length=150)
    # No TPPP banks in this version (a rule set's no-TPPP mode, rounds/engine/config.py).
    no_tppp = models.BooleanField(default=False)
    # The rule set's version whose rules this configuration carries (tables/rule_sets.py):
    # null for a table outside any rule set.
    rule_set_change = models.ForeignKey(
        "RuleSetChange", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "version"], name="table_config_version_unique"),
            models.CheckConstraint(
                condition=Q(max_consecutive_banks__gte=1, max_consecutive_banks__lte=2),
                name="table_config_banks_1_or_2",
            ),
        ]


class RuleSet(models.Model):
    """A named group of posted game rules that a set of tables plays under (issue 38): the
    law moves on dates, so its rules change by dated, two-person versions (RuleSetChange)."""

    name = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()
    created_by = models.CharField(max_length=150)

    def __str__(self):
        return self.name


class RuleSetChange(models.Model):
    """A version of a rule set's rules (the configuration keys it names, whole), filed by one
    supervisor with the gaming day it takes effect and decided by another. Approved, it is
    written into each member table's configuration at that gaming day's first open_round
    (never mid-round). Neither person's row is edited: the decision fills the empty half
    once (tables/rule_sets.py), and the database refuses a decider who filed it and any
    other change of the row (tables/migrations/0032_rule_set_change_decided_once.py)."""

    DECISIONS = [("approved", "Approved"), ("declined", "Declined")]

    rule_set = models.ForeignKey(RuleSet, on_delete=models.PROTECT, related_name="changes")
    version = models.PositiveIntegerField()
    rules = models.JSONField(help_text="the configuration keys the rule set names, with their values")
    effective_day = models.DateField(help_text="the gaming day from whose first round the rules apply")
    reason = models.CharField(max_length=200, blank=True)
    filed_by = models.CharField(max_length=150)
    filed_by_user_id = models.IntegerField(null=True, blank=True)
    filed_at = models.DateTimeField()
    decision = models.CharField(max_length=10, choices=DECISIONS, blank=True, default="")
    decided_by = models.CharField(max_length=150, blank=True, default="")
    decided_by_user_id = models.IntegerField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["rule_set", "version"], name="rule_set_change_version_unique"),
            # Two persons: whoever filed a change never decides it.
            models.CheckConstraint(
                condition=Q(decided_by_user_id__isnull=True) | Q(filed_by_user_id__isnull=True)
                | ~Q(decided_by_user_id=models.F("filed_by_user_id")),
                name="rule_set_change_decided_by_another",
            ),
        ]

    def __str__(self):
        return f"{self.rule_set.name} v{self.version}"


class RoundStart(models.Model):
    """The engine state a round began from: the game `open_round` was applied to (after a
    rule set's change it brought in), written with that event. A surveillance replay of the
    round (tables/surveillance.py) starts here and applies the round's commands again,
    each with the cards its deal drew; every result and record it gets must be the one the
    event chain holds, which is what vouches for this row. Between rounds a state holds no
    card. Append-only, like every record."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="round_starts")
    round_number = models.PositiveIntegerField()
    seq = models.PositiveBigIntegerField(help_text="the open_round event's seq")
    state = models.JSONField(help_text="the engine state before open_round (TableGame.to_dict)")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "round_number"], name="round_start_once"),
        ]


class CameraOffset(models.Model):
    """How far a table's surveillance camera clock is from the server's (issue 38): read by a
    supervisor off the camera's picture and recorded with who and when, never edited (a new
    reading is a new row). A round's timeline shows each step on the camera's clock with the
    latest reading (tables/surveillance.py)."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="camera_offsets")
    offset_ms = models.BigIntegerField(help_text="the camera's clock minus the server's, in milliseconds")
    reason = models.CharField(max_length=200, blank=True)
    set_by = models.CharField(max_length=150)
    set_by_user_id = models.IntegerField(null=True, blank=True)
    set_at = models.DateTimeField()


class SeatOccupancy(models.Model):
    """A person in a seat from `sat_at` until `left_at`."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="occupancies")
    seat = models.PositiveSmallIntegerField()
    player = models.CharField(max_length=64)
    sat_at = models.DateTimeField()
    sat_seq = models.PositiveBigIntegerField()
    left_at = models.DateTimeField(null=True, blank=True)
    left_seq = models.PositiveBigIntegerField(null=True, blank=True)
    # A third-party proposition player's Commission badge, TPPPS company and licence expiry.
    tppp_badge = models.CharField(max_length=32, blank=True, default="")
    tppp_company = models.CharField(max_length=150, blank=True, default="")
    tppp_expires = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table", "seat"], condition=Q(left_at__isnull=True), name="one_occupant_per_seat"
            ),
            models.UniqueConstraint(
                fields=["table", "player"], condition=Q(left_at__isnull=True), name="one_seat_per_player"
            ),
        ]


class TableEvent(ChainedRow):
    """Every accepted command, in order: who, when, what was asked and what it did.

    Append-only (a database trigger refuses UPDATE and DELETE).
    """

    # No index of its own: the unique (table, seq) and the index on (table, created_at)
    # both lead with the table, so a third index on it alone would only cost writes.
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveBigIntegerField()
    command_type = models.CharField(max_length=32)
    command = models.JSONField()
    command_id = models.CharField(max_length=100, null=True, blank=True)
    result = models.JSONField()
    records = models.JSONField(help_text="what the command did, as the engine reported it")
    actor = models.CharField(max_length=150)
    created_at = models.DateTimeField()
    gaming_day = models.DateField()
    # The id of the ledger key that signed row_hash ("": hashed before the chains were keyed).
    hash_key = legacy_hash_key()
    # For a surveillance replay (issue 38): when the tablet says it was tapped (its own
    # clock, `tapped_at`, stripped before the engine; null when none was sent) and which
    # session sent it (cardroom.access.session_tag; "" for a system process).
    device_at = models.DateTimeField(null=True, blank=True)
    session_tag = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        ordering = ["table", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="table_event_seq_unique"),
            models.UniqueConstraint(
                fields=["table", "command_id"], condition=Q(command_id__isnull=False), name="table_event_command_id_unique"
            ),
        ]
        # The collection log's dealer choices skip from actor to actor over a day range.
        indexes = [
            models.Index(fields=["actor", "gaming_day"], name="table_event_actor_day"),
            # The rotation pages find each round's opening event by the round it opened.
            models.Index(
                models.F("table"), KeyTextTransform("round", "result"), condition=Q(command_type="open_round"),
                name="table_event_round_opened",
            ),
            # A round's record names whose commands drove it: the table's events between
            # its opening and its close, read by time (collections_fees.round_selectors
            # .round_people), a few rows however long the table's history.
            models.Index(fields=["table", "created_at"], name="table_event_table_at"),
        ]


    def chain_content(self) -> dict:
        return {
            "table": self.table_id,
            "seq": self.seq,
            "command_type": self.command_type,
            "command": self.command,
            "command_id": self.command_id,
            "result": self.result,
            "records": self.records,
            "actor": self.actor,
            "created_at": self.created_at.astimezone(UTC).isoformat(),  # as stored: UTC
            "gaming_day": self.gaming_day.isoformat(),
        }


class ChainCheckpoint(SignedCheckpoint):
    """A signed checkpoint of one of a table's hash chains (the event log or the collection
    log): cardroom.models.SignedCheckpoint, written by cardroom/checkpoints.py
    (docs/compliance-exports.md).
    """

    KINDS = [
        ("day_end", "the end of a gaming day, written by the first command of a later day"),
        ("on_demand", "written by verify_logs --checkpoint or an export"),
        ("legacy", "the last row hashed before the chains were keyed"),
    ]
    LOGS = [("events", "events"), ("collections", "collections")]

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="checkpoints")
    log = models.CharField(max_length=12, choices=LOGS)
    kind = models.CharField(max_length=12, choices=KINDS)
    # The base's field with this model's own help text, as its migration has it.
    rows = models.PositiveBigIntegerField(help_text="rows of gaming_day in this chain with seq <= last_seq")

    class Meta:
        ordering = ["table", "log", "last_seq", "id"]
        indexes = [models.Index(fields=["table", "log", "last_seq"], name="checkpoint_table_log_seq")]

    @classmethod
    def for_chain(cls, owner, *, log: str, kind: str) -> "ChainCheckpoint":
        return cls(table=owner, log=log, kind=kind)

    def chain_identity(self) -> dict:
        return {"table": self.table_id, "log": self.log, "kind": self.kind}


class RejectedCommand(models.Model):
    """A refused command. Kept so that a retry with the same id gets the same answer,
    and so that supervisors can see what was attempted. It changes no table state."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rejections")
    command = models.JSONField()
    command_id = models.CharField(max_length=100, null=True, blank=True)
    code = models.CharField(max_length=40)
    result = models.JSONField()
    table_version = models.PositiveBigIntegerField()
    actor = models.CharField(max_length=150)
    created_at = models.DateTimeField()
    session_tag = models.CharField(max_length=32, blank=True, default="", help_text="the session that sent it (access.session_tag)")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table", "command_id"], condition=Q(command_id__isnull=False), name="rejected_command_id_unique"
            ),
        ]


class RotationLogEntry(models.Model):
    """Every offer, acceptance, decline and pass of the player-dealer position, each
    limit reached and each game stop, and under the rotation policy each game's end and
    start with its reason: the compliance record of systematic rotation."""

    ACTIONS = [
        (a, a)
        for a in ("offer", "accept", "decline", "pass", "limit_reached", "stopped", "game_ended", "game_started",
                  "skipped")
    ]

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rotation_log")
    event = models.ForeignKey(TableEvent, on_delete=models.PROTECT, related_name="+")
    action = models.CharField(max_length=16, choices=ACTIONS)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    player = models.CharField(max_length=64, null=True, blank=True)
    round_number = models.PositiveIntegerField(null=True, blank=True)
    badge = models.CharField(max_length=32, blank=True, default="", help_text="the TPPP's badge, on their entries")
    reason = models.CharField(max_length=200, blank=True, default="", help_text="why a game ended or started")
    created_at = models.DateTimeField()
    # Its event's gaming day, recorded on the entry itself so that the log's index leads
    # with what every compliance filter has: read through the event, PostgreSQL could not
    # tell how many entries a day range holds and sorted the month (docs/scaling.md).
    gaming_day = models.DateField()

    class Meta:
        ordering = ["id"]
        # The rotation log's keyset order over a day range (docs/scaling.md): a table's
        # entries never go back a gaming day, so within a table (day, time) is time order.
        indexes = [
            models.Index(fields=["table", "gaming_day", "created_at", "id"], name="rotation_table_day_at"),
            # "Offered before every round": did this player-dealer accept an offer at the table?
            models.Index(fields=["table", "player"], condition=Q(action="accept"), name="rotation_accepts_by_player"),
        ]


class DealerAssignment(models.Model):
    """A dealer assigned to a table for one shift of one gaming day, by a supervisor."""

    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="assignments")
    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    assigned_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    assigned_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["dealer", "table", "gaming_day", "shift"],
                condition=Q(ended_at__isnull=True),
                name="one_live_assignment",
            )
        ]


def void_request_expired(kind: str, round_number: int | None, current_round: int | None) -> bool:
    """A void asked for a round that is no longer the table's round in progress (settled or
    voided meanwhile): it can only be dismissed."""
    return kind == "void" and round_number != current_round


def approval_status(approval: "Approval") -> str:
    """pending, approved, refused, or expired: a pending void whose round is no longer the
    table's round in progress (it was settled or voided meanwhile) can only be dismissed."""
    decision = getattr(approval, "decision", None)
    if decision is not None:
        return "approved" if decision.approved else "refused"
    current = (approval.table.state.get("round") or {}).get("number")
    return "expired" if void_request_expired(approval.kind, approval.round_number, current) else "pending"


class Approval(models.Model):
    """A request that needs a second person: a void, a correction, a configuration change
    of an open table. The requester and the supervisor who decides are both kept; the
    decision is a row of its own (ApprovalDecision), so neither is ever edited."""

    KINDS = [("void", "Void a round"), ("correction", "Correct a settled round"), ("config", "Change configuration")]

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="approvals")
    kind = models.CharField(max_length=12, choices=KINDS)
    round_number = models.PositiveIntegerField(null=True, blank=True)
    payload = models.JSONField(help_text="reason, and the configuration or correction asked for")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_role = models.CharField(max_length=16)
    # Sessions by their tag (cardroom.access.session_tag), never the key, which is a login.
    requested_session = models.CharField(max_length=64, blank=True, help_text="the session's tag (access.session_tag)")
    requested_address = models.CharField(max_length=64, blank=True)
    requested_at = models.DateTimeField()


class ApprovalDecision(models.Model):
    approval = models.OneToOneField(Approval, on_delete=models.PROTECT, related_name="decision")
    approved = models.BooleanField()
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    via = models.CharField(max_length=16, help_text="'device': on their own device; 'tablet': credentials on the tablet")
    session = models.CharField(max_length=64, blank=True, help_text="the session's tag (access.session_tag)")
    address = models.CharField(max_length=64, blank=True)
    decided_at = models.DateTimeField()
    # Why a void was refused, for the dealer who asked (tables/approvals.py): required then.
    reason = models.CharField(max_length=200, blank=True, default="", db_default="")


class RoundCorrection(models.Model):
    """A reversing entry for a settled round: the original is never edited. It reverses
    every seat's net, every backline bettor's net and the player-dealer's net of the original round."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="corrections")
    round = models.ForeignKey("rounds.Round", on_delete=models.PROTECT, related_name="corrections")
    approval = models.OneToOneField(Approval, on_delete=models.PROTECT, related_name="correction")
    reason = models.TextField()
    reversal = models.JSONField(help_text="per seat and for the player-dealer, the amount reversed")
    created_at = models.DateTimeField()

    class Meta:
        # A round is reversed at most once (the service also checks it under the table lock).
        constraints = [models.UniqueConstraint(fields=["round"], name="one_correction_per_round")]


class AlertAcknowledgement(models.Model):
    """A supervisor has seen a floor alert and taken it in hand (tables.floor
    rows). `ref` is the alert's identity: the same alert again keeps its ref, a new
    occurrence (another round exhausted, another disconnection) has a new one and shows
    unacknowledged. Append-only: who acknowledged what, and when, stays on record."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=32)
    ref = models.CharField(max_length=200)
    acknowledged_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    acknowledged_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["table", "acknowledged_at"], name="alert_ack_table_at")]


class TableStatusChange(models.Model):
    """A supervisor opened, closed or retired a table, and why: the floor shows the last
    one on the table's tile (who and when). Append-only (a database trigger refuses
    UPDATE and DELETE): the table row's `is_open` and `retired` say how it stands, these
    rows say who put it so."""

    ACTIONS = [("opened", "opened"), ("closed", "closed"), ("retired", "retired")]

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="status_changes")
    action = models.CharField(max_length=8, choices=ACTIONS)
    reason = models.CharField(max_length=500)
    by = models.CharField(max_length=150, help_text="the person's username (or a system process's name)")
    by_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    at = models.DateTimeField()

    class Meta:
        ordering = ["table", "-at", "-id"]
        indexes = [models.Index(fields=["table", "at"], name="table_status_change_at")]


class WaitlistEvent(models.Model):
    """One step of a player's wait for a seat (tables/waitlist.py): added to a game's
    list, called to a table when a seat opened, seated there, or removed. Append-only
    (a database trigger refuses UPDATE and DELETE): where an entry stands is its last
    event, so nobody leaves the list without a trace of who took them off and why."""

    KINDS = [("added", "added"), ("called", "called"), ("seated", "seated"), ("removed", "removed")]

    game = models.CharField(max_length=80, help_text="the list: the game and limit (tables.waitlist.game_of)")
    kind = models.CharField(max_length=8, choices=KINDS)
    # The entry this event moves on: the `added` event (None on the `added` event itself).
    entry = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="steps")
    player = models.CharField(max_length=64, blank=True, help_text="the player's id or name (on `added`)")
    # A TPPP's badge, company and licence expiry, given to the engine's `sit` on seating.
    tppp = models.JSONField(null=True, blank=True)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    reason = models.CharField(max_length=200, blank=True)
    by = models.CharField(max_length=150, help_text="the supervisor's username")
    by_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["game", "at"], name="waitlist_game_at")]


class ReliefPlan(models.Model):
    """A supervisor's plan of a shift's dealers across tables (tables/relief.py): every
    `relief_minutes` each dealer is pushed on to the next table or to a break. Append-only:
    a changed plan is a new row, and the newest plan of a shift is the one in force."""

    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    starts_at = models.DateTimeField(help_text="the first push")
    relief_minutes = models.PositiveSmallIntegerField(help_text="the house's relief interval when it was planned")
    made_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    made_at = models.DateTimeField()

    class Meta:
        ordering = ["made_at", "id"]
        indexes = [models.Index(fields=["gaming_day", "shift"], name="relief_plan_shift")]


class ReliefPush(models.Model):
    """One push of a plan: at `at`, `dealer` goes to `table` (to a break when None).
    Append-only, written with its plan."""

    plan = models.ForeignKey(ReliefPlan, on_delete=models.PROTECT, related_name="pushes")
    at = models.DateTimeField()
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["at", "id"]


class DealerHandover(models.Model):
    """A dealer took over a table's tablet from another (tables/relief.py): who, when, and
    the round boundary (the rounds opened before it, the last one settled or voided).
    Append-only: the table's driver for a shift is its newest hand-over's incoming dealer."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="handovers")
    gaming_day = models.DateField()
    shift = models.CharField(max_length=16)
    push = models.ForeignKey(ReliefPush, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    incoming = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    outgoing = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                 related_name="+")
    after_round = models.PositiveIntegerField(help_text="the table's rounds opened before the hand-over")
    table_version = models.PositiveBigIntegerField(help_text="the table's event seq at the hand-over")
    # The session as cardroom.access.session_tag names it, never the key: a record read by the
    # floor and the regulator must not hand anyone a login.
    session = models.CharField(max_length=64, blank=True, help_text="the session's tag (events.session_tag)")
    address = models.CharField(max_length=64, blank=True)
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["table", "gaming_day", "shift"], name="handover_table_shift")]

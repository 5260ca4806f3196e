"""Rounds and everything recorded about them.

A round moves through its streets while in progress; once settled or voided a database
trigger refuses any change. Wagers, decisions, cards and settlement lines are
append-only rows.
"""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Upper


class Round(models.Model):
    STATUSES = [("in_progress", "In progress"), ("settled", "Settled"), ("voided", "Voided")]

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="rounds")
    number = models.PositiveIntegerField()
    config = models.ForeignKey("tables.TableConfig", on_delete=models.PROTECT, related_name="+")
    fee_schedule = models.ForeignKey(
        "collections_fees.FeeSchedule", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    pd_seat = models.PositiveSmallIntegerField()
    pd_player = models.CharField(max_length=64)
    pd_badge = models.CharField(max_length=32, blank=True, default="", help_text="the banker's TPPP badge, if a TPPP banked")
    BANK_SOURCES = [("own", "own"), ("tppp", "tppp")]
    bank_source = models.CharField(
        max_length=8, choices=BANK_SOURCES, default="own",
        help_text="the bank's chips: the player-dealer's own, or the TPPP company's (pd_company)",
    )
    pd_company = models.CharField(max_length=150, blank=True, default="", help_text="the TPPP company that banked")
    bank = models.PositiveBigIntegerField()
    deck = models.CharField(max_length=1, blank=True)
    status = models.CharField(max_length=12, choices=STATUSES, default="in_progress")
    street = models.CharField(max_length=12, default="betting")
    opened_at = models.DateTimeField()
    gaming_day = models.DateField()
    closed_at = models.DateTimeField(null=True, blank=True)
    balance = models.BigIntegerField(null=True, blank=True)
    pd_net = models.BigIntegerField(null=True, blank=True)
    exhausted = models.BooleanField(null=True, blank=True)
    pd_consecutive = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="the player-dealer's consecutive banked rounds, this one included (settled rounds)"
    )
    settlement = models.JSONField(null=True, blank=True, help_text="the settlement as shown to the dealer")
    side_bets = models.JSONField(
        null=True, blank=True, help_text="the side bets the table offered this round, with their pay tables (game-rules 10)"
    )
    void_reason = models.TextField(blank=True)
    void_approved_by = models.CharField(max_length=150, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="round_number_unique"),
            models.CheckConstraint(condition=Q(bank__gt=0), name="round_bank_positive"),
        ]
        # The compliance pages' keyset orders over a day range (docs/scaling.md): the
        # round history by (table, gaming day, number), the rotation log by (table, gaming day, time).
        indexes = [
            models.Index(fields=["table", "gaming_day", "number"], name="round_table_day_number"),
            # The rotation log's rounds in its keyset order, (table, gaming day, time).
            models.Index(fields=["table", "gaming_day", "opened_at", "id"], name="round_table_day_opened"),
            # The closer summary selects a shift's rounds by when they opened.
            models.Index(fields=["opened_at"], name="round_opened_at"),
        ]


# A backline row (game-rules 12) is marked and names its bettor (then `player` is the
# bettor too); a seat's own row has neither.
BACKLINE_MARKED = Q(backline=False, bettor="") | (Q(backline=True) & ~Q(bettor=""))


class Wager(models.Model):
    KINDS = [(k, k) for k in ("ante", "blind", "trips", "play", "bad_beat", "pairs")]

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="wagers")
    seat = models.PositiveSmallIntegerField()
    player = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=KINDS)
    amount = models.PositiveBigIntegerField()
    backline = models.BooleanField(default=False, help_text="a backline wager behind the seat (game-rules 12)")
    bettor = models.CharField(max_length=64, blank=True, default="", help_text="the backline wager's bettor")
    created_at = models.DateTimeField()

    class Meta:
        # A patron's history finds their wagers by id, whatever its case (player__iexact).
        indexes = [models.Index(Upper("player"), name="wager_player_upper")]
        constraints = [
            models.UniqueConstraint(fields=["round", "seat", "bettor", "kind"], name="one_wager_per_kind_and_bettor"),
            models.CheckConstraint(condition=Q(amount__gt=0), name="wager_positive"),
            models.CheckConstraint(condition=BACKLINE_MARKED, name="wager_backline_names_bettor"),
        ]


class Decision(models.Model):
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="decisions")
    seat = models.PositiveSmallIntegerField()
    player = models.CharField(max_length=64)
    street = models.CharField(max_length=8)
    action = models.CharField(max_length=8)
    amount = models.PositiveBigIntegerField(default=0)
    # A backline bettor's decision, carried from the seat's at the same moment (game-rules 12).
    bettor = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField()


class RoundCard(models.Model):
    """A card of the round: `position` is 'community', 'player_dealer' or a seat number."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="cards")
    position = models.CharField(max_length=16)
    index = models.PositiveSmallIntegerField()
    card = models.CharField(max_length=2)
    source = models.CharField(max_length=8, help_text="dealt, shuffled or entered")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "position", "index"], name="one_card_per_position"),
            models.UniqueConstraint(fields=["round", "card"], name="card_once_per_round"),
        ]


class SettlementLine(models.Model):
    """One wager settled against the bank, in the order the dealer pays (section 7)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="lines")
    order = models.PositiveSmallIntegerField()
    seat = models.PositiveSmallIntegerField()
    player = models.CharField(max_length=64)
    wager = models.CharField(max_length=8)
    stake = models.PositiveBigIntegerField()
    result = models.CharField(max_length=10)
    amount = models.PositiveBigIntegerField()
    uncovered = models.PositiveBigIntegerField()
    backline = models.BooleanField(default=False, help_text="a backline wager's line (game-rules 12)")
    bettor = models.CharField(max_length=64, blank=True, default="", help_text="the backline line's bettor")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["round", "order"]
        constraints = [
            models.UniqueConstraint(fields=["round", "order"], name="settlement_line_order_unique"),
            models.CheckConstraint(condition=BACKLINE_MARKED, name="line_backline_names_bettor"),
        ]

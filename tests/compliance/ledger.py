"""Builds the compliance test ledger, committed once for the whole tests/compliance package.

Two kinds of data:

* **Real tables**, played command by command through the command service
  (`tables.services.command_execute`) at fixed times (a clock patched in), over two
  gaming days, two dealers, with a round whose bank runs out (fees refunded because the
  bank could not act), a voided round (every fee refunded), a limit reached with offers,
  declines and acceptances, and a game stop. Every collection entry, event and round
  row here was written by the real service.
* **Volume**: 100,000 fee lines (+ 2,000 refunds) on a table of their own over ten
  gaming days, 10,000 fee lines a day, inserted with COPY for speed. They reuse the
  rounds and events of two real rounds of that table (the rows need those foreign
  keys), continue the table's collection hash chain with `cardroom.hashchain.link` (keyed) over
  `CollectionEntry.chain_content()` exactly as the command service does, and move the
  table's chain head, so `verify_logs` verifies them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from unittest import mock
from zoneinfo import ZoneInfo

from django.db import connection

from cardroom import hashchain
from cardroom.gaming_day import calendar
from collections_fees.models import CollectionEntry
from rounds.models import Round
from tables.models import Table, TableEvent
from tests.db_access import as_owner
from tests.engine.helpers import dealt_round, seated_with_pd
from tests.playing import new_table, run_ok

LA = ZoneInfo("America/Los_Angeles")
DAY1 = date(2026, 3, 2)
DAY2 = date(2026, 3, 3)
VOLUME_DAYS = [date(2026, 2, 1) + timedelta(days=i) for i in range(10)]
VOLUME_FEES_PER_DAY = 10_000
VOLUME_REFUND_EVERY = 50  # every 50th fee line of the volume table is refunded

FEES_A = {
    "payers": "all_players",
    "player_basis": "ante",
    "pd_basis": "per_betting_square",
    "rates": [
        {"min": 500, "max": 2500, "player_fee": 100, "pd_fee": 100},
        {"min": 2501, "max": 100000, "player_fee": 200, "pd_fee": 150},
    ],
}
FEES_B = {
    "payers": "players_not_pd",
    "player_basis": "initial_total",
    "pd_basis": "total_table_action",
    "rates": [{"min": 0, "max": 1000000, "player_fee": 75, "pd_fee": 0}],
}


class Clock:
    """`django.utils.timezone.now` while the ledger is built: a settable time that moves
    one second per call, so every command has its own time."""

    def __init__(self):
        self.now = datetime(2026, 1, 1, tzinfo=LA)

    def set(self, day: date, clock: time):
        self.now = datetime.combine(day, clock, tzinfo=LA)

    def __call__(self):
        # In UTC, as timezone.now() returns it: the hash chains hash created_at's
        # isoformat(), which must read the same when the row comes back from the database.
        self.now += timedelta(seconds=1)
        return self.now.astimezone(UTC)


@dataclass
class Ledger:
    table_a: Table = None
    table_b: Table = None
    volume: Table = None
    dealers: tuple = ("dealer-ann", "dealer-bob")
    rounds: dict = field(default_factory=dict)  # name -> Round
    volume_fee_lines: int = 0
    volume_refunds: int = 0


def build_real_tables(ledger: Ledger, clock: Clock):
    ann, bob = ledger.dealers
    a = ledger.table_a = new_table("Real A", seats=6, fee_schedule=FEES_A, boxes=False)

    # Gaming day 1, day shift, dealer Ann.
    clock.set(DAY1, time(10, 0))
    run_ok(a, *seated_with_pd([1, 2, 3, 4], pd=1), actor=ann)
    run_ok(a, *dealt_round([2, 3, 4], ante=1000, trips=100), actor=ann)  # round 1: PD seat 1
    run_ok(a, *dealt_round([2, 3, 4], ante=3000), actor=ann)  # round 2: PD seat 1 again -> limit
    # The limit was reached: seat 2 is offered the bank and declines, seat 3 accepts.
    run_ok(a, {"type": "decline_bank", "seat": 2}, {"type": "accept_bank", "seat": 3}, actor=ann)
    # Round 3: the bank runs out. PD seat 3 (bank $5); settlement order 4, 1, 2. Seat 4
    # (trip aces) wins its Play against a PD who does not qualify; the PD pays $5 of
    # $10 and the bank is exhausted: seats 1 and 2 get no action, their fees refunded.
    cards = ["4c", "5c", "6h", "6d", "As", "Ad", "2c", "3d", "Ah", "Kc", "7d", "8s", "9h"]
    run_ok(a, *dealt_round([1, 2, 4], cards, bank=500, ante=1000), actor=ann)
    ledger.rounds["exhausted"] = Round.objects.get(table=a, number=3)
    # Round 4 is voided after no more bets: every fee of it is refunded.
    run_ok(
        a,
        {"type": "open_round", "bank": 20000},
        {"type": "wager", "seat": 1, "ante": 500},
        {"type": "wager", "seat": 2, "ante": 500},
        {"type": "no_more_bets"},
        {"type": "void_round", "reason": "shuffler malfunction", "approved_by": "sup-carla"},
        actor=ann,
    )
    ledger.rounds["voided"] = Round.objects.get(table=a, number=4)

    # Gaming day 2, swing shift, dealer Bob. Round 5 is P-3's second settled bank in a
    # row (the voided round 4 does not count): the limit is reached and seat 4 accepts.
    # After round 6 the player-dealer passes and everyone declines, the passer last:
    # the game stops for want of a player-dealer.
    clock.set(DAY2, time(15, 0))
    settled = run_ok(a, *dealt_round([1, 2, 4], ante=2000), actor=bob)[-1]
    assert settled["next_offer"] == 4, settled
    ledger.rounds["day2"] = Round.objects.get(table=a, number=5)
    run_ok(a, {"type": "accept_bank", "seat": 4}, actor=bob)
    run_ok(a, *dealt_round([1, 2, 3], ante=1000), actor=bob)
    offer = run_ok(a, {"type": "pass_bank"}, actor=bob)[0]["offer"]
    while offer is not None:
        offer = run_ok(a, {"type": "decline_bank", "seat": offer}, actor=bob)[0]["offer"]

    # A second table with another schedule (PD pays nothing), dealer Bob, gaming day 1.
    b = ledger.table_b = new_table("Real B", seats=4, fee_schedule=FEES_B, boxes=False)
    clock.set(DAY1, time(23, 30))  # grave shift
    run_ok(b, *seated_with_pd([1, 2, 3], pd=2, prefix="Q-"), actor=bob)
    run_ok(b, *dealt_round([1, 3], ante=1500, trips=500), actor=bob)


def build_volume(ledger: Ledger, clock: Clock, days=VOLUME_DAYS):
    ann, bob = ledger.dealers
    v = ledger.volume = new_table("Volume", seats=6, fee_schedule=FEES_A, boxes=False)
    clock.set(days[0] - timedelta(days=1), time(12, 0))
    run_ok(v, *seated_with_pd([1, 2, 3, 4, 5, 6], pd=1, prefix="V-"), actor=ann)
    run_ok(v, *dealt_round([2, 3, 4, 5, 6]), actor=ann)
    run_ok(v, *dealt_round([2, 3, 4, 5, 6]), actor=bob)
    rounds = list(Round.objects.filter(table=v).order_by("number"))
    events = {}
    for rnd in rounds:
        window = TableEvent.objects.filter(table=v, created_at__gte=rnd.opened_at, created_at__lte=rnd.closed_at)
        events[rnd.pk] = (window.get(command_type="no_more_bets"), window.get(command_type="settle"))
    schedule_id = rounds[0].fee_schedule_id

    table = Table.objects.get(pk=v.pk)
    seq, head = table.collection_seq, table.collection_head
    per_day = VOLUME_FEES_PER_DAY + VOLUME_FEES_PER_DAY // VOLUME_REFUND_EVERY
    total = per_day * len(days)
    # A bulk load written straight into the ledger, not through the command service: a
    # fixture the owner builds (the app role may neither setval nor COPY here).
    with as_owner():
        with connection.cursor() as cursor:
            sequence = "pg_get_serial_sequence('collections_fees_collectionentry', 'id')"
            cursor.execute(f"SELECT nextval({sequence})")
            first_id = cursor.fetchone()[0]
            cursor.execute(f"SELECT setval({sequence}, %s)", [first_id + total])
        next_id = first_id
        cal = calendar()
        shift_of = _shifts(cal)
        columns = (
            "id, table_id, seq, round_id, event_id, kind, seat, player, payer, amount, basis, rate_index, "
            "schedule_id, refund_of_id, reason, created_at, gaming_day, shift, prev_hash, row_hash, hash_key"
        )
        # One unsaved instance, its fields set row by row: chain_content() is the model's own
        # (what the command service hashes), without a model __init__ per row.
        entry = CollectionEntry(table_id=v.pk, schedule_id=schedule_id, rate_index=1, hash_key=hashchain.current_key_id())
        with connection.cursor() as cursor, cursor.cursor.copy(f"COPY collections_fees_collectionentry ({columns}) FROM STDIN") as copy:
            for day in days:
                start, _ = cal.day_bounds(day)
                step = timedelta(hours=23) / per_day
                for i in range(VOLUME_FEES_PER_DAY):
                    rnd = rounds[i % 2]
                    seat = 1 + i % 6
                    pd = seat == 1
                    fee_id, fee_at = next_id, (start + step * (i + i // VOLUME_REFUND_EVERY)).astimezone(UTC)
                    row = dict(
                        id=fee_id, round_id=rnd.pk, event_id=events[rnd.pk][0].pk, kind="fee", seat=seat,
                        player=f"V-{seat}", payer="player_dealer" if pd else "player", amount=150 if pd else 100,
                        basis=5000 if pd else 1000, refund_of_id=None, reason="", created_at=fee_at,
                    )
                    seq, head = _append(copy, entry, row, seq, head, day, shift_of)
                    next_id += 1
                    ledger.volume_fee_lines += 1
                    if i % VOLUME_REFUND_EVERY == VOLUME_REFUND_EVERY - 1:
                        # Refund this player fee, in its own round (the bank could not act).
                        assert not pd
                        row.update(
                            id=next_id, event_id=events[rnd.pk][1].pk, kind="refund", refund_of_id=fee_id,
                            reason="bank_could_not_act", created_at=fee_at + step,
                        )
                        seq, head = _append(copy, entry, row, seq, head, day, shift_of)
                        next_id += 1
                        ledger.volume_refunds += 1
        Table.objects.filter(pk=v.pk).update(collection_seq=seq, collection_head=head)
        with connection.cursor() as cursor:
            # What autovacuum does after a bulk load: planner statistics for 100,000 new rows.
            cursor.execute("ANALYZE collections_fees_collectionentry")


def _append(copy, entry: CollectionEntry, row: dict, seq: int, head: str, day: date, shift_of) -> tuple[int, str]:
    for name, value in row.items():
        setattr(entry, name, value)
    seq += 1
    entry.seq = seq
    entry.gaming_day = day
    entry.shift = shift_of(entry.created_at)
    entry.prev_hash = head
    entry.row_hash = hashchain.link(head, entry.chain_content(), entry.hash_key)
    # COPY text format; no value here holds a tab, newline or backslash.
    copy.write(
        "\t".join(
            "\\N" if value is None else value.isoformat() if hasattr(value, "isoformat") else str(value)
            for value in (
                entry.id, entry.table_id, entry.seq, entry.round_id, entry.event_id, entry.kind, entry.seat,
                entry.player, entry.payer, entry.amount, entry.basis, entry.rate_index, entry.schedule_id,
                entry.refund_of_id, entry.reason, entry.created_at, entry.gaming_day, entry.shift,
                entry.prev_hash, entry.row_hash, entry.hash_key,
            )
        )
        + "\n"
    )
    return seq, entry.row_hash


def _shifts(cal):
    """cal.shift, remembered per minute (shifts start on whole minutes)."""
    known = {}

    def shift_of(moment):
        minute = moment.replace(second=0, microsecond=0)
        if minute not in known:
            known[minute] = cal.shift(minute)
        return known[minute]

    return shift_of


def build(volume_days=VOLUME_DAYS) -> Ledger:
    """The whole ledger; `volume_days` gaming days of 10,000 generated fee lines each."""
    ledger, clock = Ledger(), Clock()
    with mock.patch("django.utils.timezone.now", clock):
        build_real_tables(ledger, clock)
        build_volume(ledger, clock, volume_days)
    return ledger

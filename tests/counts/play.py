"""A gaming day of simulated play on several tables, with drop boxes, for the count tests.

Every command goes through the real command service at fixed times (a clock patched in,
as tests/compliance/ledger.py does): three tables over the three shifts of one gaming day
(the grave shift past midnight too), a fee box placed on each table each shift by the
supervisor, one box swapped mid-shift, a voided round (its fees refunded) and a round whose
bank runs out (fees refunded to the seats it could not act on).
The clock is tests/compliance/ledger.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, time, timedelta

from django.conf import settings
from django.contrib.auth.models import Group, User

from cardroom.access import Actor
from collections_fees import counts
from tests.compliance.ledger import Clock  # noqa: F401 (the settable clock, for this module's users)
from tests.engine.helpers import FEES, dealt_round, seated_with_pd
from tests.playing import new_table, run

DEALER = "dealer-dee"

DAY = date(2026, 4, 6)
SHIFT_TIMES = {"day": (DAY, time(10, 0)), "swing": (DAY, time(16, 0)), "grave": (DAY + timedelta(days=1), time(1, 0))}
AFTER_THE_DAY = (DAY + timedelta(days=1), time(7, 0))


def person(name: str, role: str) -> Actor:
    user, _ = User.objects.get_or_create(username=name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return Actor(name=name, role=role, user_id=user.pk, session=f"session-{name}")


@dataclass
class Day:
    tables: list = field(default_factory=list)
    boxes: dict = field(default_factory=dict)  # (table id, shift) -> [DropBox in placement order]
    supervisor: Actor = None
    manager: Actor = None
    counters: tuple = ()


def deal(table, **round_options):
    """A whole round by every seated player but the player-dealer; when the bank is
    offered (the rotation limit), the offered seat accepts it."""
    table.refresh_from_db()
    rotation = table.state["rotation"]
    if rotation["offer_seat"] is not None:
        run(table, {"type": "accept_bank", "seat": rotation["offer_seat"]}, actor=DEALER)
        table.refresh_from_db()
        rotation = table.state["rotation"]
    players = sorted(int(seat) for seat in table.state["occupants"] if int(seat) != rotation["pd_seat"])
    run(table, *dealt_round(players, **round_options), actor=DEALER)


def play(clock: Clock, *, tables: int = 3, rounds_per_shift: int = 2) -> Day:
    day = Day(
        supervisor=person("sup-sam", "supervisor"),
        manager=person("mgr-mia", "manager"),
        counters=(person("count-cal", "count_team"), person("count-cy", "count_team")),
    )
    clock.set(DAY, time(6, 30))
    for n in range(1, tables + 1):
        table = new_table(f"Count {n}", seats=6, fee_schedule=FEES, boxes=False)
        day.tables.append(table)
        run(table, *seated_with_pd([1, 2, 3, 4], pd=1), actor=DEALER)
    for shift, (calendar_day, clock_time) in SHIFT_TIMES.items():
        clock.set(calendar_day, clock_time)
        for table in day.tables:
            box = counts.box_register(identifier=f"T{table.pk}-{shift}", kind="fees", table_id=table.pk, actor=day.supervisor)
            counts.box_place(table_id=table.pk, box_id=box.pk, actor=day.supervisor)
            day.boxes[(table.pk, shift)] = [box]
            for number in range(rounds_per_shift):
                deal(table, ante=1000 + 500 * number)
        first = day.tables[0]
        if shift == "day":
            # The box is full: a spare goes on mid-shift, and a round is voided after it.
            spare = counts.box_register(identifier="EMERG-1", kind="emergency", table_id=None, actor=day.supervisor)
            counts.box_place(table_id=first.pk, box_id=spare.pk, actor=day.supervisor, reason="box full")
            day.boxes[(first.pk, shift)].append(spare)
            deal(first, ante=2000)
            first.refresh_from_db()
            if first.state["rotation"]["offer_seat"] is not None:
                run(first, {"type": "accept_bank", "seat": first.state["rotation"]["offer_seat"]}, actor=DEALER)
                first.refresh_from_db()
            players = [s for s in (1, 2, 3, 4) if s != first.state["rotation"]["pd_seat"]]
            run(first, {"type": "open_round", "bank": 20000},
                {"type": "wager", "seat": players[0], "ante": 500},
                {"type": "wager", "seat": players[1], "ante": 500},
                {"type": "no_more_bets"},
                {"type": "void_round", "reason": "misdeal", "approved_by": "sup-sam"}, actor=DEALER)
    return day


def pieces(cents: int) -> dict:
    """`cents` as the fewest pieces of the configured denominations (what a counter finds)."""
    out = {}
    for denomination in sorted(settings.CARDROOM_COUNT_DENOMINATIONS, reverse=True):
        out[str(denomination)], cents = divmod(cents, denomination)
    return {k: v for k, v in out.items() if v}


def count_shift(day, shift, *, adjust=None):
    """Open the shift's sheet and count every box as the log expects (`adjust`: box ->
    cents to add), by the first counter."""
    sheet = counts.count_sheet_open(gaming_day=DAY, shift=shift, actor=day.counters[0])
    for box_id in counts.placed_boxes(sheet):
        expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift=shift)
        counted = expected + (adjust or {}).get(box_id, 0)
        counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(counted), actor=day.counters[0])
    return sheet


def sign_and_close(day, sheet):
    for counter in day.counters:
        counts.count_sign(sheet_id=sheet.pk, actor=counter)
    return counts.shift_close(gaming_day=sheet.gaming_day, shift=sheet.shift, actor=day.supervisor)

"""`python manage.py seed_demo`: a demo floor that shows the whole product at once.

* Demo tables with seated players and a player-dealer, ready to deal: two offer side
  bets (Bad Beat and Pairs), one of them the progressive too (its meter and its jackpot
  box), one runs under the rotation policy (game-rules 2A), one is empty (and has no drop
  box this shift: a supervisor places it on the Drop boxes page before its first round).
* The shift before the one running now, already played: the tables were set up, boxes
  placed and rounds dealt at times inside that shift, so the count team can open its
  count sheet at once and find boxes with what the logs expect in them.
* Demo logins, one per role, with the demo dealer assigned to every table for today.
* A relief plan for the shift running now (tables.relief): the demo dealers rotate over the
  first RELIEF_TABLES tables from the next RELIEF_ALIGN_MINUTES mark, so the floor's relief
  panel shows the next pushes, and a relief dealer can take over a table at their push.

Everything goes through the services a floor uses (the command service, the table
configuration, the drop boxes), as the system actor `seed_demo`: a system process is
exempt from the two-person rule, and only a system process may state when something
happened (`at`), which is how the past shift's rows get their times, each stamped,
hashed and chained as the service does it (`verify_logs` verifies them).

Idempotent: a demo table that exists is left as it is (its past shift was played when it
was made), and so are users and the boxes of the shift running now. The demo passwords
are for the demo only: they are printed, so never run this against a real cardroom's
database.
"""

import random
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from collections_fees import counts, jackpot
from collections_fees.models import DropBox, JackpotMeter
from patrons.cash import cash_record
from patrons.identity import house_list_add, patron_create
from patrons.models import Patron
from rounds.engine.view import table_view
from tables.events import publisher
from tables.models import DealerAssignment, Table
from tables.relief import plan_in_force, relief_plan_make
from tables.lifecycle import table_create
from tables.services import command_execute

SEED = "seed_demo"  # the system actor every seeded action is recorded under
FEES = {
    "payers": "all_players",
    "player_basis": "ante",
    "pd_basis": "per_betting_square",
    "rates": [
        {"min": 500, "max": 2500, "player_fee": 100, "pd_fee": 100},
        {"min": 2501, "max": 100000, "player_fee": 200, "pd_fee": 150},
    ],
}
LIMITS = {"ante_min": 500, "ante_max": 100000, "trips_min": 100, "trips_max": 25000}
BANKED_SIDE_BETS = {
    "bad_beat": {"paytable": "BBB-01", "min": 100, "max": 2500},
    "pairs": {"paytable": "UPB-1", "min": 100, "max": 2500},
}
PROGRESSIVE = {  # game-rules 10.3: $1 a hand, 80 % to the meter, reseeded at $5,000
    "paytable": "PROG-01",
    "wager": 100,
    "meter": {"name": "Demo Progressive", "meter_share": 80, "seed": 500000, "meter": 1000000, "reserve": 600000},
}

# name -> (configuration, seated players {seat: player}, the seat first offered the bank)
DEMO_TABLES = {
    "Demo UTH-1": (
        {"seats": 6, "paytable": "UTH-01", "limits": LIMITS, "dealing": "shuffler", "fee_schedule": FEES},
        {1: "P-101", 2: "P-102", 3: "P-103", 5: "P-105"},
        1,
    ),
    "Demo UTH-2": (  # Bad Beat and Pairs
        {"seats": 6, "paytable": "UTH-02", "limits": LIMITS, "dealing": "shoe", "fee_schedule": FEES,
         "side_bets": BANKED_SIDE_BETS},
        {1: "P-201", 2: "P-202", 4: "P-204", 6: "P-206"},
        2,
    ),
    "Demo UTH-3": (  # Bad Beat, Pairs and the progressive (its jackpot box beside the fee box)
        {"seats": 7, "paytable": "UTH-03", "limits": LIMITS, "dealing": "community_first", "fee_schedule": FEES,
         "side_bets": {**BANKED_SIDE_BETS, "progressive": PROGRESSIVE}},
        {1: "P-301", 3: "P-303", 5: "P-305", 7: "P-307"},
        3,
    ),
    "Demo UTH-4": (  # backline wagers behind the seats (game-rules 12), Trips too
        {"seats": 8, "paytable": "UTH-04", "limits": LIMITS, "dealing": "shuffler", "fee_schedule": FEES,
         "max_consecutive_banks": 1, "backline": {"max_per_seat": 2, "trips": True}},
        {2: "P-402", 3: "P-403", 4: "P-404", 6: "P-406", 8: "P-408"},
        4,
    ),
    "Demo UTH-5": (  # under the rotation policy (game-rules 2A): the bank is offered before every round
        {"seats": 6, "paytable": "UTH-01", "limits": LIMITS, "dealing": "shuffler", "fee_schedule": FEES,
         "rotation_policy": {}},
        {1: "P-501", 2: "P-502", 3: "P-503"},
        2,
    ),
    "Demo UTH-6": (
        {"seats": 6, "paytable": "UTH-02", "limits": LIMITS, "dealing": "shuffler", "fee_schedule": FEES},
        {},
        None,
    ),
}

# user name -> (password, role). The demo dealer is assigned to every demo table for
# every shift of the gaming day it is seeded on (run seed_demo again on another day).
DEMO_USERS = {
    "dealer": ("dealer-demo", "dealer"),
    # Relief dealers: the shift's relief plan rotates them with `dealer` (seed_relief_plan).
    "dealer2": ("dealer2-demo", "dealer"),
    "dealer3": ("dealer3-demo", "dealer"),
    "dealer4": ("dealer4-demo", "dealer"),
    "supervisor": ("supervisor-demo", "supervisor"),
    "supervisor2": ("supervisor2-demo", "supervisor"),  # a second person, to approve voids
    "compliance": ("compliance-demo", "compliance"),
    # A second compliance person: a removal from a self-exclusion list takes two.
    "compliance2": ("compliance2-demo", "compliance"),
    "counter": ("counter-demo", "count_team"),  # the count team: two people count and sign
    "counter2": ("counter2-demo", "count_team"),
    "manager": ("manager-demo", "manager"),  # approves large variances and reopens
}


# The demo tables that deal rounds in the past shift: every table with players but the
# one under the rotation policy, whose game would then end at its first round today (no
# second banker within the window: game-rules 2A.3) and wait for a supervisor.
PAST_ROUNDS_PER_TABLE = 3
ANTES = (500, 1000, 2500)
SECONDS_PER_TAP = 20  # between two of the past shift's commands at a table


def demo_table(
    name: str, config: dict, players: dict[int, str], first_offer: int | None, *, at: datetime | None = None
) -> Table:
    """The table `name`, created with its players and player-dealer if it does not exist
    (`at`: set up at that time, by the system actor: the past shift's start)."""
    table = Table.objects.filter(name=name).first()
    if table is not None:
        return table
    commands = [{"type": "sit", "seat": s, "player": p} for s, p in players.items()]
    if first_offer is not None:
        commands += [{"type": "offer_bank", "seat": first_offer}, {"type": "accept_bank", "seat": first_offer}]
    with transaction.atomic():
        table = table_create(name=name, config=config, created_by=SEED, at=at)
        for n, command in enumerate(commands):
            when = at + timedelta(seconds=n) if at else None
            outcome = command_execute(table_id=table.pk, command=command, actor=SEED, at=when)
            assert outcome.ok, (command, outcome.result)
    return table


class PastShift:
    """The shift that ended last, replayed on the demo floor: its own clock per table,
    from shortly after the shift's start, one tap every SECONDS_PER_TAP."""

    def __init__(self, now: datetime):
        cal = calendar()
        self.gaming_day, self.shift = cal.previous_shift(now)
        self.start, self.end = cal.shift_bounds(self.gaming_day, self.shift)
        self.opening = self.start + min(timedelta(minutes=30), (self.end - self.start) / 8)

    def table(self, name: str, config: dict, players: dict[int, str], first_offer: int | None) -> Table:
        """The demo table, and on the run that makes it, its past shift: set up, boxes
        placed, rounds dealt (all or nothing)."""
        if Table.objects.filter(name=name).exists():
            return Table.objects.get(name=name)
        with transaction.atomic():
            table = demo_table(name, config, players, first_offer, at=self.opening)
            clock = self.opening + timedelta(minutes=5)
            place_boxes(table, at=clock)
            if players and "rotation_policy" not in config:
                rng = random.Random(f"{SEED}:{name}")  # the same rounds on every fresh seed
                for _ in range(PAST_ROUNDS_PER_TABLE):
                    clock = play_round(table, rng, clock)
            if clock >= self.end:  # rolls the table back: its rounds would spill into the next shift
                raise CommandError(
                    f"the {self.shift} shift ({self.start:%H:%M} to {self.end:%H:%M}) is too short for the demo's rounds"
                )
        return table


def _send(table: Table, command: dict, at: datetime) -> datetime:
    outcome = command_execute(table_id=table.pk, command=command, actor=SEED, at=at)
    assert outcome.ok, (table.name, command, outcome.result)
    return at + timedelta(seconds=SECONDS_PER_TAP)


def _view(table: Table) -> dict:
    table.refresh_from_db(fields=["state"])
    progressive = table.state["config"].get("side_bets") or {}
    meter = (progressive.get("progressive") or {}).get("meter")
    fund = jackpot.fund_of(JackpotMeter.objects.get(name=meter["name"])) if meter else None
    return table_view(table.state, fund=fund)


def play_round(table: Table, rng: random.Random, at: datetime) -> datetime:
    """One whole round, as a dealer would tap it from the tablet's next step; every
    player wagers, with Trips now and then and the table's side bets when offered.
    Returns the time of the next tap."""
    view = _view(table)
    if view["next"]["step"] == "offer":  # the rotation limit: the seat offered takes the bank
        at = _send(table, {"type": "accept_bank", "seat": view["next"]["seat"]}, at)
        view = _view(table)
    offered = table.state["config"].get("side_bets") or {}
    at = _send(table, {"type": "open_round", "bank": 100000}, at)
    for seat in (s["seat"] for s in view["seats"] if s["role"] == "player"):
        wager = {"type": "wager", "seat": seat, "ante": rng.choice(ANTES)}
        if rng.random() < 0.6:
            wager["trips"] = 500
            if "bad_beat" in offered:
                wager["bad_beat"] = 100
        if "pairs" in offered and rng.random() < 0.6:
            wager["pairs"] = 500
        if "progressive" in offered:
            wager["progressive"] = True
        at = _send(table, wager, at)
    at = _send(table, {"type": "no_more_bets"}, at)
    while True:
        view = _view(table)
        step = view["next"]
        if step["step"] == "decisions":
            seat = next(s for s in view["seats"] if s["seat"] == step["pending"][0])
            command = {**rng.choice(seat["actions"]), "seat": seat["seat"]}
        elif step["step"] == "confirm_award":  # a royal: the seed states who confirmed it
            command = {"type": "confirm_award", "seat": step["awards"][0]["seat"], "approved_by": SEED}
        else:  # deal, flop, turn_river, showdown, settle: the server shuffles and deals
            command = {"type": step["step"]}
        at = _send(table, command, at)
        if command["type"] == "settle":
            return at


def demo_user(username: str, password: str, role: str) -> str:
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User.objects.create_user(username=username, password=password)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return password if user.check_password(password) else "(its password was changed since it was seeded)"


def assign_demo_dealer(tables: list[Table]) -> None:
    """The demo dealer works every demo table, every shift of today's gaming day."""
    User = get_user_model()
    dealer, supervisor = User.objects.get(username="dealer"), User.objects.get(username="supervisor")
    cal, now = calendar(), timezone.now()
    for table in tables:
        for shift, _ in cal.shifts:
            DealerAssignment.objects.get_or_create(
                dealer=dealer, table=table, gaming_day=cal.gaming_day(now), shift=shift, ended_at=None,
                defaults={"assigned_by": supervisor, "assigned_at": now},
            )


# The relief plan seeded for the shift running now: these dealers, in rotation order, over
# the first RELIEF_TABLES demo tables (one more dealer than tables: one is on a break at
# each push), from the next whole RELIEF_ALIGN_MINUTES after seeding.
RELIEF_DEALERS = ("dealer", "dealer2", "dealer3", "dealer4")
RELIEF_TABLES = 3
RELIEF_ALIGN_MINUTES = 5


def first_relief_push(now: datetime, shift_end: datetime) -> datetime:
    """The next whole RELIEF_ALIGN_MINUTES mark after `now` (a push still to come, so the
    panel shows it and nobody is late on a fresh floor), or `now` itself when the shift
    ends before that mark (the plan must start inside the shift it is for)."""
    step = RELIEF_ALIGN_MINUTES * 60
    mark = datetime.fromtimestamp((int(now.timestamp()) // step + 1) * step, tz=now.tzinfo)
    return mark if mark < shift_end else now


def seed_relief_plan(tables: list[Table]) -> None:
    """The shift's relief plan, made by the demo supervisor through tables.relief (a plan
    names the person who made it), unless the shift already has one (seeding again
    changes nothing)."""
    cal, now = calendar(), timezone.now()
    day, shift = cal.gaming_day(now), cal.shift(now)
    if plan_in_force(day, shift) is not None:
        return
    people = get_user_model().objects.filter(username__in=(*RELIEF_DEALERS, "supervisor")).in_bulk(field_name="username")
    _, shift_end = cal.shift_bounds(day, shift)
    relief_plan_make(dealers=[people[name].pk for name in RELIEF_DEALERS],
                     tables=[table.pk for table in tables[:RELIEF_TABLES]],
                     starts_at=first_relief_push(now, shift_end), actor=Actor.of(people["supervisor"]))


# name -> (display name, legal name, the demo table and its chip purchases for cash today
# in cents, on the house's list). Numbers the demo tables seat, so their pages show
# seatings and wagers too: Maria is near the CTR line today (an MTL entry, the $8,000
# warning), Pete asked the house to exclude him (a seating of his is refused).
DEMO_PATRONS = {
    "P-101": ("Maria L.", "Maria Lopez", "Demo UTH-1", (400000, 500000), False),
    "P-201": ("Sam K.", "Samuel Kim", "Demo UTH-2", (150000,), False),
    "P-900": ("Pete L.", "Pete Listed", "Demo UTH-1", (), True),
}


def seed_patrons() -> None:
    """The demo's patrons, through the patron and cash services as the system actor: a
    patron that exists is left as it is (and so are its cash rows)."""
    seeder = Actor.system(SEED)
    for number, (display, legal, table_name, purchases, excluded) in DEMO_PATRONS.items():
        if Patron.objects.filter(number=number).exists():
            continue
        with transaction.atomic():
            patron = patron_create(actor=seeder, number=number, display_name=display, legal_name=legal)
            table = Table.objects.get(name=table_name)
            for amount in purchases:
                cash_record(table_id=table.pk, kind="chip_purchase", amount=amount, player=number, actor=seeder)
            if excluded:
                house_list_add(actor=seeder, patron_id=patron.pk, reason="asked to be excluded (demo)")


DEMO_RULE_SET = "California 2026 (11 CCR 2076-2077)"


def seed_rule_set(tables: list[Table]) -> None:
    """A rule set over the first two demo tables (tables/rule_sets.py): its version 1, filed
    by the demo supervisor and approved by the second, in force from today's first round;
    its version 2, for tomorrow, waiting on the rule sets page for the second supervisor."""
    from tables import rule_sets
    from tables.models import RuleSet

    if RuleSet.objects.filter(name=DEMO_RULE_SET).exists():
        return
    people = get_user_model().objects.filter(username__in=("supervisor", "supervisor2")).in_bulk(field_name="username")
    filer, approver = Actor.of(people["supervisor"]), Actor.of(people["supervisor2"])
    rule_set = rule_sets.rule_set_create(actor=Actor.system("seed_demo"), name=DEMO_RULE_SET)
    for table in tables[:2]:
        rule_sets.rule_set_join(actor="seed_demo", table_id=table.pk, rule_set_id=rule_set.pk)
    today = calendar().gaming_day(timezone.now())
    posted = {"max_consecutive_banks": 2, "notice": "The player-dealer position rotates clockwise; nobody banks more than two rounds in a row."}
    first = rule_sets.rule_set_file(actor=filer, rule_set_id=rule_set.pk, rules=posted, effective_day=today,
                                    reason="the rules the room posts today")
    rule_sets.rule_set_decide(actor=approver, change_id=first.pk, approve=True)
    rule_sets.rule_set_file(
        actor=filer, rule_set_id=rule_set.pk, effective_day=today + timedelta(days=1),
        rules={**posted, "notice": posted["notice"] + " Rule set version 2: the room's notice as of tomorrow."},
        reason="the notice as the Commission's new numbering reads",
    )


def _box(identifier: str, kind: str, table: Table, at: datetime | None) -> DropBox:
    found = DropBox.objects.filter(identifier=identifier).first()
    return found or counts.box_register(identifier=identifier, kind=kind, table_id=table.pk, actor=Actor.system(SEED), at=at)


def place_boxes(table: Table, at: datetime | None = None) -> None:
    """The table's fee box (FEES-<id>) and, with a progressive, its jackpot box
    (JACKPOT-<id>), placed for the shift at `at` (default: the one running now) unless
    placed already. A box is emptied at the count and goes back on its table."""
    moment, cal = at or timezone.now(), calendar()
    day, shift = cal.gaming_day(moment), cal.shift(moment)
    table.refresh_from_db()
    slots = {"fees": f"FEES-{table.pk}"}
    if (table.state["config"].get("side_bets") or {}).get("progressive"):
        slots["jackpot"] = f"JACKPOT-{table.pk}"
    for slot, identifier in slots.items():
        if counts.placement_in_force(table_id=table.pk, gaming_day=day, shift=shift, slot=slot) is None:
            box = _box(identifier, slot, table, at)
            counts.box_place(table_id=table.pk, box_id=box.pk, actor=Actor.system(SEED), at=at)


class Command(BaseCommand):
    help = (
        "Create the demo floor (tables with seated players, side bets, a progressive, the rotation policy), "
        "its previous shift played and ready to count, and demo logins; prints them. Idempotent."
    )

    def handle(self, *args, **options):
        past = PastShift(timezone.now())
        tables = [past.table(name, *spec) for name, spec in DEMO_TABLES.items()]
        logins = {name: demo_user(name, password, role) for name, (password, role) in DEMO_USERS.items()}
        assign_demo_dealer(tables)
        seed_relief_plan(tables)
        seed_rule_set(tables)
        seed_patrons()
        for table in tables:
            # The empty table gets its box when players sit down: until a supervisor places
            # it, the tablet refuses its first round (box_missing), as it would on the floor.
            if table.state["occupants"]:
                place_boxes(table)
        publisher.drain()
        self.stdout.write("Demo floor ready:")
        for table in tables:
            self.stdout.write(f"  {table.name} (id {table.pk}): tablet /tables/{table.pk}/tablet/  live /tables/{table.pk}/")
        self.stdout.write("  floor dashboard: /floor/ (the shift's relief plan: /floor/relief/; a dealer's pushes: /relief/)")
        self.stdout.write(
            f"  count the {past.shift} shift of {past.gaming_day} (played, ready to count): "
            f"/compliance/count/{past.gaming_day}/{past.shift}/"
        )
        self.stdout.write("  rule sets: /staff/rule-sets/ (Demo UTH-1 and -2; version 2 waits for the second supervisor)")
        self.stdout.write("  patrons: /compliance/patrons/ (P-101 near the CTR line today, P-900 on the house's list)")
        self.stdout.write("Demo logins (demo only):")
        for name, password in logins.items():
            self.stdout.write(f"  user {name}  password {password}  ({DEMO_USERS[name][1]})")

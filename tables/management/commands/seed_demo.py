"""`python manage.py seed_demo`: a floor of demo tables ready to deal, and demo logins.

Idempotent: tables and users that exist are left as they are. Everything is created
through the command service, like a dealer would. The demo passwords are for the demo
only: they are printed, so never run this against a real cardroom's database.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from collections_fees import counts
from collections_fees.models import DropBox
from tables.events import publisher
from tables.models import DealerAssignment, Table
from tables.services import command_execute, table_create

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

# name -> (configuration, seated players {seat: player}, the seat first offered the bank)
DEMO_TABLES = {
    "Demo UTH-1": (
        {"seats": 6, "paytable": "UTH-01", "limits": LIMITS, "dealing": "shuffler", "fee_schedule": FEES},
        {1: "P-101", 2: "P-102", 3: "P-103", 5: "P-105"},
        1,
    ),
    "Demo UTH-2": (
        {"seats": 6, "paytable": "UTH-02", "limits": LIMITS, "dealing": "shoe", "fee_schedule": FEES},
        {1: "P-201", 2: "P-202", 4: "P-204", 6: "P-206"},
        2,
    ),
    "Demo UTH-3": (
        {"seats": 7, "paytable": "UTH-03", "limits": LIMITS, "dealing": "community_first", "fee_schedule": FEES},
        {1: "P-301", 3: "P-303", 5: "P-305", 7: "P-307"},
        3,
    ),
    "Demo UTH-4": (
        {"seats": 8, "paytable": "UTH-04", "limits": LIMITS, "dealing": "shuffler", "fee_schedule": FEES,
         "max_consecutive_banks": 1},
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
    "supervisor": ("supervisor-demo", "supervisor"),
    "supervisor2": ("supervisor2-demo", "supervisor"),  # a second person, to approve voids
    "compliance": ("compliance-demo", "compliance"),
    "counter": ("counter-demo", "count_team"),  # the count team: two people count and sign
    "counter2": ("counter2-demo", "count_team"),
    "manager": ("manager-demo", "manager"),  # approves large variances and reopens
}


def demo_table(name: str, config: dict, players: dict[int, str], first_offer: int | None) -> Table:
    """The table `name`, created with its players and player-dealer if it does not exist."""
    table = Table.objects.filter(name=name).first()
    if table is not None:
        return table
    commands = [{"type": "sit", "seat": s, "player": p} for s, p in players.items()]
    if first_offer is not None:
        commands += [{"type": "offer_bank", "seat": first_offer}, {"type": "accept_bank", "seat": first_offer}]
    with transaction.atomic():
        table = table_create(name=name, config=config, created_by="seed_demo")
        for command in commands:
            outcome = command_execute(table_id=table.pk, command=command, actor="seed_demo")
            assert outcome.ok, (command, outcome.result)
    return table


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


def place_demo_boxes(tables: list[Table]) -> None:
    """Each demo table gets its fee box (FEES-<id>), placed for the shift running now."""
    supervisor = Actor.of(get_user_model().objects.get(username="supervisor"))
    now, cal = timezone.now(), calendar()
    for table in tables:
        box = DropBox.objects.filter(identifier=f"FEES-{table.pk}").first() or counts.box_register(
            identifier=f"FEES-{table.pk}", kind="fees", table_id=table.pk, actor=supervisor
        )
        if counts.placement_in_force(table_id=table.pk, gaming_day=cal.gaming_day(now), shift=cal.shift(now)) is None:
            counts.box_place(table_id=table.pk, box_id=box.pk, actor=supervisor)


class Command(BaseCommand):
    help = "Create the demo floor (tables with seated players) and demo logins; prints them. Idempotent."

    def handle(self, *args, **options):
        tables = [demo_table(name, *spec) for name, spec in DEMO_TABLES.items()]
        logins = {name: demo_user(name, password, role) for name, (password, role) in DEMO_USERS.items()}
        assign_demo_dealer(tables)
        place_demo_boxes(tables)
        publisher.drain()
        self.stdout.write("Demo floor ready:")
        for table in tables:
            self.stdout.write(f"  {table.name} (id {table.pk}): tablet /tables/{table.pk}/tablet/  live /tables/{table.pk}/")
        self.stdout.write("  floor dashboard: /floor/")
        self.stdout.write("Demo logins (demo only):")
        for name, password in logins.items():
            self.stdout.write(f"  user {name}  password {password}  ({DEMO_USERS[name][1]})")

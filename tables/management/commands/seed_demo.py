"""`python manage.py seed_demo`: a demo table ready to deal (idempotent)."""

from django.core.management.base import BaseCommand

from tables.models import Table
from tables.services import command_execute, table_create

DEMO_TABLE = {
    "seats": 6,
    "paytable": "UTH-01",
    "limits": {"ante_min": 500, "ante_max": 100000, "trips_min": 100, "trips_max": 25000},
    "dealing": "shuffler",
    "max_consecutive_banks": 2,
    "fee_schedule": {
        "payers": "all_players",
        "player_basis": "ante",
        "pd_basis": "per_betting_square",
        "rates": [
            {"min": 500, "max": 2500, "player_fee": 100, "pd_fee": 100},
            {"min": 2501, "max": 100000, "player_fee": 200, "pd_fee": 150},
        ],
    },
}
DEMO_PLAYERS = {1: "P-101", 2: "P-102", 3: "P-103", 5: "P-105"}


class Command(BaseCommand):
    help = "Create the demo table with seated players and a player-dealer (does nothing if it exists)."

    def handle(self, *args, **options):
        table = Table.objects.filter(name="Demo UTH-1").first()
        if table is None:
            table = table_create(name="Demo UTH-1", config=DEMO_TABLE, created_by="seed_demo")
            commands = [{"type": "sit", "seat": s, "player": p} for s, p in DEMO_PLAYERS.items()]
            commands += [{"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}]
            for command in commands:
                outcome = command_execute(table_id=table.pk, command=command, actor="seed_demo")
                assert outcome.ok, outcome.result
        table.refresh_from_db()
        self.stdout.write(f"Demo table ready: {table.name} (id {table.pk}), version {table.version}")

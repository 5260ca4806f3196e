"""`python manage.py verify_rounds [--from DAY] [--to DAY]`: recompute every settled
round's settlement from its stored inputs and report any difference (exit 1 if any)."""

import sys
from datetime import date

from django.core.management.base import BaseCommand

from rounds.audit import round_verify, rounds_to_verify


class Command(BaseCommand):
    help = "Recompute stored rounds' settlements with the rules engine and report differences."

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="day_from", type=date.fromisoformat, help="first gaming day (YYYY-MM-DD)")
        parser.add_argument("--to", dest="day_to", type=date.fromisoformat, help="last gaming day (YYYY-MM-DD)")

    def handle(self, *args, day_from=None, day_to=None, **options):
        checked, differences = 0, []
        for rnd in rounds_to_verify(day_from=day_from, day_to=day_to).iterator(chunk_size=500):
            checked += 1
            differences += round_verify(rnd)
        for difference in differences:
            self.stdout.write(f"DIFFERENCE {difference}")
        self.stdout.write(f"{checked} rounds verified, {len(differences)} differences")
        if differences:
            sys.exit(1)

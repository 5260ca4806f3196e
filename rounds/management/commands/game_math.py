"""`python manage.py game_math [--hands N] [--seed S]`: the house edge every shipped pay
table implies, computed from the engine's own pay tables (rounds/game_math.py)."""

from django.core.management.base import BaseCommand

from rounds.game_math import report

DEFAULT_HANDS = 2_000_000
DEFAULT_SEED = 2026


class Command(BaseCommand):
    help = "Print the house edge of every pay table the product ships (Trips and Pairs exact, Bad Beat simulated)."

    def add_arguments(self, parser):
        parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, help="Bad Beat simulation size")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="Bad Beat simulation seed")

    def handle(self, *args, hands, seed, **options):
        for line in report(hands, seed):
            self.stdout.write(line)

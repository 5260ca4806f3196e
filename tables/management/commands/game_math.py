"""`python manage.py game_math [--table ID_OR_NAME] [--ante C] [--trips C] [--bad-beat C]
[--pairs C] [--hands N] [--seed S]`: what the rules cost, exactly (rounds/game_math.py).

Without --table: the house edge of every pay table the product ships (the base game's
published 2.185 % of the Ante, Trips and Pairs exactly, Bad Beat exactly from the
committed distribution), then, for each demo table as seed_demo configures it, the
player-dealer's expected result per round against 1 to seats - 1 players, collection
fees included (and, where the table offers Bad Beat or Pairs, with Trips and its side
bets at their minimums too). With --table: for that table's configuration in force, the
player-dealer's expected result and each player's expected cost, broken down. Amounts in cents; the Ante defaults to the table's
minimum, Blind equal to it, no Trips or side bets unless asked.

It lives in `tables` because it reads a table's configuration; the arithmetic is in
rounds/game_math.py, which knows nothing of tables.
"""

from django.core.management.base import BaseCommand, CommandError

from rounds.engine.config import TableConfig
from rounds.game_math import WagerError, minimum_side_wagers, pd_results_line, report, table_report, wagers_for
from tables.management.commands.seed_demo import DEMO_TABLES
from tables.models import Table


def _table(value: str) -> Table:
    found = list(Table.objects.filter(pk=int(value)) if value.isdigit() else Table.objects.filter(name=value))
    if not found and value.isdigit():
        found = list(Table.objects.filter(name=value))
    if not found:
        raise CommandError(f"no table {value!r} (give its id or its name)")
    if len(found) > 1:
        raise CommandError(f"several tables are named {value!r}: give its id ({', '.join(str(t.pk) for t in found)})")
    return found[0]


class Command(BaseCommand):
    help = "Print the house edge of every pay table, and what a table's configuration costs the player-dealer and each player per round."

    def add_arguments(self, parser):
        parser.add_argument("--table", help="a table's id or name: its figures only")
        parser.add_argument("--ante", type=int, help="each player's Ante in cents (default: the table's minimum)")
        parser.add_argument("--trips", type=int, default=0, help="each player's Trips wager in cents")
        parser.add_argument("--bad-beat", type=int, default=0, help="each player's Bad Beat wager in cents")
        parser.add_argument("--pairs", type=int, default=0, help="each player's Pairs wager in cents")
        parser.add_argument("--hands", type=int, default=0, help="also simulate the Bad Beat tables on N hands")
        parser.add_argument("--seed", type=int, default=2026, help="the simulation's seed")

    def handle(self, *args, table, ante, trips, bad_beat, pairs, hands, seed, **options):
        asked = {"ante": ante, "trips": trips, "bad_beat": bad_beat, "pairs": pairs}
        if table is not None:
            found = _table(table)
            self._table(f"{found.name} (table {found.pk})", TableConfig.from_config(found.state["config"]), asked)
            return
        for line in report(hands, seed):
            self.stdout.write(line)
        self.stdout.write("")
        self.stdout.write("The demo tables, as seed_demo configures them: the player-dealer's expected result per round")
        self.stdout.write("(+ wins, - loses; fees paid) against 1, 2, ... players (in brackets) who bet as said and play")
        self.stdout.write("the standard optimal strategy (`--table` for the whole breakdown of a table):")
        for name, (config, _, _) in DEMO_TABLES.items():
            config = TableConfig.from_config(config)
            # A side bet asked for is left out at a demo table that does not offer it.
            offered = {k: v for k, v in asked.items() if k not in ("bad_beat", "pairs") or getattr(config.side_bets, k)}
            try:
                self.stdout.write(pd_results_line(name, config, wagers_for(config, **offered)))
                side = minimum_side_wagers(config, ante) if not (trips or bad_beat or pairs) else None
                if side is not None:
                    self.stdout.write(pd_results_line(name, config, side))
            except WagerError as err:
                raise CommandError(f"{name}: {err}") from None

    def _table(self, name: str, config: TableConfig, asked: dict) -> None:
        try:
            lines = table_report(name, config, wagers_for(config, **asked))
        except WagerError as err:
            raise CommandError(f"{name}: {err}") from None
        for line in lines:
            self.stdout.write(line)

"""What the command service does per command, counted: Python function calls (cProfile)
and SQL statements, by command type, over whole rounds (issue 37 item 4).

Run with `.venv/bin/python -m benchmarks.bench_command_calls [rounds]`. It starts its own
throwaway PostgreSQL and Redis (tests/plugins/services.py; DATABASE_URL and REDIS_URL
are ignored), migrates, and at each of `rounds` tables seats four players and plays a round through
`tables.services.command_execute`, as a dealer's tablet does, each round dealt from a
stated deck (tests/engine/helpers.py `dealt_round`). Only the calls inside
`command_execute` are counted, so table creation and seeding cost nothing here. Counts
are not times: the machine's load cannot move them, so two commits compare by running
this script in each (a worktree of the baseline with the same `.venv`). Prints figures;
asserts nothing beyond every command being accepted.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import sys
from collections import defaultdict


def setup_django() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    os.environ["DJANGO_DEBUG"] = "0"
    # A throwaway database's ledger: a throwaway key (the rows are hashed as in production).
    os.environ.setdefault("CARDROOM_LEDGER_KEY", "bench:" + "b" * 48)
    import django

    django.setup()


def main(argv: list[str]) -> None:
    rounds = int(argv[0]) if argv else 6
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    from tests.plugins.services import Services

    services = Services()
    services.start()
    try:
        run(rounds, services.summary)
    finally:
        services.stop()


def run(rounds: int, summary: str) -> None:
    setup_django()
    from django.core.management import call_command
    from django.db import connection

    from benchmarks import stages
    from tables import services
    from tables.events import publisher
    from tables.lifecycle import table_create
    from tests.engine.helpers import dealt_round, seated_with_pd

    print(summary)
    call_command("migrate", verbosity=0)
    try:  # a person opens rounds only with the table's boxes placed (where the rule exists)
        from tests.boxes import place_boxes
    except ImportError:
        def place_boxes(table):
            return None

    tables = iter(range(10**6))

    def play(count: int, each) -> int:
        """`count` rounds, one table each: seated, the bank taken, one round dealt from a
        stated deck; `each(kind, execute)` runs each command. The commands played."""
        played = 0
        for _ in range(count):
            table = table_create(name=f"Bench {next(tables)}", config={"seats": 6}, created_by="bench")
            place_boxes(table)
            for command in seated_with_pd([1, 2, 3, 4], pd=1) + dealt_round([2, 3, 4]):
                outcome = each(command["type"], lambda: services.command_execute(table_id=table.pk, command=command, actor="bench"))
                assert outcome.ok, (command, outcome.result)
                played += 1
        publisher.drain()
        return played

    calls, statements, seen = defaultdict(int), defaultdict(int), defaultdict(int)
    current = [""]

    def count_statement(execute, sql, params, many, context):
        statements[current[0]] += 1
        return execute(sql, params, many, context)

    def profiled(kind, execute):
        current[0] = kind
        profile = cProfile.Profile()
        profile.enable()
        outcome = execute()
        profile.disable()
        current[0] = ""  # the next table's creation is not a command's
        calls[kind] += pstats.Stats(profile).total_calls
        seen[kind] += 1
        return outcome

    # The first round warms the process up (imports, compiled queries) and is not counted.
    play(1, lambda kind, execute: execute())
    with connection.execute_wrapper(count_statement):
        accepted = play(rounds, profiled)
    total_calls, total_statements = sum(calls.values()), sum(statements[k] for k in seen)
    print(f"{accepted} commands counted ({rounds} rounds at {rounds} tables, after one round to warm up)")
    print(f"{'command':<14}{'count':>7}{'calls/command':>16}{'SQL/command':>14}")
    for kind in sorted(seen, key=lambda k: -calls[k] / seen[k]):
        print(f"{kind:<14}{seen[kind]:>7}{calls[kind] / seen[kind]:>16.0f}{statements[kind] / seen[kind]:>14.1f}")
    print(f"{'all':<14}{accepted:>7}{total_calls / accepted:>16.0f}{total_statements / accepted:>14.1f}")

    # The same rounds again, each stage's share (benchmarks/stages.py): first in calls (a
    # count, as above; the floor's rows are read by the publisher's thread, counted too),
    # then in CPU, which moves with the machine's load.
    print("by stage (each charged what it runs less the stages it calls; 'service' is the rest of command_execute):")
    for meter, unit, scale, digits in (("calls", "calls/command", 1.0, 0), ("cpu", "ms CPU/command", 1000.0, 3)):
        stages.install(meter)
        played = play(rounds, lambda kind, execute: execute())
        figures = stages.per_command({}, stages.totals(), played, scale)
        stages.stop()
        print(f"  {stages.line(figures, unit, digits)}")
    window(play, count_statement, statements, current)


def window(play, count_statement, statements, current) -> None:
    """The floor's window for 1, 10 and 50 changed tables: the rows read whole (floor_rows,
    the path before issue 37 item 2, still the whole floor's) against the rows built from
    the commands' facts (tables.floor.window_rows), in Python calls and SQL statements."""
    from django.db import connection

    from tables.events import publisher
    from tables.floor import floor_rows, window_rows

    play(50, lambda kind, execute: execute())  # 50 more tables, each with a round played
    # The facts each table's last command left (the publisher keeps a table's last few).
    known = {t: max(held.values(), key=lambda facts: facts.version) for t, held in publisher._known.items()}
    ids = sorted(known)[-50:]
    print("the floor's window (rows of N changed tables; calls and SQL statements per window):")
    print(f"{'tables':>8}{'whole calls':>14}{'SQL':>6}{'facts calls':>14}{'SQL':>6}")
    for n in (1, 10, 50):
        figures = []
        for read in (lambda: floor_rows(ids[:n]), lambda: window_rows(ids[:n], {t: known[t] for t in ids[:n]})):
            read()  # warm: the statement prepared, the queries' code imported
            current[0] = "window"
            statements["window"] = 0
            profile = cProfile.Profile()
            with connection.execute_wrapper(count_statement):
                profile.enable()
                read()
                profile.disable()
            figures += [pstats.Stats(profile).total_calls, statements["window"]]
        print(f"{n:>8}{figures[0]:>14}{figures[1]:>6}{figures[2]:>14}{figures[3]:>6}")


if __name__ == "__main__":
    main(sys.argv[1:])

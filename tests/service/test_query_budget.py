"""Each command type's SQL statements, pinned (issue 37 item 4): a check added to the
command path shows its cost here as a changed pin, never unseen.

A whole round is played at a warm table (one round before it), each command through the
command service as the dealer's tablet sends it, and the statements each one sends to
PostgreSQL are counted (Django's execute wrapper, inside the test's transaction: the
command's BEGIN and COMMIT are a SAVEPOINT and its RELEASE here). The writes of a command
travel in one pipeline (tables/recording.py), counted statement by statement. A pin is
changed on purpose, with the reason in the commit and the figure in the issue's note;
`benchmarks/bench_command_calls.py` prints the same counts and the Python calls beside
them."""

from collections import defaultdict

import pytest
from django.db import connection

from tables.services import command_execute
from tests.engine.helpers import FEES, dealt_round, seated_with_pd

pytestmark = pytest.mark.django_db

# Statements per command, by command type, in the round below (sum over its commands /
# how many of that type it sends).
# open_round's ninth: the round's starting state for a surveillance replay (RoundStart),
# sent in the same round trip as the event's other rows.
BUDGET = {
    "open_round": 9, "wager": 6, "no_more_bets": 10, "deal": 7, "check": 7, "flop": 7,
    "turn_river": 7, "play": 8, "showdown": 7, "settle": 9,
}


def statements_per_command_type(table) -> dict[str, float]:
    counted, seen = defaultdict(int), defaultdict(int)
    current = []

    def count(execute, sql, params, many, context):
        counted[current[0]] += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        for command in dealt_round([2, 3, 4], trips=100):
            current[:] = [command["type"]]
            outcome = command_execute(table_id=table.pk, command=command, actor="dealer-1")
            assert outcome.ok, (command, outcome.result)
            seen[command["type"]] += 1
    return {kind: round(counted[kind] / seen[kind], 2) for kind in seen}


def test_each_command_types_statements_are_pinned(make_table):
    table = make_table(seats=6, fee_schedule=FEES)
    for command in seated_with_pd([1, 2, 3, 4], pd=1) + dealt_round([2, 3, 4], trips=100):  # warm: one round
        assert command_execute(table_id=table.pk, command=command, actor="dealer-1").ok, command
    assert statements_per_command_type(table) == BUDGET

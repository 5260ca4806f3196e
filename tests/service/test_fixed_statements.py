"""The command path's statements are fixed SQL, prepared once per connection
(cardroom/statements.py, docs/scaling.md "Fixed statements").

Prepared statements are PostgreSQL's own record of the session (pg_prepared_statements):
the same round played again prepares none, and each statement the path runs is there. With
preparing off (CARDROOM_DB_PREPARE=0, for a pooler that cannot keep them) the same
commands are applied and nothing is prepared."""

import os
import subprocess
import sys

import pytest
from django.db import connection

from cardroom import statements
from rounds.models import Round
from tables.models import Table
from tests.engine.helpers import FEES, dealt_round, seated_with_pd
from tests.playing import run

pytestmark = pytest.mark.django_db


def prepared() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        return dict(cursor.fetchall())


def test_a_round_played_again_prepares_nothing_new_and_runs_the_prepared_statements(make_table):
    table = make_table(seats=6, fee_schedule=FEES)
    round_one = [*seated_with_pd([1, 2, 3, 4], pd=1), *dealt_round([2, 3, 4], trips=100)]
    run(table, *round_one)
    warm = prepared()
    texts = "\n".join(warm.values())
    for written in ("tables_tableevent", "rounds_wager", "rounds_settlementline", "collections_fees_collectionentry",
                    "cardroom_auditentry"):
        assert f'INSERT INTO "{written}"' in texts, written
    assert 'UPDATE "tables_table" SET' in texts
    assert 'FROM "tables_table" WHERE "id" = $1 FOR UPDATE' in texts  # the row lock
    # A seat's self-exclusion check (patrons/identity.py): whom the id names, the state
    # imports in force, the entry that names it, the entry a supervisor confirmed it to be.
    assert 'FROM "patrons_patronkey" k JOIN "patrons_patron" p' in texts
    assert 'FROM "patrons_exclusionimport" i' in texts
    assert 'FROM "patrons_exclusionentry" e WHERE' in texts
    assert 'FROM "patrons_exclusionreviewdecision" d' in texts
    run(make_table(seats=6, fee_schedule=FEES), *round_one)  # the same round at another table
    assert prepared() == warm


def test_with_preparing_off_the_same_commands_are_applied_and_nothing_is_prepared(make_table):
    table = make_table(seats=6, fee_schedule=FEES)
    connection.ensure_connection()
    threshold = connection.connection.prepare_threshold
    connection.connection.prepare_threshold = None  # what CARDROOM_DB_PREPARE=0 leaves
    before = prepared()  # what earlier tests on this connection prepared
    try:
        run(table, *seated_with_pd([1, 2, 3, 4], pd=1), *dealt_round([2, 3, 4], trips=100))
        assert prepared() == before
    finally:
        connection.connection.prepare_threshold = threshold
    assert Round.objects.get(table=table, number=1).status == "settled"
    assert Table.objects.get(pk=table.pk).version == 4 + 2 + len(dealt_round([2, 3, 4], trips=100))


def test_the_fixed_row_read_is_the_orms_row(make_table):
    table = make_table(seats=6, fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2, 3, 4], pd=1), *dealt_round([2, 3, 4], trips=100))
    fixed, orm = statements.row(Round, table_id=table.pk, number=1), Round.objects.get(table=table, number=1)
    columns = [f.attname for f in Round._meta.concrete_fields]
    assert [getattr(fixed, c) for c in columns] == [getattr(orm, c) for c in columns]
    with pytest.raises(Round.DoesNotExist):
        statements.row(Round, table_id=table.pk, number=2)


@pytest.mark.parametrize("switch, expected", [("1", "1000000"), ("0", "None")])
def test_the_switch_sets_the_connections_prepare_threshold(switch, expected):
    code = ("import django; django.setup(); from django.conf import settings; "
            "print(settings.DATABASES['default'].get('OPTIONS', {}).get('prepare_threshold'))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base", "CARDROOM_DB_PREPARE": switch}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected

"""A rotation log entry records its gaming day (its event's): written by the command that
records the entry, and filled in for the entries recorded before the column existed by
tables 0025."""

import importlib
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import F

from tables.models import RotationLogEntry
from tests.db_access import as_owner
from tests.engine.helpers import seated_with_pd

from tests.playing import run_ok

pytestmark = pytest.mark.django_db

TABLE = RotationLogEntry._meta.db_table


def _entries(table):
    return list(RotationLogEntry.objects.filter(table=table).values_list("gaming_day", "event__gaming_day"))


def test_the_command_records_the_entry_gaming_day(make_table):
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2], pd=1))
    entries = _entries(table)
    assert entries, "offering and accepting the bank records rotation entries"
    assert all(day == event_day for day, event_day in entries), entries


def test_the_migration_fills_in_the_gaming_day_of_entries_recorded_before(make_table):
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2], pd=1))
    # The entries as an older recording would have left them: a day other than their event's.
    with as_owner(), connection.cursor() as cursor:
        # The commands' deferred foreign-key checks, run now: the test's transaction holds
        # them, and a table with pending trigger events cannot be altered (a migration's
        # transaction has none).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"ALTER TABLE {TABLE} DISABLE TRIGGER {TABLE}_no_update")
        RotationLogEntry.objects.filter(table=table).update(gaming_day=F("gaming_day") - timedelta(days=3))
        cursor.execute(f"ALTER TABLE {TABLE} ENABLE TRIGGER {TABLE}_no_update")
    assert all(day != event_day for day, event_day in _entries(table))

    migration = importlib.import_module("tables.migrations.0025_rotation_entry_gaming_day")
    with as_owner(), connection.schema_editor(atomic=False) as editor:
        migration.record_gaming_days(None, editor)

    entries = _entries(table)
    assert entries and all(day == event_day for day, event_day in entries), entries
    # The append-only rule holds again after the backfill, for the owner too.
    with as_owner(), pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET reason = 'x' WHERE table_id = %s", [table.pk])

"""A command's writes reach PostgreSQL in one round trip (tables/recording.py `Writes`,
psycopg 3's pipeline mode); issue 24 measured about nine before."""

from unittest import mock

import psycopg
import pytest
from django.db import (
    IntegrityError,
    ProgrammingError,
    connection,
    connections,
    transaction,
)

from cardroom.models import AuditEntry
from cardroom.statements import SubSelect
from rounds.models import Round, Wager
from tables.models import TableEvent
from tables.recording import Writes
from tables.services import command_execute
from tests.engine.helpers import FEES, seated_with_pd

from tests.service.conftest import full_round
from tests.playing import run_ok

pytestmark = pytest.mark.django_db


class RoundTrips:
    """Counts the round trips of what runs inside it: a statement sent on its own is one,
    and so is a whole pipeline, however many statements it carries."""

    def __init__(self):
        self.alone, self.pipelined, self.pipelines = [], [], 0

    def __enter__(self):
        raw = type(connection.connection)
        real = raw.pipeline

        def pipeline(conn, *args, **kwargs):
            self.pipelines += 1
            return real(conn, *args, **kwargs)

        self._patch = mock.patch.object(raw, "pipeline", pipeline)
        self._patch.start()
        self._wrapper = connection.execute_wrapper(self._statement)
        self._wrapper.__enter__()
        return self

    def __exit__(self, *exc):
        self._wrapper.__exit__(*exc)
        self._patch.stop()

    def _statement(self, execute, sql, params, many, context):
        piped = connection.connection.pgconn.pipeline_status != psycopg.pq.PipelineStatus.OFF
        (self.pipelined if piped else self.alone).append(sql)
        return execute(sql, params, many, context)

    @property
    def count(self) -> int:
        # The test's own transaction makes the command's BEGIN and COMMIT a SAVEPOINT and
        # its RELEASE: counted as the two round trips they stand for.
        return len(self.alone) + self.pipelines


def play_to_settle(table):
    run_ok(table, *seated_with_pd([1, 2, 3, 8], pd=8))
    *before, settle = full_round([1, 2, 3])
    run_ok(table, *before)
    return settle


def test_a_settle_is_the_lock_and_one_round_trip_of_writes(make_table):
    table = make_table(seats=8, fee_schedule=FEES)
    settle = play_to_settle(table)
    with RoundTrips() as trips:
        assert command_execute(table_id=table.pk, command=settle, actor="dealer").ok
    # BEGIN, the table row locked, every write (event, settlement lines, round, table row,
    # audit), COMMIT.
    assert trips.count == 4, (trips.alone, trips.pipelined)
    assert [sql.split()[0] for sql in trips.alone] == ["SAVEPOINT", "SELECT", "RELEASE"]
    assert [sql.split()[0] for sql in trips.pipelined] == ["INSERT", "INSERT", "UPDATE", "UPDATE", "INSERT"]
    assert Round.objects.get(table=table, number=1).status == "settled"


def test_every_command_of_a_round_writes_in_one_round_trip(make_table):
    """A round with fees: no_more_bets reads its round (the fee lines hash its id) after
    inserting its event (their hashes cover its id too); every other command is the lock
    and one trip of writes."""
    table = make_table(seats=8, fee_schedule=FEES)
    run_ok(table, *seated_with_pd([1, 2, 3, 8], pd=8))
    counts = {}
    for command in full_round([1, 2, 3]):
        with RoundTrips() as trips:
            assert command_execute(table_id=table.pk, command=command, actor="dealer").ok
        counts.setdefault(command["type"], set()).add(trips.count - 2)  # less BEGIN and COMMIT
    # open_round reads the table's configuration version (Round.config) as before.
    assert counts == {
        "open_round": {3}, "wager": {2}, "no_more_bets": {4}, "deal": {2}, "check": {2}, "flop": {2},
        "turn_river": {2}, "play": {2}, "showdown": {2}, "settle": {2},
    }


def test_without_pipeline_support_the_writes_go_one_by_one(make_table):
    """A libpq older than 14 has no pipeline mode: the same statements, one trip each."""
    table = make_table(seats=8, fee_schedule=FEES)
    settle = play_to_settle(table)
    with mock.patch.object(psycopg.Pipeline, "is_supported", return_value=False), RoundTrips() as trips:
        assert command_execute(table_id=table.pk, command=settle, actor="dealer").ok
    assert trips.pipelines == 0 and trips.count == 8
    assert Round.objects.get(table=table, number=1).status == "settled"


def test_a_failed_statement_raises_djangos_error_and_writes_nothing(make_table):
    table = make_table()
    run_ok(table, {"type": "sit", "seat": 1, "player": "P-1"})
    first = TableEvent.objects.get(table=table, seq=1)
    audits = AuditEntry.objects.count()
    writes = Writes()
    writes.insert(AuditEntry, [AuditEntry(username="x", role="", action="command", summary="kept?", at=first.created_at)])
    duplicate = TableEvent(**{f.attname: getattr(first, f.attname) for f in TableEvent._meta.concrete_fields if not f.primary_key})
    writes.insert(TableEvent, [duplicate])  # (table, seq) is unique
    with pytest.raises(IntegrityError), transaction.atomic():
        writes.send()
    assert AuditEntry.objects.count() == audits


def test_writes_take_new_rows_only_and_are_sent_inside_a_transaction(make_table):
    table = make_table()
    run_ok(table, {"type": "sit", "seat": 1, "player": "P-1"})
    with pytest.raises(AssertionError, match="new rows"):
        Writes().insert(TableEvent, [TableEvent.objects.get(table=table, seq=1)])
    writes = Writes()
    writes.update(TableEvent, {"id": -1}, actor="x")
    with mock.patch.object(connections["default"], "in_atomic_block", False), pytest.raises(AssertionError, match="transaction"):
        writes.send()


def test_statements_run_in_the_order_queued(make_table):
    """A row names one inserted before it in the same pipeline by a sub-select (a
    wager's round): each statement sees the ones before it."""
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2], pd=1))
    table.refresh_from_db()
    event = TableEvent.objects.get(table=table, seq=1)
    writes = Writes()
    writes.insert(Round, [Round(
        table=table, number=99, config=table.config, pd_seat=1, pd_player="P-1", bank=1000,
        opened_at=event.created_at, gaming_day=event.gaming_day,
    )])
    number_99 = SubSelect('(SELECT "id" FROM "rounds_round" WHERE "table_id" = %s AND "number" = %s)', (table.pk, 99))
    writes.insert(Wager, [Wager(round_id=number_99, seat=2, player="P-2", kind="ante", amount=100, created_at=event.created_at)])
    with transaction.atomic():
        writes.send()
    assert Wager.objects.get(round__table=table, round__number=99).amount == 100


def test_an_update_the_served_role_may_not_make_is_refused_and_nothing_after_it_is_written(make_table):
    """The event log is append-only for the served role (cardroom/db_roles.py): an update
    queued among the writes is refused as Django's error, and the row queued after it is
    not written."""
    table = make_table()
    run_ok(table, {"type": "sit", "seat": 1, "player": "P-1"})
    at = TableEvent.objects.get(table=table, seq=1).created_at
    writes = Writes()
    writes.update(TableEvent, {"table_id": table.pk}, actor="renamed")
    writes.insert(AuditEntry, [AuditEntry(username="x", role="", action="command", summary="after the refusal", at=at)])
    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        writes.send()
    assert TableEvent.objects.get(table=table, seq=1).actor != "renamed"
    assert not AuditEntry.objects.filter(summary="after the refusal").exists()

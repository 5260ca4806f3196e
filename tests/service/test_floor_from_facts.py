"""The floor's row from what the command holds (issue 37 item 2, tables.floor.rows_from_facts).

The publisher's window builds a command-changed table's row from the command's facts (the
game it left, its version, its event) and reads the rest in one fixed statement. A
supervisor must see the same row either way: over random command streams at tables with
fees, a shared progressive meter and the rotation policy, with approvals waiting, alerts
acknowledged, tablets come and gone, a dealer assigned, a table closed and a lockout, the
row from the facts equals the row read whole (floor_rows, the path a screen's whole floor
still takes), now and an hour later. The window's reads are pinned: one statement and one
cache read for any number of tables."""

import json
from dataclasses import replace
from itertools import count as counter
from datetime import timedelta, timezone as dt_timezone

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardroom.access import Actor
from cardroom.audit import audit_record
from rounds.engine.errors import CommandError
from rounds.engine.table import TableGame
from tables import presence, services
from tables.floor import floor_rows, rows_from_facts, window_rows
from tables.lifecycle import table_configure, table_create, table_open_close
from tables.models import AlertAcknowledgement, Approval, ApprovalDecision, DealerAssignment
from tests.engine.helpers import FEES, dealt_round, seated_with_pd
from tests.engine.test_sidebets import PROGRESSIVE
from tests.hypothesis_profiles import examples
from tests.playing import run

from .test_access import person
from .test_service_properties import next_command

pytestmark = pytest.mark.django_db

PEOPLE = counter()  # each example's supervisor, a person of their own
POLICY = {"offer_every_round": True, "window_minutes": 40, "window_players": 2, "tppp_one_round": True}
CONFIGS = {
    "fees": {"seats": 6, "fee_schedule": FEES},
    "progressive": {"seats": 6, "fee_schedule": FEES, "side_bets": {"progressive": PROGRESSIVE}},
    "policy": {"seats": 6, "rotation_policy": POLICY},
}


@pytest.fixture
def carried(monkeypatch):
    """The facts each accepted command hands the publisher, by table (the last one's)."""
    facts = {}
    real = services.publish_on_commit

    def keep(**kwargs):
        facts[kwargs["table"].pk] = kwargs["facts"]
        return real(**kwargs)

    monkeypatch.setattr(services, "publish_on_commit", keep)
    return facts


def text(rows) -> str:
    """The rows as the screens get them (the batch's encoding), keys in order."""
    return json.dumps(rows, sort_keys=True)


def assert_same_rows(carried, table_ids, now):
    built, stale = rows_from_facts({t: carried[t] for t in table_ids}, now)
    assert stale == []
    built = sorted(built, key=lambda row: row["table"])
    whole = [row for t in sorted(table_ids) for row in floor_rows([t], now=now)]
    assert json.loads(text(built)) == json.loads(text(whole))  # a readable difference first
    assert text(built) == text(whole)


def around(data, table, sup, step):
    """What happens around a table besides its commands, drawn: tablets, failures, a dealer
    assigned, approvals asked (and one decided), acknowledgements, a close, a lockout."""
    draw, now = data.draw, timezone.now()
    if draw(st.booleans()):
        presence.tablet_seen(table.pk, f"tablet-{step}")
    if draw(st.booleans()):
        presence.tablet_gone(table.pk, f"tablet-{step}")
    if draw(st.integers(0, 4)) == 0:
        presence.command_failed(table.pk)
    if draw(st.integers(0, 4)) == 0 and not DealerAssignment.objects.filter(table=table).exists():
        DealerAssignment.objects.create(dealer=sup, table=table, gaming_day=services.recording.Stamp.at(now).gaming_day,
                                        shift=services.recording.Stamp.at(now).shift, assigned_by=sup, assigned_at=now)
    if draw(st.integers(0, 3)) == 0:
        game = TableGame.from_dict(type(table).objects.get(pk=table.pk).state)
        number = game.round.number if game.round else draw(st.sampled_from([None, 1]))
        asked = Approval.objects.create(table=table, kind=draw(st.sampled_from(["void", "correction"])),
                                        round_number=number, payload={"reason": "r"}, requested_by=sup,
                                        requested_role="dealer", requested_at=now)
        if draw(st.booleans()):
            ApprovalDecision.objects.create(approval=asked, approved=False, decided_by=sup, via="device", decided_at=now)
    if draw(st.integers(0, 3)) == 0:
        (row,) = floor_rows([table.pk])
        if row["alerts"]:
            alert = draw(st.sampled_from(row["alerts"]))
            AlertAcknowledgement.objects.create(table=table, kind=alert["kind"], ref=alert["ref"], acknowledged_by=sup,
                                                acknowledged_at=now)
    if draw(st.integers(0, 6)) == 0:
        try:
            table_open_close(table_id=table.pk, open=draw(st.booleans()), actor=Actor.system("sup"), reason="floor")
        except CommandError:
            pass  # not mid-round
    if draw(st.integers(0, 6)) == 0:
        audit_record(actor=Actor.system("tablet"), action="login_failed", table_id=table.pk, summary="held back",
                     detail={"locked": True, "requester_name": "ben", "failures": 5})


@settings(max_examples=examples(12), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), kinds=st.lists(st.sampled_from(sorted(CONFIGS)), min_size=1, max_size=3))
def test_the_row_from_the_commands_facts_is_the_row_read_whole(carried, data, kinds):
    sup = person(f"sup-{next(PEOPLE)}", "supervisor")
    # Two progressive tables share one meter: a command at one moves the other's row.
    tables = [table_create(name=f"F{i}", config=CONFIGS[kind], created_by="test") for i, kind in enumerate([*kinds, "progressive"])]
    # A replay's clock may carry its own offset: the row shows the event's time in UTC.
    offset = data.draw(st.sampled_from([None, dt_timezone(timedelta(hours=-8))]))
    for step in range(data.draw(st.integers(1, 40))):
        table = data.draw(st.sampled_from(tables))
        game = TableGame.from_dict(type(table).objects.get(pk=table.pk).state)
        at = timezone.now().astimezone(offset) if offset else None
        services.command_execute(table_id=table.pk, command=next_command(data, game), actor="prop", at=at)
        around(data, table, sup, step)
        played = [t.pk for t in tables if t.pk in carried]
        now = timezone.now()
        for later in (timedelta(0), timedelta(minutes=data.draw(st.sampled_from([11, 39, 61])))):
            assert_same_rows(carried, played, now + later)


def test_a_round_with_a_shared_meter_keeps_every_row_the_row_read_whole(carried):
    """The facts as every command of a whole round leaves them, at a table on a shared
    meter and the other table on it (whose own facts are older than the meter's move)."""
    mine, other = (table_create(name=n, config=CONFIGS["progressive"], created_by="test") for n in ("M", "O"))
    run(other, {"type": "sit", "seat": 1, "player": "P-1"})
    for command in (*seated_with_pd([1, 2, 3, 4], pd=1),
                    *({**c, "progressive": True} if c["type"] == "wager" else c for c in dealt_round([2, 3, 4]))):
        run(mine, command)
        assert_same_rows(carried, [mine.pk, other.pk], timezone.now())


def test_facts_a_configuration_change_or_a_later_command_outdated_are_read_whole(carried):
    """A configuration change (no new version, a new configuration version) or another
    process's later command leaves the facts this process holds behind: the window reads
    that table whole and still sends the row as it stands."""
    table = table_create(name="C", config=CONFIGS["fees"], created_by="test")
    run(table, *seated_with_pd([1, 2], pd=1))
    held = carried[table.pk]
    table_configure(table_id=table.pk, config={"notice": "Ask the dealer."}, changed_by="test")
    assert rows_from_facts({table.pk: held}, timezone.now()) == ([], [table.pk])
    run(table, {"type": "sit", "seat": 3, "player": "P-3"})
    assert rows_from_facts({table.pk: held}, timezone.now())[1] == [table.pk]
    assert text(window_rows([table.pk], {table.pk: [held]})) == text(floor_rows([table.pk]))


def test_the_row_is_built_from_the_facts_of_the_command_that_wrote_it(carried):
    """The publisher keeps a table's last few commands' facts: a window that reads the row
    between a command's commit and its notice builds it from the facts of the version it
    reads; facts whose command never committed (its event head is in no row) are not used."""
    table = table_create(name="R", config=CONFIGS["fees"], created_by="test")
    run(table, *seated_with_pd([1, 2], pd=1))
    before = carried[table.pk]
    run(table, {"type": "sit", "seat": 3, "player": "P-3"})
    after = carried[table.pk]
    never = replace(after, version=after.version + 1, event_head="f" * 64)  # its transaction rolled back
    now = timezone.now()
    rows, stale = rows_from_facts({table.pk: [before, after, never]}, now)
    assert stale == [] and text(rows) == text(floor_rows([table.pk], now=now)) and rows[0]["seated"] == 3
    assert rows_from_facts({table.pk: [before, never]}, now) == ([], [table.pk])
    # A command that committed while the window was on its way: its facts, asked for after
    # the read (the publisher's, handed over before the commit), describe the row read.
    rows, stale = rows_from_facts({table.pk: [before]}, now, later=lambda ids: {table.pk: [after]})
    assert stale == [] and text(rows) == text(floor_rows([table.pk], now=now))
    assert rows_from_facts({table.pk: [replace(after, event_head="f" * 64)]}, now) == ([], [table.pk])


@pytest.mark.parametrize("tables", [1, 10, 50])
def test_the_window_reads_one_statement_and_one_cache_read_for_any_number_of_tables(carried, tables, monkeypatch):
    played = [table_create(name=f"W{i}", config=CONFIGS["progressive"], created_by="test") for i in range(tables)]
    for table in played:
        run(table, *seated_with_pd([1, 2], pd=1))
    known = {t.pk: carried[t.pk] for t in played}
    statements, cache_reads = [], []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    real = cache.get_many
    monkeypatch.setattr(cache, "get_many", lambda keys: cache_reads.append(len(keys)) or real(keys))
    with connection.execute_wrapper(count):
        rows = window_rows(sorted(known), known)
    assert len(statements) == 1 and len(cache_reads) == 1
    # The whole read, for comparison: a fixed number too, but nine ORM queries (the meter its own); its cache read is the same one.
    statements.clear(), cache_reads.clear()
    with connection.execute_wrapper(count):
        whole = floor_rows(sorted(known))
    assert text(rows) == text(whole)  # the same rows, in the same order (by name)
    assert len(statements) == 9 and len(cache_reads) == 1

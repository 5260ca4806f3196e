"""Two tablets at one table: commands are serialised by the table row lock, never lost."""

import threading

import pytest
from django.db import connection, connections, transaction

from tables.models import Table, TableEvent
from tables.services import command_execute
from tests.playing import new_table

pytestmark = pytest.mark.django_db(transaction=True)


def _concurrently(table_id, commands):
    """Run each command in its own thread (own connection) while the main thread holds
    the table lock, then release it so they all contend at once."""
    results = [None] * len(commands)
    waiting = threading.Barrier(len(commands) + 1)

    def worker(i, command):
        try:
            waiting.wait()
            results[i] = command_execute(table_id=table_id, command=command, actor=f"tablet-{i}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(commands)]
    with transaction.atomic():
        Table.objects.select_for_update().get(pk=table_id)
        for t in threads:
            t.start()
        waiting.wait()
        # Let the workers reach the lock and block on it.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(0.3)")
    for t in threads:
        t.join(timeout=30)
    return results


def test_concurrent_commands_on_one_table_are_all_applied_in_order():
    table = new_table("T", seats=8, boxes=False)
    commands = [{"type": "sit", "seat": s, "player": f"P-{s}"} for s in range(1, 7)]
    outcomes = _concurrently(table.pk, commands)
    assert all(o.ok for o in outcomes)
    assert sorted(o.version for o in outcomes) == list(range(1, 7))
    table.refresh_from_db()
    assert table.version == 6
    assert sorted(table.state["occupants"]) == [str(s) for s in range(1, 7)]  # no lost update
    assert list(TableEvent.objects.filter(table=table).values_list("seq", flat=True)) == list(range(1, 7))


def test_two_tablets_sending_at_the_same_version_one_wins_one_is_told():
    table = new_table("T", boxes=False)
    commands = [
        {"type": "sit", "seat": 1, "player": "P-A", "version": 0},
        {"type": "sit", "seat": 1, "player": "P-B", "version": 0},
    ]
    outcomes = _concurrently(table.pk, commands)
    codes = sorted("ok" if o.ok else o.result["error"]["code"] for o in outcomes)
    assert codes == ["ok", "stale_version"]
    table.refresh_from_db()
    assert table.version == 1 and len(table.state["occupants"]) == 1


def test_the_same_command_id_from_two_connections_is_applied_once():
    table = new_table("T", boxes=False)
    command = {"type": "sit", "seat": 2, "player": "P-2", "id": "tablet:42"}
    outcomes = _concurrently(table.pk, [dict(command), dict(command)])
    assert [o.result for o in outcomes] == [{"ok": True}, {"ok": True}]
    assert sorted(o.replayed for o in outcomes) == [False, True]
    assert TableEvent.objects.filter(table=table).count() == 1

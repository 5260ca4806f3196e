"""Accepted commands reach subscribers through the real Redis channel layer, after commit."""

import asyncio
import json
import threading
import time

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from cardroom.access import Actor
from tables.events import FLOOR_GROUP, Publisher, publisher, table_group
from tables.lifecycle import table_open_close
from tables.services import command_execute
from tests.playing import new_table

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_an_accepted_command_is_published_to_its_table_and_the_floor(redis_url, settings):
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "cardroom.channel_layer.ChannelLayer", "CONFIG": {"hosts": [redis_url]}}
    }

    async def scenario():
        layer = get_channel_layer()
        table = await sync_to_async(new_table)("T", boxes=False)
        tablet, floor = await layer.new_channel(), await layer.new_channel()
        await layer.group_add(table_group(table.pk), tablet)
        await layer.group_add(FLOOR_GROUP, floor)
        run = sync_to_async(command_execute)
        await run(table_id=table.pk, command={"type": "sit", "seat": 9, "player": "X"}, actor="d")  # refused
        await run(table_id=table.pk, command={"type": "sit", "seat": 1, "player": "P-1"}, actor="d")
        message = await asyncio.wait_for(layer.receive(tablet), timeout=5)
        assert message["type"] == "table.changed"
        # seq 1: the refused command before it published nothing and took no number.
        assert (message["table"], message["seq"], message["command_type"]) == (table.pk, 1, "sit")
        batch = await asyncio.wait_for(layer.receive(floor), timeout=5)
        assert batch["type"] == "floor.rows"
        rows = json.loads(batch["text"])["rows"]
        assert [(r["table"], r["seq"], r["last_command"]) for r in rows] == [(table.pk, 1, "sit")]
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(tablet), timeout=0.3)
        await layer.flush()
        await sync_to_async(lambda: connection.close())()  # the worker thread's own connection

    asyncio.run(scenario())


def test_the_floor_publisher_outlives_a_consumer_loop_that_cancels_its_send(redis_url):
    """The loop the consumers run on (Daphne's; a test's `asyncio.run`) cancels whatever
    is pending when it shuts down, a floor row on its way included. That is the end of
    one send, not of the publisher: the floor must go on getting rows, and a command's
    answer must never wait on a dead publisher. (A cancelled send once stopped the
    publisher's thread for good, after which every command waited 10 s to publish.)"""

    def cancel_each_task(loop, coro, **kwargs):
        task = asyncio.Task(coro, loop=loop, **kwargs)
        task.cancel()  # as a loop shutting down does with its pending tasks
        return task

    consumer_loop = asyncio.new_event_loop()
    consumer_loop.set_task_factory(cancel_each_task)
    consumer_thread = threading.Thread(target=consumer_loop.run_forever, daemon=True)
    consumer_thread.start()
    table = new_table("T", boxes=False)
    try:
        publisher.consumer_loop = consumer_loop
        publisher.changed(table.pk)  # its row goes through the consumer loop, which cancels it
        assert publisher.drain(timeout=10), "the publisher stopped after a cancelled send"
    finally:
        publisher.consumer_loop = None
        consumer_loop.call_soon_threadsafe(consumer_loop.stop)
        consumer_thread.join(timeout=5)
        consumer_loop.close()

    async def the_next_change_reaches_the_floor():
        layer = get_channel_layer()
        floor = await layer.new_channel()
        await layer.group_add(FLOOR_GROUP, floor)
        await sync_to_async(command_execute)(
            table_id=table.pk, command={"type": "sit", "seat": 1, "player": "P-1"}, actor="d"
        )
        message = await asyncio.wait_for(layer.receive(floor), timeout=5)
        assert [(r["table"], r["seq"], r["last_command"]) for r in json.loads(message["text"])["rows"]] == [(table.pk, 1, "sit")]
        await layer.flush()
        await sync_to_async(lambda: connection.close())()

    asyncio.run(the_next_change_reaches_the_floor())


# The thread's end is this test's doing; pytest would otherwise report it as a warning.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_draining_a_publisher_whose_thread_has_stopped_answers_at_once():
    """seed_demo, simulate_floor and each test's teardown drain the publisher; if its
    thread has died, they must hear so at once rather than each wait the whole timeout."""
    stopped = Publisher(window=0.2)
    stopped.changed(1)  # starts its thread, with a floor row to send
    stopped._loop.call_soon_threadsafe(stopped._loop.stop)  # the thread ends, the row unsent
    stopped.thread.join(timeout=5)
    assert not stopped.thread.is_alive()
    started = time.monotonic()
    assert stopped.drain(timeout=30) is False
    assert time.monotonic() - started < 5


def test_opening_and_closing_a_table_reaches_the_floor_at_once(redis_url):
    """Not only commands: the floor's open/closed follows a supervisor's change without
    waiting for the dashboard's periodic refresh."""
    table = new_table("T", boxes=False)

    async def scenario():
        layer = get_channel_layer()
        floor = await layer.new_channel()
        await layer.group_add(FLOOR_GROUP, floor)
        seen = []
        for wanted in (False, True):
            await sync_to_async(table_open_close)(table_id=table.pk, open=wanted, actor=Actor.system("sup"), reason="test")
            message = await asyncio.wait_for(layer.receive(floor), timeout=5)
            seen += [(row["table"], row["open"]) for row in json.loads(message["text"])["rows"]]
        assert seen == [(table.pk, False), (table.pk, True)]
        await layer.flush()
        await sync_to_async(lambda: connection.close())()

    asyncio.run(scenario())


def test_the_floor_window_keeps_its_connection_while_busy_and_lets_it_go_when_idle(monkeypatch):
    """Issue 37: each window opened a new database connection and closed it (a connection's
    set-up, SCRAM included, up to four times a second under load). The window's thread now
    keeps one while more changes wait, and closes it once the floor is idle."""
    from django.db import connections
    from django.db.backends.postgresql.base import DatabaseWrapper

    from tables.events import WINDOW

    opened = []
    real = DatabaseWrapper.get_new_connection

    def counting(self, params):
        opened.append(threading.current_thread().name)
        return real(self, params)

    monkeypatch.setattr(DatabaseWrapper, "get_new_connection", counting)
    table = new_table("Busy")
    sent_before = publisher.floor_sent
    deadline = time.monotonic() + 8 * WINDOW
    while time.monotonic() < deadline:  # the floor stays busy for some eight windows
        publisher.changed(table.pk)
        time.sleep(WINDOW / 10)
    assert publisher.drain()
    windows = publisher.floor_sent - sent_before
    connected = [name for name in opened if name.startswith("floor-window")]
    # One connection for the busy spell (two if this thread was held up a whole window and
    # the floor went idle once); before, one per window.
    assert windows >= 4 and len(connected) <= 2, (windows, opened)
    # A whole window after its last batch the floor is idle: the connection goes.
    deadline = time.monotonic() + 5
    while publisher._reader.submit(lambda: connections["default"].connection is not None).result():
        assert time.monotonic() < deadline, "the idle floor's window thread still holds its connection"
        time.sleep(WINDOW / 5)

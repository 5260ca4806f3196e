"""An ended assignment or a relief hand-over reaches the dealer's open tablet at his next
command, carried by the table row's `drivers_version` alone (issue 24): with the socket's
periodic check out of the way, with the in-process announcement of tables.standing
switched off, and with Redis down in a real Daphne process."""

import asyncio
import json
import time
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from websockets.asyncio.client import connect

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from tables import standing
from web import sockets
from web.tables import consumers
from tables.models import DealerAssignment, Table
from tables.relief import handover_take, relief_plan_make

from .conftest import assign_dealer, make_table, play, run, socket
from .test_redis_outage import next_of, redis_server, served  # noqa: F401 (fixtures)

TIMEOUT = 10
SEATED = [{"type": "sit", "seat": s, "player": f"P{s}"} for s in (1, 2)]


def sit(seat: int, command_id: str) -> dict:
    return {"type": "sit", "seat": seat, "player": f"P{seat}", "id": command_id}


def login(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def answered(communicator, body) -> dict:
    await communicator.send_json_to({"type": "command", "command": body})
    while (answer := await communicator.receive_json_from(timeout=TIMEOUT))["type"] != "result":
        pass
    return answer


def end_assignment(assignment):
    """As the admin does: the row saved (a post_save signal tables.standing would hear)."""
    assignment.ended_at = timezone.now()
    assignment.save()


def hand_over(table, outgoing):
    """Ben's relief push to the table is due, and he takes it over (tables/relief.py)."""
    ben = User.objects.create_user("ben")
    ben.groups.add(Group.objects.get_or_create(name="dealer")[0])
    supervisor = User.objects.get(username=f"{outgoing.username}-sup")
    supervisor.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    now, cal = timezone.now(), calendar()
    start, _ = cal.shift_bounds(cal.gaming_day(now), cal.shift(now))
    relief_plan_make(dealers=[ben.pk, outgoing.pk], tables=[table.pk], starts_at=max(now - timedelta(seconds=30), start),
                     actor=Actor.of(supervisor))
    handover_take(table_id=table.pk, actor=Actor.of(ben))


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
@pytest.mark.parametrize("change", ["assignment_ended", "relief_hand_over"])
def test_the_counter_alone_refuses_the_next_command_with_the_announcement_off(monkeypatch, change):
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 3600)  # the periodic check never comes
    monkeypatch.setattr(standing, "changed", lambda *args, **kwargs: None)  # nor the announcement
    table = make_table()
    run(table.pk, *SEATED)
    assignment = assign_dealer(table, "ana")
    cookie = login(assignment.dealer)
    make_change = end_assignment if change == "assignment_ended" else lambda a: hand_over(table, a.dealer)

    async def scenario():
        communicator = socket(f"/ws/tables/{table.pk}/?role=tablet", cookie)
        connected, code = await communicator.connect(timeout=TIMEOUT)
        assert connected, code
        assert (await answered(communicator, sit(3, "before")))["result"]["ok"] is True
        await sync_to_async(make_change)(assignment)
        answer = await answered(communicator, sit(4, "after"))
        assert answer["result"]["error"]["code"] == "not_authorized", answer
        await communicator.disconnect()

    play(scenario)
    assert Table.objects.get(pk=table.pk).version == len(SEATED) + 1  # "after" was not applied


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", ["assignment_ended", "relief_hand_over"])
def test_the_next_command_is_refused_with_redis_down(served, redis_server, change):  # noqa: F811
    """A real Daphne process: the change is made here, in another process, while Redis is
    down, so nothing can announce it to the socket; the table row's counter tells."""
    table = make_table()
    run(table.pk, *SEATED)
    assignment = assign_dealer(table, "ana")
    cookie = login(assignment.dealer)
    url = f"ws://127.0.0.1:{served.port}/ws/tables/{table.pk}/?role=tablet"
    headers = {"Cookie": f"sessionid={cookie}", "Origin": served.url}
    if change == "assignment_ended":  # raw: no signal at all
        end = sync_to_async(lambda: DealerAssignment.objects.filter(pk=assignment.pk).update(ended_at=timezone.now()))
    else:
        end = sync_to_async(lambda: hand_over(table, assignment.dealer))

    async def command(ws, body):
        await ws.send(json.dumps({"type": "command", "command": body}))
        return await next_of(ws, "result")

    async def scenario():
        async with connect(url, additional_headers=headers) as tablet:
            await next_of(tablet, "snapshot")
            opened = time.monotonic()
            assert (await command(tablet, sit(3, "before")))["result"]["ok"] is True
            redis_server.kill()
            await end()
            answer = await command(tablet, sit(4, "after"))
            # Before the socket's first periodic check (which would close it instead).
            assert time.monotonic() - opened < sockets.SESSION_CHECK_SECONDS, "too slow to tell the two apart"
            assert answer["result"]["error"]["code"] == "not_authorized", (answer, served.output()[-3000:])

    asyncio.run(scenario())
    assert Table.objects.get(pk=table.pk).version == len(SEATED) + 1


async def _closed_with(communicator, timeout=TIMEOUT):
    """The code the server closes the socket with (messages before it skipped)."""
    while (output := await communicator.receive_output(timeout=timeout))["type"] != "websocket.close":
        pass
    return output.get("code")


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_the_periodic_check_closes_the_tablet_once_the_counter_moved(monkeypatch):
    """The socket's periodic check asks the assignments again when the table's counter
    moved, though its DriveGrant holds a yes for the counter before: an assignment ended
    by raw SQL (no signal, no announcement) closes the dealer's tablet at the next check."""
    monkeypatch.setattr(standing, "changed", lambda *args, **kwargs: None)
    table = make_table()
    run(table.pk, *SEATED)
    assignment = assign_dealer(table, "ana")
    cookie = login(assignment.dealer)
    end = sync_to_async(lambda: DealerAssignment.objects.filter(pk=assignment.pk).update(ended_at=timezone.now()))

    async def scenario():
        communicator = socket(f"/ws/tables/{table.pk}/?role=tablet", cookie)
        connected, code = await communicator.connect(timeout=TIMEOUT)
        assert connected, code
        # The command leaves the socket's grant holding "yes" for the counter as it stood.
        assert (await answered(communicator, sit(3, "before")))["result"]["ok"] is True
        await asyncio.sleep(0.5)  # a check or two with the grant in force: the tablet stays
        await end()
        assert await _closed_with(communicator) == consumers.NOT_ALLOWED
        await communicator.disconnect()

    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 0.2)
    play(scenario)


@pytest.mark.django_db
def test_the_periodic_check_reads_the_assignments_only_when_the_counter_moved():
    """A dealer's tablet: the check that follows a command (or an earlier check) reads the
    table's counter and, while it holds, not the assignments; a change of the table's
    assignments makes the next check read them again."""
    table = make_table()
    assignment = assign_dealer(table, "ana")
    scope = {"user": assignment.dealer, "url_route": {"kwargs": {"table_id": table.pk}}}
    consumer = consumers.TableConsumer()
    consumer.scope, consumer.is_tablet = scope, True
    actor = Actor.from_scope(scope)
    assignments = DealerAssignment._meta.db_table

    def check() -> tuple[bool, int]:
        with CaptureQueriesContext(connection) as ctx:
            allowed = consumer.still_allowed(actor)
        return allowed, sum(assignments in q["sql"] for q in ctx.captured_queries)

    assert check() == (True, 1)  # nothing held yet: asked
    assert check() == (True, 0)  # the counter unchanged: the grant answers
    assign_dealer(table, "ben")  # another assignment of the table moves its counter
    assert check() == (True, 1)
    assert check() == (True, 0)
    DealerAssignment.objects.filter(pk=assignment.pk).update(ended_at=timezone.now())
    assert check() == (False, 1)

"""The floor's relief panel is live (issue 26; tables.relief.board_message through
tables.events): open floor screens are sent it with every full floor, when a plan is made,
at a take-over, and when they ask at the moment the board changes by the clock alone."""

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from web import sockets
from web.tables import consumers
from tables.models import DealerAssignment
from tables.relief import handover_take, relief_plan_make

from .conftest import make_table, play, socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

TIMEOUT = 10


def person(name, role):
    user = User.objects.create_user(name, password="pw")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def world(shift_around_now):
    sup, ana, ben = person("sam", "supervisor"), person("ana", "dealer"), person("ben", "dealer")
    table = make_table()
    table.name = "UTH-1"
    table.save(update_fields=["name"])
    now, cal = timezone.now(), calendar()
    DealerAssignment.objects.create(dealer=ana, table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
                                    assigned_by=sup, assigned_at=now)
    client = Client()
    client.force_login(sup)
    return {"sup": sup, "ana": ana, "ben": ben, "table": table, "cookie": client.cookies["sessionid"].value}


async def next_relief(floor):
    """The next relief panel the floor socket is sent (row batches are skipped)."""
    while True:
        message = await floor.receive_json_from(timeout=TIMEOUT)
        if message["type"] == "relief":
            return message


async def opened_floor(cookie):
    floor = socket("/ws/floor/", cookie)
    assert (await floor.connect(timeout=TIMEOUT))[0]
    everything = await floor.receive_json_from(timeout=TIMEOUT)
    assert everything["type"] == "floor"
    return floor, everything["relief"]


def test_a_plan_and_a_take_over_reach_open_floor_screens_without_a_reload(world):
    w = world
    make_plan = sync_to_async(lambda: relief_plan_make(
        dealers=[w["ben"].pk, w["ana"].pk], tables=[w["table"].pk],
        starts_at=timezone.now() - timedelta(seconds=30), actor=Actor.of(w["sup"])))

    async def scenario():
        floor, first = await opened_floor(w["cookie"])
        assert first["planned"] is False and first["next"] == [] and first["handovers"] == []
        await make_plan()
        planned = await next_relief(floor)
        assert planned["planned"] is True
        # The next push, 20 minutes on: ben leaves UTH-1 for a break, ana takes it back.
        assert [sorted((m["dealer"], m["to"]) for m in push["moves"]) for push in planned["next"]][0] == \
            [("ana", "UTH-1"), ("ben", "break")]
        local = timezone.localtime(timezone.datetime.fromisoformat(planned["next"][0]["at"])).strftime("%H:%M")
        assert planned["next"][0]["time"] == local
        await sync_to_async(lambda: handover_take(table_id=w["table"].pk, actor=Actor.of(w["ben"])))()
        handed = await next_relief(floor)
        assert [(h["incoming"], h["outgoing"], h["table"]) for h in handed["handovers"]] == [("ben", "ana", "UTH-1")]
        await floor.disconnect()

    play(scenario)


def test_a_screen_asking_when_a_push_time_passes_gets_the_board_as_it_then_stands(world, settings):
    w = world
    settings.CARDROOM_RELIEF_LATE_MINUTES = 0  # late as soon as the push passes, so the test need not wait minutes
    first_push = timezone.now().replace(microsecond=0) + timedelta(seconds=2)
    make_plan = sync_to_async(lambda: relief_plan_make(
        dealers=[w["ben"].pk, w["ana"].pk], tables=[w["table"].pk], starts_at=first_push, actor=Actor.of(w["sup"])))

    async def scenario():
        floor, _ = await opened_floor(w["cookie"])
        await make_plan()
        before = await next_relief(floor)
        assert timezone.datetime.fromisoformat(before["next"][0]["at"]) == first_push
        assert before["changes_at"] == first_push.isoformat() and before["late"] == []
        await asyncio.sleep(max(0.0, (first_push - timezone.now()).total_seconds()) + 0.3)
        await floor.send_json_to({"type": "relief"})
        after = await next_relief(floor)
        assert timezone.datetime.fromisoformat(after["next"][0]["at"]) > first_push
        # ben's push to UTH-1 has passed and he has not taken over: late.
        assert [(late["dealer"], late["table"]) for late in after["late"]] == [("ben", "UTH-1")]
        await floor.disconnect()

    play(scenario)


async def close_code(communicator, timeout):
    """The code the server closes the socket with (messages sent before it are skipped)."""
    while True:
        output = await communicator.receive_output(timeout=timeout)
        if output["type"] == "websocket.close":
            return output.get("code")


def test_the_take_over_closes_the_outgoing_dealers_tablet_socket_at_once(world, monkeypatch):
    """Not at the socket's next periodic check (made an hour here), nor at his next tap:
    the hand-over announces his standing changed (tables.standing) once committed."""
    w = world
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 3600)
    client = Client()
    client.force_login(w["ana"])
    ana_cookie = client.cookies["sessionid"].value
    take_over = sync_to_async(lambda: (
        relief_plan_make(dealers=[w["ben"].pk, w["ana"].pk], tables=[w["table"].pk],
                         starts_at=timezone.now() - timedelta(seconds=30), actor=Actor.of(w["sup"])),
        handover_take(table_id=w["table"].pk, actor=Actor.of(w["ben"])),
    ))

    async def scenario():
        tablet = socket(f"/ws/tables/{w['table'].pk}/?role=tablet", ana_cookie)
        assert (await tablet.connect(timeout=TIMEOUT))[0]
        assert (await tablet.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"
        await take_over()
        assert await close_code(tablet, timeout=3) == consumers.NOT_ALLOWED
        await tablet.disconnect()

    play(scenario)

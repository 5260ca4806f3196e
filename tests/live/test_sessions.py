"""A socket follows its session, its user and their role (web.tables.consumers): as a dealer
and as compliance, not only as a supervisor."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.test import Client
from django.utils import timezone

from cardroom.gaming_day import calendar
from tables import events, presence, standing
from web import sockets
from web.tables import consumers
from tables.models import DealerAssignment, Table, TableEvent

from .conftest import make_table, play, run, socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

TIMEOUT = 10
SEATED = [
    {"type": "sit", "seat": 1, "player": "P-1"},
    {"type": "sit", "seat": 2, "player": "P-2"},
    {"type": "offer_bank", "seat": 1},
    {"type": "accept_bank", "seat": 1},
]
OPEN = {"type": "open_round", "bank": 100000}


@pytest.fixture
def world():
    def person(name, role):
        user = User.objects.create_user(name, password="pw")
        user.groups.add(Group.objects.get_or_create(name=role)[0])
        return user

    supervisor = person("sup", "supervisor")
    here, there = make_table(), make_table()
    for table in (here, there):
        run(table.pk, *SEATED)
    now, cal = timezone.now(), calendar()
    assignment = DealerAssignment.objects.create(
        dealer=person("dan", "dealer"), table=here, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
        assigned_by=supervisor, assigned_at=now,
    )
    return {"here": here, "there": there, "assignment": assignment,
            "people": {"dealer": assignment.dealer, "supervisor": supervisor, "compliance": person("cora", "compliance")}}


def login(user) -> tuple[Client, str]:
    client = Client()
    client.force_login(user)
    return client, client.cookies["sessionid"].value



async def opened(path, cookie):
    communicator = socket(path, cookie)
    connected, code = await communicator.connect(timeout=TIMEOUT)
    assert connected, code
    assert (await communicator.receive_json_from(timeout=TIMEOUT))["type"] in ("snapshot", "floor")
    return communicator


async def close_code(communicator, timeout=TIMEOUT):
    """The code the server closes the socket with (messages sent before it are skipped)."""
    while True:
        output = await communicator.receive_output(timeout=timeout)
        if output["type"] == "websocket.close":
            return output.get("code")


async def command(communicator, body):
    await communicator.send_json_to({"type": "command", "command": body})


def version_and_events(table) -> tuple[int, int]:
    return Table.objects.get(pk=table.pk).version, TableEvent.objects.filter(table=table).count()


def test_a_dealer_drives_the_assigned_table_over_the_socket_and_no_other(world):
    _, cookie = login(world["people"]["dealer"])

    async def scenario():
        tablet = await opened(f"/ws/tables/{world['here'].pk}/?role=tablet", cookie)
        await command(tablet, {**OPEN, "id": "o-1"})
        answer = await tablet.receive_json_from(timeout=TIMEOUT)
        while answer["type"] != "result":
            answer = await tablet.receive_json_from(timeout=TIMEOUT)
        assert answer["result"] == {"ok": True, "round": 1}
        event = await sync_to_async(TableEvent.objects.get)(table=world["here"], command_type="open_round")
        assert event.actor == "dan"
        await tablet.disconnect()

        elsewhere = socket(f"/ws/tables/{world['there'].pk}/?role=tablet", cookie)
        connected, code = await elsewhere.connect(timeout=TIMEOUT)
        assert (connected, code) == (False, consumers.NOT_ALLOWED)
        await elsewhere.disconnect()

    before = version_and_events(world["there"])
    play(scenario)
    assert version_and_events(world["there"]) == before


def test_a_compliance_command_over_the_socket_is_refused_and_changes_nothing(world):
    _, cookie = login(world["people"]["compliance"])
    before = version_and_events(world["here"])

    async def scenario():
        viewer = await opened(f"/ws/tables/{world['here'].pk}/?role=tablet", cookie)
        await command(viewer, {**OPEN, "id": "c-1", "version": before[0]})
        answer = await viewer.receive_json_from(timeout=TIMEOUT)
        assert answer["type"] == "result" and answer["result"]["error"]["code"] == "not_authorized"
        assert await viewer.receive_nothing(timeout=0.3)  # no event: nothing happened
        await viewer.disconnect()

    play(scenario)
    assert version_and_events(world["here"]) == before


def test_a_compliance_socket_asking_to_be_the_tablet_is_not_counted(world):
    table = world["here"]

    cookies = {name: login(world["people"][name])[1] for name in ("compliance", "dealer")}

    async def tablets_after(name):
        communicator = await opened(f"/ws/tables/{table.pk}/?role=tablet", cookies[name])
        # Answered in order: once the sync is answered, the heartbeat has been handled.
        await communicator.send_json_to({"type": "heartbeat"})
        await communicator.send_json_to({"type": "sync"})
        await communicator.receive_json_from(timeout=TIMEOUT)
        count = (await sync_to_async(presence.tablets_connected)([table.pk]))[table.pk]
        await communicator.disconnect()
        return count

    async def scenario():
        assert await tablets_after("compliance") == 0
        assert await tablets_after("dealer") == 1  # the same ask, by someone who may drive

    play(scenario)


def test_logging_out_closes_the_sockets_of_that_session_at_once(world, monkeypatch):
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 3600)  # only the logout can close it
    client, cookie = login(world["people"]["supervisor"])
    _, other_cookie = login(world["people"]["supervisor"])  # the same person on another device

    async def scenario():
        tablet = await opened(f"/ws/tables/{world['here'].pk}/?role=tablet", cookie)
        floor = await opened("/ws/floor/", cookie)
        elsewhere = await opened(f"/ws/tables/{world['here'].pk}/", other_cookie)
        await sync_to_async(client.post)("/accounts/logout/")
        assert await close_code(tablet, timeout=3) == consumers.NOT_LOGGED_IN
        assert await close_code(floor, timeout=3) == consumers.NOT_LOGGED_IN
        await elsewhere.send_json_to({"type": "sync"})
        assert (await elsewhere.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"
        for communicator in (tablet, floor, elsewhere):
            await communicator.disconnect()

    play(scenario)


def test_a_deactivated_user_is_closed_at_the_next_check_and_at_their_next_command(world, monkeypatch):
    user = world["people"]["supervisor"]
    _, cookie = login(user)

    def save_inactive():  # as the admin does: the user saved (tables.standing hears it)
        person = User.objects.get(pk=user.pk)
        person.is_active = False
        person.save()

    # A raw update, which no signal sees: only the periodic check finds it.
    deactivate = sync_to_async(lambda: User.objects.filter(pk=user.pk).update(is_active=False))

    async def at_next_command():
        tablet = await opened(f"/ws/tables/{world['here'].pk}/?role=tablet", cookie)
        await sync_to_async(save_inactive)()
        await command(tablet, {**OPEN, "id": "d-1"})
        assert await close_code(tablet) == consumers.NOT_LOGGED_IN
        await tablet.disconnect()

    async def at_next_check():
        floor = await opened("/ws/floor/", cookie)
        await deactivate()
        assert await close_code(floor) == consumers.NOT_LOGGED_IN
        await floor.disconnect()

    before = version_and_events(world["here"])
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 3600)
    play(at_next_command)
    assert version_and_events(world["here"]) == before  # the command was not applied
    User.objects.filter(pk=user.pk).update(is_active=True)
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 0.2)
    play(at_next_check)


def test_ending_a_dealers_assignment_closes_their_socket(world, monkeypatch):
    _, cookie = login(world["people"]["dealer"])
    table = world["here"]
    # A raw update, which no signal sees: only the periodic check finds it.
    end = sync_to_async(lambda: DealerAssignment.objects.filter(pk=world["assignment"].pk).update(ended_at=timezone.now()))
    restore = lambda: DealerAssignment.objects.filter(pk=world["assignment"].pk).update(ended_at=None)  # noqa: E731

    def save_ended():  # as the admin does: the assignment saved (tables.standing hears it)
        assignment = DealerAssignment.objects.get(pk=world["assignment"].pk)
        assignment.ended_at = timezone.now()
        assignment.save()

    async def at_next_command():
        tablet = await opened(f"/ws/tables/{table.pk}/?role=tablet", cookie)
        await sync_to_async(save_ended)()
        await command(tablet, {**OPEN, "id": "a-1"})
        assert await close_code(tablet) == consumers.NOT_ALLOWED
        await tablet.disconnect()

    async def at_next_check():
        for path in (f"/ws/tables/{table.pk}/?role=tablet", f"/ws/tables/{table.pk}/"):
            communicator = await opened(path, cookie)
            await end()
            assert await close_code(communicator) == consumers.NOT_ALLOWED
            await communicator.disconnect()
            await sync_to_async(restore)()

    before = version_and_events(table)
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 3600)
    play(at_next_command)
    assert version_and_events(table) == before
    restore()
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 0.2)
    play(at_next_check)


def test_a_supervisor_moved_to_compliance_loses_the_tablet_and_keeps_the_live_view(world, monkeypatch):
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 0.2)
    user = world["people"]["supervisor"]
    _, cookie = login(user)

    def demote():
        user.groups.set([Group.objects.get(name="compliance")])

    async def scenario():
        tablet = await opened(f"/ws/tables/{world['here'].pk}/?role=tablet", cookie)
        viewer = await opened(f"/ws/tables/{world['here'].pk}/", cookie)
        await sync_to_async(demote)()
        assert await close_code(tablet) == consumers.NOT_ALLOWED
        await asyncio.sleep(0.5)  # checked again since: compliance may still watch
        await viewer.send_json_to({"type": "sync"})
        assert (await viewer.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"
        for communicator in (tablet, viewer):
            await communicator.disconnect()

    play(scenario)


async def answered(communicator, body) -> dict:
    await command(communicator, body)
    while (answer := await communicator.receive_json_from(timeout=TIMEOUT))["type"] != "result":
        pass
    return answer


def test_a_socket_holds_its_standing_and_a_command_reads_no_session(world, monkeypatch):
    """Between checks a command is sent as the actor the socket holds (tables.standing):
    no session, user or role query per command."""
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 3600)
    reads = []
    fresh = sockets.session_user
    monkeypatch.setattr(sockets, "session_user", lambda scope: reads.append(1) or fresh(scope))
    _, cookie = login(world["people"]["supervisor"])

    async def scenario():
        tablet = await opened(f"/ws/tables/{world['here'].pk}/?role=tablet", cookie)
        assert (await answered(tablet, {**OPEN, "id": "h-1"}))["result"] == {"ok": True, "round": 1}
        assert (await answered(tablet, {**OPEN, "id": "h-2"}))["type"] == "result"  # refused: a round is open
        await tablet.disconnect()

    play(scenario)
    assert reads == []
    event = TableEvent.objects.get(table=world["here"], command_type="open_round")
    assert event.actor == "sup"


def test_a_role_change_refuses_the_next_command_at_once(world, monkeypatch):
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 3600)  # only the change can close it
    user = world["people"]["supervisor"]
    _, cookie = login(user)
    demote = sync_to_async(lambda: user.groups.set([Group.objects.get(name="compliance")]))

    async def scenario():
        tablet = await opened(f"/ws/tables/{world['here'].pk}/?role=tablet", cookie)
        await demote()
        await command(tablet, {**OPEN, "id": "r-1"})
        assert await close_code(tablet) == consumers.NOT_ALLOWED
        await tablet.disconnect()

    before = version_and_events(world["here"])
    play(scenario)
    assert version_and_events(world["here"]) == before


@pytest.mark.parametrize("role", ["supervisor", "dealer"])
def test_a_change_announced_by_another_process_closes_the_socket_at_once(world, monkeypatch, role):
    """Another process's change reaches this one only as the person's `standing.changed`
    message (tables.events.standing_changed): the socket checks again on it, at once."""
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 3600)
    user = world["people"][role]
    _, cookie = login(user)
    if role == "supervisor":  # raw updates: no signal in this process moves the generation on
        change, expected = (lambda: User.objects.filter(pk=user.pk).update(is_active=False)), consumers.NOT_LOGGED_IN
    else:
        assignment = world["assignment"].pk
        change = lambda: DealerAssignment.objects.filter(pk=assignment).update(ended_at=timezone.now())  # noqa: E731
        expected = consumers.NOT_ALLOWED

    async def scenario():
        tablet = await opened(f"/ws/tables/{world['here'].pk}/?role=tablet", cookie)
        await sync_to_async(change)()
        await sync_to_async(events.standing_changed)(user.pk)
        assert await close_code(tablet, timeout=3) == expected
        await tablet.disconnect()

    play(scenario)


def test_a_rolled_back_change_announces_nothing(world):
    user = world["people"]["supervisor"]
    before = standing.generation(user.pk)
    with pytest.raises(RuntimeError), transaction.atomic():
        user.groups.set([Group.objects.get(name="compliance")])
        raise RuntimeError("rolled back")
    assert standing.generation(user.pk) == before
    user.groups.set([Group.objects.get(name="compliance")])
    assert standing.generation(user.pk) != before


def test_the_periodic_check_is_one_statement_for_every_socket_and_checks_only_a_moved_one(world, monkeypatch):
    """Issue 37 item 3: every SESSION_CHECK_SECONDS a process reads what all its sockets'
    standing rests on in one statement (tables.standing.fingerprints); a socket runs its
    full check only when its reading moved. A password changed by raw SQL (no signal) then
    closes that person's sockets at the next period, and nobody else's."""
    readings, full_checks = [], []
    read, check = standing.fingerprints, sockets._LoggedInConsumer.standing

    def counted_read(sockets):
        readings.append(len(sockets))
        return read(sockets)

    def counted_check(self):
        full_checks.append(self.scope["user"].username)
        return check(self)

    monkeypatch.setattr(standing, "fingerprints", counted_read)
    monkeypatch.setattr(sockets._LoggedInConsumer, "standing", counted_check)
    monkeypatch.setattr(sockets, "SESSION_CHECK_SECONDS", 0.2)
    _, supervisor = login(world["people"]["supervisor"])
    _, compliance = login(world["people"]["compliance"])
    officer = world["people"]["compliance"]

    async def scenario():
        kept = [await opened("/ws/floor/", supervisor) for _ in range(3)]
        closing = [await opened(f"/ws/tables/{world['here'].pk}/", compliance) for _ in range(3)]
        readings.clear()  # a period may have read the sockets opened so far (on a busy machine)
        await asyncio.sleep(1.2)  # several periods
        periods = [n for n in readings if n > 1]
        assert len(periods) >= 3 and set(periods) == {6}, readings  # one statement for all six, each period
        # The first period checks each socket in full once (nothing held yet), then none.
        assert sorted(full_checks) == sorted(["sup"] * 3 + ["cora"] * 3), full_checks
        await sync_to_async(lambda: User.objects.filter(pk=officer.pk).update(password="changed-by-sql"))()
        for socket_ in closing:
            assert await close_code(socket_) == consumers.NOT_LOGGED_IN
        await asyncio.sleep(0.5)
        assert sorted(full_checks) == sorted(["sup"] * 3 + ["cora"] * 6), full_checks  # only the moved ones
        for socket_ in kept:  # still open: a sync is answered (after any rows already on the way)
            await socket_.send_json_to({"type": "sync"})
            while (await socket_.receive_json_from(timeout=TIMEOUT))["type"] != "floor":
                pass
            await socket_.disconnect()

    play(scenario)

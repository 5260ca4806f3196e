"""The websocket protocol through the real ASGI application (session auth, origin check,
URL routing) on the real Redis channel layer."""

import asyncio
import math
import time

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.test import Client

from tables import presence
from tables.events import WINDOW, publisher
from tables.models import TableEvent

from .conftest import amake_table, apply_event, arun, assign_dealer_async, play, receive_until, socket
from tests.playing import new_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

# Generous: a loaded CI machine is slow, and each wait ends as soon as its message is there.
TIMEOUT = 10

SEATED = [
    {"type": "sit", "seat": 1, "player": "P-1"},
    {"type": "sit", "seat": 2, "player": "P-2"},
    {"type": "sit", "seat": 3, "player": "P-3"},
    {"type": "offer_bank", "seat": 1},
    {"type": "accept_bank", "seat": 1},
]



def fresh_state(client: Client, table_id: int, query: str = "") -> dict:
    response = client.get(f"/api/tables/{table_id}/state{query}")
    assert response.status_code == 200
    return response.json()


def test_an_anonymous_socket_is_closed(redis_url):
    async def scenario():
        table = await amake_table()
        for path in (f"/ws/tables/{table.pk}/", "/ws/floor/"):
            communicator = socket(path, cookie=None)
            connected, code = await communicator.connect(timeout=TIMEOUT)
            assert not connected and code == 4401
            await communicator.disconnect()

    play(scenario)


def test_a_socket_from_another_site_is_refused(session_cookie):
    async def scenario():
        table = await amake_table()
        communicator = socket(f"/ws/tables/{table.pk}/", session_cookie)
        communicator.scope["headers"] = [(b"origin", b"http://evil.example"), (b"cookie", f"sessionid={session_cookie}".encode())]
        connected, _ = await communicator.connect(timeout=TIMEOUT)
        assert not connected
        await communicator.disconnect()

    play(scenario)


def test_an_unknown_table_closes_the_socket(session_cookie):
    async def scenario():
        communicator = socket("/ws/tables/999999/", session_cookie)
        connected, code = await communicator.connect(timeout=TIMEOUT)
        assert not connected and code == 4404
        await communicator.disconnect()

    play(scenario)


def test_connect_sends_the_snapshot_with_its_seq_then_every_event(session_cookie, logged_in):
    async def scenario():
        table = await amake_table()
        await arun(table.pk, *SEATED)
        communicator = socket(f"/ws/tables/{table.pk}/", session_cookie)
        assert (await communicator.connect(timeout=TIMEOUT))[0]
        first = await communicator.receive_json_from(timeout=TIMEOUT)
        assert first["type"] == "snapshot"
        assert first["snapshot"] == await sync_to_async(fresh_state)(logged_in, table.pk)
        assert first["snapshot"]["version"] == len(SEATED)
        await arun(table.pk, {"type": "open_round", "bank": 100000})
        event = await communicator.receive_json_from(timeout=TIMEOUT)
        assert (event["type"], event["seq"], event["command_type"]) == ("event", len(SEATED) + 1, "open_round")
        assert event["result"] == {"ok": True, "round": 1}
        assert event["snapshot"]["view"]["next"]["step"] == "take_wagers"
        await communicator.disconnect()

    play(scenario)


# One scenario that uses every command type of docs/commands.md at least once.
EVERY_COMMAND = [
    *SEATED[:3],
    {"type": "sit", "seat": 4, "player": "P-4"},
    {"type": "leave", "seat": 4},
    {"type": "offer_bank", "seat": 1},
    {"type": "decline_bank", "seat": 1},
    {"type": "accept_bank", "seat": 2},
    {"type": "open_round", "bank": 100000},
    {"type": "wager", "seat": 1, "ante": 1000},
    {"type": "wager", "seat": 3, "ante": 1000, "trips": 500},
    {"type": "withdraw", "seat": 3},
    {"type": "wager", "seat": 3, "ante": 2000, "trips": 500},
    {"type": "backline_wager", "seat": 3, "bettor": "B-1", "ante": 500, "trips": 500},
    {"type": "backline_withdraw", "seat": 3, "bettor": "B-1"},
    {"type": "backline_wager", "seat": 3, "bettor": "B-2", "ante": 1000},
    {"type": "no_more_bets"},
    # shuffler order: seat 1, seat 3, the player-dealer, then the board
    {"type": "deal", "cards": ["Ah", "Kh", "8c", "8d", "2s", "7s", "Qh", "Jh", "Th", "4c", "4d"]},
    {"type": "check", "seat": 1},
    {"type": "play", "seat": 3, "multiple": 4},
    {"type": "flop"},
    {"type": "check", "seat": 1},
    {"type": "turn_river"},
    {"type": "fold", "seat": 1},
    {"type": "showdown"},
    {"type": "settle"},
    {"type": "pass_bank"},
    {"type": "accept_bank", "seat": 3},
    {"type": "open_round", "bank": 50000},
    {"type": "wager", "seat": 1, "ante": 500},
    {"type": "no_more_bets"},
    {"type": "deal_by_hand"},
    {"type": "void_round", "reason": "shuffler jam"},  # with an approval given by another supervisor
]


def test_a_stale_snapshot_with_the_events_applied_equals_a_fresh_one_for_every_command(session_cookie, logged_in):
    """Zulip's verify_action: for each command, the tablet's snapshot from before it, with
    the command's events applied, equals a fresh snapshot, and a command sends one event."""

    async def scenario():
        table = await amake_table(backline={"max_per_seat": 2, "trips": True})  # every command offered
        # The tablet's view: the same cards as the answers to its commands (the deal's hands).
        communicator = socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie)
        assert (await communicator.connect(timeout=TIMEOUT))[0]
        snapshot = (await communicator.receive_json_from(timeout=TIMEOUT))["snapshot"]
        for index, command in enumerate(EVERY_COMMAND):
            if command["type"] == "void_round":
                command = {**command, "approval": await sync_to_async(void_approved_by_another_supervisor)(table.pk)}
            await communicator.send_json_to({"type": "command", "command": {**command, "id": f"c{index}"}})
            messages = await receive_until(communicator, lambda m: m["type"] == "result")
            answer = messages[-1]
            assert answer["result"]["ok"], (command, answer)
            # The event is sent at commit, before the answer; at most the answer follows.
            events = [m for m in messages if m["type"] == "event"]
            if not events:
                events = [await communicator.receive_json_from(timeout=TIMEOUT)]
            assert [e["seq"] for e in events] == [snapshot["version"] + 1], command
            assert events[0]["command_type"] == command["type"]
            assert events[0]["result"] == answer["result"]
            for event in events:
                snapshot = apply_event(snapshot, event)
            assert snapshot == await sync_to_async(fresh_state)(logged_in, table.pk, "?role=tablet"), command
            assert answer["version"] == snapshot["version"]
        # start_game follows a game the rotation window ended (40 minutes of play), and
        # confirm_award a percentage progressive award: each has its own test below.
        assert {c["type"] for c in EVERY_COMMAND} == set(_command_types()) - {"start_game", "confirm_award"}
        assert await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()

    play(scenario)


def _table_whose_game_ended() -> int:
    """A table under the rotation policy where P-1 banked for 45 minutes alone (times given
    to the service as a replay would): its next open_round ended the game."""
    from datetime import timedelta

    from django.utils import timezone

    from tables.services import command_execute
    from tests.engine.helpers import quick_round

    table = new_table("Policy", rotation_policy={}, boxes=False)
    start = timezone.now() - timedelta(minutes=45)
    steps = [(0, [*SEATED[:2], {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2)]),
             (44, [{"type": "decline_bank", "seat": 2}, {"type": "accept_bank", "seat": 1}, {"type": "open_round", "bank": 1000}])]
    for minute, commands in steps:
        for command in commands:
            assert command_execute(table_id=table.pk, command=command, actor="test", at=start + timedelta(minutes=minute)).ok
    return table.pk


def test_start_game_over_the_socket_follows_the_event_protocol(session_cookie, logged_in):
    async def scenario():
        table_id = await sync_to_async(_table_whose_game_ended)()
        communicator = socket(f"/ws/tables/{table_id}/?role=tablet", session_cookie)
        assert (await communicator.connect(timeout=TIMEOUT))[0]
        snapshot = (await communicator.receive_json_from(timeout=TIMEOUT))["snapshot"]
        assert snapshot["view"]["next"]["step"] == "game_ended"
        await communicator.send_json_to({"type": "command", "command": {"type": "start_game", "id": "restart"}})
        messages = await receive_until(communicator, lambda m: m["type"] == "result")
        assert messages[-1]["result"] == {"ok": True}
        events = [m for m in messages if m["type"] == "event"] or [await communicator.receive_json_from(timeout=TIMEOUT)]
        snapshot = apply_event(snapshot, events[0])
        assert snapshot == await sync_to_async(fresh_state)(logged_in, table_id, "?role=tablet")
        assert snapshot["view"]["next"]["step"] == "choose_player_dealer"
        await communicator.disconnect()

    play(scenario)


def _table_with_an_award_to_confirm() -> int:
    """A progressive table at its showdown, seat 2 holding a royal flush in its first five
    cards: a 100% award that waits for a supervisor's confirm_award (game-rules 10.3)."""
    from tables.services import command_execute
    from tests.engine.test_sidebets import PROGRESSIVE

    table = new_table("Progressive", side_bets={"progressive": PROGRESSIVE}, boxes=False)
    for command in (
        *SEATED[:3], {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 100000}, {"type": "wager", "seat": 2, "ante": 500, "progressive": True},
        {"type": "wager", "seat": 3, "ante": 500}, {"type": "no_more_bets"},
        {"type": "check", "seat": 2}, {"type": "check", "seat": 3}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
        {"type": "check", "seat": 2}, {"type": "check", "seat": 3}, {"type": "turn_river", "cards": ["2c", "3d"]},
        {"type": "play", "seat": 2, "multiple": 1}, {"type": "play", "seat": 3, "multiple": 1},
        {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"], "3": ["8h", "8d"]}},
    ):
        assert command_execute(table_id=table.pk, command=command, actor="test").ok, command
    return table.pk


def test_confirm_award_over_the_socket_follows_the_event_protocol(session_cookie, logged_in):
    async def scenario():
        table_id = await sync_to_async(_table_with_an_award_to_confirm)()
        communicator = socket(f"/ws/tables/{table_id}/?role=tablet", session_cookie)
        assert (await communicator.connect(timeout=TIMEOUT))[0]
        snapshot = (await communicator.receive_json_from(timeout=TIMEOUT))["snapshot"]
        await communicator.send_json_to({"type": "command", "command": {"type": "confirm_award", "seat": 2, "id": "ok"}})
        messages = await receive_until(communicator, lambda m: m["type"] == "result")
        assert messages[-1]["result"]["ok"], messages[-1]
        events = [m for m in messages if m["type"] == "event"] or [await communicator.receive_json_from(timeout=TIMEOUT)]
        assert [e["seq"] for e in events] == [snapshot["version"] + 1]
        snapshot = apply_event(snapshot, events[0])
        assert snapshot == await sync_to_async(fresh_state)(logged_in, table_id, "?role=tablet")
        await communicator.disconnect()

    play(scenario)


def void_approved_by_another_supervisor(table_id: int) -> int:
    """An approval of the current round's void, asked by the tablet's user and granted by
    a second supervisor (tables/approvals.py does this in production, then voids at once;
    here the tablet sends the void itself so that its event is checked like the others)."""
    from django.contrib.auth.models import Group, User
    from django.utils import timezone

    from tables.models import Approval, ApprovalDecision, Table

    table = Table.objects.get(pk=table_id)
    second = User.objects.create_user("supervisor-2")
    second.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    approval = Approval.objects.create(
        table=table, kind="void", round_number=table.state["round"]["number"], payload={"reason": "shuffler jam"},
        requested_by=User.objects.get(username="dealer"), requested_role="supervisor", requested_at=timezone.now(),
    )
    ApprovalDecision.objects.create(
        approval=approval, approved=True, decided_by=second, via="device", decided_at=timezone.now()
    )
    return approval.pk


def _command_types():
    from rounds.engine.handlers import COMMAND_TYPES

    return COMMAND_TYPES


def test_a_client_that_missed_events_sees_the_gap_and_a_fresh_snapshot_mends_it(session_cookie, logged_in):
    async def scenario():
        table = await amake_table()
        communicator = socket(f"/ws/tables/{table.pk}/", session_cookie)
        assert (await communicator.connect(timeout=TIMEOUT))[0]
        stale = (await communicator.receive_json_from(timeout=TIMEOUT))["snapshot"]
        await arun(table.pk, *SEATED)
        events = [await communicator.receive_json_from(timeout=TIMEOUT) for _ in SEATED]
        # Dropped on the way: the client holds the first event only, then sees the third.
        held = apply_event(stale, events[0])
        assert apply_event(held, events[2]) is None
        await communicator.send_json_to({"type": "sync"})
        fresh = await communicator.receive_json_from(timeout=TIMEOUT)
        assert fresh["type"] == "snapshot"
        assert fresh["snapshot"] == await sync_to_async(fresh_state)(logged_in, table.pk)
        assert apply_event(fresh["snapshot"], events[1]) == fresh["snapshot"]  # old news
        await communicator.disconnect()

    play(scenario)


def test_a_command_resent_with_its_id_after_a_reconnect_is_answered_once_and_applied_once(session_cookie):
    async def scenario():
        table = await amake_table()
        await arun(table.pk, *SEATED)
        command = {"type": "open_round", "bank": 100000, "id": "tap-1", "version": len(SEATED)}
        first = socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie)
        assert (await first.connect(timeout=TIMEOUT))[0]
        await first.receive_json_from(timeout=TIMEOUT)
        await first.send_json_to({"type": "command", "command": command})
        # The connection drops before the tablet reads the answer.
        await first.disconnect()

        second = socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie)
        assert (await second.connect(timeout=TIMEOUT))[0]
        snapshot = (await second.receive_json_from(timeout=TIMEOUT))["snapshot"]
        assert snapshot["version"] == len(SEATED) + 1 and snapshot["game"]["round"]["number"] == 1
        await second.send_json_to({"type": "command", "command": command})
        answer = await second.receive_json_from(timeout=TIMEOUT)
        assert answer == {"type": "result", "id": "tap-1", "result": {"ok": True, "round": 1},
                          "version": len(SEATED) + 1, "replayed": True}
        # No second event: nothing applied. (The first command's own event may still reach
        # the second socket, which joined the table's group as it committed: old news.)
        while not await second.receive_nothing(timeout=0.3):
            late = await second.receive_json_from(timeout=TIMEOUT)
            assert late["type"] == "event" and late["seq"] == len(SEATED) + 1, late
        await second.disconnect()
        assert await sync_to_async(TableEvent.objects.filter(table=table, command_type="open_round").count)() == 1

    play(scenario)


def test_a_stale_version_is_answered_with_the_current_state(session_cookie):
    async def scenario():
        table = await amake_table()
        await arun(table.pk, *SEATED)
        communicator = socket(f"/ws/tables/{table.pk}/", session_cookie)
        assert (await communicator.connect(timeout=TIMEOUT))[0]
        await communicator.receive_json_from(timeout=TIMEOUT)
        await communicator.send_json_to({"type": "command", "command": {"type": "pass_bank", "id": "x", "version": 1}})
        answer = await communicator.receive_json_from(timeout=TIMEOUT)
        assert answer["result"]["error"]["code"] == "stale_version"
        assert answer["result"]["state"]["version"] == len(SEATED)
        assert answer["result"]["state"]["view"]["next"]["step"] == "open_round"
        await communicator.send_json_to({"type": "nonsense"})
        assert (await communicator.receive_json_from(timeout=TIMEOUT))["type"] == "error"
        await communicator.disconnect()

    play(scenario)


async def _floor_rows_until(floor, table_id, predicate, timeout=TIMEOUT):
    """The rows of `table_id` in the floor's batches, up to the first that satisfies
    `predicate`; each batch holds at most one row per table."""
    rows = []
    while True:
        message = await floor.receive_json_from(timeout=timeout)
        if message["type"] != "rows":
            continue
        mine = [row for row in message["rows"] if row["table"] == table_id]
        assert len(mine) <= 1, mine
        rows += mine
        if mine and predicate(mine[0]):
            return rows


def test_the_floor_gets_every_table_then_the_latest_row_coalesced(session_cookie):
    async def scenario():
        table = await amake_table()
        other = await amake_table()
        await assign_dealer_async(table)  # its tablet is expected
        await sync_to_async(presence.tablet_seen)(table.pk, "tablet-socket")  # and was here this shift
        await sync_to_async(presence.tablet_gone)(table.pk, "tablet-socket")
        floor = socket("/ws/floor/", session_cookie)
        assert (await floor.connect(timeout=TIMEOUT))[0]
        everything = await floor.receive_json_from(timeout=TIMEOUT)
        assert everything["type"] == "floor"
        assert {r["table"] for r in everything["rows"]} >= {table.pk, other.pk}

        commands = SEATED + [{"type": "open_round", "bank": 100000}] + [
            {"type": "wager", "seat": s, "ante": 1000 * k} for k in (1, 2, 3) for s in (2, 3)
        ]
        started = time.monotonic()
        await arun(table.pk, *commands)
        elapsed = time.monotonic() - started
        rows = await _floor_rows_until(floor, table.pk, lambda r: r["seq"] == len(commands))
        # The first change goes at once, then at most one row per window while changes
        # keep coming, and one for the last window: however fast this machine is.
        assert len(rows) <= math.ceil(elapsed / WINDOW) + 2, ([r["seq"] for r in rows], elapsed)
        assert len(rows) < len(commands) or elapsed > len(commands) * WINDOW
        last = rows[-1]
        assert last["street"] == "betting" and last["round"] == 1 and last["bank_left"] == 100000
        assert last["player_dealer"] == {"seat": 1, "player": "P-1", "consecutive_banks": 0,
                                         "bank_run": {"bank": 1, "of": 2, "text": "1st of 2"}}
        assert last["seated"] == 3 and last["open"] is True
        assert [a["kind"] for a in last["alerts"]] == ["tablet_disconnected"]
        await floor.disconnect()

    play(scenario)


def test_tables_that_change_in_one_window_reach_the_floor_in_one_message(session_cookie, monkeypatch):
    """Per window, not per table: a screen gets one message however many tables changed,
    so messages grow with screens, not with tables x screens. The window is widened to a
    second here: three commands must land inside it on a machine busy with other tests."""
    monkeypatch.setattr(publisher, "window", 1.0)

    async def scenario():
        tables = [await amake_table() for _ in range(3)]
        floor = socket("/ws/floor/", session_cookie)
        assert (await floor.connect(timeout=TIMEOUT))[0]
        await floor.receive_json_from(timeout=TIMEOUT)  # the whole floor first
        await arun(tables[0].pk, SEATED[0])  # the first change after a quiet spell goes at once
        first = await floor.receive_json_from(timeout=TIMEOUT)
        assert first["type"] == "rows" and [r["table"] for r in first["rows"]] == [tables[0].pk]
        for table in tables:  # all within the window that follows
            await arun(table.pk, SEATED[1])
        batch = await floor.receive_json_from(timeout=TIMEOUT)
        assert batch["type"] == "rows"
        assert sorted((r["table"], r["seq"]) for r in batch["rows"]) == [
            (tables[0].pk, 2), (tables[1].pk, 1), (tables[2].pk, 1)
        ]
        await floor.disconnect()

    play(scenario)


def test_a_floor_screen_that_fell_behind_gets_a_fresh_floor_instead_of_the_backlog(session_cookie):
    async def scenario():
        table = await amake_table()
        await arun(table.pk, *SEATED)
        assert await sync_to_async(publisher.drain)()  # these rows are sent before the screen opens
        floor = socket("/ws/floor/", session_cookie)
        assert (await floor.connect(timeout=TIMEOUT))[0]
        await floor.receive_json_from(timeout=TIMEOUT)
        layer = get_channel_layer()
        stale_row = {"table": table.pk, "seq": 1, "open": True}
        for _ in range(3):  # a backlog: batches sent long before this screen reads them
            await layer.group_send("floor", {"type": "floor.rows", "rows": [stale_row], "sent_at": time.time() - 60})
        fresh = await floor.receive_json_from(timeout=TIMEOUT)
        assert fresh["type"] == "floor"
        assert {r["table"]: r["seq"] for r in fresh["rows"]}[table.pk] == len(SEATED)
        assert await floor.receive_nothing(timeout=0.5)  # the rest of the backlog is dropped
        await floor.disconnect()

    play(scenario)


def test_the_floor_shows_whether_the_tablet_is_connected(session_cookie):
    async def scenario():
        table = await amake_table()
        await assign_dealer_async(table)  # a tablet is expected only where a dealer is assigned now
        await arun(table.pk, *SEATED)
        floor = socket("/ws/floor/", session_cookie)
        assert (await floor.connect(timeout=TIMEOUT))[0]
        rows = {r["table"]: r for r in (await floor.receive_json_from(timeout=TIMEOUT))["rows"]}
        # No tablet has connected this shift: none is missed (issue 35).
        assert "tablet_disconnected" not in [a["kind"] for a in rows[table.pk]["alerts"]]

        viewer = socket(f"/ws/tables/{table.pk}/", session_cookie)  # a live view is no tablet
        assert (await viewer.connect(timeout=TIMEOUT))[0]
        tablet = socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie)
        assert (await tablet.connect(timeout=TIMEOUT))[0]
        row = (await _floor_rows_until(floor, table.pk, lambda r: r["tablets"] == 1))[-1]
        assert "tablet_disconnected" not in [a["kind"] for a in row["alerts"]]

        await tablet.disconnect()
        row = (await _floor_rows_until(floor, table.pk, lambda r: r["tablets"] == 0))[-1]
        assert "tablet_disconnected" in [a["kind"] for a in row["alerts"]]
        await viewer.disconnect()
        await floor.disconnect()

    play(scenario)


def test_the_floor_is_live_on_the_in_memory_layer_too(session_cookie, settings):
    """The embedded default (no REDIS_URL): rows reach the consumers through their loop."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

    async def scenario():
        table = await amake_table()
        floor = socket("/ws/floor/", session_cookie)
        assert (await floor.connect(timeout=TIMEOUT))[0]
        await floor.receive_json_from(timeout=TIMEOUT)
        await arun(table.pk, *SEATED)
        row = (await _floor_rows_until(floor, table.pk, lambda r: r["seq"] == len(SEATED)))[-1]
        assert row["player_dealer"]["player"] == "P-1"
        await floor.disconnect()

    asyncio.run(scenario())
    connection.close()


def test_a_void_request_reaches_every_screen_of_the_table_and_leaves_it_when_refused(session_cookie, dealer, django_user_model):
    """A pending void is the table's, not one browser's: the sockets open on the table get
    a fresh snapshot naming it (no new seq), and another when a supervisor refuses it."""
    from django.contrib.auth.models import Group

    from cardroom.access import Actor
    from tables.approvals import approval_decide, approval_request

    other = django_user_model.objects.create_user(username="other-sup", password="pw")
    other.groups.add(Group.objects.get_or_create(name="supervisor")[0])

    async def scenario():
        table = await amake_table()
        await arun(table.pk, *SEATED, {"type": "open_round", "bank": 100000}, {"type": "wager", "seat": 2, "ante": 500},
                   {"type": "no_more_bets"})
        screens = [socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie), socket(f"/ws/tables/{table.pk}/", session_cookie)]
        for screen in screens:
            assert (await screen.connect(timeout=TIMEOUT))[0]
            first = await screen.receive_json_from(timeout=TIMEOUT)
            assert first["snapshot"]["void_request"] is None
        approval = await sync_to_async(lambda: approval_request(
            actor=Actor.of(dealer), table_id=table.pk, kind="void", payload={"reason": "card exposed"}))()
        for screen in screens:
            (pushed,) = await receive_until(screen, lambda m: m["type"] == "snapshot")
            assert pushed["snapshot"]["void_request"] == {
                "approval": approval.pk, "round": 1, "requested_by": "dealer", "reason": "card exposed"}
            assert pushed["snapshot"]["version"] == first["snapshot"]["version"]  # no command, no new seq
        await sync_to_async(lambda: approval_decide(approval_id=approval.pk, decider=Actor.of(other), approve=False, via="device",
                                                  reason="the card was not exposed"))()
        for screen in screens:
            (pushed,) = await receive_until(screen, lambda m: m["type"] == "snapshot")
            assert pushed["snapshot"]["void_request"] is None
            await screen.disconnect()

    play(scenario)


def test_a_tap_made_under_another_login_is_answered_as_refused_and_not_run(session_cookie, dealer):
    async def scenario():
        table = await amake_table()
        await arun(table.pk, *SEATED)
        tablet = socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie)
        assert (await tablet.connect(timeout=TIMEOUT))[0]
        first = await tablet.receive_json_from(timeout=TIMEOUT)
        command = {"type": "open_round", "bank": 10000, "id": "tab-9"}
        await tablet.send_json_to({"type": "command", "command": command, "user": dealer.pk + 1000})
        (answer,) = await receive_until(tablet, lambda m: m["type"] == "result")
        assert answer["id"] == "tab-9" and answer["result"]["error"]["code"] == "not_authorized"
        assert await sync_to_async(TableEvent.objects.filter(table_id=table.pk).count)() == first["snapshot"]["version"]
        await tablet.send_json_to({"type": "command", "command": {**command, "id": "tab-10"}, "user": dealer.pk})
        seen = await receive_until(tablet, lambda m: m["type"] == "event")
        assert seen[-1]["seq"] == first["snapshot"]["version"] + 1 and seen[-1]["command_type"] == "open_round"
        await tablet.disconnect()

    play(scenario)


def test_an_event_is_encoded_once_per_kind_of_viewer_whatever_the_number_of_sockets(session_cookie, monkeypatch):
    """tables.events.per_audience: the publisher cuts and encodes each event once for the
    tablet and once for the live view; every socket sends its viewer's text as it came."""
    from tables import events

    cut = []
    whole = events.event_for
    monkeypatch.setattr(events, "event_for", lambda message, audience: cut.append(audience) or whole(message, audience))

    async def scenario():
        table = await amake_table()
        await arun(table.pk, *SEATED)
        paths = [f"/ws/tables/{table.pk}/?role=tablet"] * 2 + [f"/ws/tables/{table.pk}/"] * 3
        sockets = [socket(path, session_cookie) for path in paths]
        for communicator in sockets:
            assert (await communicator.connect(timeout=TIMEOUT))[0]
            assert (await communicator.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"
        cut.clear()  # the seating's events were cut before any socket opened
        await arun(table.pk, {"type": "open_round", "bank": 100000})
        received = [await communicator.receive_json_from(timeout=TIMEOUT) for communicator in sockets]
        assert {(e["type"], e["seq"], e["command_type"]) for e in received} == {("event", len(SEATED) + 1, "open_round")}
        # Each socket got its own viewer's cut: the tablets' views equal, the live views equal.
        assert received[0] == received[1] and received[2] == received[3] == received[4]
        for communicator in sockets:
            await communicator.disconnect()

    play(scenario)
    assert sorted(cut) == ["live", "tablet"]


def test_an_idle_floor_is_sent_nothing_and_a_re_read_sends_only_what_changed(session_cookie, settings, monkeypatch):
    """Issue 35: the floor's periodic re-read (every 2 s on the in-memory layer of `make
    run`) sent every row again, and every screen redrew every tile. Now a screen is sent
    only the rows that differ from what it was sent: nothing while the floor is idle."""
    from web.tables import consumers
    from tables.models import Table

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    monkeypatch.setattr(consumers, "FLOOR_REFRESH_IN_MEMORY_SECONDS", 0.3)

    async def scenario():
        table = await amake_table()
        other = await amake_table()
        floor = socket("/ws/floor/", session_cookie)
        assert (await floor.connect(timeout=TIMEOUT))[0]
        assert (await floor.receive_json_from(timeout=TIMEOUT))["type"] == "floor"
        assert await floor.receive_nothing(timeout=2.5)  # several re-reads, nothing changed
        # Changed where no publisher sees it (another process, on the in-memory layer):
        await sync_to_async(lambda: Table.objects.filter(pk=table.pk).update(name="Renamed"))()
        changed = await floor.receive_json_from(timeout=TIMEOUT)
        assert changed["type"] == "rows"
        assert [(r["table"], r["name"]) for r in changed["rows"]] == [(table.pk, "Renamed")]
        assert other.pk not in [r["table"] for r in changed["rows"]]
        assert await floor.receive_nothing(timeout=1.5)
        await floor.disconnect()

    asyncio.run(scenario())
    connection.close()


def test_a_floor_read_that_fails_at_a_tick_does_not_stop_the_screens_refresh(session_cookie, settings, monkeypatch):
    """One read at a tick serves every screen of the process: its failure (the database
    away for a moment) must not end the screens' refresh, which also mends a batch the
    publisher could not send."""
    from web.tables import consumers
    from tables.models import Table

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    monkeypatch.setattr(consumers, "FLOOR_REFRESH_IN_MEMORY_SECONDS", 0.3)
    real, calls = consumers._floor_message, []

    def failing_once():
        calls.append(1)
        if len(calls) == 2:  # the first tick's read (the first call is the connect's)
            raise ConnectionError("the database is away")
        return real()

    monkeypatch.setattr(consumers, "_floor_message", failing_once)

    async def scenario():
        table = await amake_table()
        floor = socket("/ws/floor/", session_cookie)
        assert (await floor.connect(timeout=TIMEOUT))[0]
        assert (await floor.receive_json_from(timeout=TIMEOUT))["type"] == "floor"
        deadline = time.monotonic() + 10
        while len(calls) < 3:  # past the failed tick
            assert time.monotonic() < deadline, "the screens' refresh stopped at the failed read"
            await asyncio.sleep(0.1)
        # Changed where no publisher sees it: only a later tick's re-read sends it.
        await sync_to_async(lambda: Table.objects.filter(pk=table.pk).update(name="After the blip"))()
        changed = await floor.receive_json_from(timeout=TIMEOUT)
        assert [(r["table"], r["name"]) for r in changed["rows"]] == [(table.pk, "After the blip")]
        await floor.disconnect()

    asyncio.run(scenario())
    connection.close()


# A busy floor: the publisher's window forgets the whole floor up to four times a second,
# so at a tick the screens, reading in turn, would each read it again.
@pytest.mark.parametrize("whole_floor_age", [0.2, 0.0], ids=["idle", "busy"])
def test_a_process_s_floor_screens_re_read_the_floor_together_once_per_period(
        session_cookie, settings, monkeypatch, whole_floor_age):
    """Issue 37: each floor screen re-read the whole floor on its own timer from its connect,
    so 40 screens read it about once a second between them (a third of a Daphne process at
    250 tables). Now a process's screens re-read at the same tick of the clock and share one
    read: one per period, however many screens and whenever they connected, and however
    busy the floor."""
    from tables import floor as floor_module
    from web.tables import consumers

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    period = 1.5
    monkeypatch.setattr(consumers, "FLOOR_REFRESH_IN_MEMORY_SECONDS", period)
    # Two reads more than this apart are two reads: the screens must meet, not just be near.
    monkeypatch.setattr(floor_module, "WHOLE_FLOOR_MAX_AGE", whole_floor_age)
    reads = []
    real = floor_module.floor_rows
    monkeypatch.setattr(floor_module, "floor_rows", lambda *a, **k: reads.append(time.monotonic()) or real(*a, **k))

    async def scenario():
        await amake_table()
        screens = []
        for _ in range(4):  # connected 0.4 s apart: four timers of their own, before
            screen = socket("/ws/floor/", session_cookie)
            assert (await screen.connect(timeout=TIMEOUT))[0]
            assert (await screen.receive_json_from(timeout=TIMEOUT))["type"] == "floor"
            screens.append(screen)
            await asyncio.sleep(0.4)
        await asyncio.sleep(consumers.until_next_tick(period) + 0.1)  # the first shared tick has passed
        start = len(reads)
        await asyncio.sleep(3 * period)
        # One read per tick (three), a tick's read late on a loaded machine counted too:
        # on their own timers the four screens read four times a period (twelve).
        assert len(reads) - start <= 4, reads[start:]
        for screen in screens:
            assert await screen.receive_nothing(timeout=0.05)  # nothing changed: nothing sent
            await screen.disconnect()

    asyncio.run(scenario())
    connection.close()


def test_the_next_tick_is_the_next_multiple_of_the_period():
    from web.tables.consumers import until_next_tick

    assert until_next_tick(30, now=90.0) == 30 and until_next_tick(30, now=101.5) == 18.5
    assert until_next_tick(2, now=1001.25) == 0.75

"""Per-socket rates for `sync` and commands (issue 21, item 8): past its bound a socket is
answered `rate_limited` with `retry_after`, and nothing is read or applied for it; a
tablet's outbox flushed after a reconnect fits in the command burst."""

import time

import pytest
from asgiref.sync import sync_to_async

from web.tables import consumers
from tables.models import RejectedCommand, TableEvent
from tables.socket_rates import TokenBucket

from .conftest import amake_table, play, socket

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
TIMEOUT = 10
# The outbox a tablet may flush after a reconnect: two full rounds at the largest table
# (8 seats: wagers, three decisions each, the cards, the showdown) with room to spare.
OUTBOX_TAPS = 100


def test_a_bucket_gives_its_burst_then_one_token_per_interval():
    now = [100.0]
    bucket = TokenBucket(burst=2, per_second=0.5, clock=lambda: now[0])
    assert [bucket.take() for _ in range(3)] == [0, 0, 2.0]  # the third waits 2 s for a token
    now[0] += 1.0
    assert bucket.take() == pytest.approx(1.0)
    now[0] += 1.0
    assert bucket.take() == 0
    now[0] += 60.0  # a long quiet spell refills the burst, no more
    assert [bucket.take() for _ in range(3)] == [0, 0, 2.0]


def test_a_burst_of_syncs_beyond_the_bound_is_answered_rate_limited_without_a_read(session_cookie, settings, monkeypatch):
    settings.CARDROOM_SOCKET_SYNC_BURST = 3
    settings.CARDROOM_SOCKET_SYNCS_PER_SECOND = 0.5
    reads = []
    real = consumers._snapshot
    monkeypatch.setattr(consumers, "_snapshot", lambda *args: reads.append(args) or real(*args))
    sent = 20

    async def scenario():
        table = await amake_table()
        live = socket(f"/ws/tables/{table.pk}/", session_cookie)
        assert (await live.connect(timeout=TIMEOUT))[0]
        assert (await live.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"  # on connect: no token
        started = time.monotonic()
        for _ in range(sent):
            await live.send_json_to({"type": "sync"})
        answers = [await live.receive_json_from(timeout=TIMEOUT) for _ in range(sent)]
        elapsed = time.monotonic() - started
        await live.disconnect()
        snapshots = [a for a in answers if a["type"] == "snapshot"]
        limited = [a for a in answers if a["type"] == "error"]
        # The burst, and what the rate refilled while the syncs were answered.
        allowed = 3 + int(elapsed * 0.5)
        assert 3 <= len(snapshots) <= allowed, (len(snapshots), elapsed)
        assert len(limited) == sent - len(snapshots)
        assert all(a["error"]["code"] == "rate_limited" and a["for"] == "sync" and a["retry_after"] > 0 for a in limited)
        # One read at connect, one per snapshot sent: none for a limited sync.
        assert len(reads) == 1 + len(snapshots)

    play(scenario)


def test_commands_beyond_the_bound_are_answered_rate_limited_and_neither_applied_nor_logged(session_cookie, settings):
    settings.CARDROOM_SOCKET_COMMAND_BURST = 3
    settings.CARDROOM_SOCKET_COMMANDS_PER_SECOND = 0.01

    async def scenario():
        table = await amake_table()
        tablet = socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie)
        assert (await tablet.connect(timeout=TIMEOUT))[0]
        await tablet.receive_json_from(timeout=TIMEOUT)
        answers = []
        for seat in range(1, 6):
            await tablet.send_json_to({"type": "command", "command": {
                "type": "sit", "seat": seat, "player": f"P-{seat}", "id": f"c{seat}", "version": min(seat - 1, 3)}})
            while (message := await tablet.receive_json_from(timeout=TIMEOUT))["type"] != "result":
                pass  # this socket's own events
            answers.append(message)
        await tablet.disconnect()
        assert [a["result"]["ok"] for a in answers] == [True, True, True, False, False]
        for answer, command_id in zip(answers[3:], ("c4", "c5")):
            assert answer["id"] == command_id and answer["result"]["error"]["code"] == "rate_limited"
            assert answer["retry_after"] > 0 and answer["version"] is None
        assert await sync_to_async(TableEvent.objects.filter(table=table).count)() == 3
        assert await sync_to_async(RejectedCommand.objects.count)() == 0

    play(scenario)


@pytest.mark.slow
def test_an_outbox_sized_burst_after_a_reconnect_is_all_accepted(session_cookie, settings):
    """The default burst: a tablet that queued that many taps while its connection was
    down sends them one after another, as fast as the answers come, and none is limited.
    The refill is all but stopped, so the burst alone holds them, however slow this
    machine answers."""
    burst = OUTBOX_TAPS
    settings.CARDROOM_SOCKET_COMMANDS_PER_SECOND = 0.001

    async def scenario():
        table = await amake_table()
        first = socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie)
        assert (await first.connect(timeout=TIMEOUT))[0]
        await first.receive_json_from(timeout=TIMEOUT)
        await first.disconnect()  # the connection drops; taps queue on the tablet

        tablet = socket(f"/ws/tables/{table.pk}/?role=tablet", session_cookie)
        assert (await tablet.connect(timeout=TIMEOUT))[0]
        await tablet.receive_json_from(timeout=TIMEOUT)
        outbox = [
            {"type": "sit", "seat": 1, "player": "P-1"} if n % 2 == 0 else {"type": "leave", "seat": 1}
            for n in range(burst)
        ]
        refused = []
        for version, command in enumerate(outbox):
            await tablet.send_json_to({"type": "command", "command": {**command, "id": f"q{version}", "version": version}})
            while (message := await tablet.receive_json_from(timeout=TIMEOUT))["type"] != "result":
                pass
            if not message["result"]["ok"]:
                refused.append(message)
        await tablet.disconnect()
        assert refused == []
        assert await sync_to_async(TableEvent.objects.filter(table=table).count)() == burst

    play(scenario)

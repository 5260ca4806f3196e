"""Commands survive a Redis outage (issue 21, item 7).

A real Daphne process runs against a redis-server of this test's own, which the test
kills (SIGKILL, as a crash would) and starts again on the same port, empty. While Redis is
down a command sent over HTTP and one sent on an open tablet socket are both applied and
answered; after Redis is back a screen's `sync` shows them, and the sockets that lived
through the outage get the next command's event again (they re-joined their groups).
"""

import asyncio
import json
import secrets
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest
from django.test import Client
from websockets.asyncio.client import connect

from tables.models import Table, TableEvent
from tests.plugins.services import Redis, _free_port
from web.sockets import SESSION_CHECK_SECONDS

from .conftest import make_table, run
from .test_browser import Daphne

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SEATED = [{"type": "sit", "seat": s, "player": f"P{s}"} for s in (1, 2)]


# The sockets check their session, and re-join their groups after an outage, this often
# (web.tables.sockets.SESSION_CHECK_SECONDS): two checks and a margin.
REJOIN_WAIT = 12


def sit(seat: int, command_id: str, version: int) -> dict:
    return {"type": "sit", "seat": seat, "player": f"P{seat}", "id": command_id, "version": version}


class KillableRedis:
    """A redis-server on a fixed port that the test can crash and start again, empty."""

    def __init__(self):
        self.exe = Redis.find()
        if not self.exe:
            pytest.fail("redis-server is not installed", pytrace=False)
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.dir = tempfile.mkdtemp(prefix="cardroom-redis-outage-")
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir, "--daemonize", "no"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        probe = Redis(self.exe)
        probe.port = self.port
        deadline = time.monotonic() + 15
        while not probe._ping():
            assert self.proc.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.02)  # polling for the server to come up, not an assertion

    def kill(self):
        self.proc.kill()
        self.proc.wait(5)


@pytest.fixture
def redis_server():
    server = KillableRedis()
    server.start()
    yield server
    if server.proc.poll() is None:
        server.kill()


@pytest.fixture
def served(redis_server):
    """Daphne on the test database and this test's own Redis."""
    server = Daphne(redis_server.url)
    server.start()
    yield server
    server.stop()


def post_command(url: str, table_id: int, cookie: str, command: dict) -> tuple[int, dict, float]:
    """POST a command as the tablet's HTTP fallback does: (status, answer, seconds taken)."""
    token = secrets.token_hex(16)  # a CSRF secret of our own, in the cookie and the header
    request = urllib.request.Request(
        f"{url}/api/tables/{table_id}/commands", data=json.dumps(command).encode(), method="POST",
        headers={"Content-Type": "application/json", "X-CSRFToken": token,
                 "Cookie": f"sessionid={cookie}; csrftoken={token}"},
    )
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read()), time.monotonic() - started
    except urllib.error.HTTPError as error:
        return error.code, {"body": error.read().decode(errors="replace")[:2000]}, time.monotonic() - started


async def next_of(ws, kind: str, timeout: float = 15) -> dict:
    """The next message of type `kind` on `ws` (others are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic())))
        if message["type"] == kind:
            return message


def test_a_command_sent_while_redis_is_down_is_applied_and_answered(served, redis_server, dealer):
    table = make_table(seats=6, limits={"ante_min": 500, "ante_max": 100000})
    run(table.pk, *SEATED)
    client = Client()
    client.force_login(dealer)
    cookie = client.cookies["sessionid"].value
    ws_url = f"ws://127.0.0.1:{served.port}/ws/tables/{table.pk}/"
    headers = {"Cookie": f"sessionid={cookie}", "Origin": served.url}

    async def scenario():
        async with connect(f"{ws_url}?role=tablet", additional_headers=headers) as tablet, \
                connect(ws_url, additional_headers=headers) as screen:
            assert (await next_of(tablet, "snapshot"))["snapshot"]["version"] == len(SEATED)
            assert (await next_of(screen, "snapshot"))["snapshot"]["version"] == len(SEATED)

            redis_server.kill()
            # Over HTTP: applied and answered, promptly.
            status, answer, seconds = await asyncio.to_thread(
                post_command, served.url, table.pk, cookie,
                sit(3, "down-http", len(SEATED)))
            assert status == 200, (answer, served.output()[-3000:])
            assert answer["result"]["ok"] and answer["version"] == len(SEATED) + 1
            assert seconds < 5, seconds
            # On the socket opened before the outage: applied and answered too.
            await tablet.send(json.dumps({"type": "command", "command": sit(4, "down-ws", len(SEATED) + 1)}))
            result = await next_of(tablet, "result")
            assert result["id"] == "down-ws" and result["result"]["ok"], result
            assert result["version"] == len(SEATED) + 2
            # A sync answers from the database while Redis is down.
            await screen.send(json.dumps({"type": "sync"}))
            assert (await next_of(screen, "snapshot"))["snapshot"]["version"] == len(SEATED) + 2
            # A socket opened while Redis is down (its groups cannot be joined) opens and
            # is sent the table.
            late = await connect(ws_url, additional_headers=headers)
            assert (await next_of(late, "snapshot"))["snapshot"]["version"] == len(SEATED) + 2
            # Past the sockets' periodic check while Redis is still down (none can re-join
            # yet), a command whose event reaches no one.
            await asyncio.sleep(SESSION_CHECK_SECONDS + 1)
            status, answer, _ = await asyncio.to_thread(
                post_command, served.url, table.pk, cookie, sit(5, "down-later", len(SEATED) + 2))
            assert status == 200 and answer["result"]["ok"], answer

            redis_server.start()
            # Screens catch up by sync once Redis is back ...
            await screen.send(json.dumps({"type": "sync"}))
            assert (await next_of(screen, "snapshot"))["snapshot"]["version"] == len(SEATED) + 3
            # ... and of their own accord: each socket that lived through the outage
            # re-joins its groups at its next check once Redis is back, and then sends a
            # fresh snapshot, since what was published meanwhile was lost.
            for ws in (tablet, screen, late):
                assert (await next_of(ws, "snapshot", timeout=REJOIN_WAIT))["snapshot"]["version"] == len(SEATED) + 3
            # The next command's event reaches both again.
            version = len(SEATED) + 3
            status, answer, _ = await asyncio.to_thread(
                post_command, served.url, table.pk, cookie, sit(6, "after", version))
            assert status == 200 and answer["result"]["ok"], answer
            for ws in (tablet, screen, late):
                assert (await next_of(ws, "event"))["seq"] == version + 1
            await late.close()

    asyncio.run(scenario())
    assert Table.objects.get(pk=table.pk).version == len(SEATED) + 4
    assert set(TableEvent.objects.filter(table=table, command_type="sit").values_list("command_id", flat=True)) >= {
        "down-http", "down-ws", "down-later", "after"}

"""Two app replicas behind the repository's own nginx configuration (issue 24, "past one
box"): what `docker compose up --scale app=2` serves, without Docker.

Two Daphne processes, each on its own port, share the test database and the test Redis,
as the app containers share PostgreSQL and Redis. In front of them a real nginx runs
docker/nginx.conf, rendered with only its upstream servers and its listen address
replaced (tests/plugins/nginx.py). Through nginx: the login page and a staff page answer;
a tablet's websocket passes the upgrade; sockets spread evenly over the processes (the
upstream's least_conn); a command sent on a socket held by one process
reaches a live viewer's socket held by the other (the channel layer joins the replicas);
a body over 64 KiB is refused by nginx itself. The same file with its two upgrade headers
removed does not carry a websocket: the test notices when they go."""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidHandshake

from tests.db_access import app_role_database_url
from tests.plugins import nginx
from tests.plugins.services import _free_port
from tests.process_group import read_output

from .conftest import make_table, run, wait_until_serving
from .test_production_served import Browser

pytestmark = [pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

NGINX_PAGE = "<center>nginx"  # the signature of nginx's own error pages
ROOT = Path(__file__).resolve().parents[2]
UPGRADE_LINES = ("proxy_set_header Upgrade $http_upgrade;", "proxy_set_header Connection $connection_upgrade;")


class Replica:
    """One Daphne process on its own port against the test database (as the served app
    role) and the test Redis."""

    def __init__(self, redis_url: str):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test",
               "DATABASE_URL": app_role_database_url(), "REDIS_URL": redis_url}
        self.log = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "config.asgi:application"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def output(self) -> str:
        return read_output(self.log)

    def sockets(self) -> int:
        """Connections this process holds on its port (nginx's side of each socket)."""
        conns = psutil.Process(self.process.pid).net_connections(kind="tcp")
        return sum(1 for c in conns if c.status == psutil.CONN_ESTABLISHED and c.laddr.port == self.port)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.log.close()


@pytest.fixture
def replicas(transactional_db, redis_url):
    if nginx.find() is None:
        pytest.fail(f"no nginx binary: {nginx.INSTALL_HINT}", pytrace=False)
    started = []
    try:
        for _ in range(2):
            started.append(Replica(redis_url))
        for replica in started:
            wait_until_serving(replica.url, replica.process, 30, replica.output)
        yield started
    finally:
        for replica in started:
            replica.stop()


@pytest.fixture
def table(transactional_db, dealer):
    """`dealer` (tests/live/conftest.py) is a floor supervisor with the password "pw"."""
    table = make_table(seats=6)
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)])
    return table


def open_socket(base: str, path: str, cookie: str):
    return connect(base.replace("http://", "ws://") + path, origin=base,
                   additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=10)


async def first(ws, kind: str, timeout: float = 10) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message.get("type") == kind:
            return message


async def sockets_spread_and_a_command_crosses_the_replicas(front: nginx.Nginx, replicas: list[Replica], table_id: int, cookie: str):
    async def open_view(path=f"/ws/tables/{table_id}/"):
        """A socket through nginx, and the replica it landed on."""
        before = [r.sockets() for r in replicas]
        ws = await open_socket(front.url, path, cookie)
        snapshot = (await first(ws, "snapshot"))["snapshot"]
        grew = [k for k, r in enumerate(replicas) if r.sockets() > before[k]]
        assert len(grew) == 1, (before, [r.sockets() for r in replicas])  # through the upgrade, to one replica
        views.append(ws)
        return ws, grew[0], snapshot

    views = []
    try:
        tablet, here, snapshot = await open_view(f"/ws/tables/{table_id}/?role=tablet")
        # A new socket goes to the replica holding the fewest (least_conn, its counts
        # shared by nginx's workers), whichever worker takes it: the live view to the
        # other replica, then an even spread.
        viewer, there, _ = await open_view()
        assert there != here
        landed = [here, there] + [(await open_view())[1] for _ in range(4)]
        assert [r.sockets() for r in replicas] == [3, 3], landed

        await tablet.send(json.dumps({"type": "command", "command": {
            "type": "sit", "seat": 3, "player": "P-3", "id": "cross-1", "version": snapshot["version"]}}))
        answer = await first(tablet, "result")
        assert answer["id"] == "cross-1" and answer["result"]["ok"], answer
        while True:  # the table's event, sent by the tablet's replica, read on the viewer's
            event = await first(viewer, "event")
            if event["seq"] >= answer["version"]:
                break
        assert "P-3" not in json.dumps(snapshot)
        assert event["seq"] == answer["version"] and "P-3" in json.dumps(event["snapshot"]), event

        # A replica that lost its sockets (restarted during a shift) gets the next ones;
        # taking turns would send them to both.
        for ws, k in zip(list(views), landed):
            if k == there:
                await ws.close()
        await asyncio.sleep(0.2)  # nginx counts a socket gone once it has seen it close
        assert [r.sockets() for r in replicas][there] == 0
        moved = [(await open_view())[1] for _ in range(3)]
        assert moved == [there] * 3, moved
    finally:
        for ws in views:
            await ws.close()


def post(url: str, size: int) -> tuple[int, str]:
    request = urllib.request.Request(url, data=b"x" * size, headers={"Content-Type": "application/octet-stream"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read().decode()


def test_two_replicas_behind_the_repositorys_nginx_serve_pages_sockets_and_one_channel_layer(replicas, table):
    with nginx.Nginx([f"127.0.0.1:{r.port}" for r in replicas]) as front:
        person = Browser(front.url)
        status, page, _ = person.get("/accounts/login/")
        assert status == 200 and 'name="csrfmiddlewaretoken"' in page
        person.log_in("dealer", "pw")
        status, page, _ = person.get("/")  # the list of tables, rendered on the server
        assert status == 200 and f"/tables/{table.pk}/" in page and table.name in page, status
        status, page, _ = person.get("/floor/")  # a supervisor's page (the rows come by socket)
        assert status == 200 and "/static/floor.js" in page, status
        cookie = next(c.value for c in person.jar if c.name == "sessionid")

        asyncio.run(sockets_spread_and_a_command_crosses_the_replicas(front, replicas, table.pk, cookie))
        assert "[error]" not in front.log() and "[crit]" not in front.log(), front.log()

        # nginx answers a body over 64 KiB itself (its own page: the app's 413 is JSON),
        # before any replica buffers it; one just under the limit is passed on, and refused
        # by Django's CSRF check, which shows that it reached a replica.
        status, body = post(f"{front.url}/accounts/login/", 64 * 1024 + 1)
        assert status == 413 and NGINX_PAGE in body, (status, body)
        status, body = post(f"{front.url}/accounts/login/", 60 * 1024)
        assert status == 403 and NGINX_PAGE not in body, (status, body)
        assert "client intended to send too large body: 65537 bytes" in front.log()


def test_without_its_upgrade_headers_the_configuration_carries_no_websocket(replicas, table):
    """The two lines that make nginx pass the websocket upgrade are what the test above
    relies on: the same file without them serves pages but no socket."""
    text = nginx.CONFIG.read_text()
    assert all(line in text for line in UPGRADE_LINES)
    for line in UPGRADE_LINES:
        text = text.replace(line, "")
    person = Browser(replicas[0].url)
    person.log_in("dealer", "pw")
    cookie = next(c.value for c in person.jar if c.name == "sessionid")

    async def try_socket(front):
        async with open_socket(front.url, f"/ws/tables/{table.pk}/?role=tablet", cookie) as ws:
            return await first(ws, "snapshot")

    with nginx.Nginx([f"127.0.0.1:{r.port}" for r in replicas], server_block=text) as front:
        with urllib.request.urlopen(f"{front.url}/healthz", timeout=10) as answer:
            assert answer.status == 200  # pages still pass
        with pytest.raises(InvalidHandshake):
            asyncio.run(try_socket(front))

"""End to end: tablets and floor screens on real sockets through Daphne, as a cardroom runs.

Run with `.venv/bin/python -m benchmarks.bench_e2e` (about 15-20 minutes at full size;
`--quick` for a one-minute smoke run; `--help` for the options). It starts its own
throwaway PostgreSQL and Redis (tests/plugins/services.py; DATABASE_URL / REDIS_URL are
ignored, so no real database is touched), migrates, creates `--tables` tables with seated
players and a player-dealer, and one logged-in supervisor per socket. For each count of
`--processes` it starts that many Daphne processes on ONE listening socket that this
script opens on 127.0.0.1 and hands to them (`daphne --fd`): the kernel spreads the
connections, with no proxy between. With `--front nginx` each Daphne process listens on
a port of its own behind a real nginx running the repository's docker/nginx.conf,
rendered with those ports as its upstream servers (tests/plugins/nginx.py), as the
compose stack's `web` service fronts `--scale app=N` containers; `--front fd,nginx` runs
both, one after the other for each process count, in the same run. Then it opens a tablet socket per table
(`/ws/tables/<id>/?role=tablet`, with the page's heartbeat) and `--screens` floor sockets
(`/ws/floor/`) in a second client process, and runs scenarios: total command rates
(typical 52/s, peak 167/s, twice the peak, for 250 tables; scaled to --tables) and a knee
search in x1.5 steps from the peak (up while the targets hold, down while they fail).

Each tablet taps like a dealer: Poisson arrivals at rate/tables, one command in flight,
each chosen from the latest snapshot's `view` by simulate_floor's chooser, with the
snapshot's version. Measured per scenario:
* tap -> answer: from sending a command to its `result` message;
* answer -> event: until the tablet holds the table's event at the answered version (the
  next tap waits for it, as a dealer taps on the updated screen; after 10 s it is counted
  lost and the tablet asks for a sync);
* command -> floor row: from a command's answer until every screen holds a row of that
  table with seq >= the answered version (0 when the rows came first); rows are read from
  any message with `row` or `rows` (today `floor` and `row`; a batched `rows` later);
* delivery: once the taps stop, the share of (screen, table) pairs whose last row's seq
  equals the table's version in the database (waiting up to --settle seconds);
* CPU seconds per command of the Daphne processes, of nginx (with `--front nginx`: its
  master and workers), of PostgreSQL (the postmaster and its
  backends, exited ones included), of Redis and of this benchmark's own clients, which
  share the machine; the Daphne processes' RSS and how many sockets each one holds;
* baselines at the same rate, in the same run: a bare websocket echo on the same Daphne
  server(s) (cardroom/bench_echo.py, routed because this script sets
  CARDROOM_BENCH_ECHO=1), and a raw PostgreSQL transaction doing a command's minimal work
  (lock a row, insert an event row, update the row) in a scratch table, with one
  connection per Daphne process: Channels runs every database call of a process in one
  thread, so that is the concurrency the commands get.
Headline ratios: tap p99 / echo p99 and tap p50 / raw-transaction p50. Targets, printed
pass/fail: tap p99 <= 25 ms and <= 10x echo p99, floor p99 <= 300 ms, 100 % delivery, no
errors (closed sockets, error messages, unanswered commands, lost table events).

Only 127.0.0.1 is contacted. Everything stops by itself: bounded scenarios, a total
`--time-limit`, and the servers and temp dirs go on exit, on Ctrl-C and on SIGTERM (the
Daphne processes also die with this one). Prints figures; asserts nothing. The machine's
other load shows in the figures: compare ratios and runs on the same machine.
"""

import argparse
import asyncio
import bisect
import itertools
import json
import math
import multiprocessing
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from benchmarks import stages

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
FLOOR_TABLES, TYPICAL, PEAK = 250, 52.0, 167.0  # the cardroom: commands/s across 250 tables
TAP_P99_MS, TAP_OVER_ECHO, FLOOR_P99_MS = 25.0, 10.0, 300.0
LOOSE_TAP_P99_MS = 250.0  # the black-box harness's knee: tap p99 <= 250 ms with 100 % delivery
HEARTBEAT = 20  # seconds, as the tablet page (tables.presence.HEARTBEAT)
EVENT_TIMEOUT = 10  # seconds after its answer a command's table event counts as lost
# Daphne with PR_SET_PDEATHSIG: it gets SIGTERM if this process dies without stopping it,
# and the command path's stages timed in CPU (benchmarks/stages.py, BENCH_STAGES_FILE).
DAPHNE = (
    "import ctypes, signal\n"
    "try: ctypes.CDLL(None).prctl(1, signal.SIGTERM)\n"
    "except Exception: pass\n"
    "import config.asgi\n"
    "from benchmarks import stages\n"
    "stages.install_from_env()\n"
    "from daphne.cli import CommandLineInterface\n"
    "CommandLineInterface.entrypoint()\n"
)
_ids = itertools.count(1)
FRONTS = ("fd", "nginx")


def pct(values, q) -> float:
    """The q-quantile of seconds, in ms (nearest rank); nan when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))] * 1000


def quantiles(values) -> dict:
    return {"p50": pct(values, 0.5), "p95": pct(values, 0.95), "p99": pct(values, 0.99), "n": len(values)}


# --- options ------------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_e2e", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 tables, 4 screens, 1 process, 2 short scenarios, no knee search")
    parser.add_argument("--tables", type=int)
    parser.add_argument("--screens", type=int)
    parser.add_argument("--processes", help="Daphne process counts to run, e.g. 1,2")
    parser.add_argument("--front", default="fd",
                        help="what spreads the sockets over the processes: fd (one shared listening socket), "
                             "nginx (docker/nginx.conf in front of one port per process), or both: fd,nginx")
    parser.add_argument("--rates", help="total commands/s per scenario, e.g. 52,167 (default: 52, 167, 334 scaled to --tables)")
    parser.add_argument("--seconds", type=float, help="length of each scenario")
    parser.add_argument("--stage-seconds", type=float,
                        help="length of the phase after each scenario that meters the command path's stages (default: half of --seconds, at most 10)")
    parser.add_argument("--baseline-seconds", type=float, help="length of each echo and raw-transaction baseline")
    parser.add_argument("--knee-steps", type=int, help="at most this many knee-search scenarios per process count (0: none)")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds to wait for the floor to catch up after a scenario")
    parser.add_argument("--answer-timeout", type=float, default=30.0, help="a command unanswered this long is an error")
    parser.add_argument("--heartbeat", type=float, default=HEARTBEAT, help="tablet heartbeat seconds (0: none)")
    parser.add_argument("--time-limit", type=float, help="seconds for the whole run; later scenarios are skipped")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--json", help="also write the results here, as JSON")
    parser.add_argument("--tablet-role", choices=("supervisor", "dealer"), default="supervisor",
                        help="who logs in at each tablet: a supervisor (drives every table), or a dealer assigned to "
                             "that table for the current gaming day and shift (the command service checks the "
                             "assignment, as in the cardroom)")
    args = parser.parse_args(argv)
    quick = args.quick
    defaults = {
        "tables": 20 if quick else FLOOR_TABLES,
        "screens": 4 if quick else 40,
        "processes": "1" if quick else "1,2",
        "seconds": 5.0 if quick else 20.0,
        "baseline_seconds": 3.0 if quick else 5.0,
        "knee_steps": 0 if quick else 8,
        "time_limit": 120.0 if quick else 3000.0,
    }
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.stage_seconds is None:
        args.stage_seconds = min(args.seconds / 2, 10.0)
    scale = args.tables / FLOOR_TABLES
    args.peak = PEAK * scale
    if args.rates:
        args.rate_list = [("custom", float(r)) for r in args.rates.split(",")]
    else:
        args.rate_list = [("typical", TYPICAL * scale), ("peak", PEAK * scale)]
        if not quick:
            args.rate_list.append(("2x peak", 2 * PEAK * scale))
    args.process_list = [int(p) for p in str(args.processes).split(",")]
    args.front_list = [f.strip() for f in args.front.split(",") if f.strip()]
    if not args.front_list or set(args.front_list) - set(FRONTS):
        parser.error(f"--front takes {', '.join(FRONTS)} (comma-separated)")
    if args.tables < 1 or args.screens < 1 or min(args.process_list) < 1 or min(r for _, r in args.rate_list) <= 0:
        parser.error("--tables, --screens, --processes and --rates must be positive")
    return args


# --- servers -----------------------------------------------------------------------------


class Daphnes:
    """N Daphne processes, and what spreads the sockets over them (`front`): "fd", one
    listening socket made here and shared (`daphne --fd`); "nginx", a port per process
    behind nginx running docker/nginx.conf. `port` is where the clients connect."""

    def __init__(self, count: int, env: dict, tmp: str, front: str = "fd", clients: int = 0):
        self.count, self.env, self.tmp, self.front, self.clients = count, env, tmp, front, clients
        self.procs: list[subprocess.Popen] = []
        self.sock: socket.socket | None = None
        self.nginx = None
        self.port = 0
        self.ports: list[int] = []  # each process's own listening port

    def __enter__(self):
        try:
            if self.front == "nginx":
                self._start_behind_nginx()
            else:
                self._start_on_one_socket()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start_on_one_socket(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((HOST, 0))
        self.sock.listen(2048)
        self.port = self.sock.getsockname()[1]
        self.ports = [self.port] * self.count
        fd = self.sock.fileno()
        os.set_inheritable(fd, True)
        self._spawn([["--fd", str(fd)]] * self.count, pass_fds=(fd,))

    def _start_behind_nginx(self):
        from tests.plugins.nginx import Nginx
        from tests.plugins.services import _free_port

        self.ports = [_free_port() for _ in range(self.count)]
        self._spawn([["-b", HOST, "-p", str(port)] for port in self.ports], pass_fds=())
        # Each client socket is two connections in nginx (the client's and the upstream's),
        # and one worker may take most of them: room for all in each worker (the image's
        # default is 1024, enough for about 500 sockets per worker).
        self.nginx = Nginx([f"{HOST}:{port}" for port in self.ports], worker_connections=max(1024, 2 * self.clients + 64))
        self.nginx.start()
        self.port = self.nginx.port

    def _spawn(self, listen_args: list, pass_fds: tuple):
        logs = []
        for k, listen in enumerate(listen_args):
            log = Path(self.tmp) / f"daphne-{self.front}-{k}-{time.monotonic_ns()}.log"
            logs.append(log)
            with open(log, "wb") as out:
                self.procs.append(
                    subprocess.Popen(
                        [sys.executable, "-c", DAPHNE, *listen, "-v", "1", "config.asgi:application"],
                        pass_fds=pass_fds, env=self.env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    )
                )
        deadline = time.monotonic() + 60
        for proc, log in zip(self.procs, logs):
            while b"Listening on" not in log.read_bytes():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"Daphne did not start:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.05)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    @property
    def front_pids(self) -> dict:
        """The front's own processes, watched for CPU like the servers (nginx's master;
        its workers are counted as its descendants)."""
        return {"nginx": [self.nginx.proc.pid]} if self.nginx is not None else {}

    @property
    def label(self) -> str:
        return f"{self.count} Daphne" + (" via nginx" if self.front == "nginx" else "")

    def sockets_held(self) -> list[int]:
        counts = []
        for pid, port in zip(self.pids, self.ports):
            try:
                conns = psutil.Process(pid).net_connections(kind="tcp")
            except psutil.Error:
                counts.append(0)
                continue
            counts.append(sum(1 for c in conns if c.status == psutil.CONN_ESTABLISHED and c.laddr and c.laddr.port == port))
        return counts

    def __exit__(self, *exc):
        if self.nginx is not None:
            self.nginx.stop()
            self.nginx = None
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self.procs = []
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def cpu_seconds(pids, *, descendants: bool = True) -> float:
    """CPU of these processes and, with `descendants`, of their live descendants and
    reaped children (a PostgreSQL backend that exited is counted in its postmaster's
    children times). The benchmark's own process is counted alone: the servers it
    started are its children."""
    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            t = proc.cpu_times()
            total += t.user + t.system
            if not descendants:
                continue
            total += t.children_user + t.children_system
            for child in proc.children(recursive=True):
                try:
                    c = child.cpu_times()
                    total += c.user + c.system
                except psutil.Error:
                    pass
        except psutil.Error:
            pass
    return total


def rss_mib(pids) -> list[float]:
    out = []
    for pid in pids:
        try:
            out.append(psutil.Process(pid).memory_info().rss / 2**20)
        except psutil.Error:
            out.append(float("nan"))
    return out


# --- set-up (in this process, through Django) --------------------------------------------


def setup_django() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    os.environ["DJANGO_DEBUG"] = "0"
    import django

    django.setup()


def create_floor(tables: int) -> list[int]:
    from django.core.management import call_command

    from tables.events import publisher
    from tables.management.commands.seed_demo import demo_table, place_boxes
    from tables.management.commands.simulate_floor import SIM_CONFIG, SIM_PLAYER_PREFIX

    call_command("migrate", verbosity=0)
    ids = []
    for n in range(tables):
        # Seated under the simulator's own ids: it plays only the seats it knows are its own.
        players = {s: f"{SIM_PLAYER_PREFIX}E{n}-{s}" for s in (1, 2, 3, 4, 5)}
        table = demo_table(f"E2E {n}", SIM_CONFIG, players, 1)
        place_boxes(table)  # a person opens a round only with the table's boxes placed
        ids.append(table.pk)
    publisher.drain()
    return ids


def login_cookies(prefix: str, count: int, role: str) -> list[str]:
    """One logged-in user of `role` per socket, each with its own session cookie."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    group = Group.objects.get_or_create(name=role)[0]
    cookies = []
    for k in range(count):
        user, _ = get_user_model().objects.get_or_create(username=f"{prefix}-{k}")
        user.groups.add(group)
        client = Client()
        client.force_login(user)
        cookies.append(client.cookies["sessionid"].value)
    return cookies


def assign_tablets(prefix: str, table_ids: list[int]) -> None:
    """Tablet k's dealer assigned to table k for the current gaming day and shift (a run
    that crosses a shift's end sees them refused from then on, as the cardroom would)."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from cardroom.gaming_day import calendar
    from tables.models import DealerAssignment

    now, cal = timezone.now(), calendar()
    supervisor, _ = get_user_model().objects.get_or_create(username=f"{prefix}-assigner")
    for k, table_id in enumerate(table_ids):
        DealerAssignment.objects.get_or_create(
            dealer=get_user_model().objects.get(username=f"{prefix}-{k}"), table_id=table_id,
            gaming_day=cal.gaming_day(now), shift=cal.shift(now), ended_at=None,
            defaults={"assigned_by": supervisor, "assigned_at": now})


RAW_SETUP = """
CREATE TABLE IF NOT EXISTS bench_raw_table (id int PRIMARY KEY, version int NOT NULL, state jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS bench_raw_event (id bigserial PRIMARY KEY, table_id int NOT NULL, seq int NOT NULL,
    command jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
"""


def create_raw_tables(count: int) -> str:
    """The raw baseline's scratch tables, one row per table holding a real table state."""
    from django.db import connection

    from tables.models import Table

    state = json.dumps(Table.objects.order_by("pk").first().state)
    with connection.cursor() as cursor:
        cursor.execute(RAW_SETUP)
        cursor.execute("TRUNCATE bench_raw_table, bench_raw_event")
        cursor.executemany("INSERT INTO bench_raw_table VALUES (%s, 0, %s)", [(k, state) for k in range(count)])
    connection.close()
    return state


# --- clients -----------------------------------------------------------------------------


async def open_socket(port: int, path: str, cookie: str):
    return await connect(
        f"ws://{HOST}:{port}{path}",
        origin=f"http://{HOST}:{port}",  # the page's own origin: the sockets' origin check (cardroom/wire.py)
        additional_headers={"Cookie": f"sessionid={cookie}"},
        compression=None,  # Daphne offers none either
        ping_interval=None,  # Daphne pings; a busy client must not close sockets itself
        max_size=2**24,
        open_timeout=30,
        close_timeout=5,
    )


async def open_many(factories, limit=16, tries=3):
    """Open sockets `limit` at a time (Daphne drops a handshake not accepted in 5 s)."""
    gate = asyncio.Semaphore(limit)

    async def one(factory):
        async with gate:
            for attempt in range(tries):
                try:
                    return await factory()
                except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError):
                    if attempt == tries - 1:
                        raise
                    await asyncio.sleep(1)

    return await asyncio.gather(*(one(f) for f in factories))


@dataclass
class Record:
    """One scenario's client-side counts, in this process's single event loop."""

    sent: int = 0
    ok: int = 0
    refused: int = 0
    unanswered: int = 0
    lost_events: int = 0
    event_lags: list = field(default_factory=list)  # answer -> the tablet's event at that version
    taps: list = field(default_factory=list)
    late: list = field(default_factory=list)
    answered: list = field(default_factory=list)  # (table, version, answered at)
    refusals: dict = field(default_factory=dict)


class Tablet:
    """A dealer's tablet: the table's latest snapshot, and its one tap in flight."""

    def __init__(self, table: int, cookie: str):
        self.table, self.cookie = table, cookie
        self.ws = None
        self.snapshot: dict | None = None
        self.need = 0  # the version the next tap must see: the last answer's
        self.fresh = asyncio.Event()
        self.pending: dict[str, asyncio.Future] = {}
        self.errors: list[str] = []
        self.closing = False
        self.reader: asyncio.Task | None = None
        self.beater: asyncio.Task | None = None
        self.awaiting: tuple | None = None  # (version, answered at, record): the event to time

    @property
    def version(self) -> int:
        return self.snapshot["version"] if self.snapshot else -1

    async def open(self, port: int, heartbeat: float):
        self.ws = await open_socket(port, f"/ws/tables/{self.table}/?role=tablet", self.cookie)
        first = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
        if first.get("type") != "snapshot":
            raise RuntimeError(f"table {self.table}: expected a snapshot, got {first}")
        self.snapshot = first["snapshot"]
        self.need = self.version
        self.reader = asyncio.create_task(self._read())
        if heartbeat > 0:
            self.beater = asyncio.create_task(self._beat(heartbeat))
        return self

    @property
    def alive(self) -> bool:
        return self.reader is not None and not self.reader.done()

    async def _beat(self, every: float):
        await asyncio.sleep(random.uniform(0, every))
        while True:
            await self.ws.send('{"type": "heartbeat"}')
            await asyncio.sleep(every)

    async def _read(self):
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                kind = message.get("type")
                if kind in ("snapshot", "event"):
                    snapshot = message.get("snapshot")
                    if snapshot and snapshot["version"] >= self.version:
                        self.snapshot = snapshot
                        self.fresh.set()
                        if self.awaiting and snapshot["version"] >= self.awaiting[0]:
                            _, answered, rec = self.awaiting
                            rec.event_lags.append(max(0.0, time.monotonic() - answered))
                            self.awaiting = None
                elif kind == "result":
                    future = self.pending.pop(message.get("id"), None)
                    if future is not None and not future.done():
                        future.set_result((time.monotonic(), message))
                elif kind == "error":
                    self.errors.append(f"table {self.table}: {message}")
        except ConnectionClosed:
            pass
        finally:
            if not self.closing:
                self.errors.append(f"table {self.table}: socket closed ({self.ws.close_code} {self.ws.close_reason})")
            if self.beater:
                self.beater.cancel()
            for future in self.pending.values():
                if not future.done():
                    future.cancel()

    async def _see(self, version: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.version < version:
            self.fresh.clear()
            left = deadline - time.monotonic()
            if left <= 0 or not self.alive:
                return False
            try:
                await asyncio.wait_for(self.fresh.wait(), left)
            except TimeoutError:
                return False
        return True

    async def tap(self, rec: Record, rng: random.Random, tag: str, answer_timeout: float):
        """One command, chosen from what the tablet shows, sent and answered."""
        from tables.management.commands.simulate_floor import command_for_view

        if not self.alive:
            return  # its close is counted; it is reopened before the next scenario
        try:
            await self._tap(rec, rng, tag, answer_timeout, command_for_view)
        except ConnectionClosed:
            pass  # counted by the reader

    async def _tap(self, rec, rng, tag, answer_timeout, command_for_view):
        # The dealer taps on the screen the last answer produced: wait for its event.
        if not await self._see(self.need, EVENT_TIMEOUT):
            # Counted lost and recovered as the client does, with a sync.
            rec.lost_events += 1
            self.awaiting = None
            await self.ws.send('{"type": "sync"}')
            if not await self._see(self.need, 10.0):
                self.errors.append(f"table {self.table}: no snapshot at version {self.need}")
                return
        command = command_for_view(self.snapshot["view"], rng)
        if command is None:  # a person's turn: the simulator never plays for them
            return
        command["id"] = f"{tag}-{self.table}-{next(_ids)}"
        command["version"] = self.version
        future = asyncio.get_running_loop().create_future()
        self.pending[command["id"]] = future
        sent = time.monotonic()
        await self.ws.send(json.dumps({"type": "command", "command": command}))
        rec.sent += 1
        try:
            answered, message = await asyncio.wait_for(future, answer_timeout)
        except (TimeoutError, asyncio.CancelledError):
            self.pending.pop(command["id"], None)
            rec.unanswered += 1
            return
        rec.taps.append(answered - sent)
        result = message["result"]
        if result.get("ok"):
            rec.ok += 1
            rec.answered.append((self.table, message["version"], answered))
            self.need = message["version"]
            if self.version >= self.need:  # the event came first
                rec.event_lags.append(0.0)
            else:
                self.awaiting = (self.need, answered, rec)
        else:
            rec.refused += 1
            code = (result.get("error") or {}).get("code", "?")
            rec.refusals[code] = rec.refusals.get(code, 0) + 1
            self.need = max(self.need, message["version"])

    async def close(self):
        self.closing = True
        if self.beater:
            self.beater.cancel()
        await self.ws.close()
        if self.reader:
            await asyncio.gather(self.reader, return_exceptions=True)


class Echo:
    """A socket on the bare echo route: one message in flight, answered by itself."""

    def __init__(self, ws):
        self.ws = ws

    async def round_trip(self, rec: Record):
        sent = time.monotonic()
        rec.sent += 1
        try:
            await self.ws.send(f'{{"type": "echo", "n": {next(_ids)}}}')
            await asyncio.wait_for(self.ws.recv(), 30)
        except (ConnectionClosed, TimeoutError):
            rec.unanswered += 1
            return
        rec.taps.append(time.monotonic() - sent)


async def poisson(unit_call, rate: float, start: float, end: float, rng: random.Random, rec: Record):
    """Calls at Poisson times at `rate`/s from `start` to `end`, one at a time: a call
    due while the last one is in flight waits for it (as a tablet queues a tap), and the
    backlog is bounded the way simulate_floor.deal_tables bounds it."""
    due = start + rng.expovariate(rate)
    while due < end:
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        rec.late.append(max(0.0, time.monotonic() - due))
        await unit_call()
        due = max(due, time.monotonic() - 1 / rate) + rng.expovariate(rate)


async def raw_transactions(dsn: str, connections: int, tables: int, rate: float, seconds: float, state: str, rng) -> list:
    """A command's minimal database work in a scratch table, at `rate` spread over
    `tables` rows (one in flight per row), on `connections` connections: seconds from
    asking to commit, queueing included, as a tap's latency includes its queue."""
    import psycopg

    conns = [await psycopg.AsyncConnection.connect(dsn, autocommit=True) for _ in range(connections)]
    queue: asyncio.Queue = asyncio.Queue()
    latencies: list[float] = []

    async def worker(conn):
        while True:
            table_id, future = await queue.get()
            try:
                async with conn.transaction():
                    cur = await conn.execute("SELECT version, state FROM bench_raw_table WHERE id = %s FOR UPDATE", (table_id,))
                    version, _ = await cur.fetchone()
                    await conn.execute(
                        "INSERT INTO bench_raw_event (table_id, seq, command) VALUES (%s, %s, %s)",
                        (table_id, version + 1, '{"type": "deal"}'),
                    )
                    await conn.execute("UPDATE bench_raw_table SET version = %s, state = %s WHERE id = %s", (version + 1, state, table_id))
                future.set_result(None)
            except Exception as exc:
                future.set_exception(exc)

    async def one(table_id):
        future = asyncio.get_running_loop().create_future()
        asked = time.monotonic()
        queue.put_nowait((table_id, future))
        await future
        latencies.append(time.monotonic() - asked)

    workers = [asyncio.create_task(worker(c)) for c in conns]
    rec = Record()
    start = time.monotonic() + 0.05
    try:
        await asyncio.gather(*(poisson(lambda t=t: one(t), rate / tables, start, start + seconds, rng, rec) for t in range(tables)))
    finally:
        for w in workers:
            w.cancel()
        for c in conns:
            await c.close()
    return latencies


# --- the floor screens, in a process of their own -----------------------------------------


def screens_main(conn, port: int, cookies: list[str]) -> None:
    try:
        asyncio.run(_screens(conn, port, cookies))
    except KeyboardInterrupt:
        pass


def rows_of(message) -> list[tuple[int, int]]:
    """(table, seq) of each floor row in a message: any message with `row` or `rows`,
    so today's `floor` (every table) and `row` (one), and a batch of rows later."""
    rows = message.get("rows") if isinstance(message, dict) else None
    if not isinstance(rows, list):
        row = message.get("row") if isinstance(message, dict) else None
        rows = [row] if isinstance(row, dict) else []
    return [
        (row["table"], row["seq"])
        for row in rows
        if isinstance(row, dict) and isinstance(row.get("table"), int) and isinstance(row.get("seq"), int)
    ]


class Screen:
    def __init__(self, cookie: str):
        self.cookie = cookie
        self.ws = None
        self.last: dict[int, int] = {}
        self.arrivals: dict[int, list] = {}  # table -> [(time, seq)] each time seq rose
        self.messages = self.bytes = 0
        self.errors: list[str] = []
        self.closing = False
        self.reader: asyncio.Task | None = None

    async def open(self, port: int):
        self.ws = await open_socket(port, "/ws/floor/", self.cookie)
        self.reader = asyncio.create_task(self._read())
        return self

    async def _read(self):
        try:
            async for raw in self.ws:
                now = time.monotonic()
                self.messages += 1
                self.bytes += len(raw)
                for table, seq in rows_of(json.loads(raw)):
                    if seq > self.last.get(table, -1):
                        self.last[table] = seq
                        self.arrivals.setdefault(table, []).append((now, seq))
        except ConnectionClosed:
            pass
        finally:
            if not self.closing:
                self.errors.append(f"floor screen: socket closed ({self.ws.close_code} {self.ws.close_reason})")


async def _screens(conn, port: int, cookies: list[str]) -> None:
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue = asyncio.Queue()
    def readable():
        try:
            inbox.put_nowait(conn.recv())
        except (EOFError, OSError):  # the benchmark went away
            loop.remove_reader(conn.fileno())
            inbox.put_nowait(("stop",))

    loop.add_reader(conn.fileno(), readable)
    screens = [Screen(c) for c in cookies]
    try:
        await open_many([lambda s=s: s.open(port) for s in screens])
        conn.send(("ready", os.getpid()))
        while True:
            kind = (await inbox.get())[0]
            if kind == "mark":
                for s in screens:
                    s.arrivals, s.messages, s.bytes, s.errors = {}, 0, 0, []
                conn.send(("ok",))
            elif kind == "last":
                conn.send(("last", [s.last for s in screens]))
            elif kind == "collect":
                conn.send(("collected", {
                    "arrivals": [s.arrivals for s in screens],
                    "messages": sum(s.messages for s in screens),
                    "bytes": sum(s.bytes for s in screens),
                    "errors": [e for s in screens for e in s.errors],
                }))
            elif kind == "reopen":
                dead = [s for s in screens if s.reader is None or s.reader.done()]
                await open_many([lambda s=s: s.open(port) for s in dead])
                conn.send(("ok", len(dead)))
            elif kind == "stop":
                return
    finally:
        for s in screens:
            s.closing = True
            if s.ws is not None:
                await s.ws.close()
        try:
            conn.send(("bye",))
        except OSError:
            pass


async def ask(conn, message: tuple, timeout: float = 120):
    conn.send(message)
    return await answer_of(conn, message[0], timeout)


async def answer_of(conn, what: str, timeout: float = 120):
    def answer():
        if not conn.poll(timeout):
            raise TimeoutError(f"the screens process did not answer {what!r}")
        return conn.recv()

    return await asyncio.get_running_loop().run_in_executor(None, answer)


# --- a scenario ----------------------------------------------------------------------------


@dataclass
class Context:
    args: argparse.Namespace
    dsn: str
    table_ids: list
    raw_state: str
    daphnes: Daphnes
    tablets: list
    echoes: list
    screens: object  # the pipe to the screens process
    screens_pid: int
    server_pids: dict  # {"postgres": [...], "redis": [...]}
    deadline: float
    db: object = None  # an async psycopg connection, to read the tables' versions


def floor_lags(answered, arrivals) -> tuple[list, int]:
    """Seconds from each answer until every screen had a row of its table at that
    version or later; and how many answers some screen never saw covered."""
    indexed = [{t: ([seq for _, seq in a], [at for at, _ in a]) for t, a in screen.items()} for screen in arrivals]
    lags, missing = [], 0
    for table, version, at in answered:
        worst = at
        for screen in indexed:
            seqs, times = screen.get(table, ((), ()))
            k = bisect.bisect_left(seqs, version)
            if k == len(seqs):
                missing += 1
                break
            worst = max(worst, times[k])
        else:
            lags.append(worst - at)
    return lags, missing


async def delivery(ctx: Context) -> tuple[float, int]:
    """The share of (screen, table) pairs whose last row is the table's current version,
    waiting up to --settle seconds for the floor to catch up."""
    from tables.models import Table

    cur = await ctx.db.execute(f"SELECT id, version FROM {Table._meta.db_table}")  # noqa: S608 (a model's table name)
    versions = dict(await cur.fetchall())
    deadline = time.monotonic() + ctx.args.settle
    while True:
        _, lasts = await ask(ctx.screens, ("last",))
        stale = sum(1 for last in lasts for t, v in versions.items() if last.get(t) != v)
        if stale == 0 or time.monotonic() > deadline:
            return 100.0 * (1 - stale / (len(lasts) * len(versions))), stale
        await asyncio.sleep(0.25)


async def daphne_stages(ctx: Context, *, on: bool) -> dict[str, float]:
    """Turn the Daphne processes' stage meter on (benchmarks/stages.py), or read it before
    turning it off: their CPU seconds per stage since it was turned on, summed, read once
    each process has written with the meter on (they write twice a second)."""
    switch = Path(ctx.daphnes.env["BENCH_STAGES_FILE"] + ".on")
    folder = switch.parent
    if on:
        switch.touch()
    deadline = time.monotonic() + 30
    while True:
        await asyncio.sleep(stages.WRITE_EVERY * 1.5)
        written = [stages.read_file(str(folder / f"stages.{pid}")) for pid in ctx.daphnes.pids]
        if all(w["on"] for w in written) or time.monotonic() > deadline:
            break
    if not on:
        switch.unlink(missing_ok=True)
    totals: dict[str, float] = {}
    for w in written:
        for stage, seconds in w["totals"].items():
            totals[stage] = totals.get(stage, 0.0) + seconds
    return totals


async def staged_phase(ctx: Context, rate: float, rng: random.Random, tag: str) -> dict:
    """A second phase at the same rate with the stage meter on: the command path's Daphne CPU
    per command by stage (the headline phase runs without the meter, whose clock readings
    cost CPU that a baseline without it does not pay)."""
    args = ctx.args
    tables = len(ctx.tablets)
    await daphne_stages(ctx, on=True)
    cpu_before = cpu_seconds(ctx.daphnes.pids)
    before = await daphne_stages(ctx, on=True)
    rec = Record()
    start = time.monotonic() + 0.05
    await asyncio.gather(*(poisson(lambda t=t: t.tap(rec, rng, tag, args.answer_timeout), rate / tables, start, start + args.stage_seconds, rng, rec)
                           for t in ctx.tablets if t.alive))
    answered = max(rec.ok + rec.refused, 1)
    after = await daphne_stages(ctx, on=False)
    daphne = (cpu_seconds(ctx.daphnes.pids) - cpu_before) * 1000 / answered
    return {"seconds": args.stage_seconds, "sent": rec.sent, "answered": rec.ok + rec.refused,
            "errors": rec.unanswered + rec.lost_events, "daphne_cpu_ms_per_command": daphne,
            "by_stage": stages.per_command(before, after, answered, 1000.0)}


async def scenario(ctx: Context, processes: int, label: str, rate: float, *, record: bool = True) -> dict | None:
    args = ctx.args
    tables = len(ctx.tablets)
    rng = random.Random(f"{args.seed}-{processes}-{rate}")
    tag = f"e2e{os.getpid()}-{next(_ids)}"
    if not record:  # warm-up: a few seconds of taps, nothing kept
        rec, start = Record(), time.monotonic()
        await asyncio.gather(*(poisson(lambda t=t: t.tap(rec, rng, tag, args.answer_timeout), rate / tables, start, start + 2, rng, rec)
                               for t in ctx.tablets if t.alive))
        return None

    # Baselines at the same rate: the echo on the same server(s), the raw transaction.
    echo_rec, start = Record(), time.monotonic() + 0.05
    echo_cpu = cpu_seconds(ctx.daphnes.pids)
    await asyncio.gather(*(poisson(lambda e=e: e.round_trip(echo_rec), rate / len(ctx.echoes), start, start + args.baseline_seconds, rng, echo_rec)
                           for e in ctx.echoes))
    # Daphne's CPU per echoed message, the floor under a command's own cost on this server.
    echo_cpu_ms = (cpu_seconds(ctx.daphnes.pids) - echo_cpu) * 1000 / max(1, len(echo_rec.taps))
    raw = await raw_transactions(ctx.dsn, processes, tables, rate, args.baseline_seconds, ctx.raw_state, rng)

    await ask(ctx.screens, ("mark",))
    for t in ctx.tablets:
        t.errors.clear()
    watched = {"daphne": ctx.daphnes.pids, **ctx.server_pids, "client": [os.getpid(), ctx.screens_pid]}

    def cpu(kind):
        return cpu_seconds(watched[kind], descendants=kind != "client")

    cpu_before = {k: cpu(k) for k in watched}
    rec = Record()
    start = time.monotonic() + 0.05
    await asyncio.gather(*(poisson(lambda t=t: t.tap(rec, rng, tag, args.answer_timeout), rate / tables, start, start + args.seconds, rng, rec)
                           for t in ctx.tablets if t.alive))
    drained = max(0.0, time.monotonic() - start - args.seconds)
    delivered, stale = await delivery(ctx)
    cpu = {k: cpu(k) - cpu_before[k] for k in watched}
    rss = rss_mib(ctx.daphnes.pids)
    held = ctx.daphnes.sockets_held()
    _, floor = await ask(ctx.screens, ("collect",))
    lags, missing = floor_lags(rec.answered, floor["arrivals"])
    staged = await staged_phase(ctx, rate, rng, tag)
    errors = [e for t in ctx.tablets for e in t.errors] + floor["errors"]
    answered = rec.ok + rec.refused
    per_command = max(answered, 1)
    tap, echo, rawq, floorq = quantiles(rec.taps), quantiles(echo_rec.taps), quantiles(raw), quantiles(lags)
    error_count = len(errors) + rec.unanswered + rec.lost_events
    events = quantiles(rec.event_lags)
    targets = {
        f"tap p99 <= {TAP_P99_MS:g} ms": tap["p99"] <= TAP_P99_MS,
        f"tap p99 <= {TAP_OVER_ECHO:g}x echo p99": tap["p99"] <= TAP_OVER_ECHO * echo["p99"],
        f"floor p99 <= {FLOOR_P99_MS:g} ms": floorq["p99"] <= FLOOR_P99_MS,
        "100 % delivery": stale == 0 and missing == 0,
        "no errors": error_count == 0 and answered == rec.sent,
    }
    return {
        "processes": processes, "front": ctx.daphnes.front, "label": label, "rate": rate, "tables": tables, "screens": len(floor["arrivals"]),
        "seconds": args.seconds, "sent": rec.sent, "answered": answered, "ok": rec.ok, "refused": rec.refused,
        "refusals": rec.refusals, "unanswered": rec.unanswered, "lost_events": rec.lost_events, "errors": error_count,
        "error_samples": errors[:5], "achieved_rate": rec.sent / args.seconds, "drain_s": drained,
        "late_p99_ms": pct(rec.late, 0.99), "tap_ms": tap, "event_ms": events, "floor_ms": floorq, "floor_missing": missing,
        "delivery_pct": delivered, "stale_pairs": stale, "floor_messages": floor["messages"],
        "floor_kib": floor["bytes"] / 1024, "echo_ms": echo, "echo_cpu_ms_per_message": echo_cpu_ms, "raw_ms": rawq,
        "tap_p99_over_echo_p99": tap["p99"] / echo["p99"] if echo["p99"] else float("nan"),
        "tap_p50_over_raw_p50": tap["p50"] / rawq["p50"] if rawq["p50"] else float("nan"),
        "cpu_ms_per_command": {k: v * 1000 / per_command for k, v in cpu.items()},
        "daphne_cpu_ms_per_command_by_stage": staged["by_stage"], "staged_phase": staged,
        "cpu_s": cpu, "daphne_rss_mib": rss, "sockets_per_process": held,
        "targets": targets, "passed": all(targets.values()),
        "loose_passed": tap["p99"] <= LOOSE_TAP_P99_MS and stale == 0 and missing == 0 and error_count == 0,
    }


def print_scenario(r: dict) -> None:
    t, f, e, w, c = r["tap_ms"], r["floor_ms"], r["echo_ms"], r["raw_ms"], r["cpu_ms_per_command"]
    print(f"[{r['processes']} Daphne{' via nginx' if r['front'] == 'nginx' else ''}] {r['label']} {r['rate']:.1f}/s for {r['seconds']:g}s: sent {r['sent']} "
          f"({r['achieved_rate']:.1f}/s), answered {r['answered']} (ok {r['ok']}, refused {r['refused']}"
          f"{' ' + json.dumps(r['refusals']) if r['refusals'] else ''}), errors {r['errors']} "
          f"(unanswered {r['unanswered']}, table events lost {r['lost_events']}, sockets closed or error messages {r['errors'] - r['unanswered'] - r['lost_events']}); last answers drained in {r['drain_s']:.1f}s, "
          f"taps sent late p99 {r['late_p99_ms']:.0f} ms")
    print(f"    tap -> answer    p50 {t['p50']:7.1f}  p95 {t['p95']:7.1f}  p99 {t['p99']:7.1f} ms")
    v = r["event_ms"]
    print(f"    answer -> event  p50 {v['p50']:7.1f}  p95 {v['p95']:7.1f}  p99 {v['p99']:7.1f} ms   "
          f"(the table's event at the answered version, on the tablet; lost after {EVENT_TIMEOUT} s: {r['lost_events']})")
    print(f"    echo (baseline)  p50 {e['p50']:7.1f}  p95 {e['p95']:7.1f}  p99 {e['p99']:7.1f} ms   "
          f"raw txn ({r['processes']} conn) p50 {w['p50']:.1f}  p99 {w['p99']:.1f} ms; "
          f"daphne CPU per echo {r['echo_cpu_ms_per_message']:.2f} ms")
    print(f"    cmd -> floor row p50 {f['p50']:7.1f}  p95 {f['p95']:7.1f}  p99 {f['p99']:7.1f} ms   "
          f"delivery {r['delivery_pct']:.1f} % ({r['stale_pairs']} stale screen-table pairs, {r['floor_missing']} answers never on every screen); "
          f"{r['floor_messages']} floor messages, {r['floor_kib'] / 1024:.1f} MiB")
    front_cpu = f"nginx {c['nginx']:.1f}, " if "nginx" in c else ""
    print(f"    CPU ms/command: daphne {c['daphne']:.1f}, {front_cpu}postgres {c['postgres']:.1f}, redis {c['redis']:.1f}, "
          f"bench clients {c['client']:.1f}; daphne RSS {', '.join(f'{m:.0f}' for m in r['daphne_rss_mib'])} MiB; "
          f"sockets per process {r['sockets_per_process']}")
    stages_ms, staged = r["daphne_cpu_ms_per_command_by_stage"], r["staged_phase"]
    print(f"    daphne CPU ms/command by stage (a {staged['seconds']:g}s phase after, at the same rate, with the stage meter on: "
          f"{staged['answered']} answered, errors {staged['errors']}; daphne {staged['daphne_cpu_ms_per_command']:.1f} ms/command, "
          f"{staged['daphne_cpu_ms_per_command'] - c['daphne']:+.1f} against the phase above, which ran without the meter): "
          f"{stages.line(stages_ms, 'ms')}; outside them (sockets, transport, the event loop) "
          f"{staged['daphne_cpu_ms_per_command'] - sum(stages_ms.values()):.2f} ms")
    print(f"    headline: tap p99 / echo p99 = {r['tap_p99_over_echo_p99']:.1f}x, tap p50 / raw txn p50 = {r['tap_p50_over_raw_p50']:.1f}x")
    print("    targets: " + "; ".join(f"{name} {'ok' if ok else 'FAIL'}" for name, ok in r["targets"].items())
          + f" -> {'PASS' if r['passed'] else 'FAIL'}")
    for sample in r["error_samples"]:
        print(f"    error: {sample}")
    sys.stdout.flush()


def print_summary(results: list, knees: dict) -> None:
    print("\nsummary (ms; CPU ms per command)")
    print(f"{'proc':>4} {'front':>5} {'scenario':>10} {'rate/s':>7} {'got/s':>6} {'sent':>6} {'err':>4} {'tap p50':>8} {'tap p99':>8} {'echo p99':>8} "
          f"{'raw p50':>8} {'p99/echo':>8} {'p50/raw':>8} {'floor p99':>9} {'deliv%':>6} {'daphne':>7} {'nginx':>6} {'pg':>6} {'result':>6}")
    for r in results:
        c = r["cpu_ms_per_command"]
        print(f"{r['processes']:>4} {r['front']:>5} {r['label']:>10} {r['rate']:>7.1f} {r['achieved_rate']:>6.1f} {r['sent']:>6} {r['errors']:>4} {r['tap_ms']['p50']:>8.1f} "
              f"{r['tap_ms']['p99']:>8.1f} {r['echo_ms']['p99']:>8.1f} {r['raw_ms']['p50']:>8.1f} {r['tap_p99_over_echo_p99']:>8.1f} "
              f"{r['tap_p50_over_raw_p50']:>8.1f} {r['floor_ms']['p99']:>9.1f} {r['delivery_pct']:>6.1f} {c['daphne']:>7.1f} "
              f"{c.get('nginx', float('nan')):>6.1f} {c['postgres']:>6.1f} {'PASS' if r['passed'] else 'FAIL':>6}")
    for key, knee in knees.items():
        print(f"knee with {key.replace(' nginx', ' Daphne process(es) via nginx') if ' ' in key else key + ' Daphne process(es)'}: {knee}")


# --- the run -------------------------------------------------------------------------------


def run_key(processes: int, front: str) -> str:
    """How a run is named in the report's knees and idle figures: "2", or "2 nginx"."""
    return str(processes) if front == "fd" else f"{processes} {front}"


async def run_processes(ctx_base: dict, processes: int, front: str, args, results: list, knees: dict, idle: dict) -> None:
    tables = ctx_base["table_ids"]
    clients = 2 * len(tables) + args.screens  # a tablet and an echo socket per table, the screens
    with Daphnes(processes, ctx_base["env"], ctx_base["tmp"], front, clients) as daphnes:
        import psycopg

        spawn = multiprocessing.get_context("spawn")
        here, there = spawn.Pipe()
        screens = spawn.Process(target=screens_main, args=(there, daphnes.port, ctx_base["screen_cookies"]), daemon=True)
        screens.start()
        tablets: list[Tablet] = []
        echoes: list[Echo] = []
        db = None
        try:
            t0 = time.monotonic()
            tablets = [Tablet(t, c) for t, c in zip(tables, ctx_base["tablet_cookies"])]
            await open_many([lambda t=t: t.open(daphnes.port, args.heartbeat) for t in tablets])
            echoes = [Echo(ws) for ws in await open_many(
                [lambda c=c: open_socket(daphnes.port, "/ws/echo/", c) for c in ctx_base["tablet_cookies"]])]
            _, screens_pid = await answer_of(here, "ready")
            db = await psycopg.AsyncConnection.connect(ctx_base["dsn"], autocommit=True)
            where = (f"behind nginx on 127.0.0.1:{daphnes.port} (their ports {daphnes.ports}, nginx pid {daphnes.nginx.proc.pid})"
                     if daphnes.nginx else f"on 127.0.0.1:{daphnes.port}")
            print(f"\n{processes} Daphne process(es) {where} (pids {daphnes.pids}): "
                  f"{len(tablets)} tablet, {len(echoes)} echo and {args.screens} floor sockets open in {time.monotonic() - t0:.1f}s")
            ctx = Context(args=args, dsn=ctx_base["dsn"], table_ids=tables, raw_state=ctx_base["raw_state"], daphnes=daphnes,
                          tablets=tablets, echoes=echoes, screens=here, screens_pid=screens_pid,
                          server_pids={**ctx_base["server_pids"], **daphnes.front_pids}, deadline=ctx_base["deadline"], db=db)
            await scenario(ctx, processes, "warm-up", args.rate_list[0][1], record=False)
            key = run_key(processes, front)
            idle[key] = await idle_load(ctx)
            print("idle with every socket open, CPU seconds per second: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in idle[key].items()))
            estimate = args.seconds + 2 * args.baseline_seconds + args.settle + 5

            async def measure(label, rate):
                if time.monotonic() + estimate > ctx.deadline:
                    print(f"[{daphnes.label}] {label} {rate:.1f}/s skipped: --time-limit reached")
                    return None
                await reopen(ctx)
                result = await scenario(ctx, processes, label, rate)
                results.append(result)
                print_scenario(result)
                return result

            measured = {}
            for label, rate in args.rate_list:
                measured[round(rate, 3)] = await measure(label, rate)
            knees[key] = await knee_search(args, measured, measure)
        finally:
            for t in tablets:
                if t.ws is not None:
                    await t.close()
            for e in echoes:
                await e.ws.close()
            if db is not None:
                await db.close()
            if screens.is_alive():
                try:
                    await ask(here, ("stop",), timeout=20)
                except (TimeoutError, OSError, EOFError):
                    pass
            screens.join(10)
            if screens.is_alive():
                screens.kill()
                screens.join(5)


async def idle_load(ctx: Context) -> dict:
    """What the servers burn with every socket open and no command (heartbeats, each
    consumer's channel-layer wait, the floor's periodic refresh), per second: the part of
    the CPU per command that does not grow with the rate."""
    watched = {"daphne": ctx.daphnes.pids, **ctx.server_pids}
    before = {k: cpu_seconds(p) for k, p in watched.items()}
    started = time.monotonic()
    await asyncio.sleep(ctx.args.baseline_seconds)
    elapsed = time.monotonic() - started
    return {k: (cpu_seconds(p) - before[k]) / elapsed for k, p in watched.items()}


async def reopen(ctx: Context) -> None:
    """Sockets the last scenario lost are opened again (and were counted as errors)."""
    dead = [t for t in ctx.tablets if not t.alive]
    for t in dead:
        t.closing, t.reader, t.beater = False, None, None
    await open_many([lambda t=t: t.open(ctx.daphnes.port, ctx.args.heartbeat) for t in dead])
    await ask(ctx.screens, ("reopen",))


async def knee_search(args, measured: dict, measure) -> str:
    """From the peak in x1.5 steps: up while the targets hold, down while they fail.
    Also says where the black-box harness's looser knee (tap p99 <= 250 ms, 100 %
    delivery, no errors) lies among the rates tried."""
    if args.knee_steps <= 0:
        return "not searched"
    peak = measured.get(round(args.peak, 3)) or await measure("peak", args.peak)
    if peak is None:
        return "not searched (time limit)"
    tried = [peak]
    rate, step = args.peak, (1.5 if peak["passed"] else 1 / 1.5)
    for _ in range(args.knee_steps):
        rate *= step
        result = measured.get(round(rate, 3)) or await measure("knee", rate)
        if result is None:
            break
        tried.append(result)
        if result["passed"] != peak["passed"]:
            break
    tried += [r for r in measured.values() if r is not None and r not in tried]
    return (f"targets: {boundary([(r['rate'], r['passed']) for r in tried])}; "
            f"tap p99 <= {LOOSE_TAP_P99_MS:g} ms with 100 % delivery: {boundary([(r['rate'], r['loose_passed']) for r in tried])}")


def boundary(outcomes: list) -> str:
    """Where passing turns to failing among (rate, passed) outcomes."""
    passing = [r for r, ok in outcomes if ok]
    failing = [r for r, ok in outcomes if not ok]
    if not passing:
        return f"fail at every rate tried, down to {min(failing):.1f}/s"
    above = [r for r in failing if r > max(passing)]
    if not above:
        return f"hold up to {max(passing):.1f}/s (the highest tried)"
    return f"hold at {max(passing):.1f}/s, fail at {min(above):.1f}/s"


def run(args, services, tmp: str) -> dict:
    started = time.monotonic()
    deadline = started + args.time_limit
    setup_django()
    from tables.management.commands.simulate_floor import command_for_view  # noqa: F401 (fails early if moved)

    print(services.summary)
    table_ids = create_floor(args.tables)
    tablet_cookies = login_cookies("e2e-tablet", args.tables, args.tablet_role)
    if args.tablet_role == "dealer":
        assign_tablets("e2e-tablet", table_ids)
    screen_cookies = login_cookies("e2e-screen", args.screens, "supervisor")
    raw_state = create_raw_tables(args.tables)
    print(f"{args.tables} tables, {args.tables + args.screens} logins ready (tablets: {args.tablet_role}) "
          f"in {time.monotonic() - started:.1f}s")
    dsn = os.environ["DATABASE_URL"]
    postmaster = int((services.postgres.cluster.data / "postmaster.pid").read_text().split()[0])
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DJANGO_DEBUG": "0",
        "CARDROOM_BENCH_ECHO": "1",
        "PYTHONUNBUFFERED": "1",
        "BENCH_STAGES_FILE": str(Path(tmp) / "stages"),
    }
    base = {
        "table_ids": table_ids, "tablet_cookies": tablet_cookies, "screen_cookies": screen_cookies, "raw_state": raw_state,
        "dsn": dsn, "env": env, "tmp": tmp, "deadline": deadline,
        "server_pids": {"postgres": [postmaster], "redis": [services.redis.proc.pid]},
    }
    from django.conf import settings

    connect_ms = asyncio.run(connect_cost(dsn))
    age = settings.DATABASES["default"].get("CONN_MAX_AGE") or 0
    print(f"a new PostgreSQL connection costs p50 {connect_ms:.1f} ms here ("
          + ("Django opens one per command: CONN_MAX_AGE is 0 and Channels closes old connections around each call)"
             if not age else f"Django keeps its connections: CONN_MAX_AGE {age})"))
    results: list = []
    knees: dict = {}
    idle: dict = {}
    for processes in args.process_list:
        for front in args.front_list:  # back to back for each count: the fronts are compared pairwise
            if time.monotonic() + args.seconds > deadline:
                print(f"{processes} Daphne process(es) ({front}) skipped: --time-limit reached")
                continue
            asyncio.run(run_processes(base, processes, front, args, results, knees, idle))
    print_summary(results, knees)
    print(f"\ntotal {time.monotonic() - started:.0f}s. The machine's other load shows in these figures: "
          "compare runs on the same machine, and the ratios to the baselines measured alongside.")
    return {"results": results, "knees": {str(k): v for k, v in knees.items()}, "connect_ms": connect_ms,
            "idle_cpu_per_s": {str(k): v for k, v in idle.items()},
            "tables": args.tables, "screens": args.screens, "tablet_role": args.tablet_role}


async def connect_cost(dsn: str) -> float:
    import psycopg

    times = []
    for _ in range(20):
        t0 = time.monotonic()
        conn = await psycopg.AsyncConnection.connect(dsn)
        await conn.execute("SELECT 1")
        times.append(time.monotonic() - t0)
        await conn.close()
    return pct(times, 0.5)


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    # Never a real database: the benchmark starts its own servers (as bench_floor does).
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    from tests.plugins.services import Services

    services = Services()
    services.start()  # also turns SIGTERM/SIGHUP into KeyboardInterrupt, so the finally runs
    tmp = tempfile.mkdtemp(prefix="cardroom-e2e-")
    try:
        if services.redis is None:
            raise SystemExit(f"bench_e2e needs redis-server: {services.summary}")
        report = run(args, services, tmp)
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1, default=str))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        services.stop()


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the finally blocks stopped everything
        print("\ninterrupted: servers stopped, temp dirs removed", file=sys.stderr)
        sys.exit(130)

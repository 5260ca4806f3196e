"""The suite runs on the real parts: PostgreSQL (never SQLite) and, for `redis` tests, Redis."""

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection


@pytest.mark.django_db
def test_database_is_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL"), version


@pytest.mark.django_db
def test_test_database_is_a_throwaway_copy():
    # pytest-django runs tests in its own database, never the configured one.
    assert connection.settings_dict["NAME"].startswith("test_")


@pytest.mark.redis
def test_redis_round_trip(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=5)
    try:
        key = f"cardroom:test:{uuid.uuid4().hex}"
        assert client.set(key, "ante", ex=60)
        assert client.get(key) == b"ante"
        client.delete(key)
    finally:
        client.close()


HANG = """
import time


def test_hangs():
    time.sleep(120)


def test_never_reached():
    pass
"""


def test_a_hung_test_ends_the_run_with_every_threads_stack(pytestconfig, tmp_path):
    """pytest.ini's limit is in force with the thread method: a test that hangs is stopped
    at its limit (here shortened to 2 s) with the stacks printed, and the run ends."""
    assert float(pytestconfig.getini("timeout")) >= 120
    assert pytestconfig.getini("timeout_method") == "thread"
    (tmp_path / "test_hang.py").write_text(HANG)
    root = Path(__file__).resolve().parent.parent
    started = time.monotonic()
    # The project's pytest.ini (its timeout method) but none of its plugins' services:
    # the hanging test needs no database.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(root / "pytest.ini"), "--rootdir", str(tmp_path),
         "-o", "addopts=", "-o", "timeout=2", "-p", "no:django", "-p", "no:cacheprovider", str(tmp_path / "test_hang.py")],
        capture_output=True, text=True, timeout=90,
    )
    assert time.monotonic() - started < 60
    assert run.returncode != 0
    assert "Timeout" in run.stdout + run.stderr and "Stack of MainThread" in run.stdout + run.stderr
    assert "test_never_reached PASSED" not in run.stdout and " passed" not in run.stdout

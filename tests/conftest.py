"""Shared fixtures for the whole test suite.

PostgreSQL and Redis are started (or taken from DATABASE_URL / REDIS_URL) by the pytest
plugin tests/plugins/services.py, loaded through pytest.ini before Django's settings.
Add further shared fixtures below this one.
"""

import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

import pytest

from tests import db_access, hypothesis_profiles  # noqa: F401 (loads the ci or dev profile)


@pytest.fixture(scope="session")
def redis_url():
    """The Redis server for tests marked ``redis``; fails clearly if there is none."""
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.fail(
            "REDIS_URL is not set and no redis-server binary was found to start one. "
            "Install redis-server (apt-get install redis-server; .ci/run does this) "
            "or point REDIS_URL at a Redis server.",
            pytrace=False,
        )
    return url


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, migrated by the owner (which grants the served role
    its privileges, cardroom/db_roles.py), then used by every test as the served role.

    Its teardown first ends the connections that consumer worker threads kept
    (CONN_MAX_AGE): a thread of a finished event loop keeps its connection open, and
    PostgreSQL will not drop a database in use."""
    from django.db import connection

    db_access.serve_as_app_role()
    yield
    db_access.serve_as_owner()  # the owner drops the test database
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture
def localdb_dir():
    """A `var` folder for the app's own PostgreSQL (CARDROOM_LOCALDB_DIR), removed after
    the test. Not pytest's tmp_path: under root the server runs as another OS user, who
    must be able to reach the folder, and pytest's folders are private to their owner."""
    folder = Path(tempfile.mkdtemp(prefix="cardroom-localdb-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder / "var"
    shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item):
    """Let the floor publisher finish before the test's fixtures are torn down.

    Its thread reads a coalesced floor row up to tables.events.WINDOW after a test's last
    command. A transactional test's teardown TRUNCATEs every table at that moment, and
    PostgreSQL may then pick the TRUNCATE as the victim of a deadlock with that read
    ("Database test_cardroom couldn't be flushed"). This wrapper runs before any fixture
    finalizer, whichever fixture brought the database.

    The teardown itself always runs: a publisher that has not settled fails this test,
    with where its thread stands, but must not leave the test's transaction (and its
    locks) open for every later test.
    """
    from tables.events import publisher

    settled = publisher.drain(timeout=10)
    yield
    assert settled, f"the floor publisher did not settle within 10 s:\n{thread_stack(publisher.thread)}"


def thread_stack(thread) -> str:
    frame = sys._current_frames().get(thread.ident) if thread.is_alive() else None
    return "".join(traceback.format_stack(frame)) if frame else "its thread has stopped"


@pytest.fixture(autouse=True)
def witness_dir(settings):
    """Each test witnesses (cardroom/witness.py) into a fresh folder inside the session's
    (config/settings/test.py): heads committed by one test never meet a later test's
    database, where that test's tables were flushed away."""
    from cardroom import witness

    settings.CARDROOM_WITNESS_DIR = Path(tempfile.mkdtemp(prefix="test-", dir=os.environ["CARDROOM_WITNESS_DIR"]))
    yield settings.CARDROOM_WITNESS_DIR
    witness.close()


@pytest.fixture
def shift_around_now(settings):
    """The house's shifts (a setting) laid out so the one running now began an hour ago and
    has seven hours to go. A test that plans reliefs "now" and expects the next push inside
    the same shift then passes whatever the hour the suite runs at: with the house's own
    shifts, a run in a shift's last minutes finds no next push, and one in its first
    seconds puts a push half a minute back into the shift before. Only the calendar moves:
    the clock, the database's and Redis's included, is the real one."""
    from datetime import timedelta

    from django.utils import timezone

    from cardroom.gaming_day import calendar

    began = timezone.localtime(timezone.now() - timedelta(hours=1))
    clocks = [(began + timedelta(hours=8 * n)).strftime("%H:%M") for n in range(3)]
    settings.CARDROOM_GAMING_DAY_START = clocks[0]
    settings.CARDROOM_SHIFTS = list(zip(("day", "swing", "grave"), clocks))
    cal, now = calendar(), timezone.now()
    start, end = cal.shift_bounds(cal.gaming_day(now), cal.shift(now))
    assert timedelta(minutes=59) <= now - start and end - now >= timedelta(hours=6), (start, now, end)
    return start, end

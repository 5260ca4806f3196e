"""The count tests' gaming day (tests/counts/play.py), played once and shared.

Playing the day is most of a count test's time (about 300 commands through the command
service), and most tests here start from the same day. So the day is played once per
module and worker, inside a transaction kept open while consecutive tests use it; each
test runs in a savepoint of it (pytest-django's own transaction, nested) that is rolled
back after the test, so every test starts from the day exactly as played, as when each
played its own. A test that does not use the day (or needs committed rows) first ends
that transaction, so it sees an empty database as before; the next test that uses the
day plays it again."""

import copy
from unittest import mock

import pytest
from django.db import transaction

from .play import AFTER_THE_DAY, Clock, play


@pytest.fixture
def clock():
    clock = Clock()
    with mock.patch("django.utils.timezone.now", clock):
        yield clock


class SharedDay:
    """The played day and the open transaction that holds its rows."""

    current = None  # the module's SharedDay, for the hook below

    def __init__(self, blocker):
        self.blocker = blocker
        self.atomic = None
        self.day = None

    def open(self) -> None:
        if self.atomic is not None:
            return
        with self.blocker.unblock():
            self.atomic = transaction.atomic()
            self.atomic._from_testcase = True  # a test's transaction, as Django's TestCase marks its own
            self.atomic.__enter__()
            clock = Clock()
            with mock.patch("django.utils.timezone.now", clock):
                self.day = play(clock)

    def close(self) -> None:
        if self.atomic is None:
            return
        with self.blocker.unblock():
            transaction.set_rollback(True)
            self.atomic.__exit__(None, None, None)
        self.atomic, self.day = None, None


def _transactional(item) -> bool:
    marker = item.get_closest_marker("django_db")
    return "transactional_db" in item.fixturenames or "live_server" in item.fixturenames or bool(
        marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0])))


def _shares_the_day(item) -> bool:
    return "day" in getattr(item, "fixturenames", ()) and not _transactional(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the test's own transaction opens: the shared day is ended for a test that
    does not share it, and played again for one that does after such a test."""
    shared = SharedDay.current
    if shared is None:
        return
    if _shares_the_day(item):
        shared.open()
    else:
        shared.close()


@pytest.fixture(scope="module")
def _shared_day(request, django_db_setup, django_db_blocker):
    """Set up before any test's own transaction (a module's fixture comes before a
    test's); played now unless the test that asks first needs committed rows."""
    shared = SharedDay(django_db_blocker)
    if _shares_the_day(request._pyfuncitem):
        shared.open()
    SharedDay.current = shared
    yield shared
    SharedDay.current = None
    shared.close()


@pytest.fixture
def day(request, clock, _shared_day):
    if _shares_the_day(request.node):
        played = copy.deepcopy(_shared_day.day)
    else:
        played = play(clock)
    clock.set(*AFTER_THE_DAY)
    return played

"""Fixtures for the live-table tests: logged-in sockets through the real ASGI application."""

import asyncio
import time
import urllib.request
from functools import partial

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.contrib.auth.models import Group
from django.test import Client

from config.asgi import application
from tests import playing

ORIGIN = (b"origin", b"http://127.0.0.1")
# The Host a browser sends with it: the origin check compares scheme, host and port.
HOST = (b"host", b"127.0.0.1")


@pytest.fixture
def dealer(django_user_model):
    """The person at the tablet. A floor supervisor, who drives every table and sees the
    floor, so these tests need no shift assignment; who may do what is proven route by
    route in tests/test_permissions.py."""
    user = django_user_model.objects.create_user(username="dealer", password="pw")
    user.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    return user


@pytest.fixture
def session_cookie(dealer):
    client = Client()
    client.force_login(dealer)
    return client.cookies["sessionid"].value


@pytest.fixture
def logged_in(dealer):
    client = Client()
    client.force_login(dealer)
    return client


def socket(path: str, cookie: str | None) -> WebsocketCommunicator:
    headers = [ORIGIN, HOST]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


def apply_event(snapshot: dict, event: dict) -> dict | None:
    """The client's rule (static/live.js, Live.applyEvent): the next seq replaces the
    snapshot, an older one changes nothing, a gap asks for a fresh snapshot (None)."""
    if event["seq"] <= snapshot["version"]:
        return snapshot
    if event["seq"] == snapshot["version"] + 1:
        return event["snapshot"]
    return None


async def receive_until(communicator, predicate, timeout=10):
    """Messages up to and including the first that satisfies `predicate`."""
    seen = []
    while True:
        message = await communicator.receive_json_from(timeout=timeout)
        seen.append(message)
        if predicate(message):
            return seen


def make_table(seats=6, **config):
    table = playing.new_table("Live T", seats=seats, **config)  # its boxes placed: a person deals
    # The placements' floor rows are published from a thread after a short window: sent
    # before the test's own sockets listen, so none of them is taken for the test's news.
    from tables.events import publisher

    publisher.drain(timeout=10)
    return table


def assign_dealer(table, username: str = "ana"):
    """A dealer assigned to `table` for the current gaming day and shift (the floor expects
    a tablet only at a table a dealer is assigned to now)."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from cardroom.gaming_day import calendar
    from tables.models import DealerAssignment

    dealer, _ = User.objects.get_or_create(username=username)
    dealer.groups.add(Group.objects.get_or_create(name="dealer")[0])
    supervisor, _ = User.objects.get_or_create(username=f"{username}-sup")
    now, cal = timezone.now(), calendar()
    return DealerAssignment.objects.create(
        dealer=dealer, table_id=table.pk, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
        assigned_by=supervisor, assigned_at=now,
    )


run = partial(playing.run, actor="test")


arun = sync_to_async(run)
assign_dealer_async = sync_to_async(assign_dealer)
amake_table = sync_to_async(make_table)


def play(scenario):
    """Run an async scenario, then release what it held (Redis pools, the worker
    thread's database connection) so the next test and the teardown start clean."""

    async def wrapped():
        try:
            await scenario()
        finally:
            # A socket the scenario left open has its consumer still waiting on the layer
            # (which, from issue 21, waits out a failed receive and asks again): end it
            # first, or it would open a connection that outlives this loop.
            leftovers = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in leftovers:
                task.cancel()
            await asyncio.gather(*leftovers, return_exceptions=True)
            await get_channel_layer().flush()
            await sync_to_async(lambda: connection.close())()  # the worker thread's own

    asyncio.run(wrapped())


def wait_until_serving(url: str, process, seconds: float, output) -> None:
    """Poll `url`/healthz until the server in `process` answers 200; fail with the
    server's `output()` if it exits or does not answer within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{output()[-4000:]}") from None
            time.sleep(0.1)  # polling for the server to come up, not an assertion

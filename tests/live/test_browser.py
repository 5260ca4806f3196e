"""End to end in a real headless Chromium: a dealer plays a whole round on the tablet while
a supervisor's floor dashboard, in a second browser, follows every step without reload.

Daphne runs as a separate process on a free loopback port against the test database
(transaction=True, so what the test creates is committed and visible to it) and the test
Redis. Midway the server is stopped and started again: the taps made meanwhile are
queued on the tablet and applied once when it reconnects. Screenshots of both pages go
to test-artifacts/ (not committed).
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection

from rounds.labels import WAGER
from rounds.models import Decision, Round, SettlementLine
from tables.models import TableEvent
from tests.engine.helpers import FEES
from tests.db_access import app_role_database_url, as_owner
from tests.plugins.services import _free_port
from tests.process_group import read_output

from .conftest import assign_dealer, make_table, run, wait_until_serving

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

playwright = pytest.importorskip("playwright.sync_api")
expect = playwright.expect

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ROOT = Path(__file__).resolve().parents[2]


class Daphne:
    """The app served by Daphne in a process of its own, on the test database."""

    def __init__(self, redis_url: str):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            # Served as production serves: logged in as the app role (tests/db_access.py).
            "DATABASE_URL": app_role_database_url(),
            "REDIS_URL": redis_url,
        }
        self.log = open(tempfile.mktemp(prefix="daphne-", suffix=".log"), "w+")
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "config.asgi:application"],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        wait_until_serving(self.url, self.process, 30, self.output)

    def output(self) -> str:
        return read_output(self.log)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture
def daphne(transactional_db, redis_url):
    server = Daphne(redis_url)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def browsers(monkeypatch):
    # Playwright's sync API keeps an event loop running in this thread; the test's own
    # database queries are still plain synchronous ones (Django's docs on Playwright).
    # Queries made there get a connection of their own (asgiref's context-local storage),
    # closed here so that the test database can be dropped at the end.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)", pytrace=False)
    with playwright.sync_playwright() as p:
        contexts = []

        def open_context():
            context = p.chromium.launch_persistent_context(
                tempfile.mkdtemp(prefix="chromium-"), executable_path=CHROMIUM, args=FLAGS, headless=True,
                viewport={"width": 1280, "height": 800},
            )
            contexts.append(context)
            return context

        try:
            yield open_context
        finally:
            connection.close()
            for context in contexts:
                context.close()


def log_in(context, url: str, next_path: str):
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}{next_path}")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.fill("input[name=username]", "dealer")
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{url}{next_path}")
    page.errors = errors
    return page


def pick(page, *cards):
    for card in cards:
        page.click(f".picker button.pick[data-card='{card}']")
    page.click(".picker button:has-text('Confirm cards')")


@pytest.fixture
def table(transactional_db, dealer):
    """Created before the browsers start (Playwright's loop would stop the events' sending).
    `dealer` (tests/live/conftest.py), a floor supervisor, drives the tablet and watches the
    floor in the second window."""
    table = make_table(seats=6, limits={"ante_min": 500, "ante_max": 100000}, fee_schedule=FEES)
    run(
        table.pk,
        *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3)],
        {"type": "offer_bank", "seat": 1},
        {"type": "accept_bank", "seat": 1},
    )
    assign_dealer(table)  # the floor expects its tablet
    # make_table placed its fee box FEES-<id> (tests/boxes.py).
    return table


def test_a_whole_round_on_the_tablet_while_the_floor_follows(daphne, table, browsers):
    ARTIFACTS.mkdir(exist_ok=True)
    started = time.monotonic()

    floor = log_in(browsers(), daphne.url, "/floor/")
    expect(floor.locator("#status")).to_have_text("Live")
    floor.evaluate("window.loadedOnce = true")  # gone if the page ever reloads
    row = floor.locator(f".tile[data-table='{table.pk}']")
    expect(row.locator(".street")).to_have_text("between rounds")
    # No tablet has connected this shift yet: none is missed (issue 35).
    expect(row.locator(".alerts")).not_to_contain_text("Tablet disconnected")

    tablet = log_in(browsers(), daphne.url, f"/tables/{table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    expect(row.locator(".alerts")).not_to_contain_text("Tablet disconnected")
    expect(row.locator(".pd")).to_have_text("Seat 1 · P-1")
    # Both show the drop box the fees go into.
    expect(row.locator(".box .value")).to_have_text(f"FEES-{table.pk}")
    expect(tablet.locator("#round-label")).to_contain_text(f"Drop box FEES-{table.pk}")

    # Open the round with a $1,000 bank; wagers at seats 2 and 3.
    tablet.fill("input[name=bank]", "1000")
    tablet.click("button:has-text('Open round')")
    expect(row.locator(".street")).to_have_text("#1 betting")
    expect(row.locator(".bank-left .value")).to_have_text("$1,000.00")
    tablet.click(".seat[data-seat='2'] button[type=submit]:has-text('Bet')")
    expect(tablet.locator(".seat[data-seat='2'] .wagers")).to_have_text("Ante $5.00 · Blind $5.00")
    seat3 = tablet.locator(".seat[data-seat='3']")
    seat3.locator("input[name=ante]").fill("25")
    seat3.locator("input[name=trips]").fill("5")
    seat3.locator("button[type=submit]:has-text('Bet')").click()
    expect(seat3.locator(".wagers")).to_have_text("Ante $25.00 · Blind $25.00 · Trips $5.00")
    tablet.click("button:has-text('No more bets')")
    expect(row.locator(".street")).to_have_text("#1 pre-flop")
    # Collection fees at "no more bets": $1 per player, 50 cents per player for the PD.
    expect(row.locator(".fees .value")).to_have_text("$3.00")

    # Dealt by hand: the pre-flop decisions are offered once the dealer says so.
    expect(tablet.locator(".seat[data-seat='2'] button:has-text('Check')")).to_have_count(0)
    tablet.click("button:has-text('Dealt by hand')")  # a command: kept in the table's state
    expect(tablet.locator(".seat[data-seat='2'] button:has-text('Check')")).to_be_visible()

    # The server goes away: the dealer's taps are queued, then sent once on reconnect.
    daphne.stop()
    expect(tablet.locator("#status")).to_contain_text("Offline")
    tablet.click(".seat[data-seat='2'] button:has-text('Check')")
    tablet.click(".seat[data-seat='3'] button:has-text('Play 3×')")
    expect(tablet.locator("#status")).to_contain_text("2 taps queued")
    # Each queued tap is drawn on its seat, whose buttons wait for it: no double tap.
    expect(tablet.locator(".seat[data-seat='3'] .badge.queued")).to_have_text("Play 3× · queued")
    expect(tablet.locator(".seat[data-seat='3'] button.decision")).to_have_count(0)
    daphne.start()
    expect(tablet.locator("#status")).to_have_text("Live", timeout=20000)
    expect(tablet.locator(".seat[data-seat='3'] .decision-state")).to_have_text("Played $75.00")
    expect(tablet.locator(".seat[data-seat='2'] .decision-state")).to_have_text("Checked (pre-flop)")
    assert list(Decision.objects.order_by("seat").values_list("seat", "action")) == [(2, "check"), (3, "play")]
    expect(floor.locator("#status")).to_have_text("Live", timeout=20000)

    # Cards dealt by hand, entered on the 52-card picker as they are revealed.
    tablet.click("button:has-text('Enter flop cards')")
    picks = tablet.evaluate("[...document.querySelectorAll('.picker button.pick')].map((b) => [b.offsetWidth, b.offsetHeight])")
    assert len(picks) == 52 and all(w >= 44 and h >= 44 for w, h in picks), picks  # touch targets
    pick(tablet, "2c", "7d", "9h")
    expect(row.locator(".street")).to_have_text("#1 flop")
    tablet.click(".seat[data-seat='2'] button:has-text('Check')")
    tablet.click("button:has-text('Enter turn and river cards')")
    expect(tablet.locator(".picker button.pick[data-card='9h']")).to_be_disabled()  # on the board
    pick(tablet, "Js", "3s")
    expect(row.locator(".street")).to_have_text("#1 river")
    tablet.click(".seat[data-seat='2'] button:has-text('Play 1×')")
    tablet.click("button:has-text('Enter showdown cards')")
    pick(tablet, "Kc", "Kd", "Ah", "Qd", "9c", "9s")  # player-dealer, seat 2, seat 3
    expect(row.locator(".street")).to_have_text("#1 showdown")
    expect(tablet.locator("#preview")).to_contain_text("Settlement preview")
    tablet.screenshot(path=ARTIFACTS / "tablet-showdown.png", full_page=True)

    tablet.click("#next button:has-text('Settle')")
    overlay = tablet.locator("#settlement")
    expect(overlay).to_be_visible()
    expect(row.locator(".street")).to_have_text("between rounds")
    expect(row.locator(".rph .value")).to_have_text("1")

    settled = Round.objects.get(table=table)
    lines = list(SettlementLine.objects.filter(round=settled).order_by("order"))
    assert settled.status == "settled" and len(lines) == 7
    # Each tap's own time on the tablet is kept beside the server's, with the session that
    # sent it (a surveillance replay's three clocks): the two taps queued while the server
    # was down were tapped seconds before the server took them.
    tapped = list(TableEvent.objects.filter(table=table, command_type__in=("check", "play")).order_by("seq"))
    assert len(tapped) == 4 and all(e.device_at is not None and len(e.session_tag) == 32 for e in tapped)
    assert all(e.created_at - e.device_at > timedelta(seconds=1) for e in tapped[:2])
    assert "tapped_at" not in tapped[0].command  # the rules never saw it
    expect(overlay.locator("tr.line")).to_have_count(len(lines))
    for shown, line in zip(overlay.locator("tr.line").all(), lines):
        expect(shown.locator("td").nth(1)).to_have_text(f"Seat {line.seat}")
        expect(shown.locator("td").nth(2)).to_have_text(WAGER[line.wager])  # in words
    balance = f"${settled.balance // 100:,}.{settled.balance % 100:02d}"
    expect(overlay.locator(".bank-left")).to_contain_text(f"bank left {balance}")
    tablet.screenshot(path=ARTIFACTS / "tablet-settlement.png", full_page=True)
    floor.screenshot(path=ARTIFACTS / "floor.png", full_page=True)

    assert floor.evaluate("window.loadedOnce") is True
    assert tablet.errors == [] and floor.errors == []
    print(f"\nbrowser round played in {time.monotonic() - started:.1f}s")



FAIL_EVENT_INSERTS = """
CREATE FUNCTION test_refuse_event() RETURNS trigger AS $$
BEGIN RAISE EXCEPTION 'test: the database refuses to write events'; END; $$ LANGUAGE plpgsql;
CREATE TRIGGER test_refuse_event BEFORE INSERT ON tables_tableevent FOR EACH ROW EXECUTE FUNCTION test_refuse_event();
"""
HEAL_EVENT_INSERTS = "DROP TRIGGER test_refuse_event ON tables_tableevent; DROP FUNCTION test_refuse_event();"


def test_a_tap_the_server_fails_on_is_kept_shown_and_retried_until_it_is_applied_once(daphne, table, browsers):
    """A server error is not a refusal: the tablet says so in plain words, keeps the tap
    and resends it with back-off (the same id, so it is applied once); the floor is alerted."""
    from tables.models import TableEvent
    from tables.floor import floor_rows

    tablet = log_in(browsers(), daphne.url, f"/tables/{table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    table.refresh_from_db()
    with as_owner(), connection.cursor() as cursor:  # only the owner may add a trigger
        cursor.execute(FAIL_EVENT_INSERTS)  # a real database fault, on every process's writes
    try:
        tablet.fill("input[name=bank]", "1000")
        tablet.click("button:has-text('Open round')")
        message = tablet.locator("#message[data-code='server_error']")
        expect(message).to_be_visible()
        expect(message).to_contain_text("The tap is kept and sent again")
        expect(tablet.locator("#status")).to_contain_text("1 tap")
        row = next(r for r in floor_rows([table.pk]))
        assert [a["kind"] for a in row["alerts"]].count("commands_failing") == 1, row["alerts"]
    finally:
        with as_owner(), connection.cursor() as cursor:
            cursor.execute(HEAL_EVENT_INSERTS)
    expect(tablet.locator("#message")).to_be_hidden(timeout=40000)
    expect(tablet.locator("#status")).to_have_text("Live")
    assert list(TableEvent.objects.filter(table=table, command_type="open_round").values_list("seq", flat=True)) == [
        table.version + 1
    ]
    assert tablet.errors == []

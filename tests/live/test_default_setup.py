"""The README's run path, as a newcomer takes it: `make run` with no DATABASE_URL and no
REDIS_URL, so the app starts its own PostgreSQL and uses the in-memory channel layer.

In Chromium the demo dealer logs in through the login form and plays one whole round on
the tablet (server shuffle, a wager with Trips, decisions, settle); then the compliance
user downloads the collection-log CSV and its manifest, whose SHA-256 matches the bytes.
Ctrl-C then stops the server and the database it started. This test keeps the README's
first command true: it fails whenever the default set-up does not work end to end.
"""

import hashlib
import json
import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path

import psycopg
import pytest

from cardroom import localdb
from tests.plugins.services import _free_port
from tests.process_group import read_output, start_group, stop_group

from .conftest import wait_until_serving
from .test_browser import ARTIFACTS, CHROMIUM, FLAGS, ROOT, expect, playwright

START_SECONDS = 300  # a cold start creates the cluster and applies every migration

# The start alone may take START_SECONDS, then a round in Chromium and the export: more
# than the suite's default limit (pytest.ini `timeout`).
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(START_SECONDS + 300)]


class ReadmeRun:
    """`make run PORT=...` in its own process group, its data in a temp folder; in this
    checkout, or in `cwd` (a fresh clone: tests/live/test_journey_browser.py)."""

    def __init__(self, var: Path, cwd: Path = ROOT):
        self.cwd = cwd
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.var = var
        drop = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "CARDROOM_APP_DB_PASSWORD", "CARDROOM_APP_DB_ROLE")
        self.env = {k: v for k, v in os.environ.items() if k not in drop}
        self.env["CARDROOM_LOCALDB_DIR"] = str(var)
        self.log = open(tempfile.mktemp(prefix="make-run-", suffix=".log"), "w+")

    def start(self):
        # Its own process group with SIGINT at its default, however this suite was launched
        # (tests/process_group.py): Ctrl-C must reach `make run` from a background CI run too.
        self.process = start_group(
            ["make", "--no-print-directory", "run", f"PORT={self.port}"],
            cwd=self.cwd, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        wait_until_serving(self.url, self.process, START_SECONDS, self.output)

    def output(self) -> str:
        return read_output(self.log)

    def ctrl_c(self) -> signal.Signals | None:
        """What a terminal's Ctrl-C does: SIGINT to the whole foreground process group; then
        SIGTERM and SIGKILL, each after a bounded wait. The signal it stopped after."""
        return stop_group(self.process, wait=60, then=15)


@pytest.fixture
def readme_run(localdb_dir):
    run = ReadmeRun(localdb_dir)
    try:
        run.start()
        yield run
    finally:
        if run.process.poll() is None:
            run.ctrl_c()


def log_in(context, url: str, username: str, password: str, next_path: str):
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{url}{next_path}")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{url}{next_path}")
    return page


def test_a_newcomer_plays_a_round_and_exports_the_collection_log_on_the_default_setup(readme_run):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)", pytrace=False)
    url = readme_run.url
    printed = readme_run.output()
    assert "user dealer  password dealer-demo" in printed and f"Serving on {url}/" in printed
    ARTIFACTS.mkdir(exist_ok=True)

    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            dealer = browser.new_context(viewport={"width": 1280, "height": 800})
            tablet = log_in(dealer, url, "dealer", "dealer-demo", "/tables/1/tablet/")
            expect(tablet.locator("#status")).to_have_text("Live")

            # Demo UTH-1 as the seeded past shift left it: seat 2 banks; seats 1 and 3
            # wager, seat 3 with Trips.
            tablet.fill("input[name=bank]", "1000")
            tablet.click("button:has-text('Open round')")
            tablet.locator(".seat[data-seat='1'] button[type=submit]:has-text('Bet')").click()
            expect(tablet.locator(".seat[data-seat='1'] .wagers")).to_have_text("Ante $5.00 · Blind $5.00")
            seat3 = tablet.locator(".seat[data-seat='3']")
            seat3.locator("input[name=trips]").fill("5")
            seat3.locator("button[type=submit]:has-text('Bet')").click()
            expect(seat3.locator(".wagers")).to_have_text("Ante $5.00 · Blind $5.00 · Trips $5.00")
            tablet.click("button:has-text('No more bets')")
            tablet.click("button:has-text('Shuffle and deal')")  # the server shuffles

            for seat in (1, 3):  # pre-flop and flop: both check
                tablet.click(f".seat[data-seat='{seat}'] button.decision.check")
            tablet.click("#next button:has-text('Flop')")
            for seat in (1, 3):
                tablet.click(f".seat[data-seat='{seat}'] button.decision.check")
            tablet.click("#next button:has-text('Turn and river')")
            tablet.click(".seat[data-seat='1'] button.decision.play")
            tablet.click(".seat[data-seat='3'] button.decision.fold")
            tablet.click("#next button:has-text('Showdown')")
            expect(tablet.locator("#preview")).to_contain_text("Settlement preview")
            tablet.click("#next button:has-text('Settle')")
            overlay = tablet.locator("#settlement")
            expect(overlay).to_be_visible()
            expect(overlay.locator("tr.total").first).to_be_visible()
            tablet.screenshot(path=ARTIFACTS / "default-setup-settlement.png", full_page=True)
            assert tablet.errors == []

            officer = browser.new_context(accept_downloads=True)
            logs = log_in(officer, url, "compliance", "compliance-demo", "/compliance/collections/")
            with logs.expect_download() as downloading:
                logs.click("a:has-text('Export CSV')")
            download = downloading.value
            body = Path(download.path()).read_bytes()
            # The manifest is named by the download's Link header; the browser does not
            # expose it, so it is read over HTTP with the officer's session.
            response = officer.request.get(f"{url}/compliance/collections/export.csv")
            link = re.search(r"<([^>]+)>", response.headers["link"]).group(1)
            fresh = response.body()
            manifest = json.loads(officer.request.get(f"{url}{link}").body())
        finally:
            browser.close()

    rows = body.decode().splitlines()
    assert rows[0] == ",".join(manifest["columns"])
    # The fees collected at "no more bets" (two players and the player-dealer) are logged.
    assert manifest["rows"] == len(rows) - 1 >= 3
    assert manifest["file"]["sha256"] == hashlib.sha256(fresh).hexdigest()
    assert manifest["file"]["bytes"] == len(fresh)
    assert fresh == body  # nothing changed between the two downloads: the same bytes

    # The served app logs in as a role that owns nothing and cannot rewrite the ledger.
    cluster = localdb.Cluster(
        data=readme_run.var / "postgres", run_dir=readme_run.var / "run", log=readme_run.var / "postgres.log"
    )
    with psycopg.connect(**cluster.connection_params()) as conn:
        assert conn.execute(
            "SELECT rolsuper, has_table_privilege(rolname, 'collections_fees_collectionentry', 'UPDATE'),"
            " has_table_privilege(rolname, 'collections_fees_collectionentry', 'INSERT')"
            " FROM pg_roles WHERE rolname = %s",
            [localdb.APP_ROLE],
        ).fetchone() == (False, False, True)
        assert conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = %s AND datname = %s", [localdb.OWNER, localdb.DB_NAME]
        ).fetchone()[0] == 1  # only this check: the server's connections are the app role's

    # Ctrl-C stops the server and then the database it started; the data stays for the next run.
    assert readme_run.ctrl_c() == signal.SIGINT, readme_run.output()[-2000:]  # Ctrl-C alone, however launched
    assert "Server stopped." in readme_run.output()
    assert not (readme_run.var / "postgres" / "postmaster.pid").exists()
    assert (readme_run.var / "postgres" / "PG_VERSION").exists()

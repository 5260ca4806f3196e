"""The cardroom's whole day in Chromium, on `make run` from a fresh clone (issue 20).

A fresh clone of the committed HEAD is served by `make run` as the README says (no
DATABASE_URL: its own PostgreSQL in a temp `var`, the demo seeded, DEBUG off, the app's
own database login). Then each step is clicked by the person whose job it is, each in a
browser context of their own (their own cookies and storage), logged in through
/accounts/login/:

1. `supervisor` asks to change an open table's configuration (side bets and a
   progressive) and `supervisor2` approves it in the queue. The request alone goes
   through the API, from the supervisor's own page with their session and CSRF token,
   until the table setup screen exists (issue 26); the issue allows that one shortcut.
2. `dealer` deals rounds with side bets on the tablet: one from the software's shuffle,
   one whose shuffler sequence the dealer enters on the card picker, which gives seat 2
   a royal flush with a hole card, so a progressive award (5 % of the meter) waits for a
   supervisor; `supervisor` confirms it on the floor dashboard; the dealer settles. The
   second round's seats start with no side bet (last round's are not placed again), and
   the floor then idles 10 s without replacing a tile or a button.
3. `dealer` requests a void that `supervisor2` approves in the queue; then a void that
   `supervisor2` approves at the table with their own credentials on the tablet. Then
   the dealer seats two players at the empty table, which has no drop box this shift,
   and is refused the round until `supervisor` places its box.
4. `supervisor` asks for a correction of a settled round (its compliance page) and
   `supervisor2` approves it in the queue.
5. The seeded previous shift (over, played): `counter` opens its count sheet and counts
   every box, one short by more than the escalation threshold (explained); `manager`
   approves that variance; `counter` and `counter2` sign; `supervisor` closes the shift;
   `counter` asks to reopen it and `manager` approves.
6. `compliance` downloads every export its pages link to, with each manifest (the
   exports page's link), and `manage.py verify_logs --checkpoints` checks each file
   offline, in the clone with its settings.

Every response of every page is recorded: a 4xx or 5xx the step does not expect fails
the test, and so does any console error or uncaught page error. A screenshot of each
step goes to test-artifacts/journey/NN-step.png, and each screenshot's page is read for a
code where staff read words.
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .test_browser import ARTIFACTS, CHROMIUM, FLAGS, ROOT, expect, playwright
from .test_default_setup import ReadmeRun
from .test_floor_quiet_browser import WATCH
from .words import codes_shown

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = ARTIFACTS / "journey"
PASSWORDS = {  # seed_demo's demo logins (README)
    "dealer": "dealer-demo", "supervisor": "supervisor-demo", "supervisor2": "supervisor2-demo",
    "compliance": "compliance-demo", "counter": "counter-demo", "counter2": "counter2-demo",
    "manager": "manager-demo",
}
TABLE = 1  # Demo UTH-1: no side bet when seeded; players at seats 1, 2, 3 and 5
SIDE_BETS = {
    "bad_beat": {"paytable": "BBB-01", "min": 100, "max": 2500},
    "pairs": {"paytable": "UPB-1", "min": 100, "max": 2500},
    "progressive": {
        "paytable": "PROG-01", "wager": 100,
        "meter": {"name": "Journey Progressive", "meter_share": 80, "seed": 500000, "meter": 1000000,
                  "reserve": 600000},
    },
}

# Answers no step expects but the product gives today, each a known finding: the site has
# no favicon (issue 26, "Pages have a favicon"), so Chromium's request for one, made when
# it shows a manifest's JSON, answers 404.
KNOWN = [(404, r"/favicon\.ico$")]


def clone_of_head(where: Path) -> Path:
    """`git clone` of this repository's committed HEAD, with the running interpreter's
    virtualenv behind its `.venv` (a folder of links, so `make run` writes its install
    stamp in the clone, not in the shared environment, and installs nothing new)."""
    clone = where / "cardroom"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    venv = clone / ".venv"
    venv.mkdir()
    for entry in Path(sys.prefix).iterdir():
        if not entry.name.startswith(".installed-"):
            (venv / entry.name).symlink_to(entry)
    return clone


@dataclass
class Day:
    """The browser, the served clone, and what every page answered and logged."""

    browser: object
    url: str
    clone: Path
    env: dict
    printed: str = ""  # what `make run` printed (the seed's count sheet address)
    people: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)
    allowed: list = field(default_factory=list)  # (status, url pattern) the step expects
    step: str = ""
    exported: list = field(default_factory=list)

    def person(self, username: str) -> "object":
        """`username`'s own browser context, logged in through the login form; its page."""
        if username in self.people:
            return self.people[username]
        context = self.browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        context.on("response", lambda r, who=username: self._response(who, r))
        context.on("console", lambda m, who=username: self._console(who, m))
        context.on("weberror", lambda e, who=username: self.problems.append(f"{self.step} {who}: page error {e.error}"))
        page = context.new_page()
        page.goto(f"{self.url}/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORDS[username])
        page.click("button[type=submit]")
        expect(page).not_to_have_url(re.compile(r"/accounts/login/"))
        self.people[username] = page
        return page

    def _expected(self, status: int, url: str) -> bool:
        return any(status == s and re.search(p, url) for s, p in [*self.allowed, *KNOWN])

    def _response(self, who: str, response):
        if response.status >= 400 and not self._expected(response.status, response.url):
            self.problems.append(f"{self.step} {who}: {response.request.method} {response.url} answered {response.status}")

    def _console(self, who: str, message):
        if message.type != "error":
            return
        # The browser logs every 4xx it fetched; one the step expects is not a problem.
        failed = re.search(r"status of (\d+)", message.text)
        url = (message.location or {}).get("url", "")
        if failed and self._expected(int(failed.group(1)), url):
            return
        self.problems.append(f"{self.step} {who}: console error {message.text} ({url})")

    def shot(self, number: int, name: str, page):
        """Screenshot the step, and read it as staff do: a code where a word belongs is a
        problem (issue 35 item 4, the scan of tests/live/test_words_browser.py)."""
        page.screenshot(path=SHOTS / f"{number:02d}-{name}.png", full_page=True)
        for code in sorted(codes_shown(page)):
            self.problems.append(f"{self.step}: the page shows the code {code!r} ({page.url})")

    def manage(self, *args: str) -> subprocess.CompletedProcess:
        """`manage.py ...` in the clone, as an operator runs it there."""
        return subprocess.run(
            [str(self.clone / ".venv" / "bin" / "python"), "manage.py", *args],
            cwd=self.clone, env=self.env, capture_output=True, text=True, timeout=180,
        )


# --- the tablet, as the dealer uses it ----------------------------------------------------


def tablet_step(tablet) -> str:
    return tablet.locator("#next .instruction").first.inner_text()


def open_round(tablet):
    """Accept the bank where it is offered (the rotation moves it), then open a round."""
    accept = tablet.locator("#next button:has-text('accepts')")
    expect(tablet.locator("#next button:has-text('accepts'), #next input[name=bank]").first).to_be_visible()
    if accept.count():
        accept.first.click()
    tablet.locator("input[name=bank]").fill("1000")
    tablet.click("#next button:has-text('Open round')")
    expect(tablet.locator("#next")).to_contain_text("Take the wagers")


def betting_seats(tablet) -> list[int]:
    """The seats offered a wager (every seated player but the player-dealer)."""
    expect(tablet.locator(".seat form.wager").first).to_be_visible()
    return [int(s) for s in tablet.locator(".seat:has(form.wager)").evaluate_all("els => els.map(e => e.dataset.seat)")]


def player_dealer_seat(tablet) -> int:
    return int(tablet.locator(".seat.player_dealer").get_attribute("data-seat"))


def bet(tablet, seat: int, *, trips="", bad_beat="", pairs="", progressive=False, wagers: str):
    """Type the seat's wagers (each field set, or cleared) and tap Bet; the seat then
    shows `wagers`."""
    s = tablet.locator(f".seat[data-seat='{seat}']")
    s.locator("input[name=trips]").fill(trips)
    for name, amount in (("bad_beat", bad_beat), ("pairs", pairs)):
        s.locator(f"input[name={name}]").fill(amount)
    s.locator("input[name=progressive]").set_checked(progressive)
    s.locator("button[type=submit]:has-text('Bet')").click()
    expect(s.locator(".wagers")).to_have_text(wagers)


def everyone_checks(tablet):
    tablet.click("#next button.check-all")


def play_to_showdown(tablet, players: list[int]):
    """Pre-flop and flop: everyone checks; river: the first plays 1x, the others fold."""
    everyone_checks(tablet)
    tablet.click("#next button:has-text('Flop')")
    everyone_checks(tablet)
    tablet.click("#next button:has-text('Turn and river')")
    tablet.click(f".seat[data-seat='{players[0]}'] button.decision.play")
    for seat in players[1:]:
        tablet.click(f".seat[data-seat='{seat}'] button.decision.fold")
    tablet.click("#next button:has-text('Showdown')")


def settle(day: Day, tablet, number: int, name: str) -> str:
    """Settle, screenshot the settlement, Done; the settlement's text."""
    expect(tablet.locator("#preview")).to_contain_text("Settlement preview")
    tablet.click("#next button:has-text('Settle')")
    overlay = tablet.locator("#settlement")
    expect(overlay).to_be_visible()
    day.shot(number, name, tablet)
    text = overlay.text_content()  # with the lines folded under "Every wager in order"
    overlay.locator("button.done").click()
    return text


def pick_cards(tablet, cards: list[str]):
    for card in cards:
        tablet.click(f".picker button.pick[data-card='{card}']")
    tablet.click(".picker button:has-text('Confirm cards')")


def post_json(page, path: str, body: dict) -> dict:
    """A POST from `page`'s own session, with the CSRF token of the page it shows: what a
    screen's script sends (the one shortcut the issue allows, until a screen exists)."""
    return page.evaluate(
        """async ([path, body]) => {
            const token = document.querySelector("input[name=csrfmiddlewaretoken]").value;
            const r = await fetch(path, {method: "POST", credentials: "same-origin",
              headers: {"Content-Type": "application/json", "X-CSRFToken": token}, body: JSON.stringify(body)});
            return {status: r.status, body: await r.json()};
        }""",
        [path, body],
    )


# --- the steps ----------------------------------------------------------------------------


def step_configuration(day: Day):
    """A supervisor asks to add side bets and a progressive to open Demo UTH-1; a second
    supervisor approves it in the queue (the next step's tablet offers them)."""
    supervisor = day.person("supervisor")
    supervisor.goto(f"{day.url}/floor/")
    answer = post_json(supervisor, f"/api/tables/{TABLE}/approvals", {
        "kind": "config", "payload": {"reason": "add Bad Beat, Pairs and the progressive", "config": {"side_bets": SIDE_BETS}},
    })
    assert answer["status"] == 200 and answer["body"]["status"] == "pending", answer
    approver = day.person("supervisor2")
    approver.goto(f"{day.url}/staff/approvals/")
    row = approver.locator("#pending-approvals tr.approval").filter(has_text="add Bad Beat")
    expect(row).to_contain_text("supervisor")
    row.locator("button:has-text('Approve')").click()
    expect(approver.locator("#decided-approvals")).to_contain_text("approved")
    day.shot(1, "configuration-approved", approver)


def tablet(day: Day):
    dealer = day.person("dealer")
    if not dealer.url.endswith(f"/tables/{TABLE}/tablet/"):
        dealer.goto(f"{day.url}/tables/{TABLE}/tablet/")
    expect(dealer.locator("#status")).to_have_text("Live")
    return dealer


def step_side_bets_and_award(day: Day):
    dealer = tablet(day)

    # A round with side bets, from the software's shuffle.
    open_round(dealer)
    players = betting_seats(dealer)[:2]
    bet(dealer, players[0], trips="5", bad_beat="5", pairs="5",
        wagers="Ante $5.00 · Blind $5.00 · Trips $5.00 · Bad Beat $5.00 · Pairs $5.00")
    bet(dealer, players[1], pairs="5", wagers="Ante $5.00 · Blind $5.00 · Pairs $5.00")
    dealer.click("#next button:has-text('No more bets')")
    dealer.click("#next button:has-text('Shuffle and deal')")
    play_to_showdown(dealer, players)
    settled = settle(day, dealer, 2, "side-bets-settled")
    # The wagers in words (issue 35 item 4): never the code `bad_beat`.
    assert re.search(r"Seat \d+Bad Beat\$5\.00", settled) and re.search(r"Seat \d+Pairs\$5\.00", settled), settled

    had_side_bets = players
    # The shuffler's sequence entered on the card picker: the first player gets A-K of
    # spades and the board Q-J of spades on the flop and the ten on the river, a royal
    # flush with a hole card, 5 % of the meter, which a supervisor confirms.
    open_round(dealer)
    players = betting_seats(dealer)[:2]
    # Last round's side bets are not placed again (issue 35 item 1): the fields start
    # empty, and a tap on the $5 preset is an Ante and its Blind alone.
    for seat in [s for s in had_side_bets if s in players]:
        expect(dealer.locator(f".seat[data-seat='{seat}'] input[name=pairs]")).to_have_value("")
    dealer.locator(f".seat[data-seat='{players[1]}'] button.preset[data-ante='500']").click()
    expect(dealer.locator(f".seat[data-seat='{players[1]}'] .wagers")).to_have_text("Ante $5.00 · Blind $5.00")
    bet(dealer, players[0], trips="5", progressive=True, wagers="Ante $5.00 · Blind $5.00 · Trips $5.00 · Progressive $1.00")
    dealer.click("#next button:has-text('No more bets')")
    dealer.click("#next button:has-text('Enter shuffler sequence')")
    # Shuffler order (game-rules 4): two cards to each player in seat order, the
    # player-dealer's two, then the board.
    pick_cards(dealer, ["As", "Ks", "2c", "7d", "8h", "8d", "Qs", "Js", "4d", "Ts", "9h"])
    play_to_showdown(dealer, players)
    expect(dealer.locator("#next .award")).to_contain_text("royal flush with a hole card")
    day.shot(3, "award-waits-for-a-supervisor", dealer)

    floor = day.person("supervisor")
    floor.goto(f"{day.url}/floor/")
    # One click opens what the award pays (seat, hand, cards, amount); the second pays it.
    floor.locator("button.confirm-award").click()
    dialog = floor.locator("#award-dialog")
    expect(dialog.locator("#award-hand")).to_contain_text("royal flush with a hole card")
    dialog.locator("#award-confirm").click()
    expect(dealer.locator("#preview")).to_contain_text("Settlement preview")
    day.shot(4, "award-confirmed-on-the-floor", floor)
    settled = settle(day, dealer, 5, "award-paid")
    assert "royal flush with a hole card (5% of the meter)" in settled and "paid from the fund" in settled, settled

    # Then the floor idles (issue 35 item 3): for 10 s it replaces no tile and no button a
    # supervisor may be reaching for (the relief panel's clocks may tick).
    floor.wait_for_timeout(2_000)  # the settled round's row, drawn
    floor.evaluate(WATCH)
    floor.wait_for_timeout(10_000)
    removed = floor.evaluate("window.removed")
    assert (removed["buttons"], removed["tiles"]) == (0, 0), removed


def voided(tablet):
    """The tablet says the round was voided, and no round is in progress."""
    # Its words and its Dismiss, nothing else (a message once ended in "null").
    expect(tablet.locator("#message:visible")).to_have_text(re.compile(r"^Round voided.* refunded\.\s*Dismiss$"))
    expect(tablet.locator("#round-label")).to_contain_text("Between rounds")


def step_voids(day: Day):
    dealer = tablet(day)
    # A void the supervisors decide in their queue.
    open_round(dealer)
    seat = betting_seats(dealer)[0]
    bet(dealer, seat, pairs="5", wagers="Ante $5.00 · Blind $5.00 · Pairs $5.00")
    dealer.click("button:has-text('Request a void')")
    dealer.fill("#void-dialog input[name=reason]", "cards exposed on the pitch")
    dealer.click("#void-dialog button[value=request]")
    expect(dealer.locator(".void-request")).to_contain_text("waiting for a supervisor")
    day.shot(6, "void-requested", dealer)
    approver = day.person("supervisor2")
    approver.goto(f"{day.url}/staff/approvals/")
    row = approver.locator("#pending-approvals tr.approval").filter(has_text="cards exposed")
    row.locator("button:has-text('Approve')").click()
    expect(approver.locator("#decided-approvals tr").filter(has_text="Void").first).to_contain_text("approved")
    voided(dealer)
    day.shot(7, "void-approved-in-the-queue", approver)

    # A void a supervisor approves at the table with their own credentials.
    dealer.locator("#message button.dismiss").click()
    open_round(dealer)
    seat = betting_seats(dealer)[0]
    bet(dealer, seat, wagers="Ante $5.00 · Blind $5.00")
    dealer.click("button:has-text('Request a void')")
    dealer.fill("#void-dialog input[name=reason]", "misdeal")
    dealer.fill("#void-dialog input[name=username]", "supervisor2")
    dealer.fill("#void-dialog input[name=password]", PASSWORDS["supervisor2"])
    dealer.click("#void-dialog button[value=approve-here]")
    voided(dealer)
    day.shot(8, "void-approved-at-the-table", dealer)


EMPTY_TABLE = 6  # Demo UTH-6: no players and, this shift, no drop box


def step_no_round_without_its_box(day: Day):
    """The empty demo table has no fee box this shift: the dealer seats two players and is
    refused the round, in words; a supervisor places its box on the Drop boxes page; the
    round opens (issue 35 item 2)."""
    dealer = day.person("dealer")
    dealer.goto(f"{day.url}/tables/{EMPTY_TABLE}/tablet/")
    expect(dealer.locator("#status")).to_have_text("Live")
    for seat, player in ((1, "P-601"), (2, "P-602")):
        form = dealer.locator(f"#seats form[data-sit='{seat}']")
        form.locator("input[name=player]").fill(player)
        form.locator("button:has-text('Sit')").click()
        expect(dealer.locator(f".seat[data-seat='{seat}']")).to_contain_text(player)
    dealer.click("#next button:has-text('Offer to seat 1')")
    dealer.locator("#next button:has-text('accepts')").first.click()
    dealer.locator("input[name=bank]").fill("1000")
    dealer.click("#next button:has-text('Open round')")
    expect(dealer.locator("#message")).to_contain_text("drop boxes are placed")
    expect(dealer.locator("#message")).to_contain_text(f"FEES-{EMPTY_TABLE}")
    day.shot(17, "refused-without-a-box", dealer)

    supervisor = day.person("supervisor")
    supervisor.goto(f"{day.url}/compliance/boxes/")
    place = supervisor.locator("form:has(input[name=action][value=place])")
    place.locator("select[name=table]").select_option(str(EMPTY_TABLE))
    place.locator("select[name=box]").select_option(label=f"FEES-{EMPTY_TABLE} (fees)")
    place.locator("button[type=submit]").click()
    expect(supervisor.locator("ul.messages")).to_contain_text(f"FEES-{EMPTY_TABLE}")
    day.shot(18, "box-placed", supervisor)

    dealer.locator("#message button.dismiss").click()
    dealer.locator("input[name=bank]").fill("1000")
    dealer.click("#next button:has-text('Open round')")
    expect(dealer.locator("#next")).to_contain_text("Take the wagers")


def step_correction(day: Day):
    """A supervisor finds a settled round of today in the round history and asks for its
    correction there; a second supervisor approves it in the queue."""
    supervisor = day.person("supervisor")
    supervisor.goto(f"{day.url}/compliance/rounds/")
    supervisor.select_option("select[name=table]", str(TABLE))
    supervisor.select_option("select[name=status]", "settled")
    supervisor.click("form.filters button:has-text('Show')")
    supervisor.locator("table.grid tbody tr td:nth-child(2) a").first.click()
    expect(supervisor.locator("h1")).to_contain_text("Demo UTH-1")
    supervisor.fill("#correction-form input[name=reason]", "Pairs paid on the wrong seat")
    supervisor.click("#correction-form button[type=submit]")
    expect(supervisor.locator("ul.messages")).to_contain_text("Correction requested")
    expect(supervisor.locator("#correction-requests li[data-status=pending]")).to_be_visible()
    round_page = supervisor.url
    day.shot(9, "correction-requested", supervisor)

    approver = day.person("supervisor2")
    approver.goto(f"{day.url}/staff/approvals/")
    row = approver.locator("#pending-approvals tr.approval").filter(has_text="Pairs paid on the wrong seat")
    row.locator("button:has-text('Approve')").click()
    expect(approver.locator("#decided-approvals tr").filter(has_text="Correct a settled round").first).to_contain_text("approved")
    supervisor.goto(round_page)
    expect(supervisor.locator("#round-corrected")).to_contain_text("Reversed")
    day.shot(10, "correction-approved", supervisor)


def cents(text: str) -> int:
    whole, part = text.strip().lstrip("$").replace(",", "").split(".")
    return int(whole) * 100 + int(part)


def seeded_count_sheet(day: Day) -> tuple[str, str, str]:
    """The previous shift seed_demo played: the count sheet address it printed, its
    gaming day and shift."""
    found = re.search(r"ready to count\): (/compliance/count/(\S+)/(\S+)/)", day.printed)
    assert found, day.printed
    return found.groups()


def step_count_and_close(day: Day):
    """The seeded previous shift: counted by two, a large variance approved by the
    manager, signed, closed by a supervisor, reopened on request with a manager's approval."""
    path, gaming_day, shift = seeded_count_sheet(day)
    counter = day.person("counter")
    counter.goto(f"{day.url}/compliance/count/?day={gaming_day}")
    counter.click(f"a:text-is('{shift}')")
    counter.click("button:has-text('Open the count sheet')")
    expect(counter.locator("ul.messages")).to_contain_text("Count sheet opened")
    rows = counter.locator("tbody tr:has(input[name=action][value=count])")
    boxes = rows.count()
    assert boxes >= 5, counter.content()  # a fee box per played table, and UTH-3's jackpot box
    for i in range(boxes):
        row = rows.nth(i)
        expected = cents(row.locator("td.num").first.inner_text())
        # The first box is found $150.00 over: above the escalation threshold ($100.00).
        counted = expected + (15000 if i == 0 else 0)
        row.locator("input[name=d100]").fill(str(counted // 100))
        row.locator("input[name=d1]").fill(str(counted % 100))
        if i == 0:
            row.locator("input[name=explanation]").fill("three $50 bills found under the box's flap")
        row.locator("button[type=submit]").click()
        expect(counter.locator("ul.messages")).to_contain_text("Box counted")
    expect(counter.locator("td .flag:text('needs a manager')")).to_be_visible()
    day.shot(11, "boxes-counted", counter)

    manager = day.person("manager")
    manager.goto(f"{day.url}{path}")
    manager.fill("input[name=note]", "bills traced to the previous shift's fill")
    manager.click("form:has(input[value=approve_variance]) button")
    expect(manager.locator("ul.messages")).to_contain_text("Variance approved")
    day.shot(12, "variance-approved", manager)

    for name in ("counter", "counter2"):
        page = day.person(name)
        page.goto(f"{day.url}{path}")
        page.click("button:has-text('Sign the count as it stands')")
        expect(page.locator("ul.messages")).to_contain_text("Count sheet signed")
    expect(page.locator("h1")).to_contain_text("signed")
    day.shot(13, "count-signed", page)

    supervisor = day.person("supervisor")
    supervisor.goto(f"{day.url}{path}")
    supervisor.click("button:has-text('Close the shift')")
    expect(supervisor.locator("ul.messages")).to_contain_text("Shift closed")
    day.shot(14, "shift-closed", supervisor)

    counter.goto(f"{day.url}{path}")
    counter.fill("input[name=reason]", "a box's recount was asked for by the cage")
    counter.click("button:has-text('Ask a manager to reopen')")
    expect(counter.locator("ul.messages")).to_contain_text("Reopen requested")
    manager.goto(f"{day.url}{path}")
    manager.click("button:has-text('Approve the reopen')")
    expect(manager.locator("ul.messages")).to_contain_text("Shift reopened")
    day.shot(15, "shift-reopened", manager)


def step_exports(day: Day):
    """Compliance downloads every export its pages link to, then each one's manifest
    (the exports page's link); verify_logs --checkpoints checks each file offline."""
    path, gaming_day, shift = seeded_count_sheet(day)
    officer = day.person("compliance")
    folder = Path(tempfile.mkdtemp(prefix="journey-exports-"))
    pages = [
        "/compliance/collections/", "/compliance/jackpot/", "/compliance/rounds/", "/compliance/rotation/",
        path, f"/compliance/count/?day={gaming_day}", f"/compliance/closer/{gaming_day}/?shift={shift}",
    ]
    exported = []  # (file, manifest address)
    for address in pages:
        officer.goto(f"{day.url}{address}")
        links = officer.locator(".exports a, p.muted a:text-matches('^(CSV|XLSX|Print)')")
        if links.count() == 0:  # a log page shows its exports once filtered
            officer.click("form.filters button:has-text('Show')")
        # Every file the page offers (a page's .exports also link other pages: the closer).
        hrefs = [h for h in links.evaluate_all("els => els.map(e => e.getAttribute('href'))")
                 if re.search(r"(export\.csv|\.xlsx|/print/)", h)]
        assert hrefs, f"no export on {address}"
        for href in hrefs:
            link = officer.locator(f"a[href='{href}']").first
            with officer.expect_response(lambda r, h=href: r.url.endswith(h.split("#")[0])) as answered:
                if "/print/" in href:  # a print opens as a page (its bytes recorded)
                    link.click()
                else:
                    with officer.expect_download() as downloading:
                        link.click()
            response = answered.value
            name = re.search(r'filename="([^"]+)"', response.headers["content-disposition"]).group(1)
            target = folder / name
            if "/print/" in href:
                target.write_bytes(response.body())
                officer.go_back()
            else:
                downloading.value.save_as(target)
            manifest = re.search(r"<([^>]+)>", response.headers["link"]).group(1)
            exported.append((target, manifest))
    # A streamed export's manifest is recorded once its last byte has gone, which may be
    # just after the browser has the file: the officer reloads the list until it is there.
    deadline = time.monotonic() + 20
    while True:
        officer.goto(f"{day.url}/compliance/exports/")
        missing = [m for _, m in exported if officer.locator(f"a[href='{m}']").count() != 1]
        if not missing:
            break
        assert time.monotonic() < deadline, f"not listed on the exports page: {missing}"
        officer.wait_for_timeout(500)
    day.shot(16, "exports-listed", officer)
    for target, manifest in exported:
        answer = officer.goto(f"{day.url}{manifest}")
        manifest_file = target.with_name(target.name + ".manifest.json")
        manifest_file.write_bytes(answer.body())
        checked = day.manage("verify_logs", "--checkpoints", str(manifest_file))
        assert checked.returncode == 0 and ", 0 problems" in checked.stdout, (target.name, checked.stdout, checked.stderr)
    kinds = {json.loads(t.with_name(t.name + ".manifest.json").read_text())["kind"] for t, _ in exported}
    assert {"collections", "jackpot", "rounds", "count_sheet", "closer_summary"} <= kinds, kinds
    day.exported = [t.name for t, _ in exported]


STEPS = [step_configuration, step_side_bets_and_award, step_voids, step_no_round_without_its_box, step_correction, step_count_and_close, step_exports]


@pytest.fixture
def served_clone(localdb_dir):
    folder = Path(tempfile.mkdtemp(prefix="cardroom-journey-"))
    clone = clone_of_head(folder)
    run = ReadmeRun(localdb_dir, cwd=clone)
    try:
        started = time.monotonic()
        run.start()  # creates the cluster, migrates, seeds and serves
        run.started_in = round(time.monotonic() - started, 1)
        yield run
    finally:
        stopped = None
        if getattr(run, "process", None) is not None and run.process.poll() is None:
            stopped = run.ctrl_c()
        subprocess.run(["rm", "-rf", str(folder)], check=False)
    # Ctrl-C alone stopped it, however this suite was launched (tests/process_group.py).
    assert stopped == signal.SIGINT, run.output()[-2000:]


def walk(browser, url: str, clone: Path, env: dict, printed: str, steps=STEPS) -> dict[str, float]:
    """Each step in turn, failing at the first with a problem; the seconds each took."""
    day = Day(browser=browser, url=url, clone=clone, env=env, printed=printed)
    timings = {}
    for step in steps:
        day.step, day.allowed = step.__name__, []
        started = time.monotonic()
        step(day)
        timings[step.__name__] = round(time.monotonic() - started, 1)
        assert day.problems == [], day.problems
    return timings


def test_the_whole_day_in_chromium_on_make_run_from_a_fresh_clone(served_clone):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)", pytrace=False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            timings = walk(browser, served_clone.url, served_clone.cwd, served_clone.env, served_clone.output())
            timings = {"make_run_until_serving": served_clone.started_in, **timings}
        finally:
            browser.close()
    (SHOTS / "timings.json").write_text(json.dumps(timings, indent=2))

"""Every word staff read is a word, as Chromium draws it (issue 35 item 4).

The floor's tiles and alerts, the tablet's seats, next step, table rules and settlement,
the lobby board and the relief panel are drawn by scripts from socket messages, which the
served-HTML scan (tests/service/test_words_not_codes.py) never sees. Here the seeded demo
is served by Daphne, each person opens their screens in a Chromium of their own, and the
text the page shows once it is live (inside `<code>`, scripts and the like aside: the
same allowlist) is scanned for snake_case codes. A round with side bets and a refusal are
played on a tablet so that the settlement and a refusal's banner are read too.
"""

import io
import re

import pytest
from django.core.management import call_command

from tables.models import Table

from .test_browser import browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_journey_browser import open_round
from .test_screens import log_in
from .words import codes_shown

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

def demo_login(context, url, username, path):
    return log_in(context, url, username, path, password=f"{username}-demo")  # seed_demo's demo passwords


def test_no_screen_drawn_by_a_script_shows_a_code(daphne, browsers):
    call_command("seed_demo", stdout=io.StringIO())
    tables = {t.name: t.pk for t in Table.objects.all()}
    found = {}

    def scan(page, where):
        for code in codes_shown(page):
            found.setdefault(code, []).append(where)

    dealer = demo_login(browsers(), daphne.url, "dealer", "/")
    for name, pk in sorted(tables.items()):
        dealer.goto(f"{daphne.url}/tables/{pk}/tablet/")
        expect(dealer.locator("#status")).to_have_text("Live")
        expect(dealer.locator("#next .instruction").first).to_be_visible()
        scan(dealer, f"tablet {name}")
        dealer.click("button:has-text('Table rules')")
        expect(dealer.locator("#rules-dialog")).to_be_visible()
        scan(dealer, f"table rules {name}")
        dealer.keyboard.press("Escape")

    # A round with Bad Beat and Pairs on Demo UTH-2, settled: its settlement read too,
    # and a refusal's banner (a wager below the table minimum).
    dealer.goto(f"{daphne.url}/tables/{tables['Demo UTH-2']}/tablet/")
    expect(dealer.locator("#status")).to_have_text("Live")
    open_round(dealer)
    expect(dealer.locator(".seat form.wager").first).to_be_visible()
    seats = dealer.locator(".seat:has(form.wager)").evaluate_all("els => els.map(e => e.dataset.seat)")
    first = dealer.locator(f".seat[data-seat='{seats[0]}']")
    first.locator("input[name=ante]").fill("1")
    first.locator("button[type=submit]:has-text('Bet')").click()
    expect(dealer.locator("#message")).to_contain_text("below the table minimum")
    scan(dealer, "tablet refusal")
    first.locator("input[name=ante]").fill("5")
    first.locator("input[name=trips]").fill("5")  # Bad Beat needs Trips at the seat
    first.locator("input[name=bad_beat]").fill("5")
    first.locator("input[name=pairs]").fill("5")
    first.locator("button[type=submit]:has-text('Bet')").click()
    expect(first.locator(".wagers")).to_contain_text("Bad Beat $5.00")
    second = dealer.locator(f".seat[data-seat='{seats[1]}']")
    second.locator("button.preset[data-ante='500']").click()
    expect(second.locator(".wagers")).to_have_text("Ante $5.00 · Blind $5.00")
    dealer.click("#next button:has-text('No more bets')")
    dealer.click("#next button:has-text('Shuffle and deal')")
    dealer.click("#next button.check-all")
    dealer.click("#next button:has-text('Flop')")
    dealer.click("#next button.check-all")
    dealer.click("#next button:has-text('Turn and river')")
    dealer.click(f".seat[data-seat='{seats[0]}'] button.decision.play")
    dealer.click(f".seat[data-seat='{seats[1]}'] button.decision.fold")
    dealer.click("#next button:has-text('Showdown')")
    expect(dealer.locator("#preview")).to_contain_text("Settlement preview")
    scan(dealer, "tablet settlement preview")
    dealer.click("#next button:has-text('Settle')")
    expect(dealer.locator("#settlement")).to_be_visible()
    dealer.click("#settlement .lines-detail summary")
    scan(dealer, "tablet settlement")
    dealer.click("#settlement .done")

    supervisor = demo_login(browsers(), daphne.url, "supervisor", "/floor/")
    expect(supervisor.locator("#floor-tiles .tile")).to_have_count(len(tables))
    scan(supervisor, "floor")
    for path in ("/floor/relief/", "/floor/waitlist/", "/lobby/", f"/tables/{tables['Demo UTH-3']}/"):
        supervisor.goto(f"{daphne.url}{path}")
        supervisor.wait_for_load_state("networkidle")
        scan(supervisor, path)
    relief = demo_login(browsers(), daphne.url, "dealer2", "/relief/")
    scan(relief, "relief dealer's pushes")

    assert found == {}, found
    assert dealer.errors == [] and supervisor.errors == [] and relief.errors == []


def test_the_scan_reads_what_a_script_drew_and_skips_code_elements(daphne, browsers):
    call_command("seed_demo", stdout=io.StringIO())
    page = demo_login(browsers(), daphne.url, "supervisor", "/floor/")
    page.evaluate("""() => {
        const p = document.createElement("p"); p.textContent = "Refused: seat_taken";
        const code = document.createElement("code"); code.textContent = "full_house";
        const hidden = document.createElement("p"); hidden.hidden = true; hidden.textContent = "in_progress";
        document.body.append(p, code, hidden);
    }""")
    assert codes_shown(page) == {"seat_taken"}

"""The tablet's defects of issue 22 (items 1 to 8), in Chromium at 1280x800.

One table, two browsers: the assigned dealer's tablet and a supervisor's tablet of the same
table. A refused Ante then an accepted one (the banner goes, and never moves the page);
seats that do not say "To decide" before the cards are out; "Dealt by hand" kept in the
table's state (the second browser and a reload show the decisions step); the card picker
above the fold; a void request shown in both browsers; and the confirmations before a
tap that cannot be taken back.
"""

import pytest

from rounds.models import Round
from tests.engine.helpers import example_b

from .conftest import make_table, run
from .test_browser import ARTIFACTS, browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_screens import FEES, LIMITS, assign, betting_table, floor_staff, in_view, log_in  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def top_of(page, selector) -> float:
    return page.evaluate("(s) => document.querySelector(s).getBoundingClientRect().top", selector)


def test_the_tablet_keeps_hand_dealt_and_void_requests_in_the_table_and_its_banner_out_of_the_way(
    daphne, betting_table, browsers
):
    ARTIFACTS.mkdir(exist_ok=True)
    run(betting_table.pk, {"type": "open_round", "bank": 100000})
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")

    # Item 2: "abc" refused in the browser, then "7.50" accepted: the banner goes, and
    # while it shows the table does not move down.
    seats_top = top_of(tablet, "#seats")
    seat2 = tablet.locator(".seat[data-seat='2']")
    seat2.locator("input[name=ante]").fill("abc")
    seat2.locator("button[type=submit]:has-text('Bet')").click()
    banner = tablet.locator("#message")
    expect(banner).to_contain_text("whole, positive numbers of dollars and cents")
    assert top_of(tablet, "#seats") == seats_top
    tablet.screenshot(path=ARTIFACTS / "issue22-banner-over-the-page.png")
    seat2.locator("input[name=ante]").fill("7.50")
    seat2.locator("button[type=submit]:has-text('Bet')").click()
    expect(seat2.locator(".wagers")).to_have_text("Ante $7.50 · Blind $7.50")
    expect(banner).to_be_hidden()
    tablet.locator(".seat[data-seat='3'] button.preset[data-ante='500']").click()
    expect(tablet.locator(".seat[data-seat='3'] .wagers")).to_contain_text("Ante $5.00")
    tablet.click("button:has-text('No more bets')")

    # Item 7: before any card is out nobody is "To decide".
    expect(tablet.locator("button:has-text('Shuffle and deal')")).to_be_visible()
    expect(tablet.locator(".seat .decision-state", has_text="To decide")).to_have_count(0)
    expect(tablet.locator(".collect-fees")).to_be_visible()
    # The fee panel lies below the panel's head ("Table rules"), not under it.
    head = tablet.locator(".next-head").bounding_box()
    fees = tablet.locator(".collect-fees").bounding_box()
    assert fees["y"] >= head["y"] + head["height"]
    tablet.screenshot(path=ARTIFACTS / "issue22-deal-step-fees.png")

    # Item 1: dealt by hand, kept in the table's state.
    tablet.click("button.deal-by-hand")
    expect(tablet.locator("button.check-all")).to_have_text("Everyone checks (seats 2, 3)")
    expect(tablet.locator("button:has-text('Shuffle and deal')")).to_have_count(0)
    expect(tablet.locator(".seat[data-seat='2'] .decision-state")).to_have_text("To decide")
    second = log_in(browsers(), daphne.url, "sam", f"/tables/{betting_table.pk}/tablet/")
    expect(second.locator("button.check-all")).to_have_text("Everyone checks (seats 2, 3)")
    tablet.reload()
    expect(tablet.locator("button.check-all")).to_have_text("Everyone checks (seats 2, 3)")
    tablet.click("button.check-all")

    # Item 7: the picker's last row and "Confirm cards" above the fold at 1280x800.
    tablet.click("button:has-text('Enter flop cards')")
    expect(tablet.locator(".picker")).to_be_visible()
    assert in_view(tablet, ".card-grid .pick[data-card='2c']"), "the picker's last card is below the fold"
    assert in_view(tablet, ".picker .row button.primary")  # Confirm cards
    tablet.screenshot(path=ARTIFACTS / "issue22-picker-1280x800.png")
    # Issue 35 item 6: on a 390x844 phone "Confirm cards" stays on screen, clear of the
    # bottom edge, whether the dealer is at the slots or at the last card; it never covers
    # the card being picked.
    tablet.set_viewport_size({"width": 390, "height": 844})
    confirm = ".picker .row button.primary"
    clear_of_the_edge = f"""() => document.querySelector("{confirm}").getBoundingClientRect().bottom <= window.innerHeight - 4"""
    for card in ("As", "2c"):
        tablet.locator(f".card-grid .pick[data-card='{card}']").scroll_into_view_if_needed()
        assert in_view(tablet, confirm) and tablet.evaluate(clear_of_the_edge), card
        picked = tablet.locator(f".card-grid .pick[data-card='{card}']").bounding_box()
        button = tablet.locator(confirm).bounding_box()
        assert picked["y"] + picked["height"] <= button["y"] or picked["y"] >= button["y"] + button["height"], card
    for card in ("As", "Kd", "2c"):
        tablet.click(f".card-grid .pick[data-card='{card}']")
    expect(tablet.locator(confirm)).to_be_enabled()
    assert in_view(tablet, confirm)
    tablet.screenshot(path=ARTIFACTS / "issue35-picker-390x844.png")
    tablet.set_viewport_size({"width": 1280, "height": 800})
    tablet.click(".picker button:has-text('Cancel')")

    # Item 4: a void requested in one browser is the table's: the other shows it too.
    expect(second.locator("button:has-text('Request a void')")).to_be_visible()
    tablet.click("button:has-text('Request a void')")
    tablet.fill("#void-dialog input[name=reason]", "card exposed")
    tablet.click("#void-dialog button[value=request]")
    expect(tablet.locator(".void-request")).to_contain_text("waiting for a supervisor")
    expect(second.locator(".void-request")).to_contain_text("Void requested for round 1 by dan")
    expect(second.locator("button:has-text('Request a void')")).to_have_count(0)
    second.reload()
    expect(second.locator(".void-request")).to_contain_text("by dan")
    second.screenshot(path=ARTIFACTS / "issue22-void-request-second-browser.png")
    assert tablet.errors == [] and second.errors == []


def test_leaving_passing_the_bank_and_everyone_declining_are_asked_first(daphne, betting_table, browsers):
    """Item 6: each asks in a dialog; Cancel sends nothing, the second answer sends it."""
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    dialog = tablet.locator("#confirm-dialog")

    tablet.click(".seat[data-seat='4'] button.leave")
    expect(dialog).to_contain_text("Seat 4 (P-4) leaves the table?")
    dialog.locator("button:has-text('Cancel')").click()
    expect(dialog).to_be_hidden()
    tablet.wait_for_timeout(500)  # a tap would be answered within this
    expect(tablet.locator(".seat[data-seat='4'] .player")).to_have_text("P-4")
    tablet.click(".seat[data-seat='4'] button.leave")
    dialog.locator("button.go").click()
    expect(tablet.locator(".seat[data-seat='4'] .player")).to_have_text("empty")

    tablet.click("button.pass-bank")
    expect(dialog).to_contain_text("Seat 1 (P-1) passes the bank?")
    tablet.screenshot(path=ARTIFACTS / "issue22-confirm-pass-the-bank.png")
    dialog.locator("button.go").click()
    everyone = tablet.locator("button.everyone-declines")
    expect(everyone).to_be_visible()
    everyone.click()
    expect(dialog).to_contain_text("the game stops")
    dialog.locator("button.go").click()
    expect(tablet.locator("#next")).to_contain_text("Game stopped")
    assert tablet.errors == []


def test_an_exhausted_banks_totals_show_what_is_uncovered_and_where_the_progressive_goes(daphne, floor_staff, browsers):
    """Item 5: the seat totals carry the uncovered amounts (worked example B: the bank runs
    out), to the cent, from the preview's own lines."""
    table = make_table(seats=6, fee_schedule=FEES)
    assign(floor_staff["dealer"], table, floor_staff["sup"])
    run(table.pk, *example_b(dealt=True))
    table.refresh_from_db()
    from tables.selectors import table_snapshot
    from rounds.visibility import TABLET

    preview = table_snapshot(table, TABLET)["view"]["settlement_preview"]
    uncovered = {}
    for line in preview["lines"]:
        if line["result"] == "win" and line["uncovered"]:
            uncovered[line["seat"]] = uncovered.get(line["seat"], 0) + line["uncovered"]
    assert uncovered, "example B leaves a win uncovered"
    tablet = log_in(browsers(), daphne.url, "dan", f"/tables/{table.pk}/tablet/")
    for seat, cents in uncovered.items():
        total = tablet.locator(f"#preview tr.total[data-seat='{seat}']")
        expect(total).to_have_attribute("data-uncovered", str(cents))
        expect(total.locator("td.do")).to_contain_text(f"${cents // 100:,}.{cents % 100:02d} uncovered")
    tablet.screenshot(path=ARTIFACTS / "issue22-exhausted-totals.png", full_page=True)

    # Item 8: at "no more bets" the tablet says where the progressive chips go: the jackpot
    # box placed with the configuration (tests/service/test_access.py places it so).
    from cardroom.access import Actor
    from collections_fees.counts import jackpot_box_with_progressive
    from tests.engine.test_sidebets import PROGRESSIVE

    jackpot_table = make_table(seats=6, side_bets={"progressive": PROGRESSIVE})
    assign(floor_staff["dealer"], jackpot_table, floor_staff["sup"])
    jackpot_box_with_progressive(table_id=jackpot_table.pk, actor=Actor.of(floor_staff["sup"]))
    run(jackpot_table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3)],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, {"type": "open_round", "bank": 100000},
        {"type": "wager", "seat": 2, "ante": 500, "progressive": PROGRESSIVE["wager"]},
        {"type": "wager", "seat": 3, "ante": 500, "progressive": PROGRESSIVE["wager"]})
    tablet.goto(f"{daphne.url}/tables/{jackpot_table.pk}/tablet/")
    drop = tablet.locator("#next .progressive-drop")
    cents = 2 * PROGRESSIVE["wager"]
    expect(drop).to_contain_text(f"Progressive ${cents // 100:,}.{cents % 100:02d} (seats 2, 3)")
    expect(drop).to_contain_text(f"drop the chips into jackpot box JACKPOT-{jackpot_table.pk}")
    tablet.screenshot(path=ARTIFACTS / "issue22-progressive-drop.png")
    assert tablet.errors == []


CACHE = "cardroom-tablet-v1"  # static/tablet-sw.js


def test_a_reload_with_the_network_down_comes_back_to_the_queued_taps_and_the_last_table(daphne, betting_table, browsers):
    """Item 9: the service worker keeps the tablet's page and scripts; offline, a reload
    draws the last snapshot this person saw (newer than the cached page's), marked as not
    current, with the queued tap; back online the tap is sent once. Logging out empties
    what the device kept."""
    from tables.models import Table

    def seat_2_wager():
        return (Table.objects.get(pk=betting_table.pk).state["round"]["seats"].get("2") or {}).get("ante")

    run(betting_table.pk, {"type": "open_round", "bank": 100000})
    context = browsers()
    tablet = log_in(context, daphne.url, "dan", f"/tables/{betting_table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    tablet.wait_for_function("() => navigator.serviceWorker.controller !== null")
    tablet.wait_for_function(
        f"() => caches.open('{CACHE}').then((c) => c.keys()).then((k) => k.map((r) => r.url).join(' '))"
        ".then((urls) => urls.includes('/tablet/') && urls.includes('table.js') && urls.includes('live.js'))"
    )
    # A change after the page was cached: the kept snapshot, not the cached page's, shows it.
    tablet.locator(".seat[data-seat='3'] button.preset[data-ante='500']").click()
    expect(tablet.locator(".seat[data-seat='3'] .wagers")).to_contain_text("Ante $5.00")

    context.set_offline(True)
    daphne.stop()  # the socket too (offline emulation does not close an open websocket)
    expect(tablet.locator("#status")).not_to_have_text("Live")
    tablet.locator(".seat[data-seat='2'] button.preset[data-ante='1000']").click()
    expect(tablet.locator("#status")).to_contain_text("1 tap queued")
    tablet.reload()
    expect(tablet.locator("#table-name")).to_have_text(betting_table.name)
    expect(tablet.locator("#status")).to_contain_text("1 tap queued")
    expect(tablet.locator("#status")).to_contain_text("not current")
    expect(tablet.locator("#status")).to_have_attribute("data-current", "false")
    expect(tablet.locator(".seat[data-seat='3'] .wagers")).to_contain_text("Ante $5.00")
    expect(tablet.locator(".seat[data-seat='2'] .badge.queued")).to_contain_text("Bet $10.00")
    tablet.screenshot(path=ARTIFACTS / "issue22-offline-reload.png")
    assert seat_2_wager() is None

    daphne.start()
    context.set_offline(False)
    expect(tablet.locator("#status")).to_have_text("Live", timeout=20000)
    expect(tablet.locator("#status")).to_have_attribute("data-current", "true")
    expect(tablet.locator(".seat[data-seat='2'] .wagers")).to_contain_text("Ante $10.00")
    assert seat_2_wager() == 1000

    tablet.click("header form[data-logout] button")
    expect(tablet).to_have_url(__import__("re").compile(r"/accounts/login/"))
    kept = tablet.evaluate(
        f"() => caches.has('{CACHE}').then((cache) => [Object.keys(localStorage).filter((k) => k.startsWith('cardroom.')), cache])"
    )
    assert kept == [[], False]
    assert tablet.errors == []

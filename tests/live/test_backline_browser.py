"""Backline wagers on the tablet (game-rules 12), end to end in headless Chromium: two
bettors behind one seat, added (and one withdrawn) on the tablet, their Play taken with
the seat's, and the settlement overlay listing each bettor's lines, named, under the seat.
The read-only live view of the same table, and the floor's tile, show how many bettors
and their wagers, never their ids. Screenshots go to test-artifacts/."""

import pytest

from rounds.labels import WAGER

from rounds.models import SettlementLine
from tests.engine.helpers import FEES

from .conftest import assign_dealer, make_table, run
from .test_browser import ARTIFACTS, browsers, daphne, expect, log_in, pick  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def backline_table(transactional_db, dealer):
    table = make_table(
        seats=6, limits={"ante_min": 500, "ante_max": 100000}, fee_schedule=FEES,
        backline={"max_per_seat": 2, "trips": True},
    )
    run(
        table.pk,
        *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)],
        {"type": "offer_bank", "seat": 1},
        {"type": "accept_bank", "seat": 1},
    )
    assign_dealer(table)
    return table


def add_backline(seat, bettor: str, ante: str, trips: str = ""):
    seat.locator("details.backline-add summary").click()
    seat.locator("input[name=bettor]").fill(bettor)
    seat.locator("input[name=ante]").last.fill(ante)  # the seat's own Ante field comes first
    if trips:
        seat.locator("input[name=trips]").last.fill(trips)
    seat.locator("button:has-text('Add backline')").click()


def test_two_backlines_behind_a_seat_are_played_through_to_the_settlement(daphne, backline_table, browsers):
    ARTIFACTS.mkdir(exist_ok=True)
    table = backline_table
    context = browsers()
    tablet = log_in(context, daphne.url, f"/tables/{table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    live = context.new_page()  # the read-only live view, in the same session
    live.goto(f"{daphne.url}/tables/{table.pk}/")
    expect(live.locator("#status")).to_have_text("Live")

    tablet.fill("input[name=bank]", "1000")
    tablet.click("button:has-text('Open round')")
    seat = tablet.locator(".seat[data-seat='2']")
    expect(seat.locator("details.backline-add")).to_have_count(0)  # nobody goes behind a seat without a wager
    seat.locator("button[type=submit]:has-text('Bet')").click()
    expect(seat.locator(".wagers").first).to_have_text("Ante $5.00 · Blind $5.00")

    add_backline(seat, "B-Ann", "10", "5")
    expect(seat.locator(".backlines li")).to_have_count(1)
    add_backline(seat, "B-Cat", "15")
    expect(seat.locator(".backlines li")).to_have_count(2)
    expect(seat.locator("details.backline-add")).to_have_count(0)  # two behind a seat: the most this table allows
    seat.locator(".backlines li[data-bettor='B-Cat'] button.backline-withdraw").click()
    expect(seat.locator(".backlines li")).to_have_count(1)
    add_backline(seat, "B-Bob", "20")
    expect(seat.locator(".backlines")).to_have_attribute("data-count", "2")
    expect(seat.locator(".backlines li .bettor")).to_have_text(["B-Ann", "B-Bob"])
    expect(seat.locator(".backlines li[data-bettor='B-Ann'] .wagers")).to_have_text("Ante $10.00 · Blind $10.00 · Trips $5.00")

    # The live view: how many, and their wagers; no bettor's id anywhere on the page.
    live_seat = live.locator(".seat[data-seat='2']")
    expect(live_seat.locator(".backlines")).to_contain_text("2 backlines behind")
    expect(live_seat.locator(".backlines li .bettor")).to_have_text(["Backline 1", "Backline 2"])
    expect(live_seat.locator(".backlines li").nth(1).locator(".wagers")).to_have_text("Ante $20.00 · Blind $20.00")
    assert not any(b in live.content() for b in ("B-Ann", "B-Bob", "B-Cat"))
    # The floor's tile: how many behind seat 2 and their Antes, no bettor's id.
    floor = context.new_page()
    floor.goto(f"{daphne.url}/floor/")
    fact = floor.locator(f".tile[data-table='{table.pk}'] .fact.backline")
    expect(fact.locator(".label")).to_have_text("Behind seat 2")
    expect(fact.locator(".value")).to_have_text("2 backlines: $10.00 + $20.00")
    assert not any(b in floor.content() for b in ("B-Ann", "B-Bob", "B-Cat"))

    tablet.click("button:has-text('No more bets')")
    tablet.click("button:has-text('Dealt by hand')")
    # One tap decides for the seat and the bettors behind it (the engine carries it).
    seat.locator("button:has-text('Play 4×')").click()
    expect(seat.locator(".backlines li[data-bettor='B-Bob'] .wagers")).to_have_text("Ante $20.00 · Blind $20.00 · Play $80.00")
    tablet.click("button:has-text('Enter flop cards')")
    pick(tablet, "2h", "7h", "9h")
    tablet.click("button:has-text('Enter turn and river cards')")
    pick(tablet, "Kc", "4d")
    tablet.click("button:has-text('Enter showdown cards')")
    pick(tablet, "Ks", "3c", "Ah", "5h")  # player-dealer, seat 2
    expect(tablet.locator("#preview")).to_contain_text("Settlement preview")
    tablet.click("#next button:has-text('Settle')")
    overlay = tablet.locator("#settlement")
    expect(overlay).to_be_visible()

    # Under seat 2's total, each bettor's, named, in the order they first wagered.
    totals = overlay.locator("table.totals tbody tr")
    expect(totals).to_have_count(3)
    expect(totals.nth(0)).to_have_attribute("data-seat", "2")
    expect(totals.nth(1)).to_have_attribute("data-bettor", "B-Ann")
    expect(totals.nth(2)).to_have_attribute("data-bettor", "B-Bob")
    expect(totals.nth(1).locator(".backline-lines .line")).to_have_count(4)  # Ante, Play, Blind, Trips
    expect(totals.nth(2).locator(".backline-lines .line")).to_have_count(3)
    # Every line, as recorded, in the order paid: the seat's own, then each bettor's under it.
    lines = list(SettlementLine.objects.filter(round__table=table).order_by("order"))
    assert [line.bettor for line in lines] == [""] * 3 + ["B-Ann"] * 4 + ["B-Bob"] * 3
    shown = overlay.locator("tr.line")
    expect(shown).to_have_count(len(lines))
    expect(shown.locator("td:nth-child(2)")).to_have_text(
        [f"Seat 2 · behind: {line.bettor}" if line.bettor else "Seat 2" for line in lines]
    )
    expect(shown.locator("td:nth-child(3)")).to_have_text([WAGER[line.wager] for line in lines])  # in words
    overlay.locator("details.lines-detail summary").click()
    tablet.screenshot(path=ARTIFACTS / "tablet-backline-settlement.png", full_page=True)
    live.screenshot(path=ARTIFACTS / "live-backline-settlement.png", full_page=True)
    assert not any(b in live.content() for b in ("B-Ann", "B-Bob", "B-Cat"))
    assert tablet.errors == []

"""A wager is what the dealer tapped for this player this round (issue 35): a side bet
typed in one round is not placed again by a preset tap in the next, on the tablet in
Chromium."""
import pytest

from tests.engine.helpers import FEES

from .conftest import assign_dealer, make_table, run
from .test_browser import browsers, daphne, expect, log_in, pick  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(transactional_db, dealer):
    table = make_table(seats=6, limits={"ante_min": 500, "ante_max": 100000}, fee_schedule=FEES,
                       side_bets={"pairs": {"paytable": "UPB-1", "min": 100, "max": 2500}})
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3, 4)],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    assign_dealer(table)
    # make_table placed its fee box FEES-<id> (tests/boxes.py).
    return table


def bet(seat, ante, pairs):
    seat.locator("input[name=pairs]").fill(pairs)
    seat.locator("input[name=ante]").fill(ante)
    seat.locator("button[type=submit]:has-text('Bet')").click()


def test_a_wager_is_what_the_dealer_tapped_for_this_player_this_round(daphne, table, browsers):
    tablet = log_in(browsers(), daphne.url, f"/tables/{table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    seats = {n: tablet.locator(f".seat[data-seat='{n}']") for n in (2, 3, 4)}
    # Round 1: seat 3 Pairs 10 and Ante 50 (the report's reproduction), seat 2 and seat 4
    # Pairs 5 and Ante 25; the round played to its settlement.
    tablet.fill("input[name=bank]", "1000")
    tablet.click("button:has-text('Open round')")
    bet(seats[3], "50", "10")
    expect(seats[3].locator(".wagers")).to_have_text("Ante $50.00 · Blind $50.00 · Pairs $10.00")
    for n in (2, 4):
        bet(seats[n], "25", "5")
        expect(seats[n].locator(".wagers")).to_have_text("Ante $25.00 · Blind $25.00 · Pairs $5.00")
    tablet.click("button:has-text('No more bets')")
    tablet.click("button:has-text('Dealt by hand')")
    for n in (2, 3, 4):
        seats[n].locator("button:has-text('Check')").click()
    tablet.click("button:has-text('Enter flop cards')")
    pick(tablet, "2c", "7d", "9h")
    for n in (2, 3, 4):
        seats[n].locator("button:has-text('Check')").click()
    tablet.click("button:has-text('Enter turn and river cards')")
    pick(tablet, "Js", "3s")
    for n in (2, 3, 4):
        seats[n].locator("button:has-text('Play 1×')").click()
    tablet.click("button:has-text('Enter showdown cards')")
    pick(tablet, "Kc", "Kd", "Ah", "Qd", "9c", "9s", "4h", "5h")  # player-dealer, seats 2, 3, 4
    tablet.click("#next button:has-text('Settle')")
    expect(tablet.locator("#settlement")).to_be_visible()
    tablet.click("#settlement button.done")

    # Between rounds seat 2's player leaves and another sits there.
    seats[2].locator("button.leave").click()
    tablet.locator("#confirm-dialog button.go").click()
    seats[2].locator("input[name=player]").fill("P-9")
    seats[2].locator("button:has-text('Sit')").click()
    expect(seats[2].locator(".player")).to_have_text("P-9")

    tablet.fill("input[name=bank]", "1000")
    tablet.click("button:has-text('Open round')")
    # Every seat's fields start from the table: the minimum Ante, no side bet.
    for n in (2, 3, 4):
        expect(seats[n].locator("input[name=pairs]")).to_have_value("")
        expect(seats[n].locator("input[name=ante]")).to_have_value("5")
    # The new occupant inherits nothing: no "Same bets" offer from the player before.
    expect(seats[2].locator("button.same-bets")).to_have_count(0)
    # Round 2, seat 3: only the $5 preset tapped: Ante and Blind, no Pairs.
    expect(seats[3].locator("button.same-bets")).to_have_text("Same bets as last round: Ante $50.00 · Pairs $10.00")
    seats[3].locator("button.preset[data-ante='500']").click()
    expect(seats[3].locator(".wagers")).to_have_text("Ante $5.00 · Blind $5.00")
    # Seat 4: "Same bets as last round" names, then places, exactly last round's wagers.
    same = seats[4].locator("button.same-bets")
    expect(same).to_have_text("Same bets as last round: Ante $25.00 · Pairs $5.00")
    same.click()
    expect(seats[4].locator(".wagers")).to_have_text("Ante $25.00 · Blind $25.00 · Pairs $5.00")
    seats[2].locator("button.preset[data-ante='500']").click()
    expect(seats[2].locator(".wagers")).to_have_text("Ante $5.00 · Blind $5.00")
    assert tablet.errors == []

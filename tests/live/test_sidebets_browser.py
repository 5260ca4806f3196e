"""Side bets in a real headless Chromium (game-rules section 10): the tablet takes only the
side bets the table offers with the initial wagers, a percentage progressive award waits
for a supervisor, who confirms it from the floor dashboard, and the settlement then shows
the award paid from the fund. The floor shows the meter."""

import pytest

from tests.engine.test_sidebets import PROGRESSIVE, SIDE_BETS

from .conftest import make_table, run
from .test_browser import ARTIFACTS, browsers, daphne, expect, log_in  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

SEATED = [*({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3)),
          {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}]


@pytest.fixture
def tables(transactional_db, dealer):
    """Made before the browsers start: one table taking wagers with every side bet, and
    one at a showdown where seat 2 holds a royal flush in its first five cards."""
    betting = make_table(seats=6, side_bets=SIDE_BETS)
    run(betting.pk, *SEATED, {"type": "open_round", "bank": 100000})
    royal = make_table(seats=6, side_bets={"progressive": PROGRESSIVE})
    run(
        royal.pk, *SEATED, {"type": "open_round", "bank": 100000},
        {"type": "wager", "seat": 2, "ante": 500, "progressive": True}, {"type": "wager", "seat": 3, "ante": 500},
        {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "check", "seat": 3},
        {"type": "flop", "cards": ["Qs", "Js", "Ts"]}, {"type": "check", "seat": 2}, {"type": "check", "seat": 3},
        {"type": "turn_river", "cards": ["2c", "3d"]}, {"type": "play", "seat": 2, "multiple": 1},
        {"type": "play", "seat": 3, "multiple": 1},
        {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"], "3": ["8h", "8d"]}},
    )
    return betting, royal


def test_side_bets_on_the_tablet_and_a_progressive_award_confirmed_from_the_floor(daphne, tables, browsers):  # noqa: F811
    from tables.models import TableEvent

    betting, royal = tables
    ARTIFACTS.mkdir(exist_ok=True)
    floor = log_in(browsers(), daphne.url, "/floor/")
    expect(floor.locator("#status")).to_have_text("Live")
    row = floor.locator(f"a.tile[data-table='{royal.pk}']")
    expect(row.locator(".meter")).to_contain_text("UTH-PROG-1")
    expect(row.locator(".meter .value")).to_have_text("$10,000.80")
    expect(row.locator(".alert.award_unconfirmed")).to_contain_text("seat 2")

    # The side bets the table offers, beside the Ante and Trips.
    tablet = log_in(browsers(), daphne.url, f"/tables/{betting.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    # The posted rules list every side bet offered, its limits and what each hand pays.
    tablet.click("button:has-text('Table rules')")
    rules = tablet.locator("#rules-dialog")
    expect(rules.locator("[data-side-bet='BBB-01']")).to_contain_text("Bad Beat pays (BBB-01)")
    expect(rules.locator("[data-side-bet='BBB-01']")).to_contain_text("$1.00 to $25.00")
    expect(rules.locator("[data-side-bet='BBB-01'] tr", has_text="straight flush")).to_contain_text("10,000 to 1")
    expect(rules.locator("[data-side-bet='UPB-1'] tr", has_text="ace-king suited")).to_contain_text("25 to 1")
    expect(rules.locator("[data-side-bet='PROG-01'] tr", has_text="royal flush in the first five cards")).to_contain_text(
        "100% of the meter")
    rules.locator("button:has-text('Close')").click()
    seat2 = tablet.locator(".seat[data-seat='2']")
    seat2.locator("input[name=ante]").fill("10")
    seat2.locator("input[name=trips]").fill("5")
    seat2.locator("input[name=bad_beat]").fill("5")
    seat2.locator("input[name=pairs]").fill("2")
    seat2.locator("input[name=progressive]").check()
    seat2.locator("button[type=submit]:has-text('Bet')").click()
    expect(seat2.locator(".wagers")).to_have_text(
        "Ante $10.00 · Blind $10.00 · Trips $5.00 · Bad Beat $5.00 · Pairs $2.00 · Progressive $1.00"
    )
    betting.refresh_from_db()
    wager = betting.state["round"]["seats"]["2"]
    assert (wager["bad_beat"], wager["pairs"], wager["progressive"]) == (500, 200, 100)

    # The royal flush: the tablet asks for a supervisor; the supervisor confirms on the floor.
    tablet.goto(f"{daphne.url}/tables/{royal.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    expect(tablet.locator("#next")).to_contain_text("Supervisor confirms seat 2")
    expect(tablet.locator("#next button:has-text('Settle')")).to_have_count(0)
    tablet.screenshot(path=ARTIFACTS / "tablet-award.png", full_page=True)
    # One click only opens what the award pays (issue 22): cancel sends nothing, confirm pays.
    confirm = floor.locator(f"#alert-list li.award_unconfirmed[data-table='{royal.pk}'] button.confirm-award")
    confirm.click()
    dialog = floor.locator("#award-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#award-seat")).to_have_text("Seat 2 · P-2")
    expect(dialog.locator("#award-hand")).to_have_text("royal flush in the first five cards")
    expect(dialog.locator("#award-cards")).to_have_text("As Ks · board Qs Js Ts 2c 3d")
    expect(dialog.locator("#award-amount")).to_have_text("$10,000.80 from meter UTH-PROG-1")
    floor.screenshot(path=ARTIFACTS / "floor-award-confirm.png")
    dialog.locator("#award-cancel").click()
    expect(dialog).to_be_hidden()
    floor.wait_for_timeout(500)
    expect(row.locator(".alert.award_unconfirmed")).to_have_count(1)
    assert not TableEvent.objects.filter(table=royal, command_type="confirm_award").exists()
    confirm.click()
    dialog.locator("#award-confirm").click()
    expect(row.locator(".alert.award_unconfirmed")).to_have_count(0)
    assert TableEvent.objects.get(table=royal, command_type="confirm_award").actor == "dealer"
    tablet.click("#next button:has-text('Settle')")
    overlay = tablet.locator("#settlement")
    expect(overlay.locator(".progressive")).to_contain_text("royal flush in the first five cards")
    expect(overlay.locator(".progressive h3")).to_contain_text("meter UTH-PROG-1 $5,000.00")  # reseeded
    expect(row.locator(".meter .value")).to_have_text("$5,000.00")
    tablet.screenshot(path=ARTIFACTS / "tablet-award-settled.png", full_page=True)
    assert tablet.errors == [] and floor.errors == []


def test_a_supervisor_confirms_an_award_on_the_dealers_tablet_with_their_own_password(  # noqa: F811
    daphne, tables, browsers, django_user_model
):
    from tables.models import TableEvent

    from .test_screens import assign, person
    from .test_screens import log_in as log_in_as

    _, royal = tables
    dan = person(django_user_model, "dan", "dealer")
    assign(dan, royal, django_user_model.objects.get(username="dealer"))
    tablet = log_in_as(browsers(), daphne.url, "dan", f"/tables/{royal.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")

    def confirm_here(password):
        tablet.click("#next button:has-text('Supervisor confirms seat 2')")
        expect(tablet.locator("#supervisor-what")).to_contain_text("royal flush in the first five cards")
        tablet.fill("#supervisor-dialog input[name=username]", "dealer")  # the supervisor (tests/live/conftest.py)
        tablet.fill("#supervisor-dialog input[name=password]", password)
        tablet.click("#supervisor-dialog button[value=confirm]")

    confirm_here("wrong")
    expect(tablet.locator("#message")).to_contain_text("You are not allowed to do that.")
    assert not TableEvent.objects.filter(table=royal, command_type="confirm_award").exists()
    confirm_here("pw")
    expect(tablet.locator("#message")).to_contain_text("confirmed by dealer")
    tablet.click("#next button:has-text('Settle')")
    expect(tablet.locator("#settlement .progressive")).to_contain_text("royal flush in the first five cards")
    assert TableEvent.objects.get(table=royal, command_type="confirm_award").actor == "dealer"
    tablet.screenshot(path=ARTIFACTS / "tablet-award-confirmed-here.png", full_page=True)
    assert tablet.errors == []

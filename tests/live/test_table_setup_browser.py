"""Table setup in a real headless Chromium (issue 26): a supervisor creates a table and
configures its side bets and fee schedule on the setup screens; a second supervisor
approves the requests in the queue, seeing what each changes; the first opens the table
from its floor tile with a reason; the dealer's tablet then takes the new side bet and
charges the new fees."""

import pytest
from django.contrib.auth.models import Group, User

from tables.models import Table
from tests.boxes import place_boxes

from .conftest import assign_dealer
from .test_browser import ARTIFACTS, browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_default_setup import log_in

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def staff(transactional_db):
    """Made before the browsers start: two supervisors and a dealer."""
    people = {}
    for name, role in (("sam", "supervisor"), ("sue", "supervisor"), ("ana", "dealer")):
        people[name] = User.objects.create_user(name, password=f"pw-{name}")
        people[name].groups.add(Group.objects.get_or_create(name=role)[0])
    return people


def test_a_table_set_up_by_one_supervisor_approved_by_another_reaches_the_dealers_tablet(daphne, staff, browsers):  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    sam = log_in(browsers(), daphne.url, "sam", "pw-sam", "/staff/tables/")
    sam.fill("#create-table input[name=name]", "UTH-NEW")
    sam.fill("#create-table input[name=seats]", "6")
    sam.click("#create-table button[type=submit]")
    expect(sam.locator("#table-state")).to_contain_text("first configuration waits for a second supervisor")
    table = Table.objects.get(name="UTH-NEW")

    # Side bets: Bad Beat offered, $1 to $25. The change is shown before it is asked for.
    bets = sam.locator("#section-side_bets")
    bets.locator("input[name='side_bets-bad_beat']").check()
    bets.locator("input[name='side_bets-bad_beat_min']").fill("1")
    bets.locator("input[name='side_bets-bad_beat_max']").fill("25")
    bets.locator("input[name='side_bets-reason']").fill("Bad Beat from opening day")
    bets.locator("button[value=review]").click()
    review = sam.locator("#review-side_bets")
    expect(review).to_contain_text("Side bets · Bad Beat · up to")
    expect(review).to_contain_text("$25.00")
    sam.locator("#section-side_bets button[value=request]").click()
    expect(sam.locator(".messages")).to_contain_text("sent to the approval queue")

    # The fee schedule: $2 a player and $2 the player-dealer per square up to $100.
    fees = sam.locator("#section-fees")
    fees.locator("input[name='fees-charged']").check()
    for field, value in (("min", "0"), ("max", "100"), ("player_fee", "2"), ("pd_fee", "2")):
        fees.locator(f"input[name='fees-rate1_{field}']").fill(value)
    fees.locator("input[name='fees-reason']").fill("house schedule")
    fees.locator("button[value=review]").click()
    expect(sam.locator("#review-fees")).to_contain_text("Fee schedule · Rate 1 · player's fee")
    expect(sam.locator("#fee-preview")).to_contain_text("$2.00")
    sam.locator("#section-fees button[value=request]").click()
    expect(sam.locator("#pending-requests .request")).to_have_count(3)  # the first configuration too
    sam.screenshot(path=ARTIFACTS / "table-setup.png", full_page=True)

    # The second supervisor approves each in the queue, the comparison in front of them.
    sue = log_in(browsers(), daphne.url, "sue", "pw-sue", "/staff/approvals/")
    expect(sue.locator("#pending-approvals")).to_contain_text("Side bets · Bad Beat · Pay table")
    expect(sue.locator("#pending-approvals")).to_contain_text("Fee schedule · Rate 1 · player-dealer's fee")
    sue.screenshot(path=ARTIFACTS / "queue-config.png", full_page=True)
    for left in (2, 1, 0):
        sue.locator("#pending-approvals button[name=approve][value='1']").first.click()
        expect(sue.locator("#pending-approvals tr.approval")).to_have_count(left)

    # Opened from its floor tile, with a reason; the tile says who and when.
    floor = log_in(browsers(), daphne.url, "sam", "pw-sam", "/floor/")
    tile = floor.locator(f"a.tile[data-table='{table.pk}']")
    tile.locator("button.open-table").click()
    floor.fill("#status-reason", "opening day")  # the page's own dialog, not window.prompt
    floor.locator("#status-confirm").click()
    expect(tile.locator(".status-change")).to_contain_text("Opened by sam")
    expect(tile.locator(".status-change")).to_contain_text("opening day")

    # The dealer's tablet: seated players, a round, a Bad Beat wager, the new fees.
    assign_dealer(table, "ana")
    place_boxes(table)  # the supervisor places the shift's boxes: no round opens without them
    tablet = log_in(browsers(), daphne.url, "ana", "pw-ana", f"/tables/{table.pk}/tablet/")
    expect(tablet.locator("#status")).to_have_text("Live")
    for command in ({"type": "sit", "seat": 1, "player": "P-1"}, {"type": "sit", "seat": 2, "player": "P-2"},
                    {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}):
        reply = tablet.evaluate("""(command) => fetch(location.pathname.replace('/tablet/', '').replace('/tables/', '/api/tables/') + '/commands', {
            method: 'POST', credentials: 'same-origin',
            headers: {'Content-Type': 'application/json',
                      'X-CSRFToken': document.querySelector('input[name=csrfmiddlewaretoken]').value},
            body: JSON.stringify(command)}).then((r) => r.json())""", command)
        assert reply["result"]["ok"], reply
    tablet.click(".rules-button")
    expect(tablet.locator("#rules-dialog")).to_contain_text("$0.00–$100.00")
    tablet.click("#rules-dialog button:has-text('Close')")
    tablet.fill("input[name=bank]", "500")
    tablet.click("button:has-text('Open round')")
    seat2 = tablet.locator(".seat[data-seat='2']")
    seat2.locator("input[name=ante]").fill("10")
    seat2.locator("input[name=trips]").fill("5")  # a Bad Beat goes with Trips (game-rules 10.1)
    seat2.locator("input[name=bad_beat]").fill("5")
    expect(seat2.locator("input[name=pairs]")).to_have_count(0)  # not offered
    seat2.locator("button[type=submit]:has-text('Bet')").click()
    expect(seat2.locator(".wagers")).to_have_text("Ante $10.00 · Blind $10.00 · Trips $5.00 · Bad Beat $5.00")
    tablet.click("button:has-text('No more bets')")
    expect(tile.locator(".fees .value")).to_have_text("$4.00")  # $2 the player, $2 the player-dealer's square
    tablet.screenshot(path=ARTIFACTS / "tablet-new-rules.png", full_page=True)
    assert sam.errors == [] and sue.errors == [] and floor.errors == [] and tablet.errors == []

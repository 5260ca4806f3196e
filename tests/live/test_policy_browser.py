"""The rotation policy's screens in a real headless Chromium (game-rules 2A): the tablet
shows the posted notice, the TPPP's badge and the offer step with every seat to ask and
"everyone else declines" (one tap, one decline row per seat); the floor shows the time
left before the window rule would end the game, amber within the warning."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tables.models import RotationLogEntry
from tables.services import command_execute
from tests.engine.helpers import quick_round

from .conftest import make_table
from .test_browser import ARTIFACTS, browsers, daphne, expect, log_in  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

POLICY = {"offer_every_round": True, "window_minutes": 40, "window_players": 2, "tppp_one_round": True}
NOTICE = "Any player can assume the player-dealer position when it is offered."


@pytest.fixture
def policy_table(transactional_db, dealer):
    """Ann banked 38 minutes ago, Bob 37 (his round keeps the window for 3 more minutes),
    Ann again a minute ago; the offer cycle for the next round is pending."""
    table = make_table(seats=6, rotation_policy=POLICY, notice=NOTICE)
    now = timezone.now()

    def play(minutes_ago, *commands):
        for command in commands:
            outcome = command_execute(table_id=table.pk, command=command, actor="test", at=now - timedelta(minutes=minutes_ago))
            assert outcome.ok, (command, outcome.result)

    play(38, {"type": "sit", "seat": 1, "player": "Ann"}, {"type": "sit", "seat": 2, "player": "Bob"},
         {"type": "sit", "seat": 4, "player": "Tess", "tppp": {"badge": "B-77", "company": "Acme", "expires": "2099-01-01"}},
         {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    play(37, {"type": "accept_bank", "seat": 2}, *quick_round(1))
    play(1, {"type": "decline_bank", "seats": [4]}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    return table


def test_the_offer_step_notice_badge_and_the_floors_window(daphne, policy_table, browsers):  # noqa: F811
    floor = log_in(browsers(), daphne.url, "/floor/")
    row = floor.locator(f"a.tile[data-table='{policy_table.pk}']")
    expect(row.locator(".fact.window")).to_have_class("fact window warning")
    expect(row.locator(".fact.window")).to_contain_text("min left")
    expect(row.locator(".pd")).to_contain_text("B-77")
    expect(row.locator(".alerts")).to_contain_text("Rotation window")

    tablet = log_in(browsers(), daphne.url, f"/tables/{policy_table.pk}/tablet/")
    expect(tablet.locator("#notice")).to_have_text(NOTICE)
    expect(tablet.locator(".seat[data-seat='4'] .badge.tppp")).to_have_text("TPPP B-77")
    expect(tablet.locator(".offer-walk li")).to_have_count(3)  # Bob, Tess, Ann (the player-dealer) last
    expect(tablet.locator(".offer-walk li").last).to_contain_text("Seat 1 (Ann)")
    ARTIFACTS.mkdir(exist_ok=True)
    tablet.screenshot(path=str(ARTIFACTS / "policy-tablet-offer.png"))
    floor.screenshot(path=str(ARTIFACTS / "policy-floor-window.png"))
    before = RotationLogEntry.objects.filter(table=policy_table, action="decline").count()
    tablet.click("button.everyone-declines")
    expect(tablet.locator("#confirm-dialog")).to_contain_text("the game stops")  # asked first
    tablet.click("#confirm-dialog button.go")
    expect(tablet.locator("#next")).to_contain_text("every seat declined")
    assert RotationLogEntry.objects.filter(table=policy_table, action="decline").count() == before + 3
    expect(floor.locator(f"a.tile[data-table='{policy_table.pk}'] .alerts")).to_contain_text("no player-dealer")
    assert not tablet.errors and not floor.errors


@pytest.fixture
def ended_table(transactional_db, dealer):
    """Ann banked alone for 45 minutes under the policy: her next round ended the game."""
    table = make_table(seats=6, rotation_policy=POLICY)
    start = timezone.now() - timedelta(minutes=45)
    steps = [(0, [{"type": "sit", "seat": 1, "player": "Ann"}, {"type": "sit", "seat": 2, "player": "Bob"},
                  {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2)]),
             (44, [{"type": "decline_bank", "seat": 2}, {"type": "accept_bank", "seat": 1}, {"type": "open_round", "bank": 1000}])]
    for minute, commands in steps:
        for command in commands:
            assert command_execute(table_id=table.pk, command=command, actor="test", at=start + timedelta(minutes=minute)).ok
    table.refresh_from_db()
    assert table.state["clock"]["ended"], "the window rule ended the game"
    return table


def test_a_supervisor_starts_a_new_game_from_the_floors_alert(daphne, ended_table, browsers):  # noqa: F811
    floor = log_in(browsers(), daphne.url, "/floor/")
    tile = floor.locator(f"a.tile[data-table='{ended_table.pk}']")
    expect(tile.locator(".fact.window")).to_have_class("fact window ended")
    floor.locator(f"#alert-list li.game_ended[data-table='{ended_table.pk}'] button.start-game").click()
    expect(tile.locator(".alert.game_ended")).to_have_count(0)
    ended_table.refresh_from_db()
    assert not ended_table.state["clock"]["ended"]
    entry = RotationLogEntry.objects.filter(table=ended_table, action="game_started").get()
    assert entry.reason, "the start is recorded with its reason"
    assert not floor.errors

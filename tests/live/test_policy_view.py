"""What the screens are told under the rotation policy (game-rules 2A): the tablet's offer
step with every seat to ask, the notice, TPPP badges, the game's end; the floor's window
clock turning amber ahead of the deadline and red when the game has ended."""

from datetime import datetime, timedelta, timezone

import pytest

from rounds.engine.policy import DEFAULT_NOTICE
from tables.floor import floor_rows
from tables.selectors import table_snapshot
from rounds.visibility import LIVE, TABLET
from tests.engine.helpers import quick_round
from tests.playing import clocked

from .conftest import make_table

pytestmark = pytest.mark.django_db

POLICY = {"offer_every_round": True, "window_minutes": 40, "window_players": 2, "tppp_one_round": True}
START = datetime(2026, 5, 1, 19, 0, tzinfo=timezone.utc)


play = clocked(START, actor="test")


def view(table, audience=TABLET):
    table.refresh_from_db()
    return table_snapshot(table, audience)["view"]


def floor(table, now):
    (row,) = floor_rows([table.pk], now=now)
    return row


def seated_policy_table():
    table = make_table(rotation_policy=POLICY, notice="Ask the dealer for the bank.")
    play(table, 0, {"type": "sit", "seat": 1, "player": "Ann"}, {"type": "sit", "seat": 2, "player": "Bob"},
         {"type": "sit", "seat": 4, "player": "Tess", "tppp": {"badge": "B-77", "company": "Acme", "expires": "2027-01-01"}})
    return table


def test_the_offer_step_lists_every_seat_to_ask_with_the_pd_last():
    table = seated_policy_table()
    play(table, 0, {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    step = view(table)["next"]
    assert step["step"] == "offer" and step["walk"] == [2, 4, 1]  # Ann, the player-dealer, last
    assert step["everyone_declines"] == {"type": "decline_bank", "seats": [2, 4, 1]}


def test_the_notice_and_the_tppp_badge_reach_the_tablet_and_the_live_view():
    table = seated_policy_table()
    for audience in (TABLET, LIVE):
        v = view(table, audience)
        assert v["notice"] == "Ask the dealer for the bank." and v["rotation_policy"] == POLICY
        assert [s["tppp"] for s in v["seats"]][:4] == [None, None, None, "B-77"]
    plain = make_table()
    assert view(plain)["notice"] == DEFAULT_NOTICE and view(plain)["rotation_policy"] is None


def test_the_floor_counts_down_to_the_window_turns_amber_and_red_when_the_game_ends():
    table = seated_policy_table()
    play(table, 0, {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    play(table, 5, {"type": "accept_bank", "seat": 2}, *quick_round(1))  # Bob banks at 19:05
    play(table, 30, {"type": "decline_bank", "seats": [4]}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    # Ann banks now; Bob's round (19:05) keeps the window until 19:45.
    deadline = START + timedelta(minutes=45)
    calm = floor(table, deadline - timedelta(minutes=11))
    assert calm["window"] == {"state": "ok", "deadline": deadline.isoformat(), "warn_from": (deadline - timedelta(minutes=10)).isoformat()}
    assert "window_warning" not in [a["kind"] for a in calm["alerts"]]
    amber = floor(table, deadline - timedelta(minutes=9))
    assert amber["window"]["state"] == "warning"
    assert [a["text"] for a in amber["alerts"] if a["kind"] == "window_warning"] == [
        "Rotation window: game ends in 9 min unless another player banks"
    ]
    assert amber["tppp"] == {"seat": 4, "badge": "B-77"}
    play(table, 45, {"type": "decline_bank", "seats": [2, 4]}, {"type": "accept_bank", "seat": 1})
    play(table, 45, {"type": "open_round", "bank": 10_000})
    red = floor(table, deadline)
    assert red["window"]["state"] == "ended" and "game_ended" in [a["kind"] for a in red["alerts"]]
    assert view(table)["next"] == {"step": "game_ended", "commands": [{"type": "start_game"}]}


def test_a_table_without_the_policy_has_no_window_on_the_floor():
    table = make_table()
    assert floor(table, START)["window"] is None

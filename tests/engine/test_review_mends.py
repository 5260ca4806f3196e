"""Tests for the review mends: facts the engine now states once for its readers."""

from rounds.engine.settlement import PlayerHand, settle
from rounds.engine.paytables import paytable_from_config

from .helpers import decide, deal_sequence, drive, open_round, table_with_pd, wager


def _dealt_round_with_a_fold():
    """Seat 2 plays 4x pre-flop; seat 3 checks to the river and folds. Cards dealt."""
    holes = {2: ["2c", "3d"], 3: ["7h", "8h"]}
    cards = deal_sequence("shuffler", holes, ["Kc", "Kd"], ["Ah", "9s", "7d", "5c", "Jh"])
    game = table_with_pd(1, [2, 3])
    game, results = drive(
        game,
        [
            *open_round(10000, [wager(2, 100), wager(3, 100)]),
            {"type": "deal", "cards": cards},
            decide(2, "play", 4),
            decide(3, "check"),
            {"type": "flop"},
            decide(3, "check"),
            {"type": "turn_river"},
            decide(3, "fold"),
            {"type": "showdown"},
            {"type": "settle"},
        ],
    )
    return results


def test_folded_seat_result_says_folded_in_a_dealt_round():
    showdown, settled = _dealt_round_with_a_fold()[-2:]
    for result in (showdown, settled):
        seats = {s["seat"]: s for s in result["seats"]}
        # The hole cards are known, so the folded seat still has a hand (7 7 pair)...
        assert seats[3]["hand"] == "one_pair"
        # ...and it is the `folded` flag, not a missing hand, that says it folded.
        assert seats[3]["folded"] is True
        assert seats[2]["folded"] is False
        assert seats[3]["net"] == -200


def test_seat_result_folded_without_hole_cards():
    s = settle(
        bank=10000,
        pd_seat=1,
        pd_player="P-1",
        pd_hole=("Kc", "Kd"),
        community=("Ah", "9s", "7d", "5c", "Jh"),
        players=[PlayerHand(2, "P-2", 100, 100, folded=True), PlayerHand(3, "P-3", 100, 100, play=400, hole=("2c", "3d"))],
        seat_count=6,
        paytable=paytable_from_config(None),
    )
    assert [(r.seat, r.hand, r.folded) for r in s.seats] == [(2, None, True), (3, "high_card", False)]

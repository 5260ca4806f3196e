"""What the engine states once for its readers (the tablet view, the audit): a folded
seat says so in its result, the seats showdown needs, when deal and each reveal are
allowed, the Play amount and the player-dealer's current run."""

from rounds.engine.settlement import PlayerHand, settle
from rounds.engine.paytables import paytable_from_config

from .helpers import decide, deal_sequence, drive, open_round, refuse, table_with_pd, wager


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


def test_the_engine_states_showdown_seats_deal_and_reveals_once():
    from rounds.engine.config import REVEALS, STREET_ACTIONS, play_amount

    game = table_with_pd(1, [2, 3, 4])
    assert game.has_players_besides_pd
    game, _ = drive(game, open_round(10000, [wager(2, 100), wager(3, 100, trips=50), wager(4, 100)]))
    assert game.round.can_deal
    game, _ = drive(game, [decide(2, "check"), decide(3, "check"), decide(4, "play", 3)])
    assert not game.round.can_deal  # a decision was made: the cards are dealt by hand
    assert {name: (r.street, r.count, r.next_phase) for name, r in REVEALS.items()} == {
        "flop": ("preflop", 3, "flop"),
        "turn_river": ("flop", 2, "river"),
    }
    assert game.round.seats[4].play == play_amount(3, 100) == 300
    game, _ = drive(
        game,
        [
            {"type": "flop", "cards": ["Ah", "9s", "7d"]},
            decide(2, "check"),
            decide(3, "check"),
            {"type": "turn_river", "cards": ["5c", "Jh"]},
            decide(2, "fold"),
            decide(3, "fold"),
        ],
    )
    # Folded without Trips (seat 2) needs no cards; folded with Trips (3) and playing (4) do.
    assert game.round.showdown_seats() == [3, 4]
    assert STREET_ACTIONS["fold"] == ("river",) and STREET_ACTIONS["check"] == ("preflop", "flop")


def test_rotation_pd_streak_counts_only_the_current_player_dealer():
    from rounds.engine.rotation import Rotation

    rot = Rotation()
    assert rot.pd_streak == 0
    rot.accept(1, "A")
    rot.round_banked("A")
    assert rot.pd_streak == 1
    rot.accept(2, "B")  # B holds the bank; A's streak is not B's
    assert rot.pd_streak == 0


def test_deal_by_hand_is_kept_in_the_state_takes_decisions_at_once_and_refuses_a_deal():
    from rounds.engine.table import TableGame
    from rounds.engine.view import table_view

    game = table_with_pd(1, [2, 3])
    game, _ = drive(game, open_round(10000, [wager(2, 100), wager(3, 100)]))
    view = table_view(game.to_dict())
    assert view["next"]["step"] == "deal" and {"type": "deal_by_hand"} in view["next"]["commands"]
    assert [s["owes_now"] for s in view["seats"] if s["wager"]] == [False, False]  # nobody decides before the cards
    game, _ = drive(game, [{"type": "deal_by_hand"}])
    # Through the stored state (a reload, a second browser): the step is the decisions.
    again = TableGame.from_dict(game.to_dict())
    assert again.round.hand_dealt and not again.round.can_deal
    view = table_view(again.to_dict())
    assert view["next"]["step"] == "decisions" and view["next"]["pending"] == [2, 3]
    assert view["next"]["check_all"] == [{"type": "check", "seat": 2}, {"type": "check", "seat": 3}]
    assert [s["owes_now"] for s in view["seats"] if s["wager"]] == [True, True]
    refuse(again, {"type": "deal"}, "wrong_state")
    refuse(again, {"type": "deal_by_hand"}, "wrong_state")
    # A state stored before the flag existed reads as not hand-dealt.
    stored = game.to_dict()
    del stored["round"]["hand_dealt"]
    assert TableGame.from_dict(stored).round.hand_dealt is False


def test_deal_by_hand_only_right_after_no_more_bets():
    game = table_with_pd(1, [2, 3])
    game, _ = drive(game, [{"type": "open_round", "bank": 10000}, wager(2, 100)])
    refuse(game, {"type": "deal_by_hand"}, "wrong_state")

"""Player-dealer rotation (game-rules section 2), driven through TableGame commands.

Players are `P-<seat they first sat in>`; rounds are played with helpers.quick_round
(one player, settled), so each test reads as the sequence of rotation commands.
"""

from rounds.engine.records import RotationEntry
from tests.engine.helpers import (
    decide,
    do,
    drive,
    make_pd,
    new_game,
    open_round,
    quick_round,
    refuse,
    seat_all,
    table_with_pd,
    void,
    wager,
)


def settle_round(game, player_seat):
    """Play and settle one round; returns (game, settle result)."""
    game, results = drive(game, quick_round(player_seat))
    return game, results[-1]


def rotation_entries(records):
    return [(r.action, r.seat, r.player) for r in records if isinstance(r, RotationEntry)]


# --- offers, accepts, declines ---------------------------------------------------------


def test_house_chooses_first_seat_and_it_accepts():
    game = new_game(6)
    records = []
    game, results = drive(game, [*seat_all([1, 2, 3, 4]), *make_pd(3)], records=records)
    assert results[-2] == {"ok": True, "offer": 3}
    assert results[-1] == {"ok": True, "player_dealer": 3}
    assert rotation_entries(records) == [("offer", 3, "P-3"), ("accept", 3, "P-3")]
    assert game.rotation.pd_seat == 3


def test_declines_move_the_offer_clockwise_and_all_declining_stops_the_game():
    game = new_game(6)
    records = []
    game, results = drive(
        game,
        [
            *seat_all([1, 2, 4, 6]),
            {"type": "offer_bank", "seat": 4},
            {"type": "decline_bank", "seat": 4},
            {"type": "decline_bank", "seat": 6},
            {"type": "decline_bank", "seat": 1},
            {"type": "decline_bank", "seat": 2},
        ],
        records=records,
    )
    assert [r["offer"] for r in results[4:]] == [4, 6, 1, 2, None]
    assert rotation_entries(records) == [
        ("offer", 4, "P-4"),
        ("decline", 4, "P-4"),
        ("offer", 6, "P-6"),
        ("decline", 6, "P-6"),
        ("offer", 1, "P-1"),
        ("decline", 1, "P-1"),
        ("offer", 2, "P-2"),
        ("decline", 2, "P-2"),
        ("stopped", None, None),
    ]
    # "no player-dealer": no round can start until a seat accepts
    refuse(game, {"type": "open_round", "bank": 1000}, "no_player_dealer")
    refuse(game, {"type": "accept_bank", "seat": 2}, "not_offered")
    # the house restarts the offers; a seat accepts and the game goes on
    game, _ = drive(game, make_pd(6))
    game, settled = settle_round(game, 1)
    assert settled["player_dealer"]["seat"] == 6


def test_offer_pending_and_not_offered_errors():
    game = new_game(6)
    game, _ = drive(game, [*seat_all([1, 2, 3]), {"type": "offer_bank", "seat": 2}])
    refuse(game, {"type": "offer_bank", "seat": 3}, "offer_pending")
    refuse(game, {"type": "offer_bank", "seat": 2}, "offer_pending")
    refuse(game, {"type": "open_round", "bank": 1000}, "offer_pending")
    refuse(game, {"type": "accept_bank", "seat": 3}, "not_offered")
    refuse(game, {"type": "decline_bank", "seat": 1}, "not_offered")
    refuse(game, {"type": "accept_bank", "seat": 5}, "not_offered")  # an empty seat
    refuse(game, {"type": "pass_bank"}, "no_player_dealer")
    game, _ = do(game, {"type": "accept_bank", "seat": 2})
    # with a player-dealer there is no offer to answer, and the house cannot offer
    refuse(game, {"type": "accept_bank", "seat": 2}, "not_offered")
    refuse(game, {"type": "decline_bank", "seat": 3}, "not_offered")
    refuse(game, {"type": "offer_bank", "seat": 3}, "wrong_state")


def test_no_offer_pending_answers_are_not_offered():
    game = new_game(6)
    game, _ = drive(game, seat_all([1, 2]))
    refuse(game, {"type": "accept_bank", "seat": 1}, "not_offered")
    refuse(game, {"type": "decline_bank", "seat": 1}, "not_offered")
    refuse(game, {"type": "open_round", "bank": 1000}, "no_player_dealer")


def test_the_seat_holding_the_offer_leaving_passes_the_offer_on():
    game = new_game(6)
    records = []
    game, results = drive(
        game,
        [*seat_all([1, 2, 3]), {"type": "offer_bank", "seat": 2}, {"type": "leave", "seat": 2}],
        records=records,
    )
    assert results[-1] == {"ok": True, "offer": 3}
    assert rotation_entries(records)[-2:] == [("decline", 2, "P-2"), ("offer", 3, "P-3")]


# --- the limit --------------------------------------------------------------------------------


def test_limit_two_then_offer_goes_clockwise_and_the_pd_is_not_eligible():
    game = table_with_pd(2, [1, 3, 4])
    game, first = settle_round(game, 3)
    assert (first["next_offer"], first["player_dealer_next"]) == (None, 2)  # may keep the bank
    records = []
    game, results = drive(game, quick_round(3), records=records)
    second = results[-1]
    # second consecutive settled round: the offer goes to the first seat after the PD
    assert (second["next_offer"], second["player_dealer_next"]) == (3, None)
    assert rotation_entries(records)[-2:] == [("limit_reached", 2, "P-2"), ("offer", 3, "P-3")]
    refuse(game, {"type": "open_round", "bank": 1000}, "offer_pending")
    refuse(game, {"type": "pass_bank"}, "no_player_dealer")
    game, results = drive(
        game,
        [{"type": "decline_bank", "seat": 3}, {"type": "decline_bank", "seat": 4}, {"type": "decline_bank", "seat": 1}],
    )
    # P-2 (seat 2) just reached the limit: never offered, the cycle ends with nobody
    assert [r["offer"] for r in results] == [4, 1, None]
    refuse(game, {"type": "open_round", "bank": 1000}, "no_player_dealer")
    # the house cannot hand it back either
    refuse(game, {"type": "offer_bank", "seat": 2}, "rotation_limit")
    # someone else banks a settled round: P-2 is eligible again
    game, _ = drive(game, make_pd(3))
    game, third = settle_round(game, 2)
    assert (third["next_offer"], third["player_dealer_next"]) == (None, 3)
    game, results = drive(
        game,
        [
            {"type": "pass_bank"},
            {"type": "decline_bank", "seat": 4},
            {"type": "decline_bank", "seat": 1},
            {"type": "accept_bank", "seat": 2},
        ],
    )
    assert [r.get("offer") for r in results[:3]] == [4, 1, 2]
    assert results[-1] == {"ok": True, "player_dealer": 2}


def test_limit_one():
    game = table_with_pd(5, [1, 3], max_consecutive_banks=1)
    game, settled = settle_round(game, 1)
    # after the PD's first settled round: next occupied seat after 5 is 1 (6 is empty)
    assert (settled["next_offer"], settled["player_dealer_next"]) == (1, None)
    game, results = drive(game, [{"type": "decline_bank", "seat": 1}, {"type": "decline_bank", "seat": 3}])
    assert [r["offer"] for r in results] == [3, None]
    refuse(game, {"type": "offer_bank", "seat": 5}, "rotation_limit")
    game, _ = drive(game, make_pd(1))
    game, settled = settle_round(game, 3)
    assert (settled["next_offer"], settled["player_dealer_next"]) == (3, None)
    game, _ = do(game, {"type": "decline_bank", "seat": 3})
    game, res = do(game, {"type": "accept_bank", "seat": 5})  # P-5 eligible again
    assert res == {"ok": True, "player_dealer": 5}


def test_next_offer_skips_empty_seats_and_wraps():
    game = table_with_pd(5, [2, 3])
    game, _ = settle_round(game, 2)
    game, settled = settle_round(game, 3)
    assert (settled["next_offer"], settled["player_dealer_next"]) == (2, None)


def test_limit_reached_with_a_single_other_player():
    game = table_with_pd(1, [2], seats=2)
    game, _ = settle_round(game, 2)
    game, settled = settle_round(game, 2)
    assert settled["next_offer"] == 2
    game, res = do(game, {"type": "decline_bank", "seat": 2})
    assert res["offer"] is None
    refuse(game, {"type": "offer_bank", "seat": 1}, "rotation_limit")
    refuse(game, {"type": "open_round", "bank": 100}, "no_player_dealer")


def test_a_void_by_the_next_pd_does_not_make_the_limited_person_eligible():
    game = table_with_pd(2, [1, 3, 4])
    game, _ = settle_round(game, 3)
    game, _ = settle_round(game, 3)
    game, _ = do(game, {"type": "accept_bank", "seat": 3})
    game, _ = drive(game, [*open_round(1000, [wager(4, 100)]), void()])
    game, results = drive(
        game,
        [
            {"type": "pass_bank"},
            {"type": "decline_bank", "seat": 4},
            {"type": "decline_bank", "seat": 1},
        ],
    )
    # 4, 1; then P-2 is still not eligible (nobody else has banked a settled round);
    # P-3, who passed under the limit, is offered last
    assert [r["offer"] for r in results] == [4, 1, 3]
    game, res = do(game, {"type": "decline_bank", "seat": 3})
    assert res["offer"] is None
    refuse(game, {"type": "offer_bank", "seat": 2}, "rotation_limit")


# --- passing ----------------------------------------------------------------------------------


def test_pd_passing_under_the_limit_is_offered_last_and_may_take_it_back():
    game = table_with_pd(2, [1, 3, 4])
    game, settled = settle_round(game, 3)
    assert settled["player_dealer_next"] == 2
    records = []
    game, results = drive(
        game,
        [
            {"type": "pass_bank"},
            {"type": "decline_bank", "seat": 3},
            {"type": "decline_bank", "seat": 4},
            {"type": "decline_bank", "seat": 1},
            {"type": "accept_bank", "seat": 2},
        ],
        records=records,
    )
    assert [r.get("offer") for r in results[:4]] == [3, 4, 1, 2]
    assert rotation_entries(records)[0] == ("pass", 2, "P-2")
    assert results[-1] == {"ok": True, "player_dealer": 2}
    # taking it back makes the next settled round the second consecutive one
    game, settled = settle_round(game, 4)
    assert (settled["next_offer"], settled["player_dealer_next"]) == (3, None)


def test_pd_passing_declines_its_own_last_offer():
    game = table_with_pd(2, [3])
    game, results = drive(
        game,
        [{"type": "pass_bank"}, {"type": "decline_bank", "seat": 3}, {"type": "decline_bank", "seat": 2}],
    )
    assert [r["offer"] for r in results] == [3, 2, None]
    refuse(game, {"type": "open_round", "bank": 100}, "no_player_dealer")


def test_pd_who_passes_then_moves_seat_is_still_offered_last():
    """The passer is asked last whatever chair they sit in: moving clockwise ahead of the
    next offers must not bring their turn forward."""
    game = table_with_pd(2, [1, 3, 5])
    game, _ = settle_round(game, 3)  # P-2 has banked one round: under the limit
    game, results = drive(
        game,
        [
            {"type": "pass_bank"},  # offers start at seat 3, the passer last
            {"type": "leave", "seat": 2},
            {"type": "sit", "seat": 4, "player": "P-2"},  # now between seat 3 and seat 5
            {"type": "decline_bank", "seat": 3},
            {"type": "decline_bank", "seat": 5},
            {"type": "decline_bank", "seat": 1},
        ],
    )
    assert [results[0]["offer"], results[3]["offer"], results[4]["offer"], results[5]["offer"]] == [3, 5, 1, 4]


def test_pass_then_another_seat_accepts_and_banks():
    game = table_with_pd(2, [1, 3, 4])
    game, _ = settle_round(game, 3)
    game, results = drive(game, [{"type": "pass_bank"}, {"type": "decline_bank", "seat": 3}, {"type": "accept_bank", "seat": 4}])
    assert results[-1] == {"ok": True, "player_dealer": 4}
    game, settled = settle_round(game, 2)
    assert settled["player_dealer"]["seat"] == 4
    assert (settled["next_offer"], settled["player_dealer_next"]) == (None, 4)


def test_pass_bank_during_a_round_is_refused():
    game = table_with_pd(2, [3])
    game, _ = drive(game, open_round(1000, [wager(3, 100)]))
    refuse(game, {"type": "pass_bank"}, "wrong_state")


# --- voids ------------------------------------------------------------------------------------


def test_voided_round_does_not_count():
    game = table_with_pd(2, [1, 3, 4])
    # a void first, then two settled rounds: still two settled rounds allowed
    game, _ = drive(game, [*open_round(1000, [wager(3, 100)]), void()])
    game, first = settle_round(game, 3)
    assert (first["next_offer"], first["player_dealer_next"]) == (None, 2)
    # a void between the two settled rounds (after cards and decisions)
    game, _ = drive(game, [*open_round(1000, [wager(3, 100)]), decide(3, "play", 4), void("shuffler jam")])
    game, second = settle_round(game, 3)
    assert second["round"] == 4
    assert (second["next_offer"], second["player_dealer_next"]) == (3, None)


def test_void_before_no_more_bets_does_not_count():
    game = table_with_pd(2, [3])
    game, _ = settle_round(game, 3)
    game, _ = drive(game, [{"type": "open_round", "bank": 1000}, wager(3, 100), void()])
    game, settled = settle_round(game, 3)
    assert settled["next_offer"] == 3


# --- leaving and moving -----------------------------------------------------------------------


def test_moving_seats_does_not_reset_the_limit():
    game = table_with_pd(2, [1, 3, 4])
    game, _ = settle_round(game, 3)  # P-2 has banked one round
    game, results = drive(
        game,
        [
            {"type": "leave", "seat": 2},  # the PD leaves: offers start after seat 2
            {"type": "sit", "seat": 5, "player": "P-2"},  # and sits down elsewhere
            {"type": "decline_bank", "seat": 3},
            {"type": "decline_bank", "seat": 4},
            {"type": "accept_bank", "seat": 5},
        ],
    )
    assert [results[0]["offer"], results[2]["offer"], results[3]["offer"]] == [3, 4, 5]
    game, settled = settle_round(game, 1)
    # P-2's second consecutive settled round, from another chair: the limit is reached
    assert (settled["next_offer"], settled["player_dealer_next"]) == (1, None)
    # moving again changes nothing
    game, _ = drive(
        game,
        [
            {"type": "leave", "seat": 5},
            {"type": "sit", "seat": 6, "player": "P-2"},
            {"type": "decline_bank", "seat": 1},
            {"type": "decline_bank", "seat": 3},
        ],
    )
    game, res = do(game, {"type": "decline_bank", "seat": 4})
    assert res["offer"] is None
    refuse(game, {"type": "offer_bank", "seat": 6}, "rotation_limit")


def test_pd_leaving_between_rounds_starts_offers_after_its_seat():
    game = table_with_pd(3, [1, 2, 5, 6])
    game, _ = settle_round(game, 5)
    records = []
    game, res = do(game, {"type": "leave", "seat": 3}, records=records)
    assert res == {"ok": True, "offer": 5}  # seat 4 is empty
    assert rotation_entries(records) == [("offer", 5, "P-5")]
    game, _ = do(game, {"type": "accept_bank", "seat": 5})
    game, res = do(game, {"type": "leave", "seat": 5})
    assert res["offer"] == 6
    game, _ = do(game, {"type": "accept_bank", "seat": 6})
    game, res = do(game, {"type": "leave", "seat": 6})  # from the last seat: wraps to seat 1
    assert res["offer"] == 1


def test_pd_cannot_leave_during_a_round():
    game = table_with_pd(3, [1])
    game, _ = drive(game, open_round(1000, [wager(1, 100)]))
    refuse(game, {"type": "leave", "seat": 3}, "seat_is_player_dealer")
    refuse(game, {"type": "leave", "seat": 1}, "wrong_state")  # has wagers in the round


def test_player_leaving_with_no_pd_involved_returns_no_offer():
    game = table_with_pd(3, [1, 2])
    game, res = do(game, {"type": "leave", "seat": 1})
    assert res == {"ok": True}
    assert game.rotation.pd_seat == 3

"""Backline wagers in the engine (game-rules section 12, docs/commands.md): who may bet and
where, the refusals and their codes, the seat's decisions carried to each bettor, the
order of the lines, the fees, a void and the rotation."""

import pytest

from rounds.engine.records import BacklineChanged, Decided
from tests.engine.helpers import ONE_RATE_FEES, decide, do, drive, refuse, table_with_pd, void, wager

BACKLINE = {"max_per_seat": 2, "trips": True}
LIMITS = {"ante_min": 100, "ante_max": 5000, "trips_min": 100, "trips_max": 1000}


def backline(seat, bettor, ante=500, trips=None, **extra):
    command = {"type": "backline_wager", "seat": seat, "bettor": bettor, "ante": ante, **extra}
    if trips is not None:
        command["trips"] = trips
    return command


def betting(backline_config=BACKLINE, bank=100000, **table):
    """PD in seat 1 (P-1), P-2 and P-3 seated; a round open; P-2 has wagered 1000."""
    table.setdefault("limits", LIMITS)
    if backline_config is not None:
        table["backline"] = backline_config
    game = table_with_pd(1, [2, 3], **table)
    game, _ = drive(game, [{"type": "open_round", "bank": bank}, wager(2, 1000)])
    return game


# --- configuration ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [{"max_per_seat": 0}, {"max_per_seat": 4}, {"trips": True}, {"max_per_seat": 2, "trips": "yes"},
     {"max_per_seat": 2, "tirps": True}, [], {"max_per_seat": True}],
)
def test_a_bad_backline_configuration_is_refused(value):
    from rounds.engine.errors import CommandError
    from rounds.engine.config import TableConfig

    with pytest.raises(CommandError) as info:
        TableConfig.from_config({"seats": 6, "backline": value})
    assert info.value.code == "invalid_command"


def test_the_configuration_round_trips_and_defaults_to_no_trips():
    from rounds.engine.config import TableConfig

    config = TableConfig.from_config({"seats": 6, "backline": {"max_per_seat": 3}})
    assert (config.backline.max_per_seat, config.backline.trips) == (3, False)
    assert TableConfig.from_config(config.to_config()) == config
    assert TableConfig.from_config({"seats": 6}).backline is None


# --- refusals, in docs/commands.md's order ------------------------------------------------


def test_a_table_without_backline_refuses_first():
    game = betting(backline_config=None)
    # Even a malformed command: the table's offer is checked before the shape.
    refuse(game, backline(2, "B-1"), "wrong_state")
    refuse(game, {"type": "backline_wager", "seat": 99, "nonsense": 1}, "wrong_state")
    refuse(game, {"type": "backline_withdraw", "seat": 2, "bettor": "B-1"}, "wrong_state")


@pytest.mark.parametrize(
    "command, code",
    [
        (backline(2, "B-1", colour="red"), "invalid_command"),
        (backline(9, "B-1"), "unknown_seat"),
        (backline("2", "B-1"), "invalid_command"),
        (backline(2, ""), "invalid_command"),
        (backline(2, 7), "invalid_command"),
        (backline(2, "B-1", blind=500), "invalid_command"),  # the Blind is the Ante
        (backline(1, "B-1"), "seat_is_player_dealer"),
        (backline(4, "B-1"), "seat_empty"),
        (backline(3, "B-1"), "not_in_round"),  # P-3 has not wagered
        (backline(2, "P-3"), "player_already_seated"),
        (backline(2, "p-1"), "player_already_seated"),  # the PD, as the same person
        ({"type": "backline_wager", "seat": 2, "bettor": "B-1"}, "invalid_command"),
        (backline(2, "B-1", ante=0), "invalid_amount"),
        (backline(2, "B-1", ante=50), "below_table_min"),
        (backline(2, "B-1", ante=6000), "above_table_max"),
        (backline(2, "B-1", trips=50), "below_table_min"),
        (backline(2, "B-1", trips=2000), "above_table_max"),
        (backline(2, "B-1", trips=0), "invalid_amount"),
    ],
)
def test_backline_refusals(command, code):
    refuse(betting(), command, code)


def test_trips_where_the_backline_takes_none():
    game = betting(backline_config={"max_per_seat": 2})
    refuse(game, backline(2, "B-1", trips=500), "invalid_command")
    do(game, backline(2, "B-1"))


def test_only_while_betting():
    game = betting()
    game, _ = drive(game, [backline(2, "B-1"), {"type": "no_more_bets"}])
    refuse(game, backline(2, "B-2"), "wrong_state")
    refuse(game, backline(2, "B-1", ante=700), "wrong_state")
    refuse(game, {"type": "backline_withdraw", "seat": 2, "bettor": "B-1"}, "wrong_state")


def test_one_spot_per_person_and_at_most_max_per_seat():
    game = betting()
    game, _ = drive(game, [wager(3, 1000), backline(2, "B-1"), backline(2, "B-2")])
    refuse(game, backline(3, "b-1"), "wrong_state")  # B-1 is behind seat 2 already
    refuse(game, backline(2, "B-3"), "wrong_state")  # seat 2 carries its two
    do(game, backline(3, "B-3"))


def test_a_bettor_who_sits_may_not_also_wager():
    game = betting()
    game, _ = drive(game, [backline(2, "B-1"), {"type": "sit", "seat": 4, "player": "B-1"}])
    refuse(game, wager(4, 1000), "wrong_state")


def test_withdraw_a_bettor_not_behind_that_seat():
    game = betting()
    game, _ = drive(game, [wager(3, 1000), backline(2, "B-1")])
    refuse(game, {"type": "backline_withdraw", "seat": 3, "bettor": "B-1"}, "not_in_round")
    refuse(game, {"type": "backline_withdraw", "seat": 2, "bettor": "B-2"}, "not_in_round")


# --- placing, replacing, withdrawing -------------------------------------------------------


def order_of(game):
    return [(b.seat, b.bettor, b.ante, b.trips) for b in game.round.backlines]


def test_replace_keeps_the_place_withdraw_places_last():
    records = []
    game = betting()
    game, _ = drive(
        game,
        [backline(2, "B-1"), backline(2, "B-2", 700), backline(2, "b-1", 900, trips=200)],
        records=records,
    )
    assert order_of(game) == [(2, "B-1", 900, 200), (2, "B-2", 700, 0)]
    game, _ = drive(
        game, [{"type": "backline_withdraw", "seat": 2, "bettor": "B-1"}, backline(2, "B-1", 300)], records=records
    )
    assert order_of(game) == [(2, "B-2", 700, 0), (2, "B-1", 300, 0)]
    changes = [(r.bettor, r.action, r.ante) for r in records if isinstance(r, BacklineChanged)]
    assert changes == [
        ("B-1", "placed", 500), ("B-2", "placed", 700), ("B-1", "replaced", 900),
        ("B-1", "withdrawn", 900), ("B-1", "placed", 300),
    ]


def test_the_seats_withdrawal_returns_its_backlines():
    records = []
    game = betting()
    game, results = drive(
        game, [backline(2, "B-1"), backline(2, "B-2"), {"type": "withdraw", "seat": 2}], records=records
    )
    assert results[-1] == {"ok": True, "backline_returned": ["B-1", "B-2"]}
    assert game.round.backlines == []
    assert [(r.bettor, r.action) for r in records if isinstance(r, BacklineChanged)][-2:] == [
        ("B-1", "returned"), ("B-2", "returned"),
    ]
    # With the seat's wager back, a backline can go behind it again, placed anew.
    game, _ = drive(game, [wager(2, 1000), backline(2, "B-2"), backline(2, "B-1")])
    assert [b.bettor for b in game.round.backlines] == ["B-2", "B-1"]


# --- decisions -------------------------------------------------------------------------------

BOARD = ["2h", "7h", "9h", "Kc", "4d"]


def played(decisions, *, pd=("Ks", "3c"), hole=("Ah", "5h"), trips_behind=True, fees=None):
    table = {"fee_schedule": fees} if fees else {}
    game = betting(**table)
    records = []
    game, _ = drive(
        game,
        [backline(2, "B-1", 500, trips=500 if trips_behind else None), backline(2, "B-2", 200),
         {"type": "no_more_bets"}],
        records=records,
    )
    flop, river = decisions
    commands = [*flop[0], {"type": "flop", "cards": BOARD[:3]}, *flop[1], {"type": "turn_river", "cards": BOARD[3:]}, *river]
    commands += [{"type": "showdown", "player_dealer": list(pd), "hands": {"2": list(hole)}}, {"type": "settle"}]
    game, results = drive(game, commands, records=records)
    return results[-1], records


@pytest.mark.parametrize(
    "pre, on_flop, on_river, multiple",
    [
        ([decide(2, "play", 3)], [], [], 3),
        ([decide(2, "play", 4)], [], [], 4),
        ([decide(2, "check")], [decide(2, "play", 2)], [], 2),
        ([decide(2, "check")], [decide(2, "check")], [decide(2, "play", 1)], 1),
    ],
)
def test_each_bettor_plays_k_times_their_own_ante(pre, on_flop, on_river, multiple):
    s, records = played(((pre, on_flop), on_river))
    plays = {(l["seat"], l.get("bettor")): l["stake"] for l in s["lines"] if l["wager"] == "play"}
    assert plays == {(2, None): multiple * 1000, (2, "B-1"): multiple * 500, (2, "B-2"): multiple * 200}
    carried = [(r.bettor, r.action, r.amount) for r in records if isinstance(r, Decided) and r.bettor]
    assert carried[-2:] == [("B-1", "play", multiple * 500), ("B-2", "play", multiple * 200)]


def test_a_fold_folds_every_backline_and_a_bettors_trips_needs_the_hand():
    pre, flop, river = [decide(2, "check")], [decide(2, "check")], [decide(2, "fold")]
    # Seat 2 has no Trips; B-1's Trips (a flush: 7 to 1) is still settled on its cards.
    s, _ = played(((pre, flop), river))
    assert [(l.get("bettor"), l["wager"], l["result"], l["amount"]) for l in s["lines"]] == [
        (None, "ante", "lose", 1000), (None, "blind", "lose", 1000),
        ("B-1", "ante", "lose", 500), ("B-1", "blind", "lose", 500), ("B-1", "trips", "win", 3500),
        ("B-2", "ante", "lose", 200), ("B-2", "blind", "lose", 200),
    ]
    assert 2 in s["shown"]


def test_a_folded_seats_cards_are_needed_for_a_bettors_trips():
    game = betting()
    game, _ = drive(game, [backline(2, "B-1", 500, trips=500), {"type": "no_more_bets"}, decide(2, "check"),
                           {"type": "flop", "cards": BOARD[:3]}, decide(2, "check"),
                           {"type": "turn_river", "cards": BOARD[3:]}, decide(2, "fold")])
    refuse(game, {"type": "showdown", "player_dealer": ["Ks", "3c"]}, "missing_cards")


# --- fees ----------------------------------------------------------------------------------

TWO_RATES = {
    "payers": "all_players",
    "player_basis": "ante",
    "pd_basis": "per_betting_square",
    "rates": [{"min": 1, "max": 999, "player_fee": 50, "pd_fee": 25},
              {"min": 1000, "max": 10**9, "player_fee": 100, "pd_fee": 60}],
}


def fees_at_no_more_bets(schedule):
    game = betting(fee_schedule=schedule)
    _, results = drive(game, [backline(2, "B-1", 500), backline(2, "B-2", 2000), {"type": "no_more_bets"}])
    return results[-1]["fees"]


def test_a_bettor_pays_as_a_player_and_is_a_square_of_its_own():
    assert fees_at_no_more_bets(TWO_RATES) == [
        {"seat": 1, "payer": "player_dealer", "amount": 60 + 25 + 60},
        {"seat": 2, "payer": "player", "amount": 100},
        {"seat": 2, "payer": "backline", "bettor": "B-1", "amount": 50},
        {"seat": 2, "payer": "backline", "bettor": "B-2", "amount": 100},
    ]


def test_total_table_action_adds_the_backline_basis():
    schedule = {**TWO_RATES, "pd_basis": "total_table_action",
                "rates": [{"min": 1, "max": 3000, "player_fee": 50, "pd_fee": 25},
                          {"min": 3001, "max": 10**9, "player_fee": 100, "pd_fee": 70}]}
    # 1000 + 500 + 2000 = 3500: the second row, which the seat's 1000 alone would not reach.
    fees = fees_at_no_more_bets(schedule)
    assert fees[0] == {"seat": 1, "payer": "player_dealer", "amount": 70}


@pytest.mark.parametrize("payers, bettors_pay", [("players_not_pd", True), ("pd_only", False)])
def test_payers(payers, bettors_pay):
    fees = fees_at_no_more_bets({**TWO_RATES, "payers": payers})
    assert any(f["payer"] == "backline" for f in fees) == bettors_pay


def test_a_dead_backline_gets_its_fee_back_and_the_seat_keeps_its_own():
    # Example E's cards with fees: the bank of 10000 runs out in B-1's Trips; B-2 is dead.
    game = betting(fee_schedule=ONE_RATE_FEES, bank=10000)
    commands = [backline(2, "B-1", 500, trips=500), backline(2, "B-2", 2000), {"type": "no_more_bets"},
                decide(2, "play", 4), {"type": "flop", "cards": BOARD[:3]}, {"type": "turn_river", "cards": BOARD[3:]},
                {"type": "showdown", "player_dealer": ["Ks", "3c"], "hands": {"2": ["Ah", "5h"]}}, {"type": "settle"}]
    _, results = drive(game, commands)
    s = results[-1]
    assert s["exhausted"]
    assert s["fee_refunds"] == [{"seat": 2, "amount": 100, "bettor": "B-2"}]


def test_a_seat_dead_under_the_win_cap_is_refunded_though_its_bettor_wins():
    """The dead-hand refund looks at the seat's own lines for its fee: after the PD has won
    its bank, seat 3's folded hand is returned whole, while B-1's Trips behind it is paid."""
    game = table_with_pd(1, [2, 3], fee_schedule=ONE_RATE_FEES, backline=BACKLINE)
    board = ["2h", "7h", "9c", "Kc", "4d"]
    _, results = drive(game, [
        {"type": "open_round", "bank": 1000}, wager(2, 1000), wager(3, 100), backline(3, "B-1", 100, trips=100),
        {"type": "no_more_bets"}, decide(2, "play", 4), decide(3, "check"), {"type": "flop", "cards": board[:3]},
        decide(3, "check"), {"type": "turn_river", "cards": board[3:]}, decide(3, "fold"),
        {"type": "showdown", "player_dealer": ["Ks", "Kd"], "hands": {"2": ["3c", "5s"], "3": ["9h", "9d"]}},
        {"type": "settle"},
    ])
    s = results[-1]
    assert [(l["seat"], l.get("bettor"), l["wager"], l["result"], l["amount"]) for l in s["lines"]][3:] == [
        (3, None, "ante", "lose", 0), (3, None, "blind", "lose", 0),
        (3, "B-1", "ante", "lose", 0), (3, "B-1", "blind", "lose", 0), (3, "B-1", "trips", "win", 300),
    ]
    assert s["fee_refunds"] == [{"seat": 3, "amount": 100}]
    assert s["pd_net"] == 700


def test_a_void_refunds_every_backline_fee():
    game = betting(fee_schedule=ONE_RATE_FEES)
    game, _ = drive(game, [backline(2, "B-1"), backline(2, "B-2"), {"type": "no_more_bets"}])
    game, result = do(game, void())
    assert [r for r in result["refunds"] if r["payer"] == "backline"] == [
        {"seat": 2, "payer": "backline", "bettor": "B-1", "amount": 100},
        {"seat": 2, "payer": "backline", "bettor": "B-2", "amount": 100},
    ]
    assert game.round is None


# --- rotation ------------------------------------------------------------------------------


def test_a_bettor_is_never_offered_the_bank():
    game = table_with_pd(1, [2], max_consecutive_banks=1, backline=BACKLINE)
    game, results = drive(
        game,
        [{"type": "open_round", "bank": 10000}, wager(2, 1000), backline(2, "B-1"), {"type": "no_more_bets"},
         decide(2, "play", 4), {"type": "flop", "cards": BOARD[:3]}, {"type": "turn_river", "cards": BOARD[3:]},
         {"type": "showdown", "player_dealer": ["Ks", "3c"], "hands": {"2": ["Ah", "5h"]}}, {"type": "settle"},
         {"type": "decline_bank", "seat": 2}],
    )
    assert results[-2]["next_offer"] == 2
    assert results[-1]["offer"] is None  # no one else: B-1 is not seated, never offered
    assert "B-1" not in game.occupants.values()

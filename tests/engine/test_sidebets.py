"""Side bets (game-rules section 10): Bad Beat and Pairs banked by the player-dealer in
the one settlement pass, and the California progressive paid from its own fund.

Worked example D is played as a full command stream, with the cards typed in and under
each dealing procedure; the rest are cases worked by hand from sections 10.1 to 10.4.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rounds.engine.cards import DECK
from rounds.engine.sidebets import PAIRS_TABLES, Fund, pairs_payout, progressive_hand
from tests.engine.helpers import (
    Meter,
    deal_sequence,
    decide,
    drive,
    open_round,
    refuse,
    table_with_pd,
    wager,
)
from tests.engine.test_worked_examples import lines
from tests.hypothesis_profiles import examples

PROGRESSIVE = {
    "paytable": "PROG-01",
    "wager": 100,
    "meter": {"name": "UTH-PROG-1", "meter_share": 80, "seed": 500000, "meter": 1000000, "reserve": 600000},
}
SIDE_BETS = {
    "bad_beat": {"paytable": "BBB-01", "min": 100, "max": 2500},
    "pairs": {"paytable": "UPB-1", "min": 100, "max": 2500},
    "progressive": PROGRESSIVE,
}

D_BOARD = ["9h", "9d", "9c", "Ks", "2d"]
D_PD = ["Kh", "Kd"]
D_HOLES = {2: ["As", "Ad"], 3: ["Qc", "Jc"]}
D_WAGERS = [
    wager(2, 1000, trips=500, bad_beat=500, pairs=500, progressive=True),
    wager(3, 500, trips=100, bad_beat=100, pairs=100, progressive=100),
]
D_LINES = lines(
    "2 ante 1000 -> lose 1000", "2 play 4000 -> lose 4000", "2 blind 1000 -> lose 1000",
    "2 trips 500 -> win 4500", "2 bad_beat 500 -> win 20000", "2 pairs 500 -> win 15000",
    "3 ante 500 -> lose 500", "3 play 500 -> lose 500", "3 blind 500 -> lose 500",
    "3 trips 100 -> win 300", "3 bad_beat 100 -> win 900", "3 pairs 100 -> lose 100",
)


def side_table(pd_seat=1, players=(2, 3), side_bets=SIDE_BETS, **table):
    return table_with_pd(pd_seat, list(players), side_bets=side_bets, **table)


def play_round(game, *, bank, wagers, holes, pd_hole, board, decisions=None, mode="entered", meter=None):
    """One round to its settle (every player checks to the river and plays 1x unless
    `decisions` says otherwise): returns (game, results by command type, meter)."""
    meter = meter or Meter.of(game)
    if mode != "entered":
        game, _ = drive(game, [], meter=meter)
    commands = open_round(bank, wagers)
    seats = [w["seat"] for w in wagers]
    if mode != "entered":
        commands.append({"type": "deal", "cards": deal_sequence(mode, holes, pd_hole, board)})
    decisions = decisions or {
        "preflop": [decide(s, "check") for s in seats],
        "flop": [decide(s, "check") for s in seats],
        "river": [decide(s, "play", 1) for s in seats],
    }
    entered = mode == "entered"
    commands += decisions["preflop"] + [{"type": "flop", **({"cards": board[:3]} if entered else {})}]
    commands += decisions["flop"] + [{"type": "turn_river", **({"cards": board[3:]} if entered else {})}]
    commands += decisions["river"]
    showdown = {"player_dealer": pd_hole, "hands": {str(s): h for s, h in holes.items()}} if entered else {}
    commands += [{"type": "showdown", **showdown}, {"type": "settle"}]
    game, results = drive(game, commands, meter=meter)
    return game, {c["type"]: r for c, r in zip(commands, results)}, meter


@pytest.mark.parametrize("mode", ["entered", "shoe", "shuffler", "community_first"])
def test_worked_example_d(mode):
    game = side_table(dealing="shuffler" if mode == "entered" else mode)
    game, results, meter = play_round(
        game,
        bank=100000,
        wagers=D_WAGERS,
        holes=D_HOLES,
        pd_hole=D_PD,
        board=D_BOARD,
        decisions={
            "preflop": [decide(2, "play", 4), decide(3, "check")],
            "flop": [decide(3, "check")],
            "river": [decide(3, "play", 1)],
        },
        mode=mode,
    )
    nmb, settled = results["no_more_bets"], results["settle"]
    assert nmb["jackpot"] == [
        {"seat": 2, "amount": 100, "meter": 80, "reserve": 20},
        {"seat": 3, "amount": 100, "meter": 80, "reserve": 20},
    ]
    assert nmb["meter"] == {"name": "UTH-PROG-1", "meter": 1000160, "reserve": 600040}
    assert settled["lines"] == D_LINES
    assert {s["seat"]: s["net"] for s in settled["seats"]} == {2: 33500, 3: -400}
    assert (settled["pd_net"], settled["balance"]) == (-33100, 66900)
    assert settled["progressive"] == [
        {"seat": 2, "hand": "full_house", "award": 1000, "from_meter": 1000, "from_reserve": 0, "owed": 0, "confirmed": False}
    ]
    assert settled["meter"] == {"name": "UTH-PROG-1", "meter": 999160, "reserve": 600040}
    assert meter.fund == Fund(999160, 600040)
    assert results["showdown"]["progressive"] == settled["progressive"]  # the preview pays the same


# --- refusals ---------------------------------------------------------------------------------

def betting(side_bets=SIDE_BETS):
    game = side_table(side_bets=side_bets)
    game, _ = drive(game, [{"type": "open_round", "bank": 100000}])
    return game


REFUSALS = [
    ({"pairs": SIDE_BETS["pairs"]}, wager(2, 500, trips=100, bad_beat=100), "side_bet_not_offered"),
    ({"bad_beat": SIDE_BETS["bad_beat"]}, wager(2, 500, pairs=100), "side_bet_not_offered"),
    ({"pairs": SIDE_BETS["pairs"]}, wager(2, 500, progressive=True), "side_bet_not_offered"),
    (SIDE_BETS, wager(2, 500, bad_beat=100), "bad_beat_needs_trips"),
    (SIDE_BETS, wager(2, 500, progressive=500), "invalid_progressive_wager"),
    (SIDE_BETS, wager(2, 500, progressive="yes"), "invalid_progressive_wager"),
    (SIDE_BETS, wager(2, 500, pairs=50), "below_table_min"),
    (SIDE_BETS, wager(2, 500, trips=100, bad_beat=2501), "above_table_max"),
    (SIDE_BETS, wager(2, 500, pairs=0), "invalid_amount"),
    (SIDE_BETS, wager(2, 500, pairs=1.5), "invalid_amount"),
]


@pytest.mark.parametrize("side_bets,command,code", REFUSALS)
def test_side_bet_refusals_change_nothing(side_bets, command, code):
    refuse(betting(side_bets), command, code)


def test_no_side_bet_after_no_more_bets():
    game, _ = drive(betting(), [wager(2, 500), {"type": "no_more_bets"}])
    refuse(game, wager(2, 500, pairs=100), "wrong_state")


ROYAL_HOLE, ROYAL_FLOP = ["As", "Ks"], ["Qs", "Js", "Ts"]


def royal_showdown(meter=None, *, reserve=600000, seed=500000):
    """Seat 2 makes a royal flush in its first five cards; seat 3 a full house."""
    prog = {**PROGRESSIVE, "meter": {**PROGRESSIVE["meter"], "reserve": reserve, "seed": seed}}
    game = side_table(side_bets={"progressive": prog})
    meter = meter or Meter.of(game)
    commands = open_round(100000, [wager(2, 500, progressive=True), wager(3, 500, progressive=True)])
    commands += [decide(2, "check"), decide(3, "check"), {"type": "flop", "cards": ROYAL_FLOP}]
    commands += [decide(2, "check"), decide(3, "check"), {"type": "turn_river", "cards": ["8d", "8c"]}]
    commands += [decide(2, "play", 1), decide(3, "play", 1)]
    commands += [{"type": "showdown", "player_dealer": ["2c", "3c"], "hands": {"2": ROYAL_HOLE, "3": ["8h", "Qd"]}}]
    game, results = drive(game, commands, meter=meter)
    return game, results[-1], meter


def test_a_percentage_award_waits_for_a_supervisor_then_pays_highest_seat_first_and_reseeds():
    game, preview, meter = royal_showdown()
    # Seat 3 (higher) is paid first, from the meter as it stands: 10 for 1 = 1000.
    assert [a["seat"] for a in preview["progressive"]] == [3, 2]
    assert preview["progressive"][1]["award"] == 1000160 - 1000
    refuse(game, {"type": "settle"}, "award_unconfirmed")
    refuse(game, {"type": "confirm_award", "seat": 3, "approved_by": "SUP-1"}, "wrong_state")  # fixed: no confirmation
    refuse(game, {"type": "confirm_award", "seat": 2}, "approval_required")
    game, results = drive(game, [{"type": "confirm_award", "seat": 2, "approved_by": "SUP-1"}], meter=meter)
    assert results[0]["award"]["confirmed"] and results[0]["award"]["approved_by"] == "SUP-1"
    refuse(game, {"type": "confirm_award", "seat": 2, "approved_by": "SUP-1"}, "wrong_state")  # once
    game, results = drive(game, [{"type": "settle"}], meter=meter)
    settled = results[0]
    assert [(a["seat"], a["hand"], a["award"], a["confirmed"]) for a in settled["progressive"]] == [
        (3, "full_house", 1000, False),
        (2, "royal_first_five", 999160, True),
    ]
    # The meter restarts at the seed, moved from the reserve: 600040 - 500000 left there.
    assert settled["meter"] == {"name": "UTH-PROG-1", "meter": 500000, "reserve": 100040}


def test_a_five_percent_royal_is_paid_on_the_meter_and_does_not_reseed():
    """A royal flush using a hole card after the flop (royal_seven) pays 5% of the meter,
    confirmed by a supervisor; only a 100% award restarts the meter at the seed (10.3)."""
    game = side_table(players=(2, 3), side_bets={"progressive": PROGRESSIVE})
    start = Meter.of(game).fund
    commands = open_round(100000, [wager(2, 500, progressive=True), wager(3, 500)])
    commands += [decide(2, "check"), decide(3, "check"), {"type": "flop", "cards": ["Qs", "Js", "2c"]}]
    commands += [decide(2, "check"), decide(3, "check"), {"type": "turn_river", "cards": ["Ts", "3d"]}]
    commands += [decide(2, "play", 1), decide(3, "play", 1)]
    commands += [{"type": "showdown", "player_dealer": ["8c", "8d"], "hands": {"2": ROYAL_HOLE, "3": ["4h", "5h"]}}]
    meter = Meter.of(game)
    game, _ = drive(game, commands, meter=meter)
    game, results = drive(game, [{"type": "confirm_award", "seat": 2, "approved_by": "SUP-1"}, {"type": "settle"}], meter=meter)
    settled = results[-1]
    on_meter = start.meter + 80  # the 100 wager's 80% went to the meter at no more bets
    award = on_meter * 5 // 100
    assert [(a["seat"], a["hand"], a["award"], a["from_meter"]) for a in settled["progressive"]] == [(2, "royal_seven", award, award)]
    assert settled["meter"] == {"name": "UTH-PROG-1", "meter": on_meter - award, "reserve": start.reserve + 20}


def test_a_reseed_short_of_the_seed_takes_what_the_reserve_holds():
    game, _, meter = royal_showdown(reserve=1000)
    game, results = drive(game, [{"type": "confirm_award", "seat": 2, "approved_by": "SUP-1"}, {"type": "settle"}], meter=meter)
    assert results[-1]["meter"]["meter"] == 1040 and results[-1]["meter"]["reserve"] == 0


def test_a_fixed_award_beyond_the_fund_takes_the_reserve_and_the_rest_is_owed():
    prog = {**PROGRESSIVE, "meter": {**PROGRESSIVE["meter"], "meter": 500, "reserve": 200}}
    game = side_table(side_bets={"progressive": prog})
    # Seat 2: four nines (100 for 1 = 10000); the fund holds 580 + 220 after contributions.
    game, results, meter = play_round(
        game, bank=100000, wagers=[wager(2, 500, progressive=True), wager(3, 500, progressive=True)],
        holes={2: ["9s", "9h"], 3: ["2s", "3h"]}, pd_hole=["Kh", "Kd"], board=["9c", "9d", "4h", "7s", "Jd"],
    )
    assert results["settle"]["progressive"] == [
        {"seat": 2, "hand": "four_of_a_kind", "award": 10000, "from_meter": 660, "from_reserve": 240,
         "owed": 9100, "confirmed": False}
    ]
    assert meter.fund == Fund(0, 0)


def test_community_royal_pays_every_progressive_3000_for_1():
    game = side_table(side_bets={"progressive": PROGRESSIVE})
    game, results, meter = play_round(
        game, bank=100000, wagers=[wager(2, 500, progressive=True), wager(3, 500)],
        holes={2: ["2c", "3c"], 3: ["4c", "5c"]}, pd_hole=["6c", "7c"], board=["As", "Ks", "Qs", "Js", "Ts"],
    )
    assert [(a["seat"], a["hand"], a["award"]) for a in results["settle"]["progressive"]] == [(2, "community_royal", 300000)]


def test_a_void_reverses_the_contributions():
    game = side_table()
    meter = Meter.of(game)
    game, results = drive(
        game,
        open_round(100000, [wager(2, 500, progressive=True), wager(3, 500, pairs=100)]) + [
            {"type": "void_round", "reason": "misdeal", "approved_by": "SUP-1"}
        ],
        meter=meter,
    )
    assert results[-1]["jackpot"] == [{"seat": 2, "amount": 100, "owed": 0}]
    assert meter.fund == Fund(1000000, 600000)


def linked_payout_then_void(meter_left: int, reserve_left: int, *, amount=100, share=80):
    """One progressive wager contributed, then the linked meter moves (another table's
    award) to the given amounts, then the round is voided: (void result, meter)."""
    prog = {**PROGRESSIVE, "wager": amount, "meter": {**PROGRESSIVE["meter"], "meter_share": share}}
    game = side_table(side_bets={"progressive": prog})
    meter = Meter.of(game)
    game, _ = drive(game, open_round(100000, [wager(2, 500, progressive=True), wager(3, 500)]), meter=meter)
    meter.fund = Fund(meter_left, reserve_left)
    game, results = drive(game, [{"type": "void_round", "reason": "misdeal", "approved_by": "SUP-1"}], meter=meter)
    return results[-1], meter


def test_a_void_with_the_reserve_short_takes_the_rest_from_the_meter():
    """The contribution was 80 to the meter and 20 to the reserve; the reserve has been
    emptied since. The 20 comes from the meter, which holds it: nothing is owed."""
    result, meter = linked_payout_then_void(500, 0)
    assert result["jackpot"] == [{"seat": 2, "amount": 100, "owed": 0}]
    assert meter.fund == Fund(500 - 100, 0)


def test_a_void_with_the_meter_short_takes_the_rest_from_the_reserve_and_owes_what_neither_holds():
    result, meter = linked_payout_then_void(30, 1000)
    assert result["jackpot"] == [{"seat": 2, "amount": 100, "owed": 0}]
    assert meter.fund == Fund(0, 1000 - 70)
    result, meter = linked_payout_then_void(30, 40)
    assert result["jackpot"] == [{"seat": 2, "amount": 100, "owed": 100 - 30 - 40}]
    assert meter.fund == Fund(0, 0)


def test_the_meter_share_is_rounded_down_to_the_cent():
    """Wager 125 at 33%: 41.25 to the meter, rounded down to 41; the reserve takes 84 (10.3)."""
    prog = {**PROGRESSIVE, "wager": 125, "meter": {**PROGRESSIVE["meter"], "meter_share": 33}}
    game = side_table(side_bets={"progressive": prog})
    start = Meter.of(game).fund
    game, results = drive(game, open_round(100000, [wager(2, 500, progressive=True)]))
    assert results[-1]["jackpot"] == [{"seat": 2, "amount": 125, "meter": 41, "reserve": 84}]
    assert results[-1]["meter"] == {"name": "UTH-PROG-1", "meter": start.meter + 41, "reserve": start.reserve + 84}


def test_bad_beat_tie_and_fold_lose_pairs_stays_in_action_on_a_fold():
    game = side_table(players=(2, 3))
    # Board makes a straight for everyone (a tie); seat 3 folds with K-K.
    game, results, _ = play_round(
        game, bank=100000,
        wagers=[wager(2, 500, trips=100, bad_beat=100), wager(3, 500, trips=100, bad_beat=100, pairs=100)],
        holes={2: ["2c", "3c"], 3: ["Kc", "Kd"]}, pd_hole=["2d", "3d"], board=["5h", "6s", "7d", "8c", "9h"],
        decisions={"preflop": [decide(2, "check"), decide(3, "check")], "flop": [decide(2, "check"), decide(3, "check")],
                   "river": [decide(2, "play", 1), decide(3, "fold")]},
    )
    got = {(l["seat"], l["wager"]): (l["result"], l["amount"]) for l in results["settle"]["lines"]}
    assert got[(2, "bad_beat")] == ("lose", 100)  # a straight tying a straight is no bad beat
    assert got[(3, "bad_beat")] == ("lose", 100)  # folded
    assert got[(3, "pairs")] == ("win", 1000)  # K-K: 10 to 1, folded or not


def test_a_folded_players_bad_beat_is_lost_even_on_a_hand_it_would_pay():
    """Seat 3's trip sevens lose to the PD's full house: played to showdown that is a bad
    beat paying 9 to 1 (seat 2 shows it), but seat 3 folded, and a folded Bad Beat is lost
    (10), whatever the cards."""
    game = side_table(players=(2, 3))
    game, results, _ = play_round(
        game, bank=100000,
        wagers=[wager(2, 500, trips=100, bad_beat=100), wager(3, 500, trips=100, bad_beat=100)],
        holes={2: ["7c", "4d"], 3: ["7s", "5d"]}, pd_hole=["Kh", "Ks"], board=["7h", "7d", "2c", "9s", "Kd"],
        decisions={"preflop": [decide(2, "check"), decide(3, "check")], "flop": [decide(2, "check"), decide(3, "check")],
                   "river": [decide(2, "play", 1), decide(3, "fold")]},
    )
    got = {(l["seat"], l["wager"]): (l["result"], l["amount"]) for l in results["settle"]["lines"]}
    assert got[(2, "bad_beat")] == ("win", 100 * 9)  # the same cards, not folded: paid
    assert got[(3, "bad_beat")] == ("lose", 100)


def test_a_folded_players_progressive_stays_in_action():
    """Seat 2 folds four nines at the river: its progressive is still awarded (10: a
    folded player's progressive stays in action), 100 for 1 on the 100 wager."""
    game = side_table(players=(2, 3), side_bets={"progressive": PROGRESSIVE})
    start = Meter.of(game).fund
    game, results, meter = play_round(
        game, bank=100000, wagers=[wager(2, 500, progressive=True), wager(3, 500)],
        holes={2: ["9s", "9h"], 3: ["2s", "3h"]}, pd_hole=["Kh", "Kd"], board=["9c", "9d", "4h", "7s", "Jd"],
        decisions={"preflop": [decide(2, "check"), decide(3, "check")], "flop": [decide(2, "check"), decide(3, "check")],
                   "river": [decide(2, "fold"), decide(3, "play", 1)]},
    )
    award = 100 * 100
    assert results["settle"]["progressive"] == [
        {"seat": 2, "hand": "four_of_a_kind", "award": award, "from_meter": award, "from_reserve": 0, "owed": 0, "confirmed": False}
    ]
    assert results["showdown"]["progressive"] == results["settle"]["progressive"]
    assert meter.fund == Fund(start.meter + 80 - award, start.reserve + 20)


def test_bad_beat_pays_on_the_player_dealers_losing_hand():
    game = side_table(players=(2,))
    game, results, _ = play_round(
        game, bank=100000, wagers=[wager(2, 500, trips=100, bad_beat=100)],
        holes={2: ["Ah", "Ad"]}, pd_hole=["Kc", "Kd"], board=["Ac", "Ks", "4d", "7h", "Jc"],
    )
    line = next(l for l in results["settle"]["lines"] if l["wager"] == "bad_beat")
    assert (line["result"], line["amount"]) == ("win", 900)  # the PD's three kings lose: 9 to 1


def test_side_bets_are_settled_after_trips_under_the_bank_and_count_for_dead_hands():
    fees = {"payers": "all_players", "player_basis": "initial_total", "pd_basis": "per_betting_square",
            "rates": [{"min": 0, "max": 1150, "player_fee": 100, "pd_fee": 50},
                      {"min": 1151, "max": 10**9, "player_fee": 300, "pd_fee": 150}]}
    game = side_table(players=(2, 3), fee_schedule=fees)
    # Seat 2 loses 1500 to the PD's four kings (the win cap stops at 2000 = 2B), then its A-A
    # Pairs (30 to 1 = 3000) takes the whole balance: the bank is exhausted before seat 3.
    game, results, _ = play_round(
        game, bank=1000,
        wagers=[wager(2, 500, pairs=100, progressive=True), wager(3, 500, trips=100, bad_beat=100, pairs=100)],
        holes={2: ["Ah", "Ad"], 3: ["2c", "7d"]}, pd_hole=["Kc", "Kd"], board=["Ks", "Kh", "4d", "8h", "Jc"],
    )
    # Basis: ante + blind + trips + bad beat + pairs (seat 2: 1100, seat 3: 1300); never the
    # progressive (seat 2 would be 1200, in the second rate).
    assert results["no_more_bets"]["fees"] == [
        {"seat": 1, "payer": "player_dealer", "amount": 200},
        {"seat": 2, "payer": "player", "amount": 100},
        {"seat": 3, "payer": "player", "amount": 300},
    ]
    pairs = next(l for l in results["settle"]["lines"] if l["wager"] == "pairs" and l["seat"] == 2)
    assert (pairs["result"], pairs["amount"], pairs["uncovered"]) == ("win", 2000, 1000)
    assert results["settle"]["exhausted"]
    assert all(l["result"] == "no_action" for l in results["settle"]["lines"] if l["seat"] == 3)
    assert results["settle"]["fee_refunds"] == [{"seat": 3, "amount": 300}]


@pytest.mark.parametrize(
    "paytable,hole,pd_hole,pays",
    [
        ("UPB-2", ["As", "Ac"], ["Ah", "Ad"], 1000),
        ("UPB-1", ["As", "Ac"], ["Ah", "Ad"], 30),
        ("UPB-4", ["Ah", "Ad"], ["2c", "3c"], 100),
        ("UPB-5", ["Ah", "Ad"], ["2c", "3c"], 50),
        ("UPB-6", ["Ah", "Ad"], ["2c", "3c"], 25),
        ("UPB-3", ["Qd", "Ad"], None, 20),
        ("UPB-1", ["Qd", "As"], None, 5),
        ("UPB-3", ["Qd", "As"], None, 10),
        ("UPB-1", ["Td", "Ts"], None, 3),
        # K, Q and J are all "face" (10.2): 10 to 1 on UPB-1, never the low pair's 3.
        ("UPB-1", ["Kd", "Ks"], None, 10),
        ("UPB-1", ["Qd", "Qs"], None, 10),
        ("UPB-1", ["Jd", "Js"], None, 10),
        ("UPB-2", ["Qh", "Qc"], None, 10),
        ("UPB-1", ["Kd", "Qs"], None, None),
    ],
)
def test_pairs_rows(paytable, hole, pd_hole, pays):
    assert pairs_payout(paytable, 1, hole, pd_hole) == pays


def test_progressive_hands():
    assert progressive_hand(ROYAL_HOLE, ROYAL_FLOP + ["2c", "3d"]) == "royal_first_five"
    assert progressive_hand(ROYAL_HOLE, ["Qs", "Js", "2c", "Ts", "3d"]) == "royal_seven"
    assert progressive_hand(["2c", "3d"], ["As", "Ks", "Qs", "Js", "Ts"]) == "community_royal"
    assert progressive_hand(["9s", "8s"], ["7s", "6s", "5s", "2c", "3d"]) == "straight_flush"
    assert progressive_hand(["9s", "8s"], ["7s", "6d", "5s", "2c", "3d"]) is None


# --- properties -------------------------------------------------------------------------------

PROFILE = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROFILE
@given(st.data())
def test_chips_and_the_fund_are_conserved_with_side_bets(data):
    """Random rounds with every side bet: the players' and PD's nets sum to zero, the PD's
    net lies within the bank, and meter + reserve + awards paid equals the starting amounts
    plus the contributions less reversals, to the cent; nothing goes below zero."""
    start = Fund(data.draw(st.integers(0, 2_000_000)), data.draw(st.integers(0, 2_000_000)))
    prog = {**PROGRESSIVE, "meter": {**PROGRESSIVE["meter"], "meter_share": data.draw(st.integers(0, 100)),
                                     "seed": data.draw(st.integers(0, 1_000_000)), "meter": start.meter, "reserve": start.reserve}}
    side = {"bad_beat": {"paytable": data.draw(st.sampled_from(["BBB-01", "BBB-02", "BBB-03"]))},
            "pairs": {"paytable": data.draw(st.sampled_from(sorted(PAIRS_TABLES)))}, "progressive": prog}
    players = data.draw(st.lists(st.integers(2, 6), min_size=1, max_size=5, unique=True))
    game = side_table(players=players, side_bets=side)
    meter = Meter.of(game)
    contributed = paid = reversed_ = 0
    for _ in range(data.draw(st.integers(1, 2))):  # two banks in a row at most
        seed = data.draw(st.integers(0, 2**32))
        cards = random.Random(seed).sample(DECK, 2 * len(players) + 9)
        wagers = []
        for s in sorted(players):
            trips = data.draw(st.sampled_from([0, 100, 500]))
            wagers.append(wager(s, data.draw(st.sampled_from([100, 1000])), trips=trips or None,
                                **({"bad_beat": data.draw(st.sampled_from([100, 2500]))} if trips and data.draw(st.booleans()) else {}),
                                **({"pairs": 500} if data.draw(st.booleans()) else {}),
                                **({"progressive": True} if data.draw(st.booleans()) else {})))
        holes = {s: cards[2 * i: 2 * i + 2] for i, s in enumerate(sorted(players))}
        pd_hole, board = cards[2 * len(players): 2 * len(players) + 2], cards[-5:]
        bank = data.draw(st.integers(1, 50000))
        game, _ = drive(game, open_round(bank, wagers), meter=meter)
        contributed += 100 * sum(1 for w in wagers if w.get("progressive"))
        if data.draw(st.integers(0, 4)) == 0:
            game, res = drive(game, [{"type": "void_round", "reason": "misdeal", "approved_by": "S"}], meter=meter)
            reversed_ += sum(j["amount"] - j["owed"] for j in res[0].get("jackpot", []))
            continue
        commands = [decide(s, "check") for s in sorted(players)] + [{"type": "flop", "cards": board[:3]}]
        commands += [decide(s, "check") for s in sorted(players)] + [{"type": "turn_river", "cards": board[3:]}]
        commands += [decide(s, data.draw(st.sampled_from(["fold", "play"])), None) for s in sorted(players)]
        commands = [dict(c, multiple=1) if c["type"] == "play" else c for c in commands]
        commands += [{"type": "showdown", "player_dealer": pd_hole, "hands": {str(s): h for s, h in holes.items()}}]
        game, res = drive(game, commands, meter=meter)
        confirms = [{"type": "confirm_award", "seat": a["seat"], "approved_by": "S"}
                    for a in res[-1]["progressive"] if a["hand"] in ("royal_first_five", "royal_seven")]
        game, res = drive(game, confirms + [{"type": "settle"}], meter=meter)
        s = res[-1]
        assert sum(x["net"] for x in s["seats"]) + s["pd_net"] == 0
        assert -bank <= s["pd_net"] <= bank
        paid += sum(a["from_meter"] + a["from_reserve"] for a in s["progressive"])
        assert all(a["owed"] == a["award"] - a["from_meter"] - a["from_reserve"] >= 0 for a in s["progressive"])
    fund = meter.fund
    assert fund.meter >= 0 and fund.reserve >= 0
    assert fund.meter + fund.reserve + paid + reversed_ == start.meter + start.reserve + contributed

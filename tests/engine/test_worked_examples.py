"""Game-rules section 11's worked examples, and more worked by hand from sections 6 and 7,
played as full command streams through TableGame.apply.

Every example is a complete round: sit, offer/accept the bank, open_round, wagers,
no_more_bets, the decisions, flop, turn_river, showdown, settle. The expected settlement
lines are written in the spec's own notation, `seat wager stake -> result amount (uncovered)`,
and compared line by line, in order. Examples A, B and C are also played with the cards
fed through `deal` under each dealing procedure.
"""

import re

import pytest

from tests.engine.helpers import (
    ONE_RATE_FEES,
    deal_sequence,
    decide,
    do,
    drive,
    open_round,
    refuse,
    table_with_pd,
    wager,
)

LINE = re.compile(r"^(\d+)(?:/(\S+))? (ante|play|blind|trips|bad_beat|pairs) (\d+) -> (win|lose|push|no_action) (\d+)(?: \((\d+)\))?$")


def lines(*texts: str) -> list[dict]:
    """Settlement lines from `4 play 4000 -> win 4000` / `3 play 1000 -> win 250 (750)`;
    a backline line names its bettor after the seat: `2/B-1 ante 500 -> win 500`."""
    out = []
    for text in texts:
        m = LINE.match(text)
        assert m, f"bad expected line {text!r}"
        seat, bettor, kind, stake, result, amount, uncovered = m.groups()
        out.append(
            {
                "seat": int(seat),
                "wager": kind,
                "stake": int(stake),
                "result": result,
                "amount": int(amount),
                "uncovered": int(uncovered or 0),
                **({"bettor": bettor} if bettor else {}),
            }
        )
    return out


def play_example(
    *,
    pd_seat,
    bank,
    wagers,
    preflop,
    flop,
    river,
    board,
    pd_hole,
    holes,
    mode="entered",
    seats=6,
    table=None,
    fees=ONE_RATE_FEES,
):
    """Play one full round; returns (no_more_bets result, showdown result, settle result).

    mode "entered": the dealer types the cards as they are revealed (flop, turn_river,
    showdown with the hole cards in `holes`). Any other mode is a dealing procedure: the
    whole sequence goes through `deal`, and the reveals send the matching cards again.
    """
    table = dict(table or {})
    if fees is not None:
        table["fee_schedule"] = fees
    if mode != "entered":
        table["dealing"] = mode
    game = table_with_pd(pd_seat, [w["seat"] for w in wagers], seats=seats, **table)
    game, results = drive(game, open_round(bank, wagers))
    nmb = results[-1]
    if mode != "entered":
        sequence = deal_sequence(mode, holes, pd_hole, board)
        game, dealt = do(game, {"type": "deal", "cards": sequence})
        assert dealt["hands"] == {str(s): h for s, h in holes.items()}
        assert dealt["player_dealer"] == pd_hole
        showdown = {"type": "showdown"}
    else:
        showdown = {"type": "showdown", "player_dealer": pd_hole, "hands": {str(s): h for s, h in holes.items()}}
    game, results = drive(
        game,
        [
            *preflop,
            {"type": "flop", "cards": board[:3]},
            *flop,
            {"type": "turn_river", "cards": board[3:]},
            *river,
            showdown,
            {"type": "settle"},
        ],
    )
    shown, settled = results[-2], results[-1]
    # The showdown preview is the settlement, less the rotation outcome.
    preview = {k: v for k, v in settled.items() if k not in ("next_offer", "player_dealer_next")}
    assert shown == preview
    assert game.round is None
    return nmb, shown, settled


def nets(settled) -> dict[int, int]:
    return {s["seat"]: s["net"] for s in settled["seats"]}


def hands(settled) -> dict[int, str | None]:
    return {s["seat"]: s["hand"] for s in settled["seats"]}


def assert_conserved(settled):
    assert sum(nets(settled).values()) + settled["pd_net"] == 0
    assert settled["pd_net"] == settled["balance"] - settled["bank"]
    # seat nets are the sums of their lines
    for seat, net in nets(settled).items():
        total = 0
        for line in settled["lines"]:
            if line["seat"] == seat:
                total += {"win": line["amount"], "lose": -line["amount"]}.get(line["result"], 0)
        assert total == net, seat


MODES = ["entered", "shoe", "shuffler", "community_first"]


# --- section 11 -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_example_a_pd_does_not_qualify(mode):
    nmb, _, s = play_example(
        mode=mode,
        pd_seat=3,
        bank=100000,
        wagers=[wager(4, 1000, trips=500), wager(5, 1000, trips=500), wager(1, 1000)],
        # seat 4 plays 4x pre-flop (4000); seats 5 and 1 check twice; on the river seat 5
        # folds and seat 1 plays 1x (1000).
        preflop=[decide(4, "play", 4), decide(5, "check"), decide(1, "check")],
        flop=[decide(5, "check"), decide(1, "check")],
        river=[decide(5, "fold"), decide(1, "play", 1)],
        board=["2h", "7d", "9c", "Js", "3s"],
        pd_hole=["Ah", "Kd"],
        holes={1: ["4h", "5d"], 4: ["8h", "8d"], 5: ["9h", "9d"]},
    )
    assert nmb["deck"] == "A"
    # one-rate schedule: each player 100 (seats 1, 4, 5), the PD 50 per betting square = 150
    assert nmb["fees"] == [
        {"seat": 1, "payer": "player", "amount": 100},
        {"seat": 3, "payer": "player_dealer", "amount": 150},
        {"seat": 4, "payer": "player", "amount": 100},
        {"seat": 5, "payer": "player", "amount": 100},
    ]
    assert s["player_dealer"] == {"seat": 3, "player": "P-3", "hand": "high_card", "qualifies": False}
    assert s["lines"] == lines(
        "4 ante 1000 -> push 0",
        "4 play 4000 -> win 4000",
        "4 blind 1000 -> push 0",
        "4 trips 500 -> lose 500",
        "5 ante 1000 -> lose 1000",
        "5 blind 1000 -> lose 1000",
        "5 trips 500 -> win 1500",
        "1 ante 1000 -> push 0",
        "1 play 1000 -> lose 1000",
        "1 blind 1000 -> lose 1000",
    )
    assert nets(s) == {4: 3500, 5: -500, 1: -2000}
    assert list(nets(s)) == [4, 5, 1]
    assert hands(s) == {4: "one_pair", 5: "three_of_a_kind", 1: "high_card"}
    assert (s["bank"], s["pd_net"], s["balance"], s["exhausted"]) == (100000, -1000, 99000, False)
    assert s["fee_refunds"] == []
    assert s["round"] == 1
    assert_conserved(s)


@pytest.mark.parametrize("mode", MODES)
def test_example_b_bank_runs_out(mode):
    nmb, _, s = play_example(
        mode=mode,
        pd_seat=1,
        bank=4000,
        wagers=[wager(2, 500), wager(3, 500, trips=300), wager(4, 500)],
        # seat 2: 2000 = 4x pre-flop; seat 3: 1000 = 2x on the flop; seat 4: 500 = 1x river
        preflop=[decide(2, "play", 4), decide(3, "check"), decide(4, "check")],
        flop=[decide(3, "play", 2), decide(4, "check")],
        river=[decide(4, "play", 1)],
        board=["Ah", "Kh", "7h", "7c", "2d"],
        pd_hole=["Ks", "Qd"],
        holes={2: ["Qh", "Jh"], 3: ["As", "Ad"], 4: ["3c", "4c"]},
    )
    assert nmb["fees"] == [
        {"seat": 1, "payer": "player_dealer", "amount": 150},
        {"seat": 2, "payer": "player", "amount": 100},
        {"seat": 3, "payer": "player", "amount": 100},
        {"seat": 4, "payer": "player", "amount": 100},
    ]
    assert s["player_dealer"] == {"seat": 1, "player": "P-1", "hand": "two_pair", "qualifies": True}
    assert s["lines"] == lines(
        "2 ante 500 -> win 500",
        "2 play 2000 -> win 2000",
        "2 blind 500 -> win 750",
        "3 ante 500 -> win 500",
        "3 play 1000 -> win 250 (750)",
        "3 blind 500 -> no_action 0",
        "3 trips 300 -> no_action 0",
        "4 ante 500 -> no_action 0",
        "4 play 500 -> no_action 0",
        "4 blind 500 -> no_action 0",
    )
    assert nets(s) == {2: 3250, 3: 750, 4: 0}
    assert hands(s) == {2: "flush", 3: "full_house", 4: "one_pair"}
    assert (s["bank"], s["pd_net"], s["balance"], s["exhausted"]) == (4000, -4000, 0, True)
    assert s["fee_refunds"] == [{"seat": 4, "amount": 100}]
    assert_conserved(s)


@pytest.mark.parametrize("mode", MODES)
def test_example_c_pd_reaches_win_cap(mode):
    _, _, s = play_example(
        mode=mode,
        pd_seat=5,
        bank=5000,
        wagers=[wager(6, 1000), wager(1, 1000), wager(2, 1000, trips=100)],
        # seat 6: 4000 = 4x pre-flop; seat 1: 3000 = 3x pre-flop; seat 2: 2000 = 2x flop
        preflop=[decide(6, "play", 4), decide(1, "play", 3), decide(2, "check")],
        flop=[decide(2, "play", 2)],
        river=[],
        board=["Ts", "9d", "4c", "4h", "2s"],
        pd_hole=["Kc", "Kd"],
        holes={1: ["3d", "7c"], 2: ["8s", "Jc"], 6: ["5h", "6h"]},
    )
    assert s["player_dealer"]["hand"] == "two_pair" and s["player_dealer"]["qualifies"]
    assert s["lines"] == lines(
        "6 ante 1000 -> lose 1000",
        "6 play 4000 -> lose 4000",
        "6 blind 1000 -> lose 0 (1000)",
        "1 ante 1000 -> lose 0 (1000)",
        "1 play 3000 -> lose 0 (3000)",
        "1 blind 1000 -> lose 0 (1000)",
        "2 ante 1000 -> lose 0 (1000)",
        "2 play 2000 -> lose 0 (2000)",
        "2 blind 1000 -> lose 0 (1000)",
        "2 trips 100 -> lose 0 (100)",
    )
    assert list(nets(s)) == [6, 1, 2]
    assert nets(s) == {6: -5000, 1: 0, 2: 0}
    assert (s["bank"], s["pd_net"], s["balance"], s["exhausted"]) == (5000, 5000, 10000, False)
    assert sorted(s["fee_refunds"], key=lambda r: r["seat"]) == [
        {"seat": 1, "amount": 100},
        {"seat": 2, "amount": 100},
    ]
    assert_conserved(s)


def backline(seat: int, bettor: str, ante: int, trips: int | None = None) -> dict:
    command = {"type": "backline_wager", "seat": seat, "bettor": bettor, "ante": ante}
    if trips:
        command["trips"] = trips
    return command


# Example E's cards (game-rules 12 gives the hands, not the cards): the PD pairs its king,
# seat 2's seven cards make a heart flush.
EXAMPLE_E = {
    "board": ["2h", "7h", "9h", "Kc", "4d"],
    "pd_hole": ["Ks", "3c"],
    "holes": {2: ["Ah", "5h"]},
}
# Worked example E's settlement, line for line (also what the service and replay must give).
EXAMPLE_E_LINES = lines(
    "2 ante 1000 -> win 1000",
    "2 play 4000 -> win 4000",
    "2 blind 1000 -> win 1500",
    "2/B-1 ante 500 -> win 500",
    "2/B-1 play 2000 -> win 2000",
    "2/B-1 blind 500 -> win 750",
    "2/B-1 trips 500 -> win 250 (3250)",
    "2/B-2 ante 2000 -> no_action 0",
    "2/B-2 play 8000 -> no_action 0",
    "2/B-2 blind 2000 -> no_action 0",
)


@pytest.mark.parametrize("mode", MODES)
def test_example_e_backline_and_the_bank_running_out(mode):
    nmb, _, s = play_example(
        mode=mode,
        pd_seat=1,
        bank=10000,
        wagers=[wager(2, 1000), backline(2, "B-1", 500, trips=500), backline(2, "B-2", 2000)],
        preflop=[decide(2, "play", 4)],
        flop=[],
        river=[],
        seats=6,
        table={"backline": {"max_per_seat": 2, "trips": True}},
        fees=None,
        **EXAMPLE_E,
    )
    assert nmb["fees"] == []
    assert s["player_dealer"]["hand"] == "one_pair" and s["player_dealer"]["qualifies"]
    assert s["lines"] == EXAMPLE_E_LINES
    assert nets(s) == {2: 6500}
    assert s["backline"] == [{"seat": 2, "bettor": "B-1", "net": 3500}, {"seat": 2, "bettor": "B-2", "net": 0}]
    assert (s["bank"], s["pd_net"], s["balance"], s["exhausted"]) == (10000, -10000, 0, True)
    # Chips conserved: the seats' nets, the bettors' nets and the PD's net sum to zero.
    assert sum(nets(s).values()) + sum(b["net"] for b in s["backline"]) + s["pd_net"] == 0


# --- worked by hand from sections 6 and 7 -------------------------------------------------------


def test_dealer_does_not_qualify_straight_and_loser():
    # Board Kc 9d 6h 3s 2c. PD Qd Jd: K Q J 9 6, high card -> does not qualify: Antes push.
    # Seat 2 (5c 4d): 6-5-4-3-2 straight > PD: Play 3x = 3000 wins 3000; Blind wins 1:1 = 1000.
    # Seat 3 (Td 8c): K T 9 8 6 < K Q J 9 6: Ante push, Play 1000 lost, Blind 1000 lost.
    # Seat nets: 2 = +4000, 3 = -2000; PD net = -(4000 - 2000) = -2000; balance 98000.
    _, _, s = play_example(
        pd_seat=1,
        bank=100000,
        wagers=[wager(2, 1000), wager(3, 1000)],
        preflop=[decide(2, "play", 3), decide(3, "check")],
        flop=[decide(3, "check")],
        river=[decide(3, "play", 1)],
        board=["Kc", "9d", "6h", "3s", "2c"],
        pd_hole=["Qd", "Jd"],
        holes={2: ["5c", "4d"], 3: ["Td", "8c"]},
    )
    assert s["player_dealer"]["qualifies"] is False
    assert s["lines"] == lines(
        "2 ante 1000 -> push 0",
        "2 play 3000 -> win 3000",
        "2 blind 1000 -> win 1000",
        "3 ante 1000 -> push 0",
        "3 play 1000 -> lose 1000",
        "3 blind 1000 -> lose 1000",
    )
    assert nets(s) == {2: 4000, 3: -2000}
    assert hands(s) == {2: "straight", 3: "high_card"}
    assert (s["pd_net"], s["balance"], s["exhausted"]) == (-2000, 98000, False)
    assert_conserved(s)


def test_blind_three_to_two_rounds_odd_cents_down():
    # Board Ah 9h 5h 2c 2d. PD Kc Kd: K K 2 2 A two pair (qualifies). Seat 2 (3h 7h):
    # A-9-7-5-3 flush beats it. Ante 333 wins 333; Play 4x = 1332 wins 1332;
    # Blind 333 at 3:2 = 499.5 -> rounded down to 499. Net 333 + 1332 + 499 = 2164.
    # Balance 10000 - 2164 = 7836.
    _, _, s = play_example(
        pd_seat=1,
        bank=10000,
        wagers=[wager(2, 333)],
        preflop=[decide(2, "play", 4)],
        flop=[],
        river=[],
        board=["Ah", "9h", "5h", "2c", "2d"],
        pd_hole=["Kc", "Kd"],
        holes={2: ["3h", "7h"]},
    )
    assert s["lines"] == lines(
        "2 ante 333 -> win 333",
        "2 play 1332 -> win 1332",
        "2 blind 333 -> win 499",
    )
    assert nets(s) == {2: 2164}
    assert (s["pd_net"], s["balance"]) == (-2164, 7836)
    assert_conserved(s)


def test_folded_player_trips_paid_and_folded_without_trips_needs_no_cards():
    # Board 7c 7d Kh 4s 2c. PD Qc Qd: Q Q 7 7 K two pair.
    # Seat 2 (7h 3d; ante 500, trips 200) folds on the river with 7 7 7 K 4: Ante 500 and
    # Blind 500 lost; Trips paid 3:1 = 600 anyway. Net -500 - 500 + 600 = -400.
    # Seat 3 (ante 500, no Trips) folds: Ante and Blind lost, -1000; no hole cards needed.
    # PD net = 400 + 1000 = +1400; balance 11400.
    game = table_with_pd(1, [2, 3], fee_schedule=ONE_RATE_FEES)
    game, _ = drive(
        game,
        [
            *open_round(10000, [wager(2, 500, trips=200), wager(3, 500)]),
            decide(2, "check"),
            decide(3, "check"),
            {"type": "flop", "cards": ["7c", "7d", "Kh"]},
            decide(2, "check"),
            decide(3, "check"),
            {"type": "turn_river", "cards": ["4s", "2c"]},
            decide(2, "fold"),
            decide(3, "fold"),
        ],
    )
    # The folded Trips player's hole cards must be recorded.
    refuse(game, {"type": "showdown", "player_dealer": ["Qc", "Qd"], "hands": {}}, "missing_cards")
    game, results = drive(
        game,
        [
            {"type": "showdown", "player_dealer": ["Qc", "Qd"], "hands": {"2": ["7h", "3d"]}},
            {"type": "settle"},
        ],
    )
    s = results[-1]
    assert s["lines"] == lines(
        "2 ante 500 -> lose 500",
        "2 blind 500 -> lose 500",
        "2 trips 200 -> win 600",
        "3 ante 500 -> lose 500",
        "3 blind 500 -> lose 500",
    )
    assert nets(s) == {2: -400, 3: -1000}
    assert hands(s) == {2: "three_of_a_kind", 3: None}
    assert (s["pd_net"], s["balance"], s["exhausted"]) == (1400, 11400, False)
    assert s["fee_refunds"] == []
    assert_conserved(s)


def test_tie_pushes_everything_but_trips():
    # Board Ah Ad Kc Qs Jd. PD 2c 3c and seat 2 (4d 5d) both play A A K Q J: a tie.
    # The PD qualifies (pair), so Ante pushes on the tie; Play (2x flop = 2000) and Blind push.
    # Trips 100 on one pair loses 100. Net -100, PD +100.
    _, _, s = play_example(
        pd_seat=1,
        bank=10000,
        wagers=[wager(2, 1000, trips=100)],
        preflop=[decide(2, "check")],
        flop=[decide(2, "play", 2)],
        river=[],
        board=["Ah", "Ad", "Kc", "Qs", "Jd"],
        pd_hole=["2c", "3c"],
        holes={2: ["4d", "5d"]},
    )
    assert s["player_dealer"]["qualifies"] is True
    assert s["lines"] == lines(
        "2 ante 1000 -> push 0",
        "2 play 2000 -> push 0",
        "2 blind 1000 -> push 0",
        "2 trips 100 -> lose 100",
    )
    assert (nets(s), s["pd_net"], s["balance"]) == ({2: -100}, 100, 10100)
    assert s["fee_refunds"] == []  # a push is not a wager returned for want of bank
    assert_conserved(s)


def test_tie_on_a_board_straight_still_pays_trips():
    # Board As Ks Qd Jc Tc: both the PD (2c 3d) and seat 2 (4h 5h) play the broadway straight.
    # Ante, Play (4x = 400), Blind push; Trips 100 on a straight pays 4:1 (UTH-01) = 400.
    _, _, s = play_example(
        pd_seat=1,
        bank=10000,
        wagers=[wager(2, 100, trips=100)],
        preflop=[decide(2, "play", 4)],
        flop=[],
        river=[],
        board=["As", "Ks", "Qd", "Jc", "Tc"],
        pd_hole=["2c", "3d"],
        holes={2: ["4h", "5h"]},
    )
    assert s["lines"] == lines(
        "2 ante 100 -> push 0",
        "2 play 400 -> push 0",
        "2 blind 100 -> push 0",
        "2 trips 100 -> win 400",
    )
    assert (nets(s), s["pd_net"]) == ({2: 400}, -400)
    assert_conserved(s)


def test_wheel_straight_beats_a_pair_and_pays_blind_even():
    # Board 2d 3c 4h 9s Kd. Seat 2 (Ah 5c): A-2-3-4-5, the lowest straight, still beats the
    # PD's pair of kings (Kc Qh). Ante 1000 wins 1000; Play 4x = 4000 wins 4000; Blind 1:1 =
    # 1000; Trips 500 on a straight 4:1 = 2000. Net 8000; balance 100000 - 8000 = 92000.
    _, _, s = play_example(
        pd_seat=1,
        bank=100000,
        wagers=[wager(2, 1000, trips=500)],
        preflop=[decide(2, "play", 4)],
        flop=[],
        river=[],
        board=["2d", "3c", "4h", "9s", "Kd"],
        pd_hole=["Kc", "Qh"],
        holes={2: ["Ah", "5c"]},
    )
    assert s["lines"] == lines(
        "2 ante 1000 -> win 1000",
        "2 play 4000 -> win 4000",
        "2 blind 1000 -> win 1000",
        "2 trips 500 -> win 2000",
    )
    assert hands(s) == {2: "straight"}
    assert (nets(s), s["pd_net"], s["balance"]) == ({2: 8000}, -8000, 92000)
    assert_conserved(s)


def test_bank_exhausted_exactly_to_zero_by_a_full_payment():
    # Board Kh 8d 5c 3s 2h; PD 8h 4d: pair of eights (qualifies); bank 2000.
    # Seat 2 (Kd Jc, pair of kings): Ante 500 paid 500 -> balance 1500; Play 3x = 1500 paid in
    # full -> balance 0, uncovered 0: the bank is exhausted. Its Blind (a pair: would push)
    # has no action. Seat 3 (7c 6c, K-high; would lose): every wager no action, returned.
    # Nets: 2 = +2000, 3 = 0; PD -2000; seat 3's player fee refunded.
    _, _, s = play_example(
        pd_seat=1,
        bank=2000,
        wagers=[wager(2, 500), wager(3, 500)],
        preflop=[decide(2, "play", 3), decide(3, "check")],
        flop=[decide(3, "check")],
        river=[decide(3, "play", 1)],
        board=["Kh", "8d", "5c", "3s", "2h"],
        pd_hole=["8h", "4d"],
        holes={2: ["Kd", "Jc"], 3: ["7c", "6c"]},
    )
    assert s["lines"] == lines(
        "2 ante 500 -> win 500",
        "2 play 1500 -> win 1500",
        "2 blind 500 -> no_action 0",
        "3 ante 500 -> no_action 0",
        "3 play 500 -> no_action 0",
        "3 blind 500 -> no_action 0",
    )
    assert nets(s) == {2: 2000, 3: 0}
    assert (s["pd_net"], s["balance"], s["exhausted"]) == (-2000, 0, True)
    assert s["fee_refunds"] == [{"seat": 3, "amount": 100}]
    assert_conserved(s)


def test_bank_exhausted_mid_seat_by_a_partial_payment():
    # Board Ah 9h 5h 2c 2d; PD Kc Kd (two pair); bank 1000.
    # Seat 2 (3h 7h flush; ante 500, trips 100, Play 4x = 2000): Ante paid 500 -> balance 500;
    # Play owed 2000, paid 500 (uncovered 1500) -> exhausted; Blind and Trips no action.
    # Seat 3 folded (no Trips, no cards): Ante and Blind no action, returned; fee refunded.
    # Nets: 2 = +1000, 3 = 0; PD -1000; balance 0.
    _, _, s = play_example(
        pd_seat=1,
        bank=1000,
        wagers=[wager(2, 500, trips=100), wager(3, 500)],
        preflop=[decide(2, "play", 4), decide(3, "check")],
        flop=[decide(3, "check")],
        river=[decide(3, "fold")],
        board=["Ah", "9h", "5h", "2c", "2d"],
        pd_hole=["Kc", "Kd"],
        holes={2: ["3h", "7h"]},
    )
    assert s["lines"] == lines(
        "2 ante 500 -> win 500",
        "2 play 2000 -> win 500 (1500)",
        "2 blind 500 -> no_action 0",
        "2 trips 100 -> no_action 0",
        "3 ante 500 -> no_action 0",
        "3 blind 500 -> no_action 0",
    )
    assert nets(s) == {2: 1000, 3: 0}
    assert (s["pd_net"], s["balance"], s["exhausted"]) == (-1000, 0, True)
    assert s["fee_refunds"] == [{"seat": 3, "amount": 100}]
    assert_conserved(s)


def test_win_cap_reached_mid_seat_then_a_win_is_paid_and_the_cap_reached_again():
    # Board Kh 8d 5c 3s 2h; PD 8h 4d (pair of eights, qualifies); bank B = 1000, so the PD
    # collects at most 2B - balance on each losing stake.
    # Seat 2 (9c 7c, K-high, loses; Play 3x = 1500):
    #   ante 500 lose: collect min(500, 2000 - 1000) = 500 -> balance 1500
    #   play 1500 lose: collect min(1500, 2000 - 1500) = 500, uncovered 1000 -> balance 2000
    #   blind 500 lose: collect 0, uncovered 500 (cap reached)
    # Seat 3 (Kd Jc, pair of kings, wins; Play 2x on the flop = 1000):
    #   ante 500 win 500 -> balance 1500; play 1000 win 1000 -> 500; blind push (a pair)
    # Seat 4 (Qc Tc, K-high, loses; Play 1x on the river = 500; trips 100):
    #   ante 500 lose: collect min(500, 2000 - 500) = 500 -> 1000; play 500 -> 1500;
    #   blind 500 -> 2000 (cap again); trips 100: collect 0, uncovered 100.
    # Nets: 2 = -1000, 3 = +1500, 4 = -1500; PD net = +1000 = B; balance 2000.
    _, _, s = play_example(
        pd_seat=1,
        bank=1000,
        wagers=[wager(2, 500), wager(3, 500), wager(4, 500, trips=100)],
        preflop=[decide(2, "play", 3), decide(3, "check"), decide(4, "check")],
        flop=[decide(3, "play", 2), decide(4, "check")],
        river=[decide(4, "play", 1)],
        board=["Kh", "8d", "5c", "3s", "2h"],
        pd_hole=["8h", "4d"],
        holes={2: ["9c", "7c"], 3: ["Kd", "Jc"], 4: ["Qc", "Tc"]},
    )
    assert s["lines"] == lines(
        "2 ante 500 -> lose 500",
        "2 play 1500 -> lose 500 (1000)",
        "2 blind 500 -> lose 0 (500)",
        "3 ante 500 -> win 500",
        "3 play 1000 -> win 1000",
        "3 blind 500 -> push 0",
        "4 ante 500 -> lose 500",
        "4 play 500 -> lose 500",
        "4 blind 500 -> lose 500",
        "4 trips 100 -> lose 0 (100)",
    )
    assert nets(s) == {2: -1000, 3: 1500, 4: -1500}
    assert (s["pd_net"], s["balance"], s["exhausted"]) == (1000, 2000, False)
    assert s["fee_refunds"] == []
    assert_conserved(s)


def test_settlement_starts_at_the_pd_left_and_wraps():
    # PD in seat 4 of 6: the order is 5, 6, 1, 2, 3 (skipping empty seats): here 6, 1, 3.
    # Every player loses to the PD's trip kings; bank large; each seat -2 x 100 - Play 400.
    _, _, s = play_example(
        pd_seat=4,
        bank=100000,
        wagers=[wager(1, 100), wager(3, 100), wager(6, 100)],
        preflop=[decide(1, "play", 4), decide(3, "play", 4), decide(6, "play", 4)],
        flop=[],
        river=[],
        board=["Kh", "8d", "5c", "3s", "2h"],
        pd_hole=["Kc", "Kd"],
        holes={1: ["9c", "7c"], 3: ["Qc", "Tc"], 6: ["Jd", "9d"]},
    )
    assert [(line["seat"], line["wager"]) for line in s["lines"]] == [
        (6, "ante"), (6, "play"), (6, "blind"),
        (1, "ante"), (1, "play"), (1, "blind"),
        (3, "ante"), (3, "play"), (3, "blind"),
    ]  # fmt: skip
    assert nets(s) == {6: -600, 1: -600, 3: -600}
    assert s["pd_net"] == 1800


# --- Trips pay tables ----------------------------------------------------------------------------

# (player hole, board) making each hand category; the PD holds Qs Js.
TRIPS_HANDS = {
    "royal_flush": (["Jh", "Th"], ["Ah", "Kh", "Qh", "2c", "3d"]),
    "straight_flush": (["6h", "5h"], ["9h", "8h", "7h", "2c", "3d"]),
    "four_of_a_kind": (["9s", "Kd"], ["9c", "9d", "9h", "2s", "3d"]),
    "full_house": (["9h", "4c"], ["9c", "9d", "4h", "2s", "3d"]),
    "flush": (["Kh", "7h"], ["Ah", "9h", "5h", "2c", "3d"]),
    "straight": (["6c", "5d"], ["9c", "8d", "7h", "2s", "3d"]),
    "three_of_a_kind": (["9h", "7c"], ["9c", "9d", "4h", "2s", "Kd"]),
    "one_pair": (["9h", "7c"], ["9c", "5d", "4h", "2s", "Kd"]),
}

CUSTOM = {
    "trips": {
        "royal_flush": [100, 1],
        "straight_flush": [50, 1],
        "four_of_a_kind": [40, 1],
        "full_house": [10, 1],
        "flush": [5, 2],
        "straight": [7, 3],
        "three_of_a_kind": [3, 2],
    }
}
ONLY_STRAIGHT = {"trips": {"straight": [4, 1]}}

STAKE = 101
# Expected Trips payouts on a stake of 101 (X to 1: 101 * X; custom X to Y rounded down:
# flush 101 * 5 / 2 = 252.5 -> 252, straight 101 * 7 / 3 = 235.67 -> 235,
# three of a kind 101 * 3 / 2 = 151.5 -> 151). None: the Trips wager loses.
TRIPS_EXPECTED = {
    "UTH-01": dict(royal_flush=5050, straight_flush=4040, four_of_a_kind=3030, full_house=909,
                   flush=707, straight=404, three_of_a_kind=303, one_pair=None),
    "UTH-02": dict(royal_flush=5050, straight_flush=4040, four_of_a_kind=3030, full_house=808,
                   flush=606, straight=505, three_of_a_kind=303, one_pair=None),
    "UTH-03": dict(royal_flush=5050, straight_flush=4040, four_of_a_kind=3030, full_house=808,
                   flush=707, straight=404, three_of_a_kind=303, one_pair=None),
    "UTH-04": dict(royal_flush=5050, straight_flush=4040, four_of_a_kind=2020, full_house=707,
                   flush=606, straight=505, three_of_a_kind=303, one_pair=None),
    "custom": dict(royal_flush=10100, straight_flush=5050, four_of_a_kind=4040, full_house=1010,
                   flush=252, straight=235, three_of_a_kind=151, one_pair=None),
    "only_straight": dict(straight=404, three_of_a_kind=None, one_pair=None),
}  # fmt: skip
PAYTABLE_CONFIG = {"custom": CUSTOM, "only_straight": ONLY_STRAIGHT}


@pytest.mark.parametrize(
    "table,category",
    [(t, c) for t, expected in TRIPS_EXPECTED.items() for c in expected],
)
def test_trips_pay_tables(table, category):
    hole, board = TRIPS_HANDS[category]
    _, _, s = play_example(
        pd_seat=1,
        bank=10**7,
        wagers=[wager(2, 100, trips=STAKE)],
        preflop=[decide(2, "play", 4)],
        flop=[],
        river=[],
        board=board,
        pd_hole=["Qs", "Js"],
        holes={2: hole},
        table={"paytable": PAYTABLE_CONFIG.get(table, table)},
    )
    assert hands(s) == {2: category}
    trips = [line for line in s["lines"] if line["wager"] == "trips"]
    expected = TRIPS_EXPECTED[table][category]
    if expected is None:
        assert trips == lines(f"2 trips {STAKE} -> lose {STAKE}")
    else:
        assert trips == lines(f"2 trips {STAKE} -> win {expected}")
    assert_conserved(s)


# Blind pays (all pay tables) on a stake of 101 when the player beats the PD (Qs Js):
# royal 500:1 = 50500, straight flush 50:1 = 5050, quads 10:1 = 1010, full house 3:1 = 303,
# flush 3:2 = 151.5 -> 151, straight 1:1 = 101; three of a kind and lower: push.
BLIND_EXPECTED = dict(royal_flush=50500, straight_flush=5050, four_of_a_kind=1010, full_house=303,
                      flush=151, straight=101, three_of_a_kind=None, one_pair=None)  # fmt: skip


@pytest.mark.parametrize("table", ["UTH-01", "UTH-02", "UTH-03", "UTH-04"])
@pytest.mark.parametrize("category", sorted(BLIND_EXPECTED))
def test_blind_pay_table(table, category):
    hole, board = TRIPS_HANDS[category]
    _, _, s = play_example(
        pd_seat=1,
        bank=10**7,
        wagers=[wager(2, 101)],
        preflop=[decide(2, "play", 4)],
        flop=[],
        river=[],
        board=board,
        pd_hole=["Qs", "Js"],
        holes={2: hole},
        table={"paytable": table},
    )
    # the player beats the PD (whose qualification only decides the Ante)
    assert s["lines"][1] == lines("2 play 404 -> win 404")[0]
    expected = BLIND_EXPECTED[category]
    blind = "2 blind 101 -> push 0" if expected is None else f"2 blind 101 -> win {expected}"
    assert s["lines"][2:] == lines(blind)


def test_custom_blind_table_rounds_down():
    # A custom Blind table paying a straight 5:4: Blind 333 -> 333 * 5 / 4 = 416.25 -> 416.
    # Board 2d 3c 4h 9s Kd, seat 2 Ah 5c (wheel) beats the PD's pair of kings.
    _, _, s = play_example(
        pd_seat=1,
        bank=100000,
        wagers=[wager(2, 333)],
        preflop=[decide(2, "play", 4)],
        flop=[],
        river=[],
        board=["2d", "3c", "4h", "9s", "Kd"],
        pd_hole=["Kc", "Qh"],
        holes={2: ["Ah", "5c"]},
        table={"paytable": {"blind": {"straight": [5, 4]}}},
    )
    assert s["lines"] == lines(
        "2 ante 333 -> win 333",
        "2 play 1332 -> win 1332",
        "2 blind 333 -> win 416",
    )

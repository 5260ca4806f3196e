"""`manage.py replay` on side-bet sessions it has never seen: random tables (every Bad Beat
and Pairs pay table, any meter share, seed and starting amounts) and random rounds (side
bets, folds, voids, now and then a royal flush in the first five cards) give, command for
command, the results the pure rules engine gives (game-rules section 10)."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rounds.engine.cards import DECK
from rounds.engine.sidebets import PAIRS_TABLES
from tests.engine.helpers import drive, new_game
from tests.hypothesis_profiles import examples
from tests.service.test_replay import replay

ROYAL = ["As", "Ks", "Qs", "Js", "Ts"]


@st.composite
def sessions(draw):
    prog = {"paytable": "PROG-01", "wager": draw(st.sampled_from([100, 500])), "meter": {
        "name": "M-1", "meter_share": draw(st.integers(0, 100)), "seed": draw(st.integers(0, 600000)),
        "meter": draw(st.integers(0, 1_000_000)), "reserve": draw(st.integers(0, 1_000_000))}}
    table = {"seats": 6, "side_bets": {
        "bad_beat": {"paytable": draw(st.sampled_from(["BBB-01", "BBB-02", "BBB-03"]))},
        "pairs": {"paytable": draw(st.sampled_from(sorted(PAIRS_TABLES)))},
        "progressive": prog}}
    players = draw(st.lists(st.integers(2, 6), min_size=1, max_size=4, unique=True))
    commands = [{"type": "sit", "seat": s, "player": f"P-{s}"} for s in [1, *players]]
    commands += [{"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}]
    for _ in range(draw(st.integers(1, 2))):
        n = len(players)
        cards = random.Random(draw(st.integers(0, 2**32))).sample(DECK, 2 * n + 7)  # holes, the PD's, the board
        if draw(st.integers(0, 3)) == 0:  # a royal flush in the first player's first five cards
            rest = [c for c in DECK if c not in ROYAL]
            random.Random(draw(st.integers(0, 2**32))).shuffle(rest)
            cards = ROYAL[:2] + rest[: 2 * n] + ROYAL[2:] + rest[2 * n: 2 * n + 2]
        holes = {s: cards[2 * i: 2 * i + 2] for i, s in enumerate(sorted(players))}
        pd_hole, board = cards[2 * len(players): 2 * len(players) + 2], cards[2 * len(players) + 2:]
        commands.append({"type": "open_round", "bank": draw(st.integers(1, 60000))})
        for s in sorted(players):
            w = {"type": "wager", "seat": s, "ante": draw(st.sampled_from([100, 1000]))}
            if draw(st.booleans()):
                w["trips"] = 100
                if draw(st.booleans()):
                    w["bad_beat"] = draw(st.sampled_from([100, 2500]))
            if draw(st.booleans()):
                w["pairs"] = 500
            if draw(st.booleans()):
                w["progressive"] = True
            commands.append(w)
        commands.append({"type": "no_more_bets"})
        if draw(st.integers(0, 5)) == 0:
            commands.append({"type": "void_round", "reason": "misdeal", "approved_by": "SUP-1"})
            continue
        commands += [{"type": "check", "seat": s} for s in sorted(players)] + [{"type": "flop", "cards": board[:3]}]
        commands += [{"type": "check", "seat": s} for s in sorted(players)] + [{"type": "turn_river", "cards": board[3:]}]
        commands += [{"type": "fold", "seat": s} if draw(st.integers(0, 3)) == 0 else {"type": "play", "seat": s, "multiple": 1}
                     for s in sorted(players)]
        commands.append({"type": "showdown", "player_dealer": pd_hole, "hands": {str(s): h for s, h in holes.items()}})
        # Settle before and after the confirmations: refused while a percentage award waits.
        commands.append({"type": "settle"})
        commands += [{"type": "confirm_award", "seat": s, "approved_by": "SUP-1"} for s in sorted(players)]
        commands.append({"type": "settle"})
    return table, commands


@pytest.mark.django_db
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(sessions())
def test_replay_gives_the_engines_results_on_unseen_side_bet_sessions(monkeypatch, session):
    table, commands = session
    _, expected = drive(new_game(**table), commands, ok=False)
    # Every round that was not voided settled (a session that stalls would prove little).
    rounds = sum(c["type"] == "open_round" for c in commands) - sum(c["type"] == "void_round" for c in commands)
    assert sum(1 for r in expected if r["ok"] and "player_dealer_next" in r) == rounds
    assert replay({"table": {"name": "S", **table}, "commands": commands}, monkeypatch)["results"] == expected

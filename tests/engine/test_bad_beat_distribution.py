"""tools/compute_bad_beat_distribution.py, the offline enumeration behind the committed Bad
Beat distribution: its counting (boards up to suit relabelling, the hands that beat a hand
counted by inclusion-exclusion, ties apart) against a plain deal-by-deal count with the
engine's own evaluator, on reduced decks whole and on sampled boards of the full deck."""

import importlib.util
import random
from collections import Counter
from functools import cache
from itertools import combinations
from math import comb
from pathlib import Path

import pytest

from rounds.engine.hands import evaluate

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "compute_bad_beat_distribution.py"


def _load():
    spec = importlib.util.spec_from_file_location("compute_bad_beat_distribution", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = _load()


def _category(value) -> str:
    # A royal flush is eval7's (and the tool's) best straight flush.
    return "straight_flush" if value.category == "royal_flush" else value.category


def brute_force_board(board, deck) -> tuple[Counter, Counter]:
    """Every ordered (player, player-dealer) deal on one board, one by one: (deals by the
    losing hand's category, tied deals by category)."""
    rest = [c for c in deck if c not in board]
    pairs = [(p, 1 << rest.index(p[0]) | 1 << rest.index(p[1]), evaluate(tuple(board) + p))
             for p in combinations(rest, 2)]
    losing, tied = Counter(), Counter()
    for _, player_mask, player in pairs:
        for _, pd_mask, pd in pairs:
            if player_mask & pd_mask:
                continue  # the two hands share a card: not a deal
            if player == pd:
                tied[_category(player)] += 1
            else:
                losing[_category(min(player, pd))] += 1
    return losing, tied


def brute_force(deck) -> tuple[Counter, Counter]:
    losing, tied = Counter(), Counter()
    for board in combinations(deck, 5):
        board_losing, board_tied = brute_force_board(board, deck)
        losing.update(board_losing)
        tied.update(board_tied)
    return losing, tied


def nonzero(counts: dict) -> dict:
    return {k: v for k, v in counts.items() if v}


# Reduced decks, each with the same ranks in every suit: small enough to count deal by
# deal (wheels, flushes and lower straight flushes that lose in the first, four of a kind
# in the second, three suits' classes in the third). High cards and three of a kind lose
# on the full deck's sampled boards below.
REDUCED = {
    "two suits, A to 7": tuple(r + s for r in "A234567" for s in "hs"),
    "four suits, A K Q": tuple(r + s for r in "AKQ" for s in "cdhs"),
    "three suits, J to A": tuple(r + s for r in "JQKA" for s in "cdh"),
}
SAMPLED_SEEDS = (1, 2, 3)


@cache
def counted(name: str) -> dict:
    return tool.distribution(REDUCED[name])


@cache
def sampled_board(seed: int) -> tuple:
    return tuple(random.Random(seed).sample(tool.DECK, 5))


@pytest.mark.parametrize("name", sorted(REDUCED))
def test_the_tool_counts_a_reduced_deck_as_dealing_every_deal_does(name):
    deck = REDUCED[name]
    result = counted(name)
    losing, tied = brute_force(deck)
    n = len(deck)
    assert result["deals"] == comb(n, 2) * comb(n - 2, 2) * comb(n - 4, 5)
    assert nonzero(result["losing_hand"]) == dict(losing)
    assert nonzero(result["ties_by_hand"]) == dict(tied)
    assert result["ties"] == sum(tied.values())
    assert result["board_classes"] < comb(n, 5)  # the suit classes did merge boards


def test_the_checked_deals_lose_with_every_category():
    seen = set()
    for name in REDUCED:
        seen |= set(nonzero(counted(name)["losing_hand"]))
    for seed in SAMPLED_SEEDS:
        seen |= {name for name, n in zip(tool.CATEGORIES, tool.count_board(sampled_board(seed))[0]) if n}
    assert seen == set(tool.CATEGORIES)


@pytest.mark.parametrize("seed", SAMPLED_SEEDS)
def test_a_full_deck_board_is_counted_as_dealing_every_deal_does(seed):
    rng = random.Random(seed)
    board = sampled_board(seed)
    losing, tied, own = tool.count_board(board)
    expected_losing, expected_tied = brute_force_board(board, tool.DECK)
    assert nonzero(dict(zip(tool.CATEGORIES, losing))) == dict(expected_losing)
    assert nonzero(dict(zip(tool.CATEGORIES, tied))) == dict(expected_tied)
    assert sum(losing) + sum(tied) == 1081 * 990 and sum(own) == 1081
    # The same board with its suits relabelled counts the same: what the classes rest on.
    relabel = dict(zip("cdhs", rng.sample("cdhs", 4)))
    assert tool.count_board(tuple(c[0] + relabel[c[1]] for c in board)) == (losing, tied, own)


def test_boards_that_tie_in_category_but_not_in_rank_are_a_loss_not_a_tie():
    # Full houses both: the player's kings full beat the player-dealer's queens full.
    board = ("Kc", "Qd", "Qh", "7s", "2c")
    losing, tied, _ = tool.count_board(board)
    by_name = dict(zip(tool.CATEGORIES, losing))
    assert by_name["full_house"] > 0
    expected_losing, _ = brute_force_board(board, tool.DECK)
    assert by_name["full_house"] == expected_losing["full_house"]


def test_the_tool_scores_as_the_engine_does():
    rng = random.Random(7)
    for _ in range(500):
        cards = rng.sample(tool.DECK, 7)
        assert tool.score(cards) == evaluate(cards).strength
        assert tool.CATEGORIES[tool.score(cards) >> tool.TYPE_SHIFT] == _category(evaluate(cards))

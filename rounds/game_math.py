"""The house edge each shipped pay table implies, computed from the engine's own tables
(`manage.py game_math`). Pure Python, no Django: the figures are arithmetic on the rules.

* Pairs: exact, over the 1,326 two-card hands (and, for a row that looks at the
  player-dealer's hole cards, over the player-dealer's 1,225 hands from the other 50 cards).
* Trips: exact, from the number of seven-card hands in each category.
* Bad Beat: a seeded simulation with every hand played to showdown, with a 95%
  confidence interval (the losing hand of two random seven-card hands is not a closed sum
  worth writing by hand).
"""

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from rounds.engine.cards import DECK
from rounds.engine.hands import evaluate
from rounds.engine.paytables import STANDARD_TRIPS
from rounds.engine.sidebets import BAD_BEAT_TABLES, PAIRS_TABLES, bad_beat_payout, pairs_payout

# Seven-card hands (of C(52, 7) = 133,784,560) by the category of their best five cards:
# the standard enumeration (e.g. Wikipedia, "Poker probability", 7-card poker hands).
SEVEN_CARD_COUNTS = {
    "royal_flush": 4_324,
    "straight_flush": 37_260,
    "four_of_a_kind": 224_848,
    "full_house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three_of_a_kind": 6_461_620,
    "two_pair": 31_433_400,
    "one_pair": 58_627_800,
    "high_card": 23_294_460,
}
SEVEN_CARD_HANDS = math.comb(52, 7)
assert sum(SEVEN_CARD_COUNTS.values()) == SEVEN_CARD_HANDS


def trips_edge(paytable: str) -> Fraction:
    """The house edge of a Trips pay table: minus the expected return of a 1-unit wager."""
    odds = STANDARD_TRIPS[paytable]
    expected = Fraction(0)
    for category, count in SEVEN_CARD_COUNTS.items():
        x, y = odds.get(category, (None, None))
        expected += count * (Fraction(x, y) if x is not None else -1)
    return -expected / SEVEN_CARD_HANDS


def pairs_edge(paytable: str) -> Fraction:
    """The house edge of a Pairs pay table, exactly over every two-card hand."""
    expected = Fraction(0)
    for hole in combinations(DECK, 2):
        if hole[0][0] == hole[1][0] == "A":
            # The only row that looks at the player-dealer's cards: average over them.
            rest = [c for c in DECK if c not in hole]
            pays = [pairs_payout(paytable, 1, hole, pd) for pd in combinations(rest, 2)]
            expected += Fraction(sum(-1 if p is None else p for p in pays), len(pays))
        else:
            pay = pairs_payout(paytable, 1, hole, None)
            expected += -1 if pay is None else pay
    return -expected / math.comb(52, 2)


@dataclass(frozen=True)
class Simulated:
    edge: float  # house edge, as a fraction
    half_width: float  # of its 95% confidence interval
    hit_frequency: float  # share of hands the bet wins


def bad_beat_edges(hands: int, seed: int) -> dict[str, Simulated]:
    """Every Bad Beat pay table's edge on the same `hands` seeded random deals, every hand
    to showdown (the player never folds)."""
    rng = random.Random(seed)
    names = sorted(BAD_BEAT_TABLES)
    total = dict.fromkeys(names, 0)
    squares = dict.fromkeys(names, 0)
    hits = 0
    deck = list(DECK)
    for _ in range(hands):
        cards = rng.sample(deck, 9)
        board = tuple(cards[4:])
        player, pd = evaluate(tuple(cards[:2]) + board), evaluate(tuple(cards[2:4]) + board)
        beats, loses = player > pd, player < pd
        won = False
        for name in names:
            pay = bad_beat_payout(name, 1, player.category, pd.category, beats, loses)
            net = -1 if pay is None else pay
            won = won or pay is not None
            total[name] += net
            squares[name] += net * net
        hits += won
    out = {}
    for name in names:
        mean = total[name] / hands
        variance = squares[name] / hands - mean * mean
        out[name] = Simulated(-mean, 1.96 * math.sqrt(variance / hands), hits / hands)
    return out


# The Bad Beat Bonus's exact figures, from an independent exact enumeration of all
# 2,781,381,002,400 ordered deals (the player's two, the player-dealer's two, the board's
# five): what the simulation estimates. Reference 002's published 3.9 % hit frequency is
# this one cut to one decimal; its published edges (20.2 %, 14.6 %, 16.5 %) sit 0.14 to
# 0.19 points below these, which that truncation does not explain (docs/game-rules.md).
EXACT_BAD_BEAT_EDGES = {"BBB-01": 0.20387, "BBB-02": 0.14787, "BBB-03": 0.16639}
EXACT_BAD_BEAT_HIT_FREQUENCY = 0.0397902


def percent(value) -> str:
    return f"{float(value) * 100:.2f}%"


def report(hands: int, seed: int) -> list[str]:
    """The lines `manage.py game_math` prints."""
    out = ["Trips (exact, from the seven-card category counts):"]
    out += [f"  {name}: house edge {percent(trips_edge(name))}" for name in sorted(STANDARD_TRIPS)]
    out.append("Ultimate Pairs Bonus (exact, over the 1,326 two-card hands):")
    out += [f"  {name}: house edge {percent(pairs_edge(name))}" for name in sorted(PAIRS_TABLES)]
    out.append(f"Bad Beat Bonus (simulated: {hands:,} hands to showdown, seed {seed}; 95% confidence interval):")
    for name, sim in bad_beat_edges(hands, seed).items():
        low, high = sim.edge - sim.half_width, sim.edge + sim.half_width
        out.append(
            f"  {name}: house edge {percent(sim.edge)} ({percent(low)} to {percent(high)}; exact "
            f"{EXACT_BAD_BEAT_EDGES[name] * 100:.3f}%), hit frequency {percent(sim.hit_frequency)} "
            f"(exact {EXACT_BAD_BEAT_HIT_FREQUENCY * 100:.5f}%)"
        )
    return out

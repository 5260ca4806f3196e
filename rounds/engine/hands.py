"""Poker hand values: the best five-card hand from five to seven cards (docs/game-rules.md section 5).

eval7 (a C extension) does the ranking; it is kept behind the small adapter below so the
rest of the engine sees only canonical card strings and HandValue.
"""

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

# eval7 0.1.11 builds pyparsing grammars at import time with names pyparsing 3.3 deprecates;
# the warnings are not ours to fix and would break a run with warnings turned into errors.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

from rounds.engine.cards import DECK

CATEGORIES: tuple[str, ...] = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)


@dataclass(frozen=True, order=True)
class HandValue:
    """A hand's value. Higher strength wins; equal strength ties (suits never break ties).

    `strength` is opaque (eval7's score): compare it, never interpret or store-and-decode it.
    `category` is derived from strength, so it takes no part in comparison or hashing.
    """

    strength: int
    category: str = field(compare=False)


def category_index(name: str) -> int:
    """Position of a category in CATEGORIES (0 = high_card); ValueError if unknown."""
    try:
        return CATEGORIES.index(name)
    except ValueError:
        raise ValueError(f"unknown hand category {name!r}") from None


# --- eval7 adapter -------------------------------------------------------------------------

# Building eval7.Card parses a string; do it once per card, not once per evaluation.
_EVAL7_CARD = {card: eval7.Card(card) for card in DECK}
_eval7_card = _EVAL7_CARD.__getitem__

# eval7 scores are (hand type << 24) | ranks, hand types 0..8 in CATEGORIES order up to
# straight_flush. It has no royal flush: that is the one best straight flush, whose score
# is the same whatever the suit.
_TYPE_SHIFT = 24
_ROYAL_STRENGTH = eval7.evaluate([_EVAL7_CARD[c] for c in ("As", "Ks", "Qs", "Js", "Ts")])

# There are only 7,462 distinct five-card hand values; reusing one HandValue per score saves
# building a frozen dataclass on every evaluation (this is on the settlement path).
_VALUES: dict[int, HandValue] = {}


def _hand_value(strength: int) -> HandValue:
    if strength == _ROYAL_STRENGTH:
        category = "royal_flush"
    else:
        category = CATEGORIES[strength >> _TYPE_SHIFT]
    return _VALUES.setdefault(strength, HandValue(strength, category))


def evaluate(cards: Sequence[str]) -> HandValue:
    """Value of the best five-card hand among 5, 6 or 7 distinct canonical cards.

    The cards must already be validated (cards.parse_cards): a wrong count, a duplicate or
    a non-canonical card is a programming error and raises ValueError, because eval7 would
    silently score such input (it rates an empty list, or the same card seven times).
    """
    count = len(cards)
    if count < 5 or count > 7 or len(set(cards)) != count:
        raise ValueError(f"need 5 to 7 distinct cards, got {list(cards)!r}")
    try:
        strength = eval7.evaluate(list(map(_eval7_card, cards)))
    except KeyError as exc:
        raise ValueError(f"not a canonical card: {exc.args[0]!r}") from None
    value = _VALUES.get(strength)
    return value if value is not None else _hand_value(strength)


def qualifies(hand: HandValue) -> bool:
    """The player-dealer qualifies with one pair or better."""
    return hand.category != "high_card"

"""Card notation: two characters, rank `23456789TJQKA` then suit `cdhs` (docs/game-rules.md).

Input is forgiving (`10h`, `as`, `AS`, surrounding whitespace); output is always canonical,
so the rest of the engine can compare cards as plain strings.
"""

import reprlib

from rounds.engine.errors import CommandError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)

# Exact lookups rather than str.upper()/lower() tests: Unicode case mapping would let
# characters such as the Kelvin sign or the long s pass as `k` or `S`.
_RANK_OF = {**{r: r for r in RANKS}, **{r.lower(): r for r in RANKS}}
_SUIT_OF = {**{s: s for s in SUITS}, **{s.upper(): s for s in SUITS}}

# Error messages quote what was sent; a shortened repr keeps a huge value from flooding them.
_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 40
_show = _repr.repr


def _canonical(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) == 3 and text.startswith("10"):
        text = "T" + text[2]
    if len(text) != 2:
        return None
    rank, suit = _RANK_OF.get(text[0]), _SUIT_OF.get(text[1])
    if rank is None or suit is None:
        return None
    return rank + suit


def parse_card(value: object) -> str:
    """The canonical form of one card; CommandError("invalid_card") if it is not one."""
    card = _canonical(value)
    if card is None:
        raise CommandError("invalid_card", f"not a card: {_show(value)}")
    return card


def parse_cards(values: object, *, count: int | None = None, field: str = "cards") -> list[str]:
    """Canonical cards from a list of card inputs.

    Checked in this order, so the error reported is stable: the value is a list, it has
    `count` items (when given), every item is a card, no card appears twice.
    """
    if not isinstance(values, list):
        raise CommandError("invalid_command", f"{field} must be a list of cards, got {_show(values)}")
    if count is not None and len(values) != count:
        raise CommandError("wrong_card_count", f"{field} expects {count} cards, got {len(values)}")
    cards = []
    for index, value in enumerate(values):
        card = _canonical(value)
        if card is None:
            raise CommandError("invalid_card", f"{field}[{index}] is not a card: {_show(value)}")
        cards.append(card)
    seen = set()
    for card in cards:
        if card in seen:
            raise CommandError("duplicate_card", f"{field} contains {card} more than once")
        seen.add(card)
    return cards

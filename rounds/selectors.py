"""A round's recorded cards by position: read by the re-decision of stored rounds
(rounds/audit.py) and by the round's compliance page (collections_fees/round_selectors.py,
which first decides what its viewer may see)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .models import Round


@dataclass(frozen=True)
class RoundCards:
    community: list[str]
    player_dealer: list[str]
    seats: list[tuple[int, list[str]]]
    withheld: int = 0  # cards recorded and not shown (a round in play)


def round_cards(rnd: Round, shown: Callable[[str], bool] = lambda card: True) -> RoundCards:
    """The round's prefetched cards grouped by position: those `shown` (all by default)."""
    by_position: dict[str, list[tuple[int, str]]] = {}
    withheld = 0
    for card in rnd.cards.all():
        if not shown(card.card):
            withheld += 1
            continue
        by_position.setdefault(card.position, []).append((card.index, card.card))

    def held(position):
        return [c for _, c in sorted(by_position.get(position, []))]

    seats = sorted(int(p) for p in by_position if p not in ("community", "player_dealer"))
    return RoundCards(held("community"), held("player_dealer"), [(s, held(str(s))) for s in seats], withheld)

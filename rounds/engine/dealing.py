"""Dealing procedures: which position each card of a dealt sequence goes to (section 4).

"Players" are the seats holding Ante and Blind, in seat order starting at seat 1 (the
house dealer's left, where dealing starts); the player-dealer is served after them.
"""

from dataclasses import dataclass

PROCEDURES = ("shoe", "shuffler", "community_first")


@dataclass(frozen=True)
class Deal:
    holes: dict[int, tuple[str, str]]  # player seat -> hole cards
    player_dealer: tuple[str, str]
    community: tuple[str, ...]  # flop (3), then turn and river


def cards_needed(player_count: int) -> int:
    return 2 * player_count + 2 + 5


def assign(procedure: str, cards: list[str], player_seats: list[int]) -> Deal:
    """Assign a full sequence (length `cards_needed`) to positions by the procedure."""
    seats = sorted(player_seats)
    n = len(seats)
    if procedure == "shoe":
        first, second = cards[:n + 1], cards[n + 1:2 * n + 2]
        holes = {seat: (first[i], second[i]) for i, seat in enumerate(seats)}
        return Deal(holes, (first[n], second[n]), tuple(cards[2 * n + 2:]))
    if procedure == "shuffler":
        holes = {seat: (cards[2 * i], cards[2 * i + 1]) for i, seat in enumerate(seats)}
        return Deal(holes, (cards[2 * n], cards[2 * n + 1]), tuple(cards[2 * n + 2:]))
    if procedure == "community_first":
        rest = cards[5:]
        holes = {seat: (rest[2 * i], rest[2 * i + 1]) for i, seat in enumerate(seats)}
        return Deal(holes, (rest[2 * n], rest[2 * n + 1]), tuple(cards[:5]))
    raise ValueError(f"unknown dealing procedure {procedure!r}")


def drawn(procedure: str, deal: Deal) -> list[str]:
    """The sequence `assign` took the deal from: the order the cards were drawn (for a
    software shuffle, the deck order drawn at the deal), recovered from where each card
    went. `assign(procedure, drawn(procedure, deal), seats) == deal` for every procedure,
    so a deal's recorded positions are its drawn order, which a replay deals again."""
    seats = sorted(deal.holes)
    firsts = [deal.holes[seat][0] for seat in seats] + [deal.player_dealer[0]]
    seconds = [deal.holes[seat][1] for seat in seats] + [deal.player_dealer[1]]
    pairs = [card for seat in seats for card in deal.holes[seat]] + list(deal.player_dealer)
    if procedure == "shoe":
        return firsts + seconds + list(deal.community)
    if procedure == "shuffler":
        return pairs + list(deal.community)
    if procedure == "community_first":
        return list(deal.community) + pairs
    raise ValueError(f"unknown dealing procedure {procedure!r}")


def deal_of(positions) -> Deal:
    """A Deal from a CardsDealt record's (position, index, card) triples."""
    holes: dict[int, list[str]] = {}
    pd: list[str] = ["", ""]
    community: list[tuple[int, str]] = []
    for position, index, card in positions:
        if position == "player_dealer":
            pd[index] = card
        elif position == "community":
            community.append((index, card))
        else:
            holes.setdefault(int(position), ["", ""])[index] = card
    return Deal({seat: tuple(cards) for seat, cards in holes.items()}, tuple(pd),
                tuple(card for _, card in sorted(community)))

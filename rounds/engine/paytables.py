"""Pay tables for the Blind and Trips wagers (game-rules section 6).

A pay is "X to Y": a winning stake s is paid floor(s * X / Y) cents and the player keeps
the stake. Hands not listed in a table do not pay: for Blind that is a push (when the
player beats the player-dealer), for Trips it is a loss.
"""

from dataclasses import dataclass

from .errors import CommandError
from .hands import CATEGORIES, category_index

Odds = tuple[int, int]

STANDARD_BLIND: dict[str, Odds] = {
    "royal_flush": (500, 1),
    "straight_flush": (50, 1),
    "four_of_a_kind": (10, 1),
    "full_house": (3, 1),
    "flush": (3, 2),
    "straight": (1, 1),
}


def _trips(royal, sf, quads, boat, flush, straight, trips) -> dict[str, Odds]:
    names = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight", "three_of_a_kind")
    return {name: (x, 1) for name, x in zip(names, (royal, sf, quads, boat, flush, straight, trips))}


STANDARD_TRIPS: dict[str, dict[str, Odds]] = {
    "UTH-01": _trips(50, 40, 30, 9, 7, 4, 3),
    "UTH-02": _trips(50, 40, 30, 8, 6, 5, 3),
    "UTH-03": _trips(50, 40, 30, 8, 7, 4, 3),
    "UTH-04": _trips(50, 40, 20, 7, 6, 5, 3),
}


@dataclass(frozen=True)
class PayTable:
    name: str
    trips: dict[str, Odds]
    blind: dict[str, Odds]

    def trips_payout(self, category: str, stake: int) -> int | None:
        """What a winning Trips stake is paid, or None when the hand does not pay (a loss)."""
        return _pay(self.trips.get(category), stake)

    def blind_payout(self, category: str, stake: int) -> int | None:
        """What a winning Blind is paid, or None when the hand does not pay (a push)."""
        return _pay(self.blind.get(category), stake)

    def to_config(self) -> str | dict:
        if self.name in STANDARD_TRIPS:
            return self.name
        return {
            "trips": {k: list(v) for k, v in self.trips.items()},
            "blind": {k: list(v) for k, v in self.blind.items()},
        }


# The lowest hand each wager may pay on (game-rules section 6): the Blind only on a straight
# or better (otherwise it pushes when the player wins), Trips only on three of a kind or
# better. A custom table may pay these hands differently, never pay a lower one.
LOWEST_PAYING = {"blind": "straight", "trips": "three_of_a_kind"}


def _pay(odds: Odds | None, stake: int) -> int | None:
    if odds is None:
        return None
    x, y = odds
    return stake * x // y  # a payout that is not a whole cent is rounded down


def paytable_from_config(value) -> PayTable:
    """`UTH-01`..`UTH-04`, or a custom `{"trips": {hand: [X, Y]}, "blind": {...}}`.

    A custom table that omits a section keeps the standard one for it (UTH-01's Trips,
    the Blind table every approved pay table shares).
    """
    if value is None:
        value = "UTH-01"
    if isinstance(value, str):
        if value not in STANDARD_TRIPS:
            raise CommandError("invalid_command", f"unknown pay table {value!r}; use UTH-01..UTH-04 or a custom table")
        return PayTable(value, STANDARD_TRIPS[value], STANDARD_BLIND)
    if not isinstance(value, dict) or not set(value) <= {"trips", "blind"}:
        raise CommandError("invalid_command", "a custom pay table is an object with 'trips' and/or 'blind'")
    sections = {}
    for section, default in (("trips", STANDARD_TRIPS["UTH-01"]), ("blind", STANDARD_BLIND)):
        rows = value.get(section)
        if rows is None:
            sections[section] = default
            continue
        if not isinstance(rows, dict):
            raise CommandError("invalid_command", f"pay table {section!r} must map hand names to [X, Y]")
        parsed = {}
        for hand, odds in rows.items():
            if hand not in CATEGORIES:
                raise CommandError("invalid_command", f"unknown hand {hand!r} in the {section} pay table")
            if category_index(hand) < category_index(LOWEST_PAYING[section]):
                lowest = LOWEST_PAYING[section].replace("_", " ")
                raise CommandError(
                    "invalid_command",
                    f"a {section.capitalize()} wager pays only on {lowest} or better (game-rules section 6): "
                    f"a custom pay table cannot pay it on {hand.replace('_', ' ')}",
                )
            if (
                not isinstance(odds, (list, tuple))
                or len(odds) != 2
                or not all(type(n) is int and n > 0 for n in odds)
            ):
                raise CommandError("invalid_command", f"{section} pay for {hand} must be [X, Y] with positive integers")
            parsed[hand] = (odds[0], odds[1])
        sections[section] = parsed
    return PayTable("custom", sections["trips"], sections["blind"])

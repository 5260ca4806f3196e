"""Backline wagers (game-rules section 12): a person not seated at the table wagers behind
a seat whose player has wagered, and rides that seat's hand and decisions.

The rules live where the seat's own do: placing and withdrawing are table.py's commands
(`backline_wager`, `backline_withdraw`), the carried decisions are table.py's `_decide`,
the lines are settlement.py's one pass (at the seat's turn, after its own lines), the fees
are fees.py's (a bettor is a payer of its own). This module holds the configuration and
the state of one backline wager in a round.
"""

from dataclasses import dataclass, field

from .errors import CommandError

MAX_PER_SEAT = 3  # the project's options sheet: 1 to 3 bettors behind one seat


@dataclass(frozen=True)
class BacklineConfig:
    """A table's backline offer: how many bettors one seat may carry, and whether a
    backline may carry Trips."""

    max_per_seat: int
    trips: bool = False

    def to_config(self) -> dict:
        return {"max_per_seat": self.max_per_seat, "trips": self.trips}


def backline_from_config(value) -> BacklineConfig | None:
    """The `backline` key of a table configuration; None (or absent): not offered."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CommandError("invalid_command", "backline must be an object")
    unknown = set(value) - {"max_per_seat", "trips"}
    if unknown:
        raise CommandError("invalid_command", f"unknown backline keys {sorted(unknown)}")
    most = value.get("max_per_seat")
    if type(most) is not int or not 1 <= most <= MAX_PER_SEAT:
        raise CommandError("invalid_command", f"backline.max_per_seat must be a whole number from 1 to {MAX_PER_SEAT}")
    trips = value.get("trips", False)
    if type(trips) is not bool:
        raise CommandError("invalid_command", "backline.trips must be true or false")
    return BacklineConfig(most, trips)


@dataclass
class BacklineInRound:
    """One bettor's wager behind a seat. The bettor decides nothing: `play` and `folded`
    follow the seat's decisions (table.py's `_decide`)."""

    seat: int
    bettor: str
    ante: int
    blind: int
    trips: int = 0
    play: int = 0
    checked: list[str] = field(default_factory=list)
    folded: bool = False

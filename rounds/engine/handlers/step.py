"""One command being applied: the game it changes (a copy), the records it emits, and the
field readers every handler uses, which raise the stable error codes.
"""

from __future__ import annotations

import dataclasses
import random
from typing import TYPE_CHECKING

from ..config import MAX_AMOUNT, checked_text
from ..errors import CommandError
from ..records import Record, RotationEntry
from ..sidebets import Fund
from ..state import RoundState, SeatInRound

if TYPE_CHECKING:
    from ..table import TableGame


class Step:
    """One command being applied: field readers that raise the stable error codes."""

    def __init__(self, game: TableGame, command: dict, rng: random.Random, fund: Fund | None = None):
        self.game, self.command, self.rng, self._fund = game, command, rng, fund
        self.records: list[Record] = []

    def fund(self) -> Fund:
        if self._fund is None:  # the service always passes it (needs_fund): a programming error
            raise ValueError(f"{self.command['type']} at a table with a progressive needs the meter's fund")
        return self._fund

    def emit(self, record: Record) -> None:
        tppp = self.game.tppp
        if isinstance(record, RotationEntry) and tppp is not None and record.player == tppp.player:
            record = dataclasses.replace(record, badge=tppp.badge)  # the TPPP's badge on each of their turns
        self.records.append(record)

    def seat(self) -> int:
        return self.seat_number(self.command.get("seat"))

    def seat_number(self, seat) -> int:
        if type(seat) is not int:
            raise CommandError("invalid_command", "'seat' must be a seat number")
        if not 1 <= seat <= self.game.config.seats:
            raise CommandError("unknown_seat", f"seat {seat} does not exist: this table has seats 1 to {self.game.config.seats}")
        return seat

    def occupied_seat(self, seat: int | None = None) -> tuple[int, str]:
        seat = self.seat() if seat is None else seat
        player = self.game.occupants.get(seat)
        if player is None:
            raise CommandError("seat_empty", f"seat {seat} is empty")
        return seat, player

    def amount(self, name: str, *, required: bool) -> int | None:
        if name not in self.command or self.command[name] is None:
            if required:
                raise CommandError("invalid_command", f"'{name}' is required")
            return None
        value = self.command[name]
        if type(value) is not int or value <= 0:
            raise CommandError("invalid_amount", f"{name} must be a positive whole number of cents, got {value!r}")
        if value > MAX_AMOUNT:
            raise CommandError("invalid_amount", f"{name} {value} is beyond what the ledger records ({MAX_AMOUNT})")
        return value

    def text(self, name: str) -> str:
        return checked_text(name, self.command.get(name))

    def round(self, *phases: str) -> RoundState:
        rnd = self.game.round
        if rnd is None:
            raise CommandError("wrong_state", f"no round is in progress ({self.command['type']} needs one)")
        if phases and rnd.phase not in phases:
            raise CommandError("wrong_state", f"{self.command['type']} is not allowed during {rnd.phase}")
        return rnd

    def player_in_round(self, rnd: RoundState) -> SeatInRound:
        seat, _ = self.occupied_seat()
        if seat == rnd.pd_seat:
            raise CommandError("seat_is_player_dealer", f"seat {seat} is the player-dealer")
        entry = rnd.seats.get(seat)
        if entry is None:
            raise CommandError("not_in_round", f"seat {seat} has no wager in this round")
        return entry

    def no_round(self) -> None:
        if self.game.round is not None:
            raise CommandError("wrong_state", f"{self.command['type']} is only allowed between rounds")

"""A table as a state machine: one command in, a result and ledger records out.

`TableGame.apply` works on a copy of the state: a refused command raises CommandError
and leaves the game exactly as it was. The state is plain data so the command service
can store it with the table row (`to_dict` / `from_dict`).
"""

import copy
import random
from dataclasses import dataclass, field

from .config import PLAY_MULTIPLES, REVEALS, STREET_ACTIONS, STREETS, TableConfig
from .errors import CommandError
from .handlers import (
    BACKLINE_COMMANDS,
    COMMAND_FIELDS,
    ENVELOPE_FIELDS,
    FUND_COMMANDS,
    HANDLERS,
)
from .handlers.bank import counted_banker, policy_switched
from .handlers.step import Step
from .policy import GameClock, RotationPolicy, Tppp, command_time
from .records import Record
from .rotation import Rotation
from .sidebets import Fund
from .state import RoundState, round_from_dict, round_to_dict


@dataclass
class TableGame:
    config: TableConfig
    occupants: dict[int, str] = field(default_factory=dict)
    rotation: Rotation = field(default_factory=Rotation)
    round: RoundState | None = None
    rounds_opened: int = 0
    last_deck: str | None = None
    tppp: Tppp | None = None  # the table's third-party proposition player, if seated
    clock: GameClock = field(default_factory=GameClock)  # the rotation policy's game

    @classmethod
    def new(cls, config: TableConfig) -> "TableGame":
        return cls(config=config, rotation=Rotation(limit=config.max_consecutive_banks))

    def with_config(self, config: TableConfig) -> "TableGame":
        """The same table under a new configuration version (between rounds)."""
        game = self._copy()
        was_under_policy = game.config.rotation_policy is not None
        game.config = config
        game.rotation.limit = config.max_consecutive_banks
        policy_switched(game, was_under_policy)
        return game

    @property
    def policy(self) -> RotationPolicy | None:
        return self.config.rotation_policy

    @property
    def props_only(self) -> bool:
        """Only proposition players sit: someone sits, and every occupant is the table's
        TPPP (one per table). No game a player can join (the floor and the lobby say so)."""
        return bool(self.occupants) and self.tppp is not None and set(self.occupants) == {self.tppp.seat}

    def window_deadline(self):
        """Under the policy, the moment from which a round banked by the current (else
        the last) player-dealer would end the game, unless another player banks first
        (game-rules 2A.4, the floor's warning); None when the rule cannot end it."""
        if self.policy is None:
            return None
        banker = self.rotation.pd_player or self.clock.last_banker
        counted = counted_banker(self, banker) if banker is not None else None
        return self.clock.deadline(self.policy, counted)

    def _copy(self) -> "TableGame":
        """A deep copy of the state that shares the configuration: it is frozen and no
        command changes it, so copying it on every command is wasted work."""
        return copy.deepcopy(self, {id(self.config): self.config})

    # -- applying commands --

    def apply(
        self, command, *, rng: random.Random | None = None, fund: Fund | None = None
    ) -> tuple["TableGame", dict, list[Record]]:
        """Apply one command to a copy of this game: (new game, ok result, records).

        `fund` is the table's progressive meter as it stands (a shared object the service
        reads, locked): needed by the commands that move it (`needs_fund`)."""
        if not isinstance(command, dict):
            raise CommandError("invalid_command", "a command is a JSON object with a 'type'")
        kind = command.get("type")
        handler = HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise CommandError("invalid_command", f"unknown command type {kind!r}")
        if kind in BACKLINE_COMMANDS and self.config.backline is None:
            # Checked first (docs/commands.md): at a table without backline nothing else matters.
            raise CommandError("wrong_state", "this table does not offer backline wagers")
        unknown = set(command) - COMMAND_FIELDS[kind] - ENVELOPE_FIELDS
        if unknown:
            # A misspelled field must not fall back to a default (docs/commands.md).
            raise CommandError("invalid_command", f"{kind} does not take {sorted(unknown)}")
        command_time(command)  # a malformed `at` is refused whether or not this command needs it
        game = self._copy()
        step = Step(game, command, rng or random.SystemRandom(), fund)
        result = handler(step)
        return game, {"ok": True, **result}, step.records

    # -- views used by the service and the live screens --

    def needs_fund(self, command) -> bool:
        """Whether `command` may move this table's progressive fund (or preview it)."""
        kind = command.get("type") if isinstance(command, dict) else None
        return self.config.side_bets.progressive is not None and kind in FUND_COMMANDS

    @property
    def phase(self) -> str:
        return self.round.phase if self.round else "between_rounds"

    def decisions_offered(self) -> list[dict]:
        """The decision command templates the rules allow on the round's street now, one
        per Play multiple; none outside the betting streets."""
        street = self.phase
        templates = []
        for action, streets in STREET_ACTIONS.items():
            if street in streets:
                if action == "play":
                    templates += [{"type": "play", "multiple": m} for m in PLAY_MULTIPLES[street]]
                else:
                    templates.append({"type": action})
        return templates

    def owes_decision(self, seat: int) -> bool:
        """Whether the player at `seat` still owes a decision on the street in play."""
        rnd = self.round
        entry = rnd.seats.get(seat) if rnd else None
        return bool(entry and rnd.phase in STREETS and entry.owes_decision(rnd.phase))

    def reveal_due(self) -> tuple[str, int] | None:
        """The command that reveals community cards from the street in play and how many
        it reveals; None where no reveal comes next."""
        phase = self.phase
        for command, reveal in REVEALS.items():
            if phase == reveal.street:
                return command, reveal.count
        return None

    def advance_command(self) -> str | None:
        """The command that moves the round on from its phase once no decision is
        pending: a reveal, then the showdown, then the settlement."""
        due = self.reveal_due()
        if due is not None:
            return due[0]
        return {"river": "showdown", "showdown": "settle"}.get(self.phase)

    def settlement_preview(self, fund: Fund | None = None, withheld: list[int] | tuple = ()) -> dict | None:
        """At a showdown, the settlement the cards already recorded give: a `showdown`
        applied to a copy (nothing is changed). None where none can be made yet, or where
        the progressive needs the meter's `fund` and none is given. `withheld`: the seats
        whose progressive award the settle will withhold (a self-excluded patron, named by
        the command service), so the preview withholds them too."""
        rnd = self.round
        if rnd is None or rnd.phase != "showdown":
            return None
        command = {"type": "showdown"}
        if not rnd.dealt:
            command["player_dealer"] = rnd.pd_hole
            command["hands"] = {str(s.seat): s.hole for s in rnd.seats.values() if s.hole}
        if fund is None and self.needs_fund(command):
            return None  # no meter to preview the progressive on
        if withheld:
            command["withheld"] = list(withheld)
        try:
            _, result, _ = self.apply(command, fund=fund)
        except CommandError:
            return None
        return result

    @property
    def has_players_besides_pd(self) -> bool:
        """A round needs at least one seated player besides the player-dealer."""
        return len(self.occupants) >= 2

    def to_dict(self) -> dict:
        return {
            "config": self.config.to_config(),
            "occupants": {str(k): v for k, v in self.occupants.items()},
            # `barred` only while set: a table without the no-TPPP mode stores what it always did.
            "rotation": {k: v for k, v in vars(self.rotation).items() if k != "barred" or v is not None},
            "round": round_to_dict(self.round) if self.round else None,
            "rounds_opened": self.rounds_opened,
            "last_deck": self.last_deck,
            "tppp": self.tppp.as_dict() if self.tppp else None,
            "clock": vars(self.clock).copy(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "TableGame":
        rnd = data["round"]
        return cls(
            config=TableConfig.from_config(data["config"]),
            occupants={int(k): v for k, v in data["occupants"].items()},
            rotation=Rotation(**data["rotation"]),
            round=round_from_dict(rnd) if rnd else None,
            rounds_opened=data["rounds_opened"],
            last_deck=data["last_deck"],
            # States stored before the rotation policy have neither.
            tppp=Tppp(**data["tppp"]) if data.get("tppp") else None,
            clock=GameClock(**data.get("clock", {})),
        )

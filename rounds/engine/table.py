"""A table as a state machine: one command in, a result and ledger records out.

`TableGame.apply` works on a copy of the state: a refused command raises CommandError
and leaves the game exactly as it was. The state is plain data so the command service
can store it with the table row (`to_dict` / `from_dict`).
"""

import copy
import dataclasses
import random
from dataclasses import dataclass, field

from . import dealing, sidebets
from .backline import BacklineConfig, BacklineInRound, backline_from_config
from .cards import DECK, parse_cards
from .errors import CommandError
from .fees import FeeLine, FeeSchedule, PlayerWager, assess_fees, fee_schedule_from_config
from .paytables import PayTable, paytable_from_config
from .persons import checked_script, printed, same_person
from .records import (
    BacklineChanged,
    BetsClosed,
    CardsDealt,
    Decided,
    JackpotMoved,
    Left,
    Record,
    RotationEntry,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    Seated,
    StreetReached,
)
from .policy import (
    GAME_ENDED_BY_WINDOW,
    GameClock,
    RotationPolicy,
    Tppp,
    command_time,
    notice_from_config,
    required_time,
    tppp_from_command,
)
from .rotation import Rotation
from .settlement import PlayerHand, Settlement, settle
from .sidebets import Fund, FundLine, SideBets, side_bets_from_config

MIN_SEATS, MAX_SEATS = 2, 8
# The largest amount the ledger can record with room for the largest payout (500 to 1
# on a Blind): $100 billion, far beyond any real wager, far within a 64-bit integer.
MAX_AMOUNT = 10**13
MAX_TEXT = {"player": 64, "bettor": 64, "approved_by": 150, "reason": 500}
STREETS = ("preflop", "flop", "river")


def checked_text(name: str, value) -> str:
    """A text field of a command (`player`, `approved_by`, `reason`), stripped; the
    service checks a void's reason with it when the void is asked for, not only when it
    is carried out."""
    longest = MAX_TEXT[name]
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > longest:
        raise CommandError("invalid_command", f"'{name}' must be a text of 1 to {longest} characters")
    if not value.isprintable():
        raise CommandError("invalid_command", f"'{name}' holds control characters")
    return value.strip()

PLAY_MULTIPLES = {"preflop": (3, 4), "flop": (2,), "river": (1,)}
# The streets on which each decision is allowed (a Play is allowed on every street).
STREET_ACTIONS = {"check": ("preflop", "flop"), "play": STREETS, "fold": ("river",)}


def play_amount(multiple: int, ante: int) -> int:
    """The Play wager made at `multiple` times the Ante."""
    return multiple * ante


@dataclass(frozen=True)
class Reveal:
    """A command that shows community cards: allowed on `street`, moves to `next_phase`."""

    street: str
    count: int
    next_phase: str


REVEALS = {"flop": Reveal("preflop", 3, "flop"), "turn_river": Reveal("flop", 2, "river")}


# --- configuration -------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    ante_min: int | None = None
    ante_max: int | None = None
    trips_min: int | None = None
    trips_max: int | None = None


# The keys of a table configuration this engine takes (docs/commands.md; `name` is the
# service's).
CONFIG_KEYS = {
    "seats", "paytable", "limits", "dealing", "max_consecutive_banks", "fee_schedule", "side_bets",
    "rotation_policy", "notice", "backline",
}


@dataclass(frozen=True)
class TableConfig:
    seats: int
    paytable: PayTable
    limits: Limits = Limits()
    dealing: str = "shuffler"
    max_consecutive_banks: int = 2
    fee_schedule: FeeSchedule | None = None
    side_bets: SideBets = SideBets()
    rotation_policy: RotationPolicy | None = None  # game-rules 2A; None: section 2 alone
    notice: str = notice_from_config(None)
    backline: BacklineConfig | None = None  # game-rules 12; None: no backline wagers

    @classmethod
    def from_config(cls, value: dict) -> "TableConfig":
        """Check a table configuration (the replay file's `table`, less its name)."""
        if not isinstance(value, dict):
            raise CommandError("invalid_command", "the table configuration must be an object")
        unknown = set(value) - CONFIG_KEYS
        if unknown:
            # `max_consecutive_bank: 3` must not silently mean the default 2 (docs/commands.md).
            raise CommandError("invalid_command", f"unknown table configuration keys {sorted(unknown)}")
        seats = value.get("seats")
        if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
            raise CommandError("invalid_command", f"seats must be a whole number from {MIN_SEATS} to {MAX_SEATS}")
        limits = value.get("limits") or {}
        if not isinstance(limits, dict):
            raise CommandError("invalid_command", "limits must be an object")
        names = ("ante_min", "ante_max", "trips_min", "trips_max")
        unknown = set(limits) - set(names)
        if unknown:
            raise CommandError("invalid_command", f"unknown limits {sorted(unknown)}")
        for name in names:
            v = limits.get(name)
            if v is not None and (type(v) is not int or v <= 0):
                raise CommandError("invalid_command", f"limit {name} must be a positive amount in cents")
        for low, high in (("ante_min", "ante_max"), ("trips_min", "trips_max")):
            if limits.get(low) and limits.get(high) and limits[low] > limits[high]:
                raise CommandError("invalid_command", f"{low} is above {high}")
        procedure = value.get("dealing", "shuffler")
        if procedure not in dealing.PROCEDURES:
            raise CommandError("invalid_command", f"dealing must be one of {', '.join(dealing.PROCEDURES)}")
        max_banks = value.get("max_consecutive_banks", 2)
        if max_banks not in (1, 2) or type(max_banks) is not int:
            # The regulation allows two consecutive banks at most; a house may say one.
            raise CommandError("invalid_command", "max_consecutive_banks must be 1 or 2")
        return cls(
            seats=seats,
            paytable=paytable_from_config(value.get("paytable")),
            limits=Limits(**{n: limits.get(n) for n in names}),
            dealing=procedure,
            max_consecutive_banks=max_banks,
            fee_schedule=fee_schedule_from_config(value.get("fee_schedule")),
            side_bets=side_bets_from_config(value.get("side_bets")),
            rotation_policy=RotationPolicy.from_config(value.get("rotation_policy")),
            notice=notice_from_config(value.get("notice")),
            backline=backline_from_config(value.get("backline")),
        )

    def to_config(self) -> dict:
        return {
            "seats": self.seats,
            "paytable": self.paytable.to_config(),
            "limits": {k: v for k, v in vars(self.limits).items() if v is not None},
            "dealing": self.dealing,
            "max_consecutive_banks": self.max_consecutive_banks,
            "fee_schedule": self.fee_schedule.to_config() if self.fee_schedule else None,
            "side_bets": self.side_bets.to_config(),
            "rotation_policy": self.rotation_policy.to_config() if self.rotation_policy else None,
            "notice": self.notice,
            "backline": self.backline.to_config() if self.backline else None,
        }


# --- state ---------------------------------------------------------------------------


@dataclass
class SeatInRound:
    seat: int
    player: str
    ante: int
    blind: int
    trips: int = 0
    play: int = 0
    checked: list[str] = field(default_factory=list)  # streets this player checked on
    folded: bool = False
    hole: list[str] | None = None
    bad_beat: int = 0
    pairs: int = 0
    progressive: int = 0

    def owes_decision(self, street: str) -> bool:
        return not self.folded and not self.play and street not in self.checked

    @property
    def turned_over_at_showdown(self) -> bool:
        """A hand the showdown needs: not folded, or folded with a wager still in action
        on its cards (Trips, Pairs or the progressive; docs/commands.md, `showdown`)."""
        return not self.folded or bool(self.trips or self.pairs or self.progressive)


@dataclass
class RoundState:
    number: int
    bank: int
    pd_seat: int
    pd_player: str
    phase: str = "betting"  # betting, preflop, flop, river, showdown
    seats: dict[int, SeatInRound] = field(default_factory=dict)
    deck: str | None = None
    fees: list[FeeLine] = field(default_factory=list)
    dealt: bool = False
    # The dealer said the cards were dealt by hand (`deal_by_hand`): decisions are taken
    # at once and the cards entered as they are turned over. Kept in the table's state so
    # every browser of the table, and a reload, sees the same step.
    hand_dealt: bool = False
    pending_community: list[str] = field(default_factory=list)  # dealt, not yet revealed
    community: list[str] = field(default_factory=list)
    pd_hole: list[str] | None = None
    decisions_made: int = 0
    jackpot: list[FundLine] = field(default_factory=list)  # the progressive contributions
    confirmed_awards: list[int] = field(default_factory=list)  # seats whose percentage award is confirmed
    backlines: list[BacklineInRound] = field(default_factory=list)  # in the order first placed (game-rules 12)

    @property
    def can_deal(self) -> bool:
        """`deal` comes right after no more bets, once, before any decision."""
        return self.phase == "preflop" and not self.dealt and not self.hand_dealt and not self.decisions_made

    def showdown_seats(self) -> list[int]:
        """Seats whose hole cards showdown needs: every player who did not fold, and every
        folded player with Trips, Pairs or a progressive (docs/commands.md, `showdown`)."""
        # A folded seat's hand is also needed for a bettor's Trips behind it (game-rules 12).
        backline_trips = {b.seat for b in self.backlines if b.trips}
        return [s.seat for s in _by_seat(self) if s.turned_over_at_showdown or s.seat in backline_trips]

    def behind(self, seat: int) -> list[BacklineInRound]:
        """The backline wagers behind `seat`, in the order first placed."""
        return [b for b in self.backlines if b.seat == seat]

    def known_cards(self) -> set[str]:
        cards = set(self.community) | set(self.pending_community) | set(self.pd_hole or ())
        for s in self.seats.values():
            cards |= set(s.hole or ())
        return cards


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
        _policy_switched(game, was_under_policy)
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
        counted = _banker(self, banker) if banker is not None else None
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
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
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
        step = _Step(game, command, rng or random.SystemRandom(), fund)
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

    @property
    def has_players_besides_pd(self) -> bool:
        """A round needs at least one seated player besides the player-dealer."""
        return len(self.occupants) >= 2

    def to_dict(self) -> dict:
        return {
            "config": self.config.to_config(),
            "occupants": {str(k): v for k, v in self.occupants.items()},
            "rotation": vars(self.rotation).copy(),
            "round": _round_to_dict(self.round) if self.round else None,
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
            round=_round_from_dict(rnd) if rnd else None,
            rounds_opened=data["rounds_opened"],
            last_deck=data["last_deck"],
            # States stored before the rotation policy have neither.
            tppp=Tppp(**data["tppp"]) if data.get("tppp") else None,
            clock=GameClock(**data.get("clock", {})),
        )


def _round_to_dict(r: RoundState) -> dict:
    d = vars(r).copy()
    d["seats"] = {str(k): vars(s).copy() for k, s in r.seats.items()}
    d["fees"] = [vars(f).copy() for f in r.fees]
    d["jackpot"] = [line.as_dict() for line in r.jackpot]
    d["backlines"] = [vars(b).copy() for b in r.backlines]
    return d


def _round_from_dict(d: dict) -> RoundState:
    d = dict(d)
    d["seats"] = {int(k): SeatInRound(**s) for k, s in d["seats"].items()}
    d["fees"] = [FeeLine(**f) for f in d["fees"]]
    d["jackpot"] = [FundLine(**line) for line in d.get("jackpot", [])]
    d["backlines"] = [BacklineInRound(**b) for b in d.get("backlines", [])]  # states stored before backline have none
    return RoundState(**d)


# --- command handlers ----------------------------------------------------------------


class _Step:
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


def _sit(step: _Step) -> dict:
    game = step.game
    seat = step.seat()
    # Tidied before it is checked: any white space a keyboard or scanner sends (a tab, a
    # no-break space) is one space in a person's id (rounds/engine/persons.py).
    raw = step.command.get("player")
    player = checked_script(checked_text("player", printed(raw) if isinstance(raw, str) else raw))
    if seat in game.occupants:
        raise CommandError("seat_taken", f"seat {seat} is taken by {game.occupants[seat]}")
    seated = next((p for p in game.occupants.values() if same_person(p, player)), None)
    if seated is not None:
        raise CommandError("player_already_seated", f"{player} is already seated at this table (as {seated})")
    player = game.rotation.known_as(player)
    tppp = None
    if step.command.get("tppp") is not None:
        at = required_time(step.command, "to check the TPPP's licence")
        tppp = game.tppp = tppp_from_command(step.command["tppp"], seat=seat, player=player, at=at, seated=game.tppp)
        _tppp_limits(game)
    game.occupants[seat] = player
    step.emit(Seated(seat, player, tppp.as_dict() if tppp else None))
    return {}


def _leave(step: _Step) -> dict:
    game, rot = step.game, step.game.rotation
    seat, player = step.occupied_seat()
    rnd = game.round
    if rnd is not None:
        if seat == rnd.pd_seat:
            raise CommandError("seat_is_player_dealer", "the player-dealer cannot leave during a round")
        if seat in rnd.seats:
            raise CommandError("wrong_state", f"seat {seat} has wagers in this round; withdraw them or finish the round")
    del game.occupants[seat]
    step.emit(Left(seat, player))
    if game.tppp is not None and game.tppp.seat == seat:
        game.tppp = None
        _tppp_limits(game)
    if seat == rot.pd_seat:
        offer = rot.start_cycle(game.occupants, game.config.seats, after_seat=seat)
        _emit_offer(step, offer)
        return {"offer": offer}
    if seat == rot.offer_seat:
        step.emit(RotationEntry("decline", seat, player))
        offer = rot.decline(game.occupants, game.config.seats)
        _emit_offer(step, offer)
        return {"offer": offer}
    return {}


def _emit_offer(step: _Step, offer: int | None) -> None:
    if offer is None:
        step.emit(RotationEntry("stopped", None, None))
    else:
        step.emit(RotationEntry("offer", offer, step.game.occupants[offer]))


def _offer_bank(step: _Step) -> dict:
    rot = step.game.rotation
    seat = step.seat()
    _refuse_if_game_ended(step)
    if rot.pd_seat is not None:
        raise CommandError("wrong_state", f"seat {rot.pd_seat} is the player-dealer; the bank is offered when it passes")
    if rot.offer_seat is not None:
        raise CommandError("offer_pending", f"the bank is already offered to seat {rot.offer_seat}")
    seat, player = step.occupied_seat()
    if not rot.eligible(player):
        raise CommandError(rot.ineligible_code(player), f"{player} has banked {rot.streak} consecutive rounds, the limit")
    rot.offer_to(seat, player)
    step.emit(RotationEntry("offer", seat, player))
    return {"offer": seat}


def _offered_seat(step: _Step, seat=None) -> tuple[int, str]:
    rot = step.game.rotation
    seat = step.seat() if seat is None else step.seat_number(seat)
    if rot.offer_seat != seat:
        held = f"seat {rot.offer_seat} holds the offer" if rot.offer_seat else "no offer is pending"
        raise CommandError("not_offered", f"seat {seat} has not been offered the bank: {held}")
    return step.occupied_seat(seat)


def _accept_bank(step: _Step) -> dict:
    seat, player = _offered_seat(step)
    rot = step.game.rotation
    if not rot.eligible(player):  # offers only go to eligible persons; kept as a last guard
        raise CommandError(rot.ineligible_code(player), f"{player} may not bank another consecutive round")
    rot.accept(seat, player)
    step.emit(RotationEntry("accept", seat, player))
    return {"player_dealer": seat}


def _decline_bank(step: _Step) -> dict:
    """One seat declines, or `seats`: the pending seat and the ones after it in the
    offer's walk, in order ("everyone else declines"), each its own decline."""
    game, command = step.game, step.command
    if ("seat" in command) == ("seats" in command):
        raise CommandError("invalid_command", "decline_bank takes 'seat' or 'seats', one of them")
    seats = command.get("seats", [command.get("seat")])
    if not isinstance(seats, list) or not seats:
        raise CommandError("invalid_command", "'seats' must be a list of seat numbers")
    offer = None
    for asked in seats:
        seat, player = _offered_seat(step, asked)
        step.emit(RotationEntry("decline", seat, player))
        offer = game.rotation.decline(game.occupants, game.config.seats)
        _emit_offer(step, offer)
    return {"offer": offer}


def _pass_bank(step: _Step) -> dict:
    game, rot = step.game, step.game.rotation
    if rot.pd_seat is None:
        raise CommandError("no_player_dealer", "there is no player-dealer to pass the bank")
    step.no_round()
    seat, player = rot.pd_seat, rot.pd_player
    step.emit(RotationEntry("pass", seat, player))
    # A player-dealer under the limit is offered last and may take the bank back.
    offer = rot.start_cycle(game.occupants, game.config.seats, after_seat=seat, passer=player)
    _emit_offer(step, offer)
    return {"offer": offer}


def _open_round(step: _Step) -> dict:
    game, rot = step.game, step.game.rotation
    step.no_round()
    _refuse_if_game_ended(step)
    if rot.pd_seat is None:
        if rot.offer_seat is not None:
            raise CommandError("offer_pending", f"seat {rot.offer_seat} has not answered the offer of the bank")
        raise CommandError("no_player_dealer", "no player-dealer: the bank must be offered and accepted first")
    bank = step.amount("bank", required=True)
    if rot.pd_at_limit:
        raise CommandError("rotation_limit", f"{rot.pd_player} has banked the limit of consecutive rounds")
    if not game.has_players_besides_pd:
        raise CommandError("no_players", "a round needs at least one player besides the player-dealer")
    if game.policy is not None and not _window_allows_round(step):
        return {"round": None, "game_ended": GAME_ENDED_BY_WINDOW}
    game.rounds_opened += 1
    game.round = RoundState(number=game.rounds_opened, bank=bank, pd_seat=rot.pd_seat, pd_player=rot.pd_player)
    # The bank's source is recorded with the round: a TPPP banks with their company's
    # chips, anyone else with their own.
    tppp = game.tppp if game.tppp and game.tppp.seat == rot.pd_seat else None
    step.emit(RoundOpened(
        game.rounds_opened, bank, rot.pd_seat, rot.pd_player, tppp.badge if tppp else None,
        bank_source="tppp" if tppp else "own", pd_company=tppp.company if tppp else None,
    ))
    return {"round": game.rounds_opened}


# --- the rotation policy's hooks (game-rules 2A; the rules are in policy.py) -----------


def _refuse_if_game_ended(step: _Step) -> None:
    if step.game.clock.ended:
        raise CommandError("game_ended", "the game has ended under the rotation window rule: a supervisor starts a new game")


def _banker(game: "TableGame", player: str) -> str | None:
    """Who counts for the window: the person, or None for the TPPP (who never counts)."""
    return None if game.tppp is not None and game.tppp.player == player else player


def _window_allows_round(step: _Step) -> bool:
    """2A.3: a round opening now counts with the window's other bankers, or the game ends
    (the command is accepted as the end of the game: no round, no player-dealer, no offer)."""
    game, rot, policy = step.game, step.game.rotation, step.game.policy
    at = required_time(step.command, "under the rotation policy")
    banker = _banker(game, rot.pd_player)
    if game.clock.allows(policy, at, banker):
        game.clock.opened(policy, at, game.rounds_opened + 1, banker)
        return True
    game.clock.ended = True
    step.emit(RotationEntry("game_ended", rot.pd_seat, rot.pd_player, reason=GAME_ENDED_BY_WINDOW))
    rot.pd_seat = rot.pd_player = rot.offer_seat = rot.passer = None
    rot.offered = []
    return False


def _start_game(step: _Step) -> dict:
    """A supervisor starts a new game after the window rule ended one: a new clock, and
    the house chooses where the first offer goes (`offer_bank`), as at a first round."""
    game = step.game
    if not game.clock.ended:
        raise CommandError("wrong_state", "start_game follows a game ended under the rotation policy")
    approved_by = step.command.get("approved_by")
    if not isinstance(approved_by, str) or not approved_by.strip():
        raise CommandError("approval_required", "starting a new game needs a supervisor (approved_by)")
    approved_by = step.text("approved_by")
    game.clock = GameClock()
    step.emit(RotationEntry("game_started", None, None, reason=f"new game approved by {approved_by}"))
    return {}


def _offer_cycle_after_round(step: _Step, rnd: "RoundState") -> int | None:
    """2A.1: after every settled or voided round the position is offered clockwise from
    the seat after the PD's, and to the PD last if the PD may keep it."""
    game, rot = step.game, step.game.rotation
    passer = rot.pd_player if rot.pd_player is not None and rot.eligible(rot.pd_player) else None
    offer = rot.start_cycle(game.occupants, game.config.seats, after_seat=rnd.pd_seat, passer=passer)
    _emit_offer(step, offer)
    return offer


def _tppp_limits(game: "TableGame") -> None:
    """Under the policy (tppp_one_round) the seated TPPP banks one round at a time."""
    policy = game.policy
    one_round = policy is not None and policy.tppp_one_round and game.tppp is not None
    game.rotation.one_round = game.tppp.player if one_round else None


def _policy_switched(game: "TableGame", was_under_policy: bool) -> None:
    """A configuration change between rounds. Switching the policy on starts a new game
    as a table's first round does: no player-dealer carried over without an offer, the
    house chooses where the first offer goes. Switching it off ends the policy's game."""
    _tppp_limits(game)
    now_under_policy = game.policy is not None
    if now_under_policy and not was_under_policy:
        game.clock = GameClock()
        rot = game.rotation
        if rot.pd_seat is not None:
            rot.pd_seat = rot.pd_player = rot.passer = None
            rot.offered = []
    elif was_under_policy and not now_under_policy:
        game.clock = GameClock()


def _wager(step: _Step) -> dict:
    limits = step.game.config.limits
    step.seat()
    rnd = step.round("betting")
    seat, player = step.occupied_seat()
    if seat == rnd.pd_seat:
        raise CommandError("seat_is_player_dealer", f"seat {seat} is the player-dealer and posts the bank, not wagers")
    bettor = next((b for b in rnd.backlines if same_person(b.bettor, player)), None)
    if bettor is not None:
        # One spot per person per round: a bettor who sat down may not wager too (game-rules 12).
        raise CommandError("wrong_state", f"{player} has a backline wager behind seat {bettor.seat} in this round")
    ante = step.amount("ante", required=True)
    blind = step.amount("blind", required=False) or ante
    if blind != ante:
        raise CommandError("blind_must_equal_ante", f"the Blind ({blind}) must equal the Ante ({ante})")
    trips = step.amount("trips", required=False) or 0  # absent: no Trips wager
    _check_limits("Ante", ante, limits.ante_min, limits.ante_max)
    if trips:
        _check_limits("Trips", trips, limits.trips_min, limits.trips_max)
    side = _side_bet_wagers(step, trips)
    rnd.seats[seat] = SeatInRound(seat, player, ante, blind, trips, **side)
    return {}


def _side_bet_wagers(step: _Step, trips: int) -> dict:
    """The wager's side bets (game-rules section 10): only those the table offers, within
    its limits; a Bad Beat only with Trips; the progressive at the table's fixed amount."""
    offered = step.game.config.side_bets
    amounts = {}
    for name, label in (("bad_beat", "Bad Beat"), ("pairs", "Pairs")):
        amount = step.amount(name, required=False) or 0
        bet = getattr(offered, name)
        if amount and bet is None:
            raise CommandError("side_bet_not_offered", f"this table does not offer the {label} side bet")
        if amount:
            _check_limits(label, amount, bet.min, bet.max)
        amounts[name] = amount
    if amounts["bad_beat"] and not trips:
        raise CommandError("bad_beat_needs_trips", "a Bad Beat wager needs a Trips wager in the same round")
    progressive = step.command.get("progressive")
    amounts["progressive"] = 0
    if progressive is not None and progressive is not False:
        if offered.progressive is None:
            raise CommandError("side_bet_not_offered", "this table does not offer the progressive")
        fixed = offered.progressive.wager
        if progressive is not True and (type(progressive) is not int or progressive != fixed):
            raise CommandError("invalid_progressive_wager", f"the progressive wager is {fixed} cents here (or true)")
        amounts["progressive"] = fixed
    return amounts


def _check_limits(name: str, amount: int, low: int | None, high: int | None) -> None:
    if low is not None and amount < low:
        raise CommandError("below_table_min", f"{name} {amount} is below the table minimum {low}")
    if high is not None and amount > high:
        raise CommandError("above_table_max", f"{name} {amount} is above the table maximum {high}")


def _withdraw(step: _Step) -> dict:
    step.seat()
    rnd = step.round("betting")
    seat, _ = step.occupied_seat()
    if rnd.seats.pop(seat, None) is None:
        raise CommandError("not_in_round", f"seat {seat} has no wager to withdraw")
    if step.game.config.backline is None:
        return {}
    # The wagers behind the seat go back with it (game-rules 12), each recorded.
    returned = rnd.behind(seat)
    rnd.backlines = [b for b in rnd.backlines if b.seat != seat]
    for b in returned:
        step.emit(BacklineChanged(rnd.number, seat, b.bettor, "returned", b.ante, b.blind, b.trips))
    return {"backline_returned": [b.bettor for b in returned]}


def _backline_target(step: _Step) -> tuple[RoundState, int, str]:
    """The checks both backline commands share, in the order docs/commands.md gives: the
    command's seat and bettor, then the round is betting. (seat, bettor as printed)."""
    seat = step.seat()
    raw = step.command.get("bettor")
    bettor = checked_script(checked_text("bettor", printed(raw) if isinstance(raw, str) else raw))
    rnd = step.round("betting")
    return rnd, seat, bettor


def _backline_wager(step: _Step) -> dict:
    """A bettor's wager behind a seat (game-rules 12): Ante and Blind equal, Trips if the
    table's backline takes it. Betting again behind the same seat replaces the wager and
    keeps its place in the settlement order."""
    game = step.game
    offer, limits = game.config.backline, game.config.limits
    rnd, seat, bettor = _backline_target(step)
    seat, player = step.occupied_seat(seat)
    if seat == rnd.pd_seat:
        raise CommandError("seat_is_player_dealer", f"seat {seat} is the player-dealer: no backline behind the bank")
    if seat not in rnd.seats:
        raise CommandError("not_in_round", f"seat {seat}'s player has not wagered: a backline goes behind a wager")
    seated = next((p for p in game.occupants.values() if same_person(p, bettor)), None)
    if seated is not None:
        raise CommandError("player_already_seated", f"{bettor} is seated at this table (as {seated}): one spot per person")
    mine = next((b for b in rnd.backlines if same_person(b.bettor, bettor)), None)
    if mine is not None and mine.seat != seat:
        raise CommandError("wrong_state", f"{bettor} already has a backline wager behind seat {mine.seat}")
    if mine is None and len(rnd.behind(seat)) >= offer.max_per_seat:
        raise CommandError("wrong_state", f"seat {seat} already carries {offer.max_per_seat} backline wagers, the most allowed")
    if step.command.get("trips") is not None and not offer.trips:
        raise CommandError("invalid_command", "this table's backline wagers take no Trips")
    ante = step.amount("ante", required=True)  # absent: invalid_command, before any amount is read
    trips = step.amount("trips", required=False) or 0
    _check_limits("Ante", ante, limits.ante_min, limits.ante_max)
    if trips:
        _check_limits("Trips", trips, limits.trips_min, limits.trips_max)
    if mine is not None:
        bettor = mine.bettor  # the id as first given, for one person's lines under one name
        mine.ante, mine.blind, mine.trips = ante, ante, trips
    else:
        rnd.backlines.append(BacklineInRound(seat, bettor, ante, ante, trips))
    step.emit(BacklineChanged(rnd.number, seat, bettor, "replaced" if mine else "placed", ante, ante, trips))
    return {}


def _backline_withdraw(step: _Step) -> dict:
    """A bettor takes their backline wager back before no more bets; betting again later
    places it last."""
    rnd, seat, bettor = _backline_target(step)
    mine = next((b for b in rnd.behind(seat) if same_person(b.bettor, bettor)), None)
    if mine is None:
        raise CommandError("not_in_round", f"{bettor} has no backline wager behind seat {seat}")
    rnd.backlines.remove(mine)
    step.emit(BacklineChanged(rnd.number, seat, mine.bettor, "withdrawn", mine.ante, mine.blind, mine.trips))
    return {}


def _no_more_bets(step: _Step) -> dict:
    game = step.game
    rnd = step.round("betting")
    if not rnd.seats:
        raise CommandError("no_players", "no player has wagered")
    rnd.phase = "preflop"
    rnd.deck = "B" if game.last_deck == "A" else "A"  # the two decks alternate
    game.last_deck = rnd.deck
    wagers = [
        PlayerWager(s.seat, s.player, s.ante, s.blind, s.trips, s.bad_beat, s.pairs, s.progressive)
        for s in _by_seat(rnd)
    ]
    backlines = {
        s.seat: [PlayerWager(b.seat, b.bettor, b.ante, b.blind, b.trips, bettor=b.bettor) for b in rnd.behind(s.seat)]
        for s in _by_seat(rnd)
    }
    # The fee schedule sees each seat's wager followed by the bettors behind it (game-rules 12).
    assessed = [w2 for w in wagers for w2 in (w, *backlines[w.seat])]
    rnd.fees = assess_fees(game.config.fee_schedule, pd_seat=rnd.pd_seat, pd_player=rnd.pd_player, wagers=assessed)
    step.emit(
        BetsClosed(
            rnd.number,
            rnd.deck,
            tuple(wagers),
            tuple(rnd.fees),
            tuple(b for b in assessed if b.bettor is not None),
        )
    )
    result = {"deck": rnd.deck, "fees": [f.as_dict() for f in rnd.fees]}
    progressive = game.config.side_bets.progressive
    if progressive is not None:
        rnd.jackpot, after = sidebets.contribute(
            step.fund(), progressive, [(s.seat, s.player) for s in _by_seat(rnd) if s.progressive]
        )
        if rnd.jackpot:
            step.emit(JackpotMoved(rnd.number, progressive.meter, tuple(rnd.jackpot), after))
        result["jackpot"] = [
            {"seat": c.seat, "amount": c.amount, "meter": c.meter_delta, "reserve": c.reserve_delta} for c in rnd.jackpot
        ]
        result["meter"] = sidebets.meter_dict(progressive, after)
    return result


def _by_seat(rnd: RoundState) -> list[SeatInRound]:
    return [rnd.seats[s] for s in sorted(rnd.seats)]


def _deal(step: _Step) -> dict:
    game = step.game
    rnd = step.round("preflop")
    if not rnd.can_deal:
        raise CommandError("wrong_state", "deal comes right after no more bets, once")
    seats = sorted(rnd.seats)
    needed = dealing.cards_needed(len(seats))
    if step.command.get("cards") is None:
        cards, source = step.rng.sample(DECK, needed), "shuffled"
    else:
        cards, source = parse_cards(step.command["cards"], count=needed), "dealt"
    deal = dealing.assign(game.config.dealing, cards, seats)
    for seat, hole in deal.holes.items():
        rnd.seats[seat].hole = list(hole)
    rnd.pd_hole = list(deal.player_dealer)
    rnd.pending_community = list(deal.community)
    rnd.dealt = True
    positions = [(str(seat), i, c) for seat, hole in deal.holes.items() for i, c in enumerate(hole)]
    positions += [("player_dealer", i, c) for i, c in enumerate(deal.player_dealer)]
    positions += [("community", i, c) for i, c in enumerate(deal.community)]
    step.emit(CardsDealt(rnd.number, tuple(positions), source))
    return {
        "hands": {str(seat): list(hole) for seat, hole in deal.holes.items()},
        "player_dealer": list(deal.player_dealer),
    }


def _deal_by_hand(step: _Step) -> dict:
    """The cards were dealt by hand: no `deal` comes (the cards are entered as they are
    turned over), and the pre-flop decisions are taken now. Recorded in the table's state
    (and as the table's event) rather than on one tablet, so a reload or a second browser
    shows the same step."""
    rnd = step.round("preflop")
    if not rnd.can_deal:
        raise CommandError("wrong_state", "the cards are dealt once, right after no more bets")
    rnd.hand_dealt = True
    return {}


def _decide(step: _Step, action: str) -> dict:
    step.seat()
    rnd = step.round(*STREET_ACTIONS[action])
    entry = step.player_in_round(rnd)
    street = rnd.phase
    if not entry.owes_decision(street):
        raise CommandError("already_decided", f"seat {entry.seat} has already decided on the {street}")
    amount = 0
    if action == "play":
        multiple = step.command.get("multiple")
        if type(multiple) is not int:
            raise CommandError("invalid_command", "'multiple' must be a whole number")
        if multiple not in PLAY_MULTIPLES[street]:
            allowed_text = " or ".join(f"{m}x" for m in PLAY_MULTIPLES[street])
            raise CommandError("invalid_play_multiple", f"on the {street} the Play wager is {allowed_text} the Ante")
        entry.play = amount = play_amount(multiple, entry.ante)
    elif action == "check":
        entry.checked.append(street)
    else:
        entry.folded = True
    rnd.decisions_made += 1
    step.emit(Decided(rnd.number, entry.seat, entry.player, street, action, amount))
    for b in rnd.behind(entry.seat):
        # The seat decides for its bettors at the same moment: Play k x their own Ante.
        b_amount = 0
        if action == "play":
            b.play = b_amount = play_amount(step.command["multiple"], b.ante)
        elif action == "check":
            b.checked.append(street)
        else:
            b.folded = True
        step.emit(Decided(rnd.number, entry.seat, b.bettor, street, action, b_amount, bettor=b.bettor))
    return {}


def _require_decisions(rnd: RoundState) -> None:
    pending = [s.seat for s in _by_seat(rnd) if s.owes_decision(rnd.phase)]
    if pending:
        raise CommandError("decisions_pending", f"seats {pending} still owe a decision on the {rnd.phase}")


def _reveal(step: _Step) -> dict:
    reveal = REVEALS[step.command["type"]]
    count, next_phase = reveal.count, reveal.next_phase
    rnd = step.round(reveal.street)
    _require_decisions(rnd)
    given = step.command.get("cards")
    if rnd.dealt:
        cards = rnd.pending_community[:count]
        if given is not None and sorted(parse_cards(given, count=count)) != sorted(cards):
            # Names no card: the dealt ones are not revealed yet, and the message is kept
            # in the refused-command log and the audit trail (tables.visibility).
            raise CommandError(
                "card_mismatch",
                f"these are not the cards dealt for the {step.command['type']}: send it without cards to show the dealt ones",
            )
    else:
        if given is None:
            raise CommandError("missing_cards", f"{step.command['type']} needs its {count} cards")
        cards = parse_cards(given, count=count)
        _check_unused(rnd, cards)
    start = len(rnd.community)
    rnd.community.extend(cards)
    rnd.pending_community = rnd.pending_community[count:]
    rnd.phase = next_phase
    if not rnd.dealt:  # dealt cards were recorded by the deal
        step.emit(CardsDealt(rnd.number, tuple(("community", start + i, c) for i, c in enumerate(cards)), "entered"))
    step.emit(StreetReached(rnd.number, next_phase))
    return {"cards": cards}


def _check_unused(rnd: RoundState, cards: list[str]) -> None:
    used = rnd.known_cards() & set(cards)
    if used:
        raise CommandError("duplicate_card", f"{' '.join(sorted(used))} already in play this round")


def _showdown(step: _Step) -> dict:
    game = step.game
    rnd = step.round("river", "showdown")
    if rnd.phase == "river":
        _require_decisions(rnd)
    pd_given = step.command.get("player_dealer")
    hands_given = step.command.get("hands")
    if hands_given is not None and not isinstance(hands_given, dict):
        raise CommandError("invalid_command", "'hands' maps seat numbers to two cards each")
    pd_cards = parse_cards(pd_given, count=2, field="player_dealer") if pd_given is not None else None
    entered: dict[int, list[str]] = {}
    for key, cards in (hands_given or {}).items():
        try:
            seat = int(key)
        except (TypeError, ValueError):
            raise CommandError("invalid_command", f"hands key {key!r} is not a seat number") from None
        if seat not in rnd.seats:
            raise CommandError("not_in_round", f"seat {seat} has no hand in this round")
        entered[seat] = parse_cards(cards, count=2, field=f"hands[{seat}]")
    if rnd.dealt:
        mismatched = [s for s, c in entered.items() if sorted(c) != sorted(rnd.seats[s].hole)]
        if pd_cards is not None and sorted(pd_cards) != sorted(rnd.pd_hole):
            mismatched.insert(0, "player_dealer")
        if mismatched:
            raise CommandError("card_mismatch", f"entered cards differ from the dealt ones for {mismatched}")
    else:
        needed = rnd.showdown_seats()
        missing = (["player_dealer"] if pd_cards is None else []) + [s for s in needed if s not in entered]
        if missing:
            raise CommandError("missing_cards", f"showdown needs the hole cards of {missing}")
        fresh = list(pd_cards) + [c for cards in entered.values() for c in cards]
        if len(set(fresh)) != len(fresh):
            raise CommandError("duplicate_card", "the same card is entered twice")
        community = set(rnd.community)
        clash = community & set(fresh)
        if clash:
            raise CommandError("duplicate_card", f"{' '.join(sorted(clash))} is on the board")
        rnd.pd_hole = pd_cards
        for s in rnd.seats.values():
            s.hole = entered.get(s.seat)
    if rnd.phase != "showdown":
        step.emit(StreetReached(rnd.number, "showdown"))
    rnd.phase = "showdown"
    settlement = _settlement(game, rnd)
    awards, after = _progressive_awards(step, rnd)
    return _settlement_result(rnd, settlement, fee_refunds(rnd.fees, settlement), game, awards, after)


def _progressive_awards(step: _Step, rnd: RoundState) -> tuple[list[FundLine], Fund | None]:
    """The round's progressive awards paid on the meter as it stands now (game-rules 10.3),
    and the fund after them; ([], None) at a table without a progressive."""
    progressive = step.game.config.side_bets.progressive
    if progressive is None:
        return [], None
    seats = [(s.seat, s.player, s.hole, rnd.community) for s in rnd.seats.values() if s.progressive and s.hole]
    awards = sidebets.awards_due(progressive, seats)
    return sidebets.pay_awards(step.fund(), progressive, awards, set(rnd.confirmed_awards), _withheld(step))


def _withheld(step: _Step) -> frozenset[int]:
    """The seats whose progressive award is withheld (a self-excluded patron): the command
    service looks the lists up and states them in the command, so the engine stays pure
    and a replay of the command withholds the same awards."""
    seats = step.command.get("withheld", [])
    if not isinstance(seats, list):
        raise CommandError("invalid_command", "'withheld' is a list of seat numbers")
    return frozenset(step.seat_number(seat) for seat in seats)


def _confirm_award(step: _Step) -> dict:
    """A supervisor confirms a percentage progressive award before the round settles."""
    seat = step.seat()
    rnd = step.round("showdown")
    approved_by = step.command.get("approved_by")
    if not isinstance(approved_by, str) or not approved_by.strip():
        raise CommandError("approval_required", "a percentage award is confirmed by a supervisor (approved_by)")
    approved_by = step.text("approved_by")
    lines, _ = _progressive_awards(step, rnd)
    award = next((l for l in lines if l.kind == "award" and l.seat == seat), None)
    progressive = step.game.config.side_bets.progressive
    if award is None or not sidebets.is_percentage(progressive, award.hand) or seat in rnd.confirmed_awards:
        raise CommandError("wrong_state", f"no percentage progressive award is waiting for confirmation at seat {seat}")
    rnd.confirmed_awards.append(seat)
    return {"award": {**sidebets.award_dicts([award])[0], "confirmed": True, "approved_by": approved_by}}


def _settlement(game: TableGame, rnd: RoundState) -> Settlement:
    players = [
        PlayerHand(
            s.seat, s.player, s.ante, s.blind, s.trips, s.play, s.folded, tuple(s.hole) if s.hole else None,
            s.bad_beat, s.pairs,
        )
        for s in _by_seat(rnd)
    ]
    holes = {s.seat: tuple(s.hole) if s.hole else None for s in rnd.seats.values()}
    backlines = [
        PlayerHand(b.seat, b.bettor, b.ante, b.blind, b.trips, b.play, b.folded, holes[b.seat]) for b in rnd.backlines
    ]
    return settle(
        bank=rnd.bank,
        pd_seat=rnd.pd_seat,
        pd_player=rnd.pd_player,
        pd_hole=tuple(rnd.pd_hole),
        community=tuple(rnd.community),
        players=players,
        seat_count=game.config.seats,
        paytable=game.config.paytable,
        side_bets=game.config.side_bets,
        backlines=backlines,
    )


def fee_refunds(fees, settlement: Settlement) -> list:
    """The player fees refunded after a settlement: those of the seats whose every wager
    the bank could not act on (game-rules section 9). `fees` are the round's fee lines,
    or any objects with `payer` and `seat` (the audit passes the stored ones)."""
    dead = set(settlement.dead_seats)
    dead_backlines = set(settlement.dead_backlines)
    return [
        f
        for f in fees
        if (f.payer == "player" and f.seat in dead)
        or (f.payer == "backline" and (f.seat, getattr(f, "bettor", None)) in dead_backlines)
    ]


def _settlement_result(
    rnd: RoundState, settlement: Settlement, refunds: list[FeeLine], game: TableGame, awards: list[FundLine], after: Fund | None
) -> dict:
    """What showdown (the preview) and settle answer: the settlement, its fee refunds, the
    seats whose hands the showdown turns over (`shown`: the others' hands stay mucked for
    whoever may not see them, tables.visibility) and, with a progressive, its awards and
    the meter after them."""
    result = {
        **settlement.as_dict(rnd.number),
        "fee_refunds": [
            {"seat": f.seat, "amount": f.amount, **({"bettor": f.bettor} if f.bettor is not None else {})}
            for f in refunds
        ],
        "shown": rnd.showdown_seats(),
    }
    if game.config.backline is not None:
        result.setdefault("backline", [])  # the bettors' nets; a seat's `net` is its player's own
    progressive = game.config.side_bets.progressive
    if progressive is not None:
        result["progressive"] = sidebets.award_dicts(awards)
        result["meter"] = sidebets.meter_dict(progressive, after)
    return result


def _settle(step: _Step) -> dict:
    game, rot = step.game, step.game.rotation
    rnd = step.round("showdown")
    settlement = _settlement(game, rnd)
    refunds = fee_refunds(rnd.fees, settlement)
    awards, after = _progressive_awards(step, rnd)
    if awards:
        waiting = sidebets.awaiting_confirmation(game.config.side_bets.progressive, sidebets.award_dicts(awards))
        if waiting:
            raise CommandError(
                "award_unconfirmed", f"the progressive award at seat {waiting[0]['seat']} needs a supervisor's confirmation"
            )
    holes = [("player_dealer", i, c) for i, c in enumerate(rnd.pd_hole)]
    holes += [(str(s.seat), i, c) for s in _by_seat(rnd) if s.hole for i, c in enumerate(s.hole)]
    if not rnd.dealt:
        step.emit(CardsDealt(rnd.number, tuple(holes), "entered"))
    game.round = None
    rot.round_banked(rnd.pd_player)
    step.emit(RoundSettled(rnd.number, settlement, tuple(refunds), consecutive_banks=rot.streak))
    if awards:
        step.emit(JackpotMoved(rnd.number, game.config.side_bets.progressive.meter, tuple(awards), after))
    next_offer = None
    if rot.pd_at_limit:
        step.emit(RotationEntry("limit_reached", rnd.pd_seat, rnd.pd_player, rnd.number))
        if game.policy is None:
            next_offer = rot.start_cycle(game.occupants, game.config.seats, after_seat=rnd.pd_seat)
            _emit_offer(step, next_offer)
    if game.policy is not None:
        next_offer = _offer_cycle_after_round(step, rnd)
    return {**_settlement_result(rnd, settlement, refunds, game, awards, after), "next_offer": next_offer, "player_dealer_next": rot.pd_seat}


def _void_round(step: _Step) -> dict:
    game = step.game
    rnd = step.round()
    approved_by = step.command.get("approved_by")
    if not isinstance(approved_by, str) or not approved_by.strip():
        raise CommandError("approval_required", "voiding a round needs a supervisor's approval (approved_by)")
    approved_by = step.text("approved_by")
    reason = step.text("reason")
    refunds = list(rnd.fees)  # a void refunds every fee of the round
    step.emit(RoundVoided(rnd.number, reason, approved_by, tuple(refunds)))
    game.round = None  # a voided round does not count for rotation
    result = {"round": rnd.number, "refunds": [f.as_dict() for f in refunds]}
    progressive = game.config.side_bets.progressive
    if rnd.jackpot:  # the progressive wagers are returned: the contributions reversed
        reversals, after = sidebets.reverse(step.fund(), rnd.jackpot)
        step.emit(JackpotMoved(rnd.number, progressive.meter, tuple(reversals), after))
        result["jackpot"] = [{"seat": l.seat, "amount": l.amount, "owed": l.owed} for l in reversals]
        result["meter"] = sidebets.meter_dict(progressive, after)
    if game.policy is not None:
        game.clock.voided(rnd.number)
        result["next_offer"] = _offer_cycle_after_round(step, rnd)
    return result


_HANDLERS = {
    "sit": _sit,
    "leave": _leave,
    "offer_bank": _offer_bank,
    "accept_bank": _accept_bank,
    "decline_bank": _decline_bank,
    "pass_bank": _pass_bank,
    "open_round": _open_round,
    "wager": _wager,
    "withdraw": _withdraw,
    "backline_wager": _backline_wager,
    "backline_withdraw": _backline_withdraw,
    "no_more_bets": _no_more_bets,
    "deal": _deal,
    "deal_by_hand": _deal_by_hand,
    "check": lambda step: _decide(step, "check"),
    "play": lambda step: _decide(step, "play"),
    "fold": lambda step: _decide(step, "fold"),
    **{command: _reveal for command in REVEALS},
    "showdown": _showdown,
    "settle": _settle,
    "void_round": _void_round,
    "confirm_award": _confirm_award,
    "start_game": _start_game,
}
# The commands that move a progressive's fund or show it (the settlement preview).
FUND_COMMANDS = {"no_more_bets", "showdown", "settle", "void_round", "confirm_award"}

COMMAND_TYPES = tuple(_HANDLERS)
# The commands a table without backline refuses before anything else (docs/commands.md).
BACKLINE_COMMANDS = {"backline_wager", "backline_withdraw"}
# The fields each command takes (docs/commands.md); any other is refused as invalid_command.
COMMAND_FIELDS = {
    "sit": {"seat", "player", "tppp"},
    "leave": {"seat"},
    "offer_bank": {"seat"},
    "accept_bank": {"seat"},
    "decline_bank": {"seat", "seats"},
    "pass_bank": set(),
    "open_round": {"bank"},
    "wager": {"seat", "ante", "blind", "trips", "bad_beat", "pairs", "progressive"},
    "withdraw": {"seat"},
    "backline_wager": {"seat", "bettor", "ante", "trips"},
    "backline_withdraw": {"seat", "bettor"},
    "no_more_bets": set(),
    "deal": {"cards"},
    "deal_by_hand": set(),
    "check": {"seat"},
    "play": {"seat", "multiple"},
    "fold": {"seat"},
    "flop": {"cards"},
    "turn_river": {"cards"},
    "showdown": {"player_dealer", "hands", "withheld"},
    "settle": {"withheld"},
    "void_round": {"reason", "approved_by"},
    "confirm_award": {"seat", "approved_by", "withheld"},
    "start_game": {"approved_by"},
}
# Every command's `type`, the client's command id and seen version (HTTP, websocket), and
# when it happened (`at`: stamped by the command service, or the replay file's).
ENVELOPE_FIELDS = {"type", "id", "version", "at"}
assert set(COMMAND_FIELDS) == set(_HANDLERS)

"""What the engine reports after an accepted command, for the ledger and for live screens.

Each record is a fact the command service writes as rows (rounds, wagers, decisions,
cards, settlement lines, collection entries, rotation entries) and sends to subscribers
after commit. Records are plain data: the engine never knows about the database.
"""

from dataclasses import asdict, dataclass

from .fees import FeeLine, PlayerWager
from .settlement import Settlement
from .sidebets import Fund, FundLine


@dataclass(frozen=True)
class Record:
    @property
    def kind(self) -> str:
        return type(self).__name__

    def as_dict(self) -> dict:
        return {"kind": self.kind, **asdict(self)}


@dataclass(frozen=True)
class Seated(Record):
    seat: int
    player: str
    tppp: dict | None = None  # a TPPP's badge, company and licence expiry


@dataclass(frozen=True)
class Left(Record):
    seat: int
    player: str


@dataclass(frozen=True)
class RotationEntry(Record):
    """offer, accept, decline, pass, limit_reached, stopped (no player-dealer); under the
    rotation policy game_ended and game_started, with their reason."""

    action: str
    seat: int | None
    player: str | None
    round: int | None = None
    badge: str | None = None  # the TPPP's badge when the entry is theirs
    reason: str | None = None


@dataclass(frozen=True)
class RoundOpened(Record):
    round: int
    bank: int
    pd_seat: int
    pd_player: str
    pd_badge: str | None = None  # the banker's TPPP badge, if the TPPP banks
    # Where the bank's chips come from (issue 27): "own" (the player-dealer's own chips)
    # or "tppp" (the third-party proposition player's company, named in pd_company).
    bank_source: str = "own"
    pd_company: str | None = None


@dataclass(frozen=True)
class BetsClosed(Record):
    round: int
    deck: str
    wagers: tuple[PlayerWager, ...]
    fees: tuple[FeeLine, ...]
    backlines: tuple[PlayerWager, ...] = ()  # the backline wagers, in the order first placed (game-rules 12)


@dataclass(frozen=True)
class BacklineChanged(Record):
    """A backline wager placed, replaced or withdrawn by its bettor, or returned with the
    seat's withdrawal (game-rules 12): the table's event names the bettor."""

    round: int
    seat: int
    bettor: str
    action: str  # placed, replaced, withdrawn, returned
    ante: int = 0
    blind: int = 0
    trips: int = 0


@dataclass(frozen=True)
class CardsDealt(Record):
    """Cards that became known: by a deal, a reveal, or showdown entry. position is
    'community', 'player_dealer' or a seat number as a string."""

    round: int
    cards: tuple[tuple[str, int, str], ...]  # (position, index 0-based, card)
    source: str  # dealt, shuffled, entered


@dataclass(frozen=True)
class StreetReached(Record):
    """The round moved on: flop, river (turn and river shown) or showdown."""

    round: int
    street: str


@dataclass(frozen=True)
class Decided(Record):
    round: int
    seat: int
    player: str
    street: str
    action: str  # check, play, fold
    amount: int  # the Play wager, 0 for check/fold
    bettor: str | None = None  # a bettor's decision, carried from the seat's (game-rules 12)


@dataclass(frozen=True)
class RoundSettled(Record):
    round: int
    settlement: Settlement
    fee_refunds: tuple[FeeLine, ...]
    consecutive_banks: int  # the player-dealer's run of banked rounds, this one included


@dataclass(frozen=True)
class RoundVoided(Record):
    round: int
    reason: str
    approved_by: str
    fee_refunds: tuple[FeeLine, ...]


@dataclass(frozen=True)
class JackpotMoved(Record):
    """Lines of a progressive's fund (contributions at no more bets, awards and a reseed at
    settle, reversals at a void) and the meter's amounts after them."""

    round: int
    meter: str
    lines: tuple[FundLine, ...]
    fund_after: Fund

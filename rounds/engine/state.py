"""A round in play as plain data: each seat's wagers, decisions and cards, the board, the
fees assessed and the progressive's contributions; kept in the table's state
(rounds.engine.table.TableGame) and stored with it (`round_to_dict` / `round_from_dict`).
"""

from dataclasses import dataclass, field

from .backline import BacklineInRound
from .fees import FeeLine
from .sidebets import FundLine


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
        return [s.seat for s in by_seat(self) if s.turned_over_at_showdown or s.seat in backline_trips]

    def behind(self, seat: int) -> list[BacklineInRound]:
        """The backline wagers behind `seat`, in the order first placed."""
        return [b for b in self.backlines if b.seat == seat]

    def known_cards(self) -> set[str]:
        cards = set(self.community) | set(self.pending_community) | set(self.pd_hole or ())
        for s in self.seats.values():
            cards |= set(s.hole or ())
        return cards


def by_seat(rnd: RoundState) -> list[SeatInRound]:
    return [rnd.seats[s] for s in sorted(rnd.seats)]


def round_to_dict(r: RoundState) -> dict:
    d = vars(r).copy()
    d["seats"] = {str(k): vars(s).copy() for k, s in r.seats.items()}
    d["fees"] = [vars(f).copy() for f in r.fees]
    d["jackpot"] = [line.as_dict() for line in r.jackpot]
    d["backlines"] = [vars(b).copy() for b in r.backlines]
    return d


def round_from_dict(d: dict) -> RoundState:
    d = dict(d)
    d["seats"] = {int(k): SeatInRound(**s) for k, s in d["seats"].items()}
    d["fees"] = [FeeLine(**f) for f in d["fees"]]
    d["jackpot"] = [FundLine(**line) for line in d.get("jackpot", [])]
    d["backlines"] = [BacklineInRound(**b) for b in d.get("backlines", [])]  # states stored before backline have none
    return RoundState(**d)

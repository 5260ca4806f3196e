"""Settling a round against the player-dealer's bank (game-rules sections 6 and 7).

Every wager of the round is settled in one pass, in the order the house dealer pays:
seats clockwise from the player-dealer's left, and within a seat Ante, Play, Blind, Trips,
then the side bets the player-dealer banks, Bad Beat and Pairs (sidebets.py); then the
backline wagers behind the seat (game-rules section 12), bettor by bettor in the order
their wagers were first placed, each in the order Ante, Play, Blind, Trips.
The bank B limits both sides: the player-dealer never pays more than B in all (once the
balance is paid down to zero the bank is exhausted and the remaining wagers have no
action) and never wins more than B (a losing stake beyond that is returned, "uncovered").
"""

from dataclasses import dataclass

from .hands import HandValue, evaluate, qualifies
from .paytables import PayTable
from .seats import clockwise_after
from .sidebets import SideBets, bad_beat_payout, pairs_payout

WAGER_ORDER = ("ante", "play", "blind", "trips", "bad_beat", "pairs")


@dataclass(frozen=True)
class PlayerHand:
    """A player's part in the round, as it stands at showdown."""

    seat: int
    player: str
    ante: int
    blind: int
    trips: int = 0
    play: int = 0
    folded: bool = False
    hole: tuple[str, ...] | None = None  # None only for a folded player without Trips, Pairs or progressive
    bad_beat: int = 0
    pairs: int = 0


@dataclass(frozen=True)
class Line:
    seat: int
    player: str
    wager: str
    stake: int
    result: str  # win, lose, push, no_action
    amount: int  # paid by the player-dealer (win) or collected (lose); else 0
    uncovered: int  # payout the bank could not pay, or losing stake returned under the win cap
    bettor: str | None = None  # a backline line's bettor (then `player` is the bettor too)

    def as_dict(self) -> dict:
        line = {
            "seat": self.seat,
            "wager": self.wager,
            "stake": self.stake,
            "result": self.result,
            "amount": self.amount,
            "uncovered": self.uncovered,
        }
        if self.bettor is not None:
            line["bettor"] = self.bettor
        return line

    @property
    def net(self) -> int:
        """The player's gain from this line."""
        return {"win": self.amount, "lose": -self.amount}.get(self.result, 0)

    @property
    def returned_for_want_of_bank(self) -> bool:
        """The bank could not act on this wager: no action, or a loss returned in full."""
        return self.result == "no_action" or (self.result == "lose" and self.amount == 0)


@dataclass(frozen=True)
class SeatResult:
    seat: int
    player: str
    hand: str | None  # evaluated whenever the hole cards are known, folded or not
    net: int
    folded: bool = False


@dataclass(frozen=True)
class BacklineResult:
    seat: int
    bettor: str
    net: int


@dataclass(frozen=True)
class Settlement:
    pd_seat: int
    pd_player: str
    pd_hand: str
    qualifies: bool
    lines: tuple[Line, ...]
    seats: tuple[SeatResult, ...]
    bank: int
    balance: int
    exhausted: bool
    backline: tuple[BacklineResult, ...] = ()

    @property
    def pd_net(self) -> int:
        return self.balance - self.bank

    @property
    def dead_seats(self) -> tuple[int, ...]:
        """Seats whose every wager was returned because the bank could not act on it.

        Their player fee is refunded (game-rules section 9; reference 001's dead hands).
        """
        return tuple(
            s.seat
            for s in self.seats
            if all(line.returned_for_want_of_bank for line in self.lines if line.seat == s.seat and line.bettor is None)
        )

    @property
    def dead_backlines(self) -> tuple[tuple[int, str], ...]:
        """(seat, bettor) of the backline wagers the bank could not act on at all: their
        bettor's fee is refunded as a player's is (game-rules section 12, fees)."""
        return tuple(
            (b.seat, b.bettor)
            for b in self.backline
            if all(
                line.returned_for_want_of_bank for line in self.lines if line.seat == b.seat and line.bettor == b.bettor
            )
        )

    def as_dict(self, round_number: int) -> dict:
        return {
            "round": round_number,
            "player_dealer": {
                "seat": self.pd_seat,
                "player": self.pd_player,
                "hand": self.pd_hand,
                "qualifies": self.qualifies,
            },
            "lines": [line.as_dict() for line in self.lines],
            "seats": [
                {"seat": s.seat, "player": s.player, "hand": s.hand, "net": s.net, "folded": s.folded}
                for s in self.seats
            ],
            "bank": self.bank,
            "balance": self.balance,
            "pd_net": self.pd_net,
            "exhausted": self.exhausted,
            **({"backline": [vars(b).copy() for b in self.backline]} if self.backline else {}),
        }


def settlement_order(pd_seat: int, seat_count: int, seats: set[int] | list[int]) -> list[int]:
    """The given seats clockwise, starting at the player-dealer's left (wrapping N -> 1)."""
    present = set(seats)
    clockwise = clockwise_after(pd_seat, seat_count)[:-1]  # the player-dealer's own seat last: left out
    return [seat for seat in clockwise if seat in present]


def _outcomes(p: PlayerHand, hand: HandValue | None, pd: HandValue, paytable: PayTable, side_bets: SideBets, pd_hole):
    """Each wager's result against the player-dealer before the bank is applied.

    Yields (wager, stake, kind, payout) with kind in win/lose/push.
    """
    if p.folded:
        yield "ante", p.ante, "lose", 0
        yield "blind", p.blind, "lose", 0
    else:
        beats, loses = hand > pd, hand < pd
        if not qualifies(pd):
            yield "ante", p.ante, "push", 0
        else:
            yield "ante", p.ante, ("win" if beats else "lose" if loses else "push"), p.ante
        yield "play", p.play, ("win" if beats else "lose" if loses else "push"), p.play
        if beats:
            pay = paytable.blind_payout(hand.category, p.blind)
            yield "blind", p.blind, ("push" if pay is None else "win"), pay or 0
        else:
            yield "blind", p.blind, ("lose" if loses else "push"), 0
    if p.trips:
        pay = paytable.trips_payout(hand.category, p.trips) if hand is not None else None
        yield "trips", p.trips, ("lose" if pay is None else "win"), pay or 0
    if p.bad_beat:  # a folded player's Bad Beat is lost (10.1)
        pay = None
        if not p.folded:
            pay = bad_beat_payout(side_bets.bad_beat.paytable, p.bad_beat, hand.category, pd.category, hand > pd, hand < pd)
        yield "bad_beat", p.bad_beat, ("lose" if pay is None else "win"), pay or 0
    if p.pairs:  # in action even on a fold (10.2)
        pay = pairs_payout(side_bets.pairs.paytable, p.pairs, p.hole, pd_hole)
        yield "pairs", p.pairs, ("lose" if pay is None else "win"), pay or 0


def settle(
    *,
    bank: int,
    pd_seat: int,
    pd_player: str,
    pd_hole: tuple[str, ...],
    community: tuple[str, ...],
    players: list[PlayerHand],
    seat_count: int,
    paytable: PayTable,
    side_bets: SideBets = SideBets(),
    backlines: list[PlayerHand] = (),
) -> Settlement:
    """`backlines` are the backline wagers in the order they were first placed, each a
    PlayerHand whose `player` is its bettor, with its seat's hole cards and decisions."""
    pd_hand = evaluate(tuple(pd_hole) + tuple(community))
    by_seat = {p.seat: p for p in players}
    balance, exhausted = bank, False
    lines: list[Line] = []
    seats: list[SeatResult] = []
    backline: list[BacklineResult] = []

    def bank_lines(p: PlayerHand, hand, bettor):
        nonlocal balance, exhausted
        out = []
        for wager, stake, kind, payout in _outcomes(p, hand, pd_hand, paytable, side_bets, pd_hole):
            if exhausted:
                line = Line(p.seat, p.player, wager, stake, "no_action", 0, 0, bettor)
            elif kind == "push":
                line = Line(p.seat, p.player, wager, stake, "push", 0, 0, bettor)
            elif kind == "win":
                paid = min(payout, balance)
                balance -= paid
                exhausted = balance == 0
                line = Line(p.seat, p.player, wager, stake, "win", paid, payout - paid, bettor)
            else:
                collected = min(stake, 2 * bank - balance)  # the PD never wins more than B
                balance += collected
                line = Line(p.seat, p.player, wager, stake, "lose", collected, stake - collected, bettor)
            out.append(line)
        lines.extend(out)
        return sum(l.net for l in out)

    for seat in settlement_order(pd_seat, seat_count, by_seat):
        p = by_seat[seat]
        hand = evaluate(tuple(p.hole) + tuple(community)) if p.hole else None
        net = bank_lines(p, hand, None)
        seats.append(SeatResult(seat, p.player, hand.category if hand else None, net, p.folded))
        # The bettors behind the seat ride its hand; exhaustion and the win cap run on.
        for b in (b for b in backlines if b.seat == seat):
            backline.append(BacklineResult(seat, b.player, bank_lines(b, hand, b.player)))
    return Settlement(
        pd_seat=pd_seat,
        pd_player=pd_player,
        pd_hand=pd_hand.category,
        qualifies=qualifies(pd_hand),
        lines=tuple(lines),
        seats=tuple(seats),
        bank=bank,
        balance=balance,
        exhausted=exhausted,
        backline=tuple(backline),
    )

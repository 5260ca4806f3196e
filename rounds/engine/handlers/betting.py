"""The betting phase: wagers and their side bets within the table's limits, withdrawals,
backline wagers behind a seat (game-rules 12), and no more bets, which assesses the fees
and takes the progressive's contributions.
"""

from .. import sidebets
from ..backline import BacklineInRound
from ..config import checked_text
from ..errors import CommandError
from ..fees import PlayerWager, assess_fees
from ..persons import checked_script, printed, same_person
from ..records import BacklineChanged, BetsClosed, JackpotMoved
from ..state import RoundState, SeatInRound, by_seat
from .step import Step


def _wager(step: Step) -> dict:
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


def _side_bet_wagers(step: Step, trips: int) -> dict:
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


def _withdraw(step: Step) -> dict:
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


def _backline_target(step: Step) -> tuple[RoundState, int, str]:
    """The checks both backline commands share, in the order docs/commands.md gives: the
    command's seat and bettor, then the round is betting. (seat, bettor as printed)."""
    seat = step.seat()
    raw = step.command.get("bettor")
    bettor = checked_script(checked_text("bettor", printed(raw) if isinstance(raw, str) else raw))
    rnd = step.round("betting")
    return rnd, seat, bettor


def _backline_wager(step: Step) -> dict:
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


def _backline_withdraw(step: Step) -> dict:
    """A bettor takes their backline wager back before no more bets; betting again later
    places it last."""
    rnd, seat, bettor = _backline_target(step)
    mine = next((b for b in rnd.behind(seat) if same_person(b.bettor, bettor)), None)
    if mine is None:
        raise CommandError("not_in_round", f"{bettor} has no backline wager behind seat {seat}")
    rnd.backlines.remove(mine)
    step.emit(BacklineChanged(rnd.number, seat, mine.bettor, "withdrawn", mine.ante, mine.blind, mine.trips))
    return {}


def _no_more_bets(step: Step) -> dict:
    game = step.game
    rnd = step.round("betting")
    if not rnd.seats:
        raise CommandError("no_players", "no player has wagered")
    rnd.phase = "preflop"
    rnd.deck = "B" if game.last_deck == "A" else "A"  # the two decks alternate
    game.last_deck = rnd.deck
    wagers = [
        PlayerWager(s.seat, s.player, s.ante, s.blind, s.trips, s.bad_beat, s.pairs, s.progressive)
        for s in by_seat(rnd)
    ]
    backlines = {
        s.seat: [PlayerWager(b.seat, b.bettor, b.ante, b.blind, b.trips, bettor=b.bettor) for b in rnd.behind(s.seat)]
        for s in by_seat(rnd)
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
            step.fund(), progressive, [(s.seat, s.player) for s in by_seat(rnd) if s.progressive]
        )
        if rnd.jackpot:
            step.emit(JackpotMoved(rnd.number, progressive.meter, tuple(rnd.jackpot), after))
        result["jackpot"] = [
            {"seat": c.seat, "amount": c.amount, "meter": c.meter_delta, "reserve": c.reserve_delta} for c in rnd.jackpot
        ]
        result["meter"] = sidebets.meter_dict(progressive, after)
    return result


HANDLERS = {
    "wager": _wager,
    "withdraw": _withdraw,
    "backline_wager": _backline_wager,
    "backline_withdraw": _backline_withdraw,
    "no_more_bets": _no_more_bets,
}

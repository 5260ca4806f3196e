"""The end of a round: the showdown (the hands, and the settlement they give, which is also
the screens' preview), a supervisor's confirmation of a percentage progressive award, and
the settlement itself with its fee refunds, the progressive's awards and the next offer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import sidebets
from ..cards import parse_cards
from ..errors import CommandError
from ..fees import FeeLine
from ..records import (
    CardsDealt,
    JackpotMoved,
    RotationEntry,
    RoundSettled,
    StreetReached,
)
from ..settlement import PlayerHand, Settlement, settle
from ..sidebets import Fund, FundLine
from ..state import RoundState, by_seat
from .bank import emit_offer, offer_cycle_after_round
from .step import Step
from .streets import require_decisions

if TYPE_CHECKING:
    from ..table import TableGame


def _showdown(step: Step) -> dict:
    game = step.game
    rnd = step.round("river", "showdown")
    if rnd.phase == "river":
        require_decisions(rnd)
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


def _progressive_awards(step: Step, rnd: RoundState) -> tuple[list[FundLine], Fund | None]:
    """The round's progressive awards paid on the meter as it stands now (game-rules 10.3),
    and the fund after them; ([], None) at a table without a progressive."""
    progressive = step.game.config.side_bets.progressive
    if progressive is None:
        return [], None
    seats = [(s.seat, s.player, s.hole, rnd.community) for s in rnd.seats.values() if s.progressive and s.hole]
    awards = sidebets.awards_due(progressive, seats)
    return sidebets.pay_awards(step.fund(), progressive, awards, set(rnd.confirmed_awards), _withheld(step))


def _withheld(step: Step) -> frozenset[int]:
    """The seats whose progressive award is withheld (a self-excluded patron): the command
    service looks the lists up and states them in the command, so the engine stays pure
    and a replay of the command withholds the same awards."""
    seats = step.command.get("withheld", [])
    if not isinstance(seats, list):
        raise CommandError("invalid_command", "'withheld' is a list of seat numbers")
    return frozenset(step.seat_number(seat) for seat in seats)


def _confirm_award(step: Step) -> dict:
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
        for s in by_seat(rnd)
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
    whoever may not see them, rounds.visibility) and, with a progressive, its awards and
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


def _settle(step: Step) -> dict:
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
    holes += [(str(s.seat), i, c) for s in by_seat(rnd) if s.hole for i, c in enumerate(s.hole)]
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
            emit_offer(step, next_offer)
    if game.policy is not None:
        next_offer = offer_cycle_after_round(step, rnd)
    return {**_settlement_result(rnd, settlement, refunds, game, awards, after), "next_offer": next_offer, "player_dealer_next": rot.pd_seat}


HANDLERS = {"showdown": _showdown, "confirm_award": _confirm_award, "settle": _settle}

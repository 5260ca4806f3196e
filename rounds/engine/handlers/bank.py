"""Who banks: the house offers the bank, a seat accepts or declines it, the player-dealer
passes it, and a round opens (game-rules 2); and the rotation policy's hooks (game-rules
2A; the rules themselves are in rounds/engine/policy.py): the window that can end the
game, the new game a supervisor starts, the offer after every round, the TPPP's one round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import CommandError
from ..policy import GAME_ENDED_BY_WINDOW, GameClock, required_time
from ..records import RotationEntry, RoundOpened
from ..seats import clockwise_after
from ..state import RoundState
from .step import Step

if TYPE_CHECKING:
    from ..table import TableGame

NO_TPPP_REASON = "no TPPP banks under the rules in force"


def emit_offer(step: Step, offer: int | None, after_seat: int | None = None) -> None:
    """The offer the walk clockwise from `after_seat` ended on (None: the game stops), each
    seat it passed over because no TPPP banks under the rules in force recorded first."""
    barred = step.game.rotation.barred
    if barred is not None and after_seat is not None:
        for seat in clockwise_after(after_seat, step.game.config.seats):
            if seat == offer:
                break
            if step.game.occupants.get(seat) == barred:
                step.emit(RotationEntry("skipped", seat, barred, reason=NO_TPPP_REASON))
    if offer is None:
        step.emit(RotationEntry("stopped", None, None))
    else:
        step.emit(RotationEntry("offer", offer, step.game.occupants[offer]))


def _offer_bank(step: Step) -> dict:
    rot = step.game.rotation
    seat = step.seat()
    refuse_if_game_ended(step)
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


def _offered_seat(step: Step, seat=None) -> tuple[int, str]:
    rot = step.game.rotation
    seat = step.seat() if seat is None else step.seat_number(seat)
    if rot.offer_seat != seat:
        held = f"seat {rot.offer_seat} holds the offer" if rot.offer_seat else "no offer is pending"
        raise CommandError("not_offered", f"seat {seat} has not been offered the bank: {held}")
    return step.occupied_seat(seat)


def _accept_bank(step: Step) -> dict:
    seat, player = _offered_seat(step)
    rot = step.game.rotation
    if not rot.eligible(player):  # offers only go to eligible persons; kept as a last guard
        raise CommandError(rot.ineligible_code(player), f"{player} may not bank another consecutive round")
    rot.accept(seat, player)
    step.emit(RotationEntry("accept", seat, player))
    return {"player_dealer": seat}


def _decline_bank(step: Step) -> dict:
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
        emit_offer(step, offer, after_seat=seat)
    return {"offer": offer}


def _pass_bank(step: Step) -> dict:
    game, rot = step.game, step.game.rotation
    if rot.pd_seat is None:
        raise CommandError("no_player_dealer", "there is no player-dealer to pass the bank")
    step.no_round()
    seat, player = rot.pd_seat, rot.pd_player
    step.emit(RotationEntry("pass", seat, player))
    # A player-dealer under the limit is offered last and may take the bank back.
    offer = rot.start_cycle(game.occupants, game.config.seats, after_seat=seat, passer=player)
    emit_offer(step, offer, after_seat=seat)
    return {"offer": offer}


def _open_round(step: Step) -> dict:
    game, rot = step.game, step.game.rotation
    step.no_round()
    refuse_if_game_ended(step)
    if rot.pd_seat is None:
        if rot.offer_seat is not None:
            raise CommandError("offer_pending", f"seat {rot.offer_seat} has not answered the offer of the bank")
        raise CommandError("no_player_dealer", "no player-dealer: the bank must be offered and accepted first")
    bank = step.amount("bank", required=True)
    if rot.pd_at_limit:
        if rot.pd_player == rot.barred:
            raise CommandError("tppp_barred", f"no TPPP banks under the rules in force: {rot.pd_player} passes the bank")
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


def refuse_if_game_ended(step: Step) -> None:
    if step.game.clock.ended:
        raise CommandError("game_ended", "the game has ended under the rotation window rule: a supervisor starts a new game")


def counted_banker(game: "TableGame", player: str) -> str | None:
    """Who counts for the window: the person, or None for the TPPP (who never counts)."""
    return None if game.tppp is not None and game.tppp.player == player else player


def _window_allows_round(step: Step) -> bool:
    """2A.3: a round opening now counts with the window's other bankers, or the game ends
    (the command is accepted as the end of the game: no round, no player-dealer, no offer)."""
    game, rot, policy = step.game, step.game.rotation, step.game.policy
    at = required_time(step.command, "under the rotation policy")
    banker = counted_banker(game, rot.pd_player)
    if game.clock.allows(policy, at, banker):
        game.clock.opened(policy, at, game.rounds_opened + 1, banker)
        return True
    game.clock.ended = True
    step.emit(RotationEntry("game_ended", rot.pd_seat, rot.pd_player, reason=GAME_ENDED_BY_WINDOW))
    rot.pd_seat = rot.pd_player = rot.offer_seat = rot.passer = None
    rot.offered = []
    return False


def _start_game(step: Step) -> dict:
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


def offer_cycle_after_round(step: Step, rnd: "RoundState") -> int | None:
    """2A.1: after every settled or voided round the position is offered clockwise from
    the seat after the PD's, and to the PD last if the PD may keep it."""
    game, rot = step.game, step.game.rotation
    passer = rot.pd_player if rot.pd_player is not None and rot.eligible(rot.pd_player) else None
    offer = rot.start_cycle(game.occupants, game.config.seats, after_seat=rnd.pd_seat, passer=passer)
    emit_offer(step, offer, after_seat=rnd.pd_seat)
    return offer


def tppp_limits(game: "TableGame") -> None:
    """Under the policy (tppp_one_round) the seated TPPP banks one round at a time; under a
    no-TPPP rule (TableConfig.no_tppp) never: a TPPP banking when the rule comes in keeps
    the bank to no further round (open_round is refused `tppp_barred`) and is skipped by
    the next offers."""
    policy = game.policy
    one_round = policy is not None and policy.tppp_one_round and game.tppp is not None
    game.rotation.one_round = game.tppp.player if one_round else None
    game.rotation.barred = game.tppp.player if game.config.no_tppp and game.tppp is not None else None


def policy_switched(game: "TableGame", was_under_policy: bool) -> None:
    """A configuration change between rounds. Switching the policy on starts a new game
    as a table's first round does: no player-dealer carried over without an offer, the
    house chooses where the first offer goes. Switching it off ends the policy's game."""
    tppp_limits(game)
    now_under_policy = game.policy is not None
    if now_under_policy and not was_under_policy:
        game.clock = GameClock()
        rot = game.rotation
        if rot.pd_seat is not None:
            rot.pd_seat = rot.pd_player = rot.passer = None
            rot.offered = []
    elif was_under_policy and not now_under_policy:
        game.clock = GameClock()


HANDLERS = {
    "offer_bank": _offer_bank,
    "accept_bank": _accept_bank,
    "decline_bank": _decline_bank,
    "pass_bank": _pass_bank,
    "open_round": _open_round,
    "start_game": _start_game,
}

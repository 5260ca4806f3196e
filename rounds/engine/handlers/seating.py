"""Who sits: a player (or the table's TPPP) takes a seat, a player leaves one; a leaving
player-dealer or offered seat moves the bank's offer on.
"""

from ..config import checked_text
from ..errors import CommandError
from ..persons import checked_script, printed, same_person
from ..policy import required_time, tppp_from_command
from ..records import Left, RotationEntry, Seated
from .bank import emit_offer, tppp_limits
from .step import Step


def _sit(step: Step) -> dict:
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
        tppp_limits(game)
    game.occupants[seat] = player
    step.emit(Seated(seat, player, tppp.as_dict() if tppp else None))
    return {}


def _leave(step: Step) -> dict:
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
        tppp_limits(game)
    if seat == rot.pd_seat:
        offer = rot.start_cycle(game.occupants, game.config.seats, after_seat=seat)
        emit_offer(step, offer, after_seat=seat)
        return {"offer": offer}
    if seat == rot.offer_seat:
        step.emit(RotationEntry("decline", seat, player))
        offer = rot.decline(game.occupants, game.config.seats)
        emit_offer(step, offer, after_seat=seat)
        return {"offer": offer}
    return {}


HANDLERS = {"sit": _sit, "leave": _leave}

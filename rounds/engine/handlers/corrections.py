"""A supervisor's correction of a round in play: the void, which refunds every fee of the
round and reverses its progressive contributions.
"""

from .. import sidebets
from ..errors import CommandError
from ..records import JackpotMoved, RoundVoided
from .bank import offer_cycle_after_round
from .step import Step


def _void_round(step: Step) -> dict:
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
        result["next_offer"] = offer_cycle_after_round(step, rnd)
    return result


HANDLERS = {"void_round": _void_round}

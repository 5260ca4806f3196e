"""The streets: the cards dealt (by the software, from a shuffler's sequence, or by hand),
each seat's decision on each street (its bettors' with it), and the reveals of the board.
"""

from .. import dealing
from ..cards import DECK, parse_cards
from ..config import PLAY_MULTIPLES, REVEALS, STREET_ACTIONS, play_amount
from ..errors import CommandError
from ..records import CardsDealt, Decided, StreetReached
from ..state import RoundState, by_seat
from .step import Step


def _deal(step: Step) -> dict:
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


def _deal_by_hand(step: Step) -> dict:
    """The cards were dealt by hand: no `deal` comes (the cards are entered as they are
    turned over), and the pre-flop decisions are taken now. Recorded in the table's state
    (and as the table's event) rather than on one tablet, so a reload or a second browser
    shows the same step."""
    rnd = step.round("preflop")
    if not rnd.can_deal:
        raise CommandError("wrong_state", "the cards are dealt once, right after no more bets")
    rnd.hand_dealt = True
    return {}


def _decide(step: Step, action: str) -> dict:
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


def require_decisions(rnd: RoundState) -> None:
    pending = [s.seat for s in by_seat(rnd) if s.owes_decision(rnd.phase)]
    if pending:
        raise CommandError("decisions_pending", f"seats {pending} still owe a decision on the {rnd.phase}")


def _reveal(step: Step) -> dict:
    reveal = REVEALS[step.command["type"]]
    count, next_phase = reveal.count, reveal.next_phase
    rnd = step.round(reveal.street)
    require_decisions(rnd)
    given = step.command.get("cards")
    if rnd.dealt:
        cards = rnd.pending_community[:count]
        if given is not None and sorted(parse_cards(given, count=count)) != sorted(cards):
            # Names no card: the dealt ones are not revealed yet, and the message is kept
            # in the refused-command log and the audit trail (rounds.visibility).
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


HANDLERS = {
    "deal": _deal,
    "deal_by_hand": _deal_by_hand,
    "check": lambda step: _decide(step, "check"),
    "play": lambda step: _decide(step, "play"),
    "fold": lambda step: _decide(step, "fold"),
    **{command: _reveal for command in REVEALS},
}

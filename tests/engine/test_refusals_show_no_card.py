"""No refusal names a card the table has not shown: the engine's messages are kept in the
refused-command log and the audit trail, which more people read than see the table.

The cards no one may see yet are worked out from the engine's own state
(tests.live.test_visibility.secret); the service's side (the answer, the refused-command
log and the audit entry of a wrong flop) is tests/service/test_unfinished_round_records.py.
"""

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rounds.engine.cards import DECK
from rounds.engine.errors import CommandError
from rounds.visibility import LIVE
from tests.engine.helpers import decide, new_game, seated_with_pd
from tests.hypothesis_profiles import examples
from tests.live.test_visibility import secret

# A card written as the engine writes it, standing alone (not inside a word).
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))


ROUND = seated_with_pd([1, 2, 3], pd=1) + [
    {"type": "open_round", "bank": 100_000},
    {"type": "wager", "seat": 2, "ante": 1000, "trips": 500},
    {"type": "wager", "seat": 3, "ante": 1000},
    {"type": "no_more_bets"},
    {"type": "deal"},
    decide(2, "check"), decide(3, "check"),
    {"type": "flop"},
    decide(2, "check"), decide(3, "check"),
    {"type": "turn_river"},
    decide(2, "play", 1), decide(3, "fold"),
    {"type": "showdown"},
]
# How many cards each card-carrying command takes (a wrong count is refused too).
COUNTS = {"flop": 3, "turn_river": 2, "showdown_hands": 2, "showdown_pd": 2, "deal": 2 * 3 + 2 + 5}


def card_command(data, unseen: set[str]) -> dict:
    """A command carrying cards: mostly as many as it takes, drawn from the cards the
    table has not shown as often as from the rest of the deck (a guess that is partly right)."""
    kind = data.draw(st.sampled_from(sorted(COUNTS)))
    pool = st.sampled_from(sorted(unseen)) if unseen else st.sampled_from(DECK)
    card = st.one_of(pool, st.sampled_from(DECK))
    count = data.draw(st.one_of(st.just(COUNTS[kind]), st.integers(0, COUNTS[kind] + 1)))
    cards = data.draw(st.lists(card, min_size=count, max_size=count))
    if kind == "showdown_hands":
        return {"type": "showdown", "hands": {str(data.draw(st.sampled_from([2, 3]))): cards}}
    if kind == "showdown_pd":
        return {"type": "showdown", "player_dealer": cards}
    return {"type": kind, "cards": cards}


# Where the round is: anywhere, and as often right before a reveal or the showdown.
BEFORE_CARDS = [i for i, c in enumerate(ROUND) if c["type"] in ("flop", "turn_river", "showdown", "deal")]


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    prefix=st.one_of(st.sampled_from(BEFORE_CARDS), st.integers(0, len(ROUND))),
    data=st.data(),
)
def test_no_refusal_names_a_card_the_table_has_not_shown(seed, prefix, data):
    """After any prefix of a server-dealt round, a command carrying any cards is accepted,
    or refused with a message naming no card the live view hides, beyond those the command
    itself sent."""
    game = new_game(6)
    rng = random.Random(seed)
    for step in ROUND[:prefix]:
        game, _, _ = game.apply(step, rng=rng)
    unseen = secret(game.to_dict(), LIVE)
    command = card_command(data, unseen)
    try:
        game.apply(command, rng=rng)
    except CommandError as refusal:
        named = cards_in(refusal.message) - cards_in(str(command))
        assert not named & unseen, f"{command} refused naming {sorted(named & unseen)}: {refusal.message}"
        assert refusal.code in CommandError.codes


def test_a_wrong_flop_after_a_dealt_deal_keeps_its_stable_code():
    game = new_game(6)
    rng = random.Random(7)
    for step in ROUND[: ROUND.index({"type": "flop"})]:
        game, _, _ = game.apply(step, rng=rng)
    board = game.round.pending_community
    not_the_flop = [board[0], board[1], board[3]]  # two of the flop and the turn
    with pytest.raises(CommandError) as refused:
        game.apply({"type": "flop", "cards": not_the_flop}, rng=rng)
    assert refused.value.code == "card_mismatch"
    assert not cards_in(refused.value.message) & set(board)

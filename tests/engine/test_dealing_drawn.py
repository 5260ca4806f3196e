"""The order a deal was drawn in is recovered from where its cards went (rounds/engine/dealing.py
`drawn`): what a surveillance replay deals again for a software shuffle, whatever the
procedure, the number of players or their seats."""

from hypothesis import given
from hypothesis import strategies as st

from rounds.engine import dealing
from rounds.engine.cards import DECK
from rounds.engine.records import CardsDealt
from tests.engine.helpers import deal_sequence

deals = st.tuples(
    st.sampled_from(dealing.PROCEDURES),
    st.sets(st.integers(1, 7), min_size=1, max_size=6).map(sorted),
    st.permutations(DECK),
)


@given(deals)
def test_the_drawn_order_is_what_the_deal_was_assigned_from(deal):
    procedure, seats, deck = deal
    drawn = list(deck[: dealing.cards_needed(len(seats))])
    assigned = dealing.assign(procedure, drawn, seats)
    assert dealing.drawn(procedure, assigned) == drawn
    # The spec's own description of each procedure (written apart from the engine) agrees.
    holes = {seat: list(hole) for seat, hole in assigned.holes.items()}
    assert deal_sequence(procedure, holes, list(assigned.player_dealer), list(assigned.community)) == drawn


@given(deals)
def test_a_deal_is_read_back_from_its_record_as_the_ledger_keeps_it(deal):
    procedure, seats, deck = deal
    assigned = dealing.assign(procedure, list(deck[: dealing.cards_needed(len(seats))]), seats)
    positions = [(str(seat), i, c) for seat, hole in assigned.holes.items() for i, c in enumerate(hole)]
    positions += [("player_dealer", i, c) for i, c in enumerate(assigned.player_dealer)]
    positions += [("community", i, c) for i, c in enumerate(assigned.community)]
    # As stored: JSON lists, in any order.
    stored = [list(p) for p in reversed(CardsDealt(1, tuple(positions), "shuffled").cards)]
    assert dealing.deal_of(stored) == assigned

import pytest

from tests.engine.helpers import dealt_round
from tests.playing import new_table


def full_round(players: list[int], *, bank=100000, ante=1000) -> list[dict]:
    """A whole round, Trips 100 on every seat, dealt from the unshuffled deck
    (helpers.dealt_round): every player checks to the river and plays 1x."""
    return dealt_round(players, bank=bank, ante=ante, trips=100)


@pytest.fixture
def make_table(db):
    def make(seats=6, boxes=True, **config):
        return new_table(seats=seats, boxes=boxes, **config)

    return make

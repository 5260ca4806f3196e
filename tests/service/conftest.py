import pytest

from tables.services import command_execute, table_create
from tests.engine.helpers import FEES  # noqa: F401  (the service tests import it from here)


def run(table, *commands, actor="dealer-1"):
    """Execute commands in order; returns their results."""
    return [command_execute(table_id=table.pk, command=c, actor=actor).result for c in commands]


def run_ok(table, *commands, actor="dealer-1"):
    results = run(table, *commands, actor=actor)
    for command, result in zip(commands, results):
        assert result["ok"], (command, result)
    return results


def seated(seats: int, players: list[int], pd: int) -> list[dict]:
    """Sit P-<seat> at each seat and make `pd` the player-dealer."""
    return [{"type": "sit", "seat": s, "player": f"P-{s}"} for s in players] + [
        {"type": "offer_bank", "seat": pd},
        {"type": "accept_bank", "seat": pd},
    ]


def full_round(players: list[int], *, bank=100000, ante=1000) -> list[dict]:
    """A whole round with every player checking to the river and playing 1x, dealt by
    the shuffler procedure from a fixed sequence (players in seat order, then the PD)."""
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    needed = 2 * len(players) + 2 + 5
    commands = [{"type": "open_round", "bank": bank}]
    commands += [{"type": "wager", "seat": s, "ante": ante, "trips": 100} for s in players]
    commands += [{"type": "no_more_bets"}, {"type": "deal", "cards": deck[:needed]}]
    commands += [{"type": "check", "seat": s} for s in players] + [{"type": "flop"}]
    commands += [{"type": "check", "seat": s} for s in players] + [{"type": "turn_river"}]
    commands += [{"type": "play", "seat": s, "multiple": 1} for s in players]
    commands += [{"type": "showdown"}, {"type": "settle"}]
    return commands


@pytest.fixture
def make_table(db):
    def make(seats=6, **config):
        return table_create(name="T", config={"seats": seats, **config}, created_by="test")

    return make

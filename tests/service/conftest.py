import pytest

from tables.lifecycle import table_create
from tables.services import command_execute
from tests.boxes import place_boxes
from tests.engine.helpers import dealt_round


def run(table, *commands, actor="dealer-1"):
    """Execute commands in order; returns their results."""
    return [command_execute(table_id=table.pk, command=c, actor=actor).result for c in commands]


def run_ok(table, *commands, actor="dealer-1"):
    results = run(table, *commands, actor=actor)
    for command, result in zip(commands, results):
        assert result["ok"], (command, result)
    return results


def full_round(players: list[int], *, bank=100000, ante=1000) -> list[dict]:
    """A whole round, Trips 100 on every seat, dealt from the unshuffled deck
    (helpers.dealt_round): every player checks to the river and plays 1x."""
    return dealt_round(players, bank=bank, ante=ante, trips=100)


@pytest.fixture
def make_table(db):
    def make(seats=6, boxes=True, **config):
        table = table_create(name="T", config={"seats": seats, **config}, created_by="test")
        if boxes:
            place_boxes(table)  # a person opens rounds only with the table's boxes placed
        return table

    return make

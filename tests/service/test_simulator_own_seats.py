"""simulate_floor acts only for the ids it seated itself (issue 34, finding 9: on the demo
floor it wagered, played and passed for patron PT-1001, whose AML history then showed
it). A seat taken by a person is left alone; at that person's turn the simulator waits."""

import random

import pytest

from tables.management.commands.simulate_floor import SIM_CONFIG, next_command, seated_by_simulator
from tables.models import Table, TableEvent
from tables.services import command_execute
from tests.playing import new_table


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_simulator_never_taps_for_a_seat_it_did_not_seat(db, seed):
    table = new_table("Sim", **SIM_CONFIG, boxes=False)
    seated = command_execute(table_id=table.pk, command={"type": "sit", "seat": 3, "player": "PT-1001"}, actor="floor")
    assert seated.result["ok"], seated.result
    rng = random.Random(seed)
    sent = []
    for _ in range(300):
        command = next_command(Table.objects.only("state").get(pk=table.pk).state, rng)
        if command is None:
            break  # PT-1001's turn (a bank offered to her): the simulator waits for the person
        sent.append(command)
        command_execute(table_id=table.pk, command=command, actor="simulator", rng=rng)
    assert not [c for c in sent if c.get("seat") == 3], "the simulator tapped for PT-1001's seat"
    # It still plays its own seats: it seated G- ids and they wagered.
    assert any(c["type"] == "sit" and seated_by_simulator(c["player"]) for c in sent)
    wagered = TableEvent.objects.filter(table=table, command_type="wager", actor="simulator")
    assert wagered.exists()
    assert all(event.command["seat"] != 3 for event in wagered)

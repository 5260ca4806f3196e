"""The tablet's "Same bets as last round" (docs/controls.md): the snapshot the dealer's
tablet receives carries each seat's wagers of the table's last round, for the seat's
current occupant only; the live view never gets them."""
import pytest

from rounds.visibility import LIVE, TABLET
from tables.models import Table
from tables.selectors import table_snapshot
from tests.engine.helpers import dealt_round, seated_with_pd

from tests.playing import run_ok

pytestmark = pytest.mark.django_db

SIDE_BETS = {"pairs": {"paytable": "UPB-1", "min": 100, "max": 2500}}


def test_last_rounds_wagers_are_offered_for_the_same_occupant_only(make_table):
    table = make_table(side_bets=SIDE_BETS)
    run_ok(table, *seated_with_pd([1, 2, 3], 1))
    first = dealt_round([2, 3], ante=1000)
    first[1] = {**first[1], "pairs": 500}  # seat 2: Ante 10, Pairs 5
    run_ok(table, *first)
    table = Table.objects.get(pk=table.pk)
    assert table_snapshot(table, TABLET)["last_wagers"] == {
        "2": {"player": "P-2", "ante": 1000, "pairs": 500},
        "3": {"player": "P-3", "ante": 1000},
    }
    assert "last_wagers" not in table_snapshot(table, LIVE)
    # Seat 3's player leaves and another sits: the new occupant inherits nothing.
    run_ok(table, {"type": "leave", "seat": 3}, {"type": "sit", "seat": 3, "player": "P-9"})
    run_ok(table, {"type": "open_round", "bank": 100000})
    table = Table.objects.get(pk=table.pk)
    assert table_snapshot(table, TABLET)["last_wagers"] == {"2": {"player": "P-2", "ante": 1000, "pairs": 500}}
    # Once bets are closed nothing is offered (and nothing is read).
    run_ok(table, {"type": "wager", "seat": 2, "ante": 500}, {"type": "wager", "seat": 3, "ante": 500},
           {"type": "no_more_bets"})
    assert table_snapshot(Table.objects.get(pk=table.pk), TABLET)["last_wagers"] == {}

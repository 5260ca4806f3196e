"""A box placed by the back office shows on the floor: the count's service sends
collections_fees.signals.box_placed (it does not import the tables app), and the tables
app publishes the table's floor row once the placement commits."""

from unittest import mock

import pytest

from cardroom.access import Actor
from collections_fees import counts
from tests.playing import new_table

pytestmark = pytest.mark.django_db


def test_a_placed_box_publishes_its_tables_floor_row_on_commit(django_capture_on_commit_callbacks):
    table = new_table("T", boxes=False)
    floor_man = Actor(name="sup", role="supervisor")
    box = counts.box_register(identifier="FEES-T", kind="fees", table_id=table.pk, actor=floor_man)
    with mock.patch("tables.events.publisher.changed") as changed:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            counts.box_place(table_id=table.pk, box_id=box.pk, actor=floor_man)
        changed.assert_not_called()  # not before the commit
        for callback in callbacks:
            callback()
    changed.assert_called_once_with(table.pk)


def test_a_box_for_no_table_is_refused_not_found():
    floor_man = Actor(name="sup", role="supervisor")
    box = counts.box_register(identifier="SPARE", kind="emergency", table_id=None, actor=floor_man)
    with pytest.raises(counts.CountError) as refused:
        counts.box_place(table_id=999999, box_id=box.pk, actor=floor_man)
    assert refused.value.code == "not_found"

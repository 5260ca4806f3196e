"""cardroom/locks.py: every row lock goes through it, in the one order Table -> Approval -> Meter."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cardroom import locks
from collections_fees.models import JackpotMeter
from tests.playing import new_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    return new_table("T", boxes=False)


@pytest.fixture
def meter():
    return JackpotMeter.objects.create(name="M", meter=0, reserve=0, created_at=timezone.now())


def test_the_order_is_stated_once():
    assert locks.ORDER == ("tables.Table", "tables.Approval", "collections_fees.JackpotMeter")


def test_a_table_then_its_meter_is_the_order(table, meter):
    with transaction.atomic():
        assert locks.table(table.pk).pk == table.pk
        assert locks.meter("M").pk == meter.pk


def test_a_table_locked_after_a_meter_is_refused_before_any_query(table, meter):
    with transaction.atomic():
        locks.meter("M")
        with CaptureQueriesContext(connection) as queries, pytest.raises(locks.LockOrderError) as refused:
            locks.table(table.pk)
    assert "tables.Table" in str(refused.value) and "collections_fees.JackpotMeter" in str(refused.value)
    assert refused.value.code == "lock_order"
    assert len(queries) == 0  # nothing was locked


def test_an_approval_step_after_a_meter_is_refused(table, meter):
    with transaction.atomic():
        locks.meter("M")
        with CaptureQueriesContext(connection) as queries, pytest.raises(locks.LockOrderError):
            locks.approval_table(1)  # refused before the approval is even read
    assert len(queries) == 0


def test_the_row_held_already_may_be_taken_again_at_any_point(table, meter):
    """An approval decided under its table's lock runs the void command, which locks the
    same table again (and then the meter): a row already held never waits."""
    with transaction.atomic():
        locks.table(table.pk)
        locks.meter("M")
        assert locks.table(table.pk).pk == table.pk


def test_a_finished_block_releases_its_locks_for_the_check(table, meter):
    with transaction.atomic():
        locks.meter("M")
    with transaction.atomic():
        assert locks.table(table.pk).pk == table.pk  # a new transaction starts at the top


def test_an_unknown_row_is_the_models_does_not_exist(table):
    with transaction.atomic(), pytest.raises(JackpotMeter.DoesNotExist):
        locks.meter("no such meter")

"""The gaming day across 06:00 local (31 CFR 1021.311: a CTR is for one person's cash in
of MORE than $10,000 in one gaming day; cardroom/gaming_day.py): purchases made by a
person at the table, on a frozen clock either side of 06:00 in the cardroom's zone, are
totalled per gaming day (issue 34, finding 10)."""

from contextlib import contextmanager
from datetime import datetime, time, timedelta
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings

from patrons import cash
from patrons.models import CashAlert

DAY = datetime(2026, 3, 10).date()  # no DST change on or around it


@contextmanager
def frozen(moment):
    """The whole app's clock (`django.utils.timezone.now`, which the cash log reads)
    stopped at `moment`. The project has no time-freezing library; Django's one clock
    function is the one to stop."""
    with mock.patch("django.utils.timezone.now", return_value=moment):
        yield


def six_am(day=DAY):
    return datetime.combine(day, time(6, 0), tzinfo=ZoneInfo(settings.TIME_ZONE))


def buy_at(moment, table, actor):
    with frozen(moment):
        # Two purchases of one amount a minute apart: the clerk confirms they are two
        # (patrons/cash.py `possible_duplicate`).
        return cash.cash_record(table_id=table.pk, kind="chip_purchase", amount=290000, player="P-1001", actor=actor,
                                confirm=True)


def test_four_purchases_of_2900_split_across_six_oclock_are_two_gaming_days_and_no_ctr(tables, ann, actors):
    """$2,900 x 4 = $11,600 by one patron, two before 06:00 and two after: $5,800 on each
    gaming day, no CTR for either (and no CTR candidate on the compliance page's list)."""
    t1, t2 = tables
    start, supervisor = six_am(), actors["supervisor"]
    rows = [
        buy_at(start - timedelta(minutes=40), t1, supervisor),  # 05:20 local: the gaming day before
        buy_at(start - timedelta(minutes=1), t2, supervisor),  # 05:59
        buy_at(start, t1, supervisor),  # 06:00:00: the new gaming day
        buy_at(start + timedelta(minutes=30), t2, supervisor),  # 06:30
    ]
    earlier, later = DAY - timedelta(days=1), DAY
    assert [row.gaming_day for row in rows] == [earlier, earlier, later, later]
    subject = f"patron:{ann.pk}"
    assert cash.day_total(subject, earlier, "in") == cash.day_total(subject, later, "in") == 580000
    assert not CashAlert.objects.filter(kind="ctr_required").exists()
    assert cash.ctr_candidates(earlier) == [] and cash.ctr_candidates(later) == []


@pytest.mark.parametrize("side", ["before", "after"])
def test_four_purchases_of_2900_on_one_side_of_six_oclock_make_11600_and_a_ctr(tables, ann, actors, side):
    """The same four purchases all on one side of 06:00 (05:00-05:59, or 06:00-06:59) are
    one gaming day's $11,600: the fourth crosses the line and makes the CTR."""
    t1, t2 = tables
    start, supervisor = six_am(), actors["supervisor"]
    offsets = [-60, -40, -20, -1] if side == "before" else [0, 20, 40, 59]
    rows = [buy_at(start + timedelta(minutes=m), (t1, t2)[i % 2], supervisor) for i, m in enumerate(offsets)]
    day = DAY - timedelta(days=1) if side == "before" else DAY
    assert {row.gaming_day for row in rows} == {day}
    assert cash.day_total(f"patron:{ann.pk}", day, "in") == 1160000
    ctr = CashAlert.objects.get(kind="ctr_required")
    assert (ctr.gaming_day, ctr.total, ctr.transaction_id) == (day, 1160000, rows[3].pk)
    (candidate,) = cash.ctr_candidates(day)
    assert candidate["total"] == 1160000
    assert [t.pk for t in candidate["transactions"]] == [row.pk for row in rows]

"""The closer summary and the count sheet chart each table's fees, counted drop and
variance over the last 14 gaming days (collections_fees/trends.py), next to the totals.
The figures the charts must show are summed here from the ledgers themselves (collection
lines, the counts in force), not from the code under test."""

import html
import re
from collections import defaultdict
from datetime import time, timedelta

import pytest

from collections_fees.models import BoxCount, CollectionEntry
from cardroom.sql import Filters
from collections_fees.selectors import daily_totals

from .play import DAY, count_shift, deal, person
from .test_pages import client_of

pytestmark = pytest.mark.django_db

LATER = DAY + timedelta(days=3)


def _money(cents: int) -> str:
    return ("-" if cents < 0 else "") + f"${abs(cents) / 100:,.2f}"


def _ledger_figures():
    """(table, gaming day) -> fees, counted drop (None: not counted), variance."""
    fees, refunds = defaultdict(int), defaultdict(int)
    for line in CollectionEntry.objects.all():
        (fees if line.kind == "fee" else refunds)[(line.table_id, line.gaming_day)] += line.amount
    in_force = {}
    for count in BoxCount.objects.select_related("sheet", "box").order_by("id"):
        in_force[(count.sheet_id, count.box_id)] = count
    counted = defaultdict(int)
    for count in in_force.values():
        if count.box.kind != "jackpot":
            counted[(count.table_id, count.sheet.gaming_day)] += count.counted
    out = {}
    for key in set(fees) | set(refunds) | set(counted):
        drop = counted.get(key)
        out[key] = {"fees": fees[key], "drop": drop,
                    "variance": None if drop is None else drop - (fees[key] - refunds[key])}
    return out


def _bars(page: str, table_id: int, kind: str) -> list[tuple[str, str]]:
    row = re.search(rf'<tr data-table="{table_id}">(.*?)</tr>', page, re.S).group(1)
    svg = re.search(rf'<svg class="chart trend-{kind}".*?</svg>', row, re.S).group(0)
    return [tuple(html.unescape(t).rsplit(": ", 1)) for t in re.findall(r"<rect[^>]*><title>([^<]*)</title></rect>", svg)]


def _expected_bars(figures, table_id, last_day, kind):
    bars = []
    for back in range(13, -1, -1):
        day = last_day - timedelta(days=back)
        figure = figures.get((table_id, day), {"fees": 0, "drop": None, "variance": None})
        if kind == "fees":
            bars.append((day.isoformat(), _money(figure["fees"])))
        elif figure["drop"] is None:
            bars.append((f"{day.isoformat()} (not counted)", _money(0)))
        else:
            bars.append((day.isoformat(), _money(figure[kind])))
    return bars


@pytest.fixture
def two_days(day, clock):
    """The count fixture's day, its three shifts counted with one box $5 over, then
    three gaming days later two of its tables deal again (with no count yet)."""
    first_box = day.boxes[(day.tables[0].pk, "day")][0]
    count_shift(day, "day", adjust={first_box.pk: 500})
    count_shift(day, "swing")
    count_shift(day, "grave")
    clock.set(LATER, time(10, 0))
    deal(day.tables[0], ante=1000)
    deal(day.tables[1], ante=3000)
    deal(day.tables[1], ante=1500)
    clock.set(LATER, time(23, 0))
    return day


def test_the_closer_charts_14_days_per_table(two_days):
    figures = _ledger_figures()
    page = client_of(person("floor-fay", "supervisor")).get(f"/compliance/closer/{LATER}/").content.decode()
    shown = [t.pk for t in two_days.tables[:2]]
    assert sorted(int(n) for n in re.findall(r'<tr data-table="(\d+)">', page)) == sorted(shown)
    for table_id in shown:
        for kind in ("fees", "drop", "variance"):
            assert _bars(page, table_id, kind) == _expected_bars(figures, table_id, LATER, kind), (table_id, kind)
    # Both days appear in the window, with their own figures, and the $5 over shows.
    first = two_days.tables[0].pk
    assert figures[(first, DAY)]["variance"] == 500
    assert (DAY.isoformat(), "$5.00") in _bars(page, first, "variance")
    assert figures[(first, LATER)]["fees"] > 0 and figures[(first, DAY)]["fees"] > 0
    # The totals sit next to the charts.
    row = re.search(rf'<tr data-table="{first}">(.*?)</tr>', page, re.S).group(1)
    fees_total = sum(f["fees"] for (t, d), f in figures.items() if t == first and LATER - d < timedelta(days=14))
    assert f'<td class="num">{_money(fees_total)}</td>' in row


def test_the_count_sheet_charts_14_days_per_table_of_its_boxes(two_days):
    figures = _ledger_figures()
    page = client_of(two_days.counters[0]).get(f"/compliance/count/{DAY}/day/").content.decode()
    assert sorted(int(n) for n in re.findall(r'<tr data-table="(\d+)">', page)) == sorted(t.pk for t in two_days.tables)
    for table in two_days.tables:
        for kind in ("fees", "drop", "variance"):
            bars = _bars(page, table.pk, kind)
            assert len(bars) == 14
            assert bars == _expected_bars(figures, table.pk, DAY, kind), (table.pk, kind)
    # The later day is after this window: not charted here.
    assert all(not label.startswith(LATER.isoformat()) for label, _ in _bars(page, two_days.tables[0].pk, "fees"))


def test_a_chart_reads_its_numbers_in_dollars(two_days):
    page = client_of(person("floor-fay", "supervisor")).get(f"/compliance/closer/{LATER}/").content.decode()
    first = two_days.tables[0].pk
    row = re.search(rf'<tr data-table="{first}">(.*?)</tr>', page, re.S).group(1)
    label = html.unescape(re.search(r'<svg class="chart trend-fees"[^>]*aria-label="([^"]*)"', row).group(1))
    assert label.startswith("Count 1 fees, last 14 gaming days. ")
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d: -?\$[\d,]+\.\d\d", part) for part in label.split(". ", 1)[1].split("; "))


def test_a_day_counted_in_part_is_not_mixed_with_its_uncounted_shifts(day):
    """Finding 8 of issue 35: a day whose day shift is counted and whose swing and grave
    shifts are not showed the day shift's box against the whole day's fees (UTH-2 at
    -$19.50). The variance compares the counted shifts with what they collected, and the
    shifts not counted yet are named, in the daily totals, the collection log and the chart."""
    first_box = day.boxes[(day.tables[0].pk, "day")][0]
    count_shift(day, "day", adjust={first_box.pk: 500})
    by_shift = defaultdict(int)
    for line in CollectionEntry.objects.all():
        by_shift[(line.table_id, line.shift)] += line.amount if line.kind == "fee" else -line.amount
    in_force = {}
    for count in BoxCount.objects.select_related("box").order_by("id"):
        in_force[(count.sheet_id, count.box_id)] = count
    counted = defaultdict(int)
    for count in in_force.values():
        counted[count.table_id] += count.counted
    totals = {t["table_id"]: t for t in daily_totals(Filters(day_from=DAY, day_to=DAY))}
    for table in day.tables:
        row = totals[table.pk]
        assert by_shift[(table.pk, "swing")] > 0 and by_shift[(table.pk, "grave")] > 0
        assert row["uncounted_shifts"] == ["swing", "grave"]
        assert row["counted"] == counted[table.pk]
        assert row["variance"] == counted[table.pk] - by_shift[(table.pk, "day")]
        assert row["expected"] == sum(v for (t, _), v in by_shift.items() if t == table.pk)
    assert totals[day.tables[0].pk]["variance"] == 500 and totals[day.tables[1].pk]["variance"] == 0
    supervisor = client_of(person("floor-fay", "supervisor"))
    page = supervisor.get(f"/compliance/collections/?day_from={DAY}&day_to={DAY}").content.decode()
    assert page.count("swing, grave not counted yet") == len(day.tables)
    closer = supervisor.get(f"/compliance/closer/{DAY}/").content.decode()
    first = day.tables[0].pk
    assert _bars(closer, first, "variance")[-1] == (f"{DAY.isoformat()} (swing, grave shifts not counted yet)", "$5.00")
    assert _bars(closer, day.tables[1].pk, "variance")[-1][1] == "$0.00"
    # Counting the rest leaves no shift named and the whole day reconciled.
    count_shift(day, "swing")
    count_shift(day, "grave")
    totals = {t["table_id"]: t for t in daily_totals(Filters(day_from=DAY, day_to=DAY))}
    assert all(t["uncounted_shifts"] == [] for t in totals.values())
    assert totals[first]["variance"] == 500 and totals[first]["counted"] == totals[first]["expected"] + 500

"""The closer summary of a shift and of the gaming day, read from what was recorded."""

import time

import pytest

from collections_fees import counts, selectors
from rounds.models import Round

from .play import DAY, count_shift, pieces, sign_and_close

pytestmark = pytest.mark.django_db


def test_the_closer_summary_of_a_closed_day_ties_to_the_rounds_and_the_count(day, capsys):
    for shift in ("day", "swing", "grave"):
        sign_and_close(day, count_shift(day, shift))
    started = time.perf_counter()
    closer = selectors.closer_summary(gaming_day=DAY)
    seconds = time.perf_counter() - started
    with capsys.disabled():
        print(f"\ncloser summary of a gaming day, {len(closer)} tables: {seconds * 1000:.1f} ms")
    assert [row["table_name"] for row in closer] == [t.name for t in day.tables]
    for row in closer:
        rounds = Round.objects.filter(table_id=row["table_id"], gaming_day=DAY)
        assert row["rounds_dealt"] == rounds.count()
        assert row["rounds_voided"] == rounds.filter(status="voided").count()
        banked = {p: int(n) for p, n in (item.split(":") for item in row["banked_by"].split())}
        assert sum(banked.values()) == row["rounds_settled"] == rounds.filter(status="settled").count()
        assert row["expected"] == row["fees"] - row["refunds"] == row["counted"] and row["variance"] == 0
    per_shift = [selectors.closer_summary(gaming_day=DAY, shift=s) for s in ("day", "swing", "grave")]
    for name in ("rounds_dealt", "fees", "refunds", "expected", "counted"):
        assert sum(r[name] for rows in per_shift for r in rows) == sum(r[name] for r in closer), name
    first = next(r for r in per_shift[0] if r["table_id"] == day.tables[0].pk)
    assert first["rounds_voided"] == 1 and first["boxes"] == f"EMERG-1 T{day.tables[0].pk}-day"


def test_a_variance_shows_on_the_closer(day):
    sheet = count_shift(day, "swing")
    box_id = next(box for box, table in counts.placed_boxes(sheet).items() if table == day.tables[1].pk)
    expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift="swing")
    counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(expected - 100), actor=day.counters[1])
    row = next(r for r in selectors.closer_summary(gaming_day=DAY, shift="swing") if r["table_id"] == day.tables[1].pk)
    assert row["variance"] == -100 and row["counted"] == row["expected"] - 100

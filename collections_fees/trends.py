"""Fees, drop and variance per table over the last gaming days, as small charts for the
closer summary and the count sheet (cardroom/charts.py draws them).

The figures are the daily totals' (selectors.daily_totals): fees as written in the
collection log, the counted drop (the counts in force of the fee boxes, or a legacy drop
count), and the variance (counted - expected). One query for every table and day of the
window, whatever the number of tables.
"""

from __future__ import annotations

from datetime import date, timedelta

from cardroom.charts import bar_chart

from cardroom.sql import Filters
from .selectors import daily_totals

TREND_DAYS = 14


def window(gaming_day: date, days: int = TREND_DAYS) -> list[date]:
    """The `days` gaming days ending with `gaming_day`, oldest first."""
    return [gaming_day - timedelta(days=back) for back in range(days - 1, -1, -1)]


def table_trends(*, gaming_day: date, tables, days: int = TREND_DAYS) -> list[dict]:
    """Per table of `tables` (`(id, name)` pairs, in that order, repeats dropped): the
    window's days and, per day, fees, counted drop and variance in cents (0 where nothing
    was collected or counted: a day not counted says so in its label), their totals and
    a chart of each. A day counted in part shows the counted shifts' drop and variance,
    and its label names the shifts not counted yet."""
    names = dict(tables)
    if not names:
        return []
    dates = window(gaming_day, days)
    by_table: dict[int, dict[date, dict]] = {}
    for row in daily_totals(Filters(day_from=dates[0], day_to=dates[-1])):
        if row["table_id"] in names:
            by_table.setdefault(row["table_id"], {})[row["gaming_day"]] = row
    trends = []
    for table_id, name in names.items():
        days_of = by_table.get(table_id, {})
        series = {"fees": [], "drop": [], "variance": []}
        labels, count_labels = [], []
        for day in dates:
            row = days_of.get(day)
            counted = row is not None and row["counted"] is not None
            series["fees"].append(row["fees"] if row else 0)
            series["drop"].append(row["counted"] if counted else 0)
            series["variance"].append(row["variance"] if counted else 0)
            labels.append(day.isoformat())
            count_labels.append(_count_label(day, row, counted))
        trends.append({
            "table_id": table_id,
            "table_name": name,
            "days": dates,
            **series,
            "totals": {key: sum(values) for key, values in series.items()},
            "charts": {
                "fees": bar_chart(series["fees"], labels, title=f"{name} fees, last {days} gaming days",
                                  css_class="trend-fees"),
                "drop": bar_chart(series["drop"], count_labels, title=f"{name} counted drop, last {days} gaming days",
                                  css_class="trend-drop"),
                "variance": bar_chart(series["variance"], count_labels,
                                      title=f"{name} variance, last {days} gaming days", css_class="trend-variance"),
            },
        })
    return trends


def _count_label(day: date, row: dict | None, counted: bool) -> str:
    """A day's label on the drop and variance charts: the shifts not counted said in words."""
    if not counted:
        return f"{day.isoformat()} (not counted)"
    missing = row["uncounted_shifts"]
    if missing:
        return f"{day.isoformat()} ({', '.join(missing)} {'shift' if len(missing) == 1 else 'shifts'} not counted yet)"
    return day.isoformat()

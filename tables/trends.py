"""The floor tiles' trend charts: rounds settled and net fees per hour of the current
shift, for every table on the floor, in one grouped query.

Kept apart from tables.floor.floor_rows on purpose: the floor rows are recomputed
for every table that changed, after its commands (tables/events.py), and the trend needs
none of that freshness. The floor page reads it once when it loads and the page asks
again every FLOOR_TREND_REFRESH_SECONDS (tables/views.floor_trends), so the command path
pays nothing for it.

Hours count from the shift's start (hour 1 is the shift's first 60 minutes), labelled by
their start in the cardroom's zone. Fees are net of refunds, as the tile's "Fees today".
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from cardroom.charts import bar_chart
from cardroom.gaming_day import calendar
from collections_fees.models import CollectionEntry
from rounds.models import Round

from .models import Table

# How often an open floor page asks for the trend again (seconds).
FLOOR_TREND_REFRESH_SECONDS = 300

TREND_WIDTH = 120
TREND_HEIGHT = 24


def _hours(start: datetime, now: datetime) -> list[datetime]:
    """The starts of the shift's hours up to now (at least one)."""
    count = max(int((now - start).total_seconds() // 3600) + 1, 1)
    return [start + timedelta(hours=n) for n in range(count)]


def floor_trends(*, now: datetime | None = None) -> dict[int, dict]:
    """Per table on the floor (not retired): the shift's hours and, per hour, rounds
    settled and net fees in cents, with a chart of each. One query, whatever the number
    of tables and hours."""
    now = now or timezone.now()
    cal = calendar()
    day, shift = cal.gaming_day(now), cal.shift(now)
    start, end = cal.shift_bounds(day, shift)
    end = min(end, now)
    sql = f"""
        WITH activity AS (
            SELECT r.table_id, floor(extract(epoch FROM r.closed_at - %(start)s) / 3600)::int AS hour,
                   1 AS rounds, 0::bigint AS fees
            FROM {Round._meta.db_table} r
            WHERE r.status = 'settled' AND r.closed_at >= %(start)s AND r.closed_at < %(end)s
            UNION ALL
            SELECT ce.table_id, floor(extract(epoch FROM ce.created_at - %(start)s) / 3600)::int,
                   0, CASE WHEN ce.kind = 'fee' THEN ce.amount ELSE -ce.amount END
            FROM {CollectionEntry._meta.db_table} ce
            WHERE ce.gaming_day = %(day)s AND ce.created_at >= %(start)s AND ce.created_at < %(end)s
        )
        SELECT t.id, t.name, a.hour, sum(a.rounds)::int AS rounds, sum(a.fees)::bigint AS fees
        FROM {Table._meta.db_table} t LEFT JOIN activity a ON a.table_id = t.id
        WHERE NOT t.retired
        GROUP BY t.id, t.name, a.hour
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, {"start": start, "end": end, "day": day})
        found = cursor.fetchall()
    hours = _hours(start, now)
    labels = [cal.local(hour).strftime("%H:%M") for hour in hours]
    tables: dict[int, dict] = {}
    for table_id, name, hour, rounds, fees in found:
        entry = tables.setdefault(table_id, {"name": name, "rounds": [0] * len(hours), "fees": [0] * len(hours)})
        if hour is not None:  # None: a table with nothing in the shift (the query bounds the hours)
            entry["rounds"][hour] += rounds
            entry["fees"][hour] += fees
    out = {}
    for table_id, entry in tables.items():
        size = {"width": TREND_WIDTH, "height": TREND_HEIGHT}
        out[table_id] = {
            "gaming_day": day.isoformat(),
            "shift": shift,
            "hours": labels,
            "rounds": entry["rounds"],
            "fees": entry["fees"],
            "rounds_svg": str(bar_chart(entry["rounds"], labels, title=f"{entry['name']} rounds settled per hour, {shift} shift",
                                        money=False, css_class="trend-rounds", **size)),
            "fees_svg": str(bar_chart(entry["fees"], labels, title=f"{entry['name']} fees per hour, {shift} shift",
                                      css_class="trend-fees", **size)),
        }
    return out

"""Compliance reads as SQL: one query built once and used twice (a page of typed rows
through Django's connection, and a CSV export's `COPY` of text columns), with the filters
a person narrows a log to. Kernel tools: the back office's logs, the patrons' cash log and
the round history all build on them (collections_fees/selectors.py, patrons/selectors.py,
collections_fees/round_selectors.py).

SQL text holds no literal percent sign: parameters are merged by psycopg, for which `%`
is a placeholder.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date

from django.db import connection


@dataclass(frozen=True)
class Filters:
    """What a compliance user narrows a log to. Empty fields filter nothing.

    `day_from`/`day_to` are gaming days (inclusive); `dealer` is the staff user who sent
    the command (TableEvent.actor); `payer` a payer role; `player` a person id;
    `status` a round status (round history only); `meter` a progressive meter's name
    (the jackpot fund only).
    """

    day_from: date | None = None
    day_to: date | None = None
    table: int | None = None
    dealer: str = ""
    payer: str = ""
    player: str = ""
    status: str = ""
    meter: str = ""

    def as_dict(self) -> dict:
        """The filters that were set, JSON-ready (for manifests and query strings)."""
        out = {}
        for name, value in asdict(self).items():
            if value in (None, ""):
                continue
            out[name] = value.isoformat() if isinstance(value, date) else value
        return out


@dataclass(frozen=True)
class SqlQuery:
    """A SELECT with typed columns and its parameters, an ordering over its output
    columns, and the text columns of its CSV export (header, SQL over alias `b`)."""

    sql: str
    params: tuple | dict  # positional (%s) or named (%(name)s) placeholders
    order_by: str
    export_columns: tuple[tuple[str, str], ...] = field(default=())

    def ordered(self) -> str:
        return f"SELECT * FROM ({self.sql}) b ORDER BY {self.order_by}"

    def export_sql(self) -> str:
        """The export columns as text, in the query's order: what the export's COPY runs."""
        select = ", ".join(f"{expr} AS {header}" for header, expr in self.export_columns)
        return f"SELECT {select} FROM ({self.sql}) b ORDER BY {self.order_by}"

    def copy_sql(self) -> str:
        """`COPY ... TO STDOUT` of the export columns, in the query's order. The server
        formats every value as text (the export connection's TimeZone is the cardroom's
        zone), so the bytes depend only on the rows."""
        return f"COPY ({self.export_sql()}) TO STDOUT WITH (FORMAT csv, HEADER true)"

    def count_sql(self) -> str:
        return f"SELECT count(*) FROM ({self.sql}) b"

    @property
    def headers(self) -> list[str]:
        return [header for header, _ in self.export_columns]


class SqlRows:
    """A query's rows as a lazy sequence for django.core.paginator.Paginator: it asks
    for `count()` and one slice, so a page costs two queries whatever the log's size
    (one when the caller already knows the count and passes it)."""

    def __init__(self, query: SqlQuery, count: int | None = None):
        self.query = query
        self._count = count

    def count(self) -> int:
        if self._count is None:
            with connection.cursor() as cursor:
                cursor.execute(self.query.count_sql(), self.query.params)
                self._count = cursor.fetchone()[0]
        return self._count

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window):
        if not isinstance(window, slice):
            raise TypeError("SqlRows is sliced by Paginator only")
        offset = window.start or 0
        limit = (window.stop - offset) if window.stop is not None else None
        sql = self.query.ordered() + (" LIMIT %s" if limit is not None else "") + " OFFSET %s"
        params = (*self.query.params, *((limit,) if limit is not None else ()), offset)
        return fetch_dicts(sql, params)


def fetch_dicts(sql: str, params=()) -> list[dict]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        names = [c.name for c in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


_OPERATOR = {"day_from": ">=", "day_to": "<="}  # every other filter is an equality


def filter_conditions(filters: Filters, columns: dict[str, str]) -> tuple[list[str], list]:
    """SQL conditions and their parameters for the filters that are set, each filter name
    mapped to the column it applies to (a day range is inclusive at both ends)."""
    conditions, params = [], []
    for name, column in columns.items():
        value = getattr(filters, name)
        if value:
            conditions.append(f"{column} {_OPERATOR.get(name, '=')} %s")
            params.append(value)
    return conditions, params


def where_clause(conditions: list[str]) -> str:
    """` WHERE c1 AND c2 ...` for the conditions given, or nothing when there are none."""
    return (" WHERE " + " AND ".join(conditions)) if conditions else ""


# Shared by the CSV exports: times as UTC and as cardroom-local ISO 8601 with the offset
# (the zone itself is named in the manifest), days as ISO dates, booleans as words.
def utc_text(column: str) -> str:
    return f"""to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"""


def local_text(column: str) -> str:
    return f"""to_char({column}, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM')"""


def day_text(column: str) -> str:
    return f"to_char({column}, 'YYYY-MM-DD')"


def bool_text(column: str) -> str:
    return f"CASE WHEN {column} THEN 'true' WHEN NOT {column} THEN 'false' END"

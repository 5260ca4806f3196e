"""Keyset paging of the compliance logs: a page is the rows after (or before) the last row
seen, in the log's own order, never an OFFSET and never a count of the whole selection.

Django's Paginator counts every selected row and skips to a page with OFFSET, both
linear in the rows before the page; on years of records that is seconds a screen. Here
the first screen reads its 100 rows (and one more, which says whether there is a next
page) through the index that gives the log's order, whatever the log's size
(docs/scaling.md). A page links to the next page with `after=<cursor of its last row>`
and to the previous one with `before=<cursor of its first row>`; the cursor is the
row's order key as text, values joined by `~`.

A cursor that does not parse is refused (`BadCursor`, code `bad_cursor`) before any
query runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.db import connection

SEPARATOR = "~"


class BadCursor(ValueError):
    code = "bad_cursor"


def _int(text: str) -> int:
    return int(text)


def _date(text: str) -> date:
    return date.fromisoformat(text)


def _moment(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:  # stored times are UTC; a cursor always carries its offset
        raise ValueError("a time without an offset")
    return moment


PARSERS = {"int": _int, "date": _date, "timestamptz": _moment}


@dataclass(frozen=True)
class Key:
    """One column of a log's order: its name among the query's output columns (alias `b`)
    and its kind (int, date or timestamptz)."""

    column: str
    kind: str


@dataclass
class KeysetPage:
    rows: list[dict]
    has_next: bool
    has_previous: bool
    next_cursor: str = ""
    previous_cursor: str = ""

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


@dataclass(frozen=True)
class KeysetRows:
    """A log's rows to page through by key (log_page in web/compliance/views.py):
    `sql` and `params` select them, `keys` is their order."""

    sql: str
    params: tuple | dict
    keys: tuple[Key, ...]

    def page(self, *, after: str = "", before: str = "", size: int = 100) -> KeysetPage:
        return keyset_page(self.sql, self.params, self.keys, after=after, before=before, size=size)


def encode(row: dict, keys: tuple[Key, ...]) -> str:
    return SEPARATOR.join(row[key.column].isoformat() if hasattr(row[key.column], "isoformat") else str(row[key.column])
                          for key in keys)


def decode(cursor: str, keys: tuple[Key, ...]) -> tuple:
    parts = cursor.split(SEPARATOR)
    if len(parts) != len(keys):
        raise BadCursor(f"a cursor here has {len(keys)} parts")
    try:
        return tuple(PARSERS[key.kind](part) for key, part in zip(keys, parts))
    except ValueError as exc:
        raise BadCursor(f"not a cursor of this page: {exc}") from exc


def keyset_page(sql: str, params, keys: tuple[Key, ...], *, after: str = "", before: str = "", size: int = 100) -> KeysetPage:
    """The page of `sql` (a SELECT whose output has the key columns) after the cursor
    `after`, or before the cursor `before`, or the first page. Every key is ascending."""
    if after and before:
        raise BadCursor("a page is either after a row or before one")
    columns = ", ".join(f"b.{key.column}" for key in keys)
    cursor = after or before
    named = isinstance(params, dict)
    values = decode(cursor, keys) if cursor else ()
    condition, extra = "", ()
    if cursor:
        if named:
            names = [f"_keyset_{n}" for n in range(len(keys))]
            marks = ", ".join(f"%({name})s" for name in names)
            extra = dict(zip(names, values))
        else:
            marks = ", ".join(["%s"] * len(keys))
            extra = values
        condition = f" WHERE ({columns}) {'>' if after else '<'} ({marks})"
    direction = "DESC" if before else "ASC"
    order = ", ".join(f"b.{key.column} {direction}" for key in keys)
    statement = f"SELECT * FROM ({sql}) b{condition} ORDER BY {order} LIMIT %s" if not named else (
        f"SELECT * FROM ({sql}) b{condition} ORDER BY {order} LIMIT %(_keyset_limit)s"
    )
    if named:
        bound = {**params, **extra, "_keyset_limit": size + 1}
    else:
        bound = (*params, *extra, size + 1)
    with connection.cursor() as db:
        db.execute(statement, bound)
        names = [c.name for c in db.description]
        rows = [dict(zip(names, row)) for row in db.fetchall()]
    more = len(rows) > size
    rows = rows[:size]
    if before:
        rows.reverse()
        page = KeysetPage(rows, has_next=True, has_previous=more)
    else:
        page = KeysetPage(rows, has_next=more, has_previous=bool(after))
    if rows:
        page.next_cursor = encode(rows[-1], keys)
        page.previous_cursor = encode(rows[0], keys)
    return page

"""Text people typed, written into an export so that a spreadsheet reads it as text.

A seat id, a cash note or a counter's explanation is typed by staff or players; opened
in a spreadsheet, a CSV cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage
return is read as a formula (`=HYPERLINK("http://evil.example/","click")` becomes a live
link, worse ones run commands). OWASP's guidance on CSV injection: put a single quote
`'` before such a cell. Spreadsheets show the cell as the text it holds, without the
quote.

The escape is exact, so the offline check (`verify_logs --checkpoints`) can take it off
and re-hash the value that was stored:
* escaped: a value that is any number of quotes followed by a trigger character
  (`=x`, `'=x`, `''=x` ...) gets one more quote in front;
* un-escaped: a value that is one or more quotes followed by a trigger loses its first.
No other value changes either way, so `unescape(escape(v)) == v` for every text, and a
value that begins with a quote but no trigger (`'tis`) is left alone.

Only the columns people type are escaped (ids, names, notes, descriptions,
explanations, reasons); never a number, a sequence, a hash or a time: a negative amount
in a `_cents` column stays `-500`, a number. The CSVs are written by PostgreSQL
(`COPY ... TO STDOUT`, collections_fees/exports.py), so the escape is also given as SQL
(`escaped_sql`), and the two are tested to agree.

A workbook has typed cells: there a cell from data is written as a string cell (never
a formula: openpyxl makes any string that starts with `=` a formula) with Excel's
quote-prefix style, so that editing it keeps it text; its value is exact, without a
quote (`text_cell`).

Why not defusedcsv (PyPI): it wraps Python's csv writer, and these CSVs never pass
through it (PostgreSQL formats them, streamed at >100,000 rows/s); it leaves a tab and a
carriage return at the start unescaped, and it rewrites `|` as `\\|` inside the cell,
which cannot be undone exactly (an original `\\|` reads the same): an export escaped with
it could not be re-hashed offline. The rule here is a few lines in each language.
"""

from __future__ import annotations

import re

QUOTE = "'"
# The characters that make a spreadsheet read a cell as a formula (OWASP).
TRIGGERS = "=+-@\t\r"
# (`-` last in the class: a character of its own, not a range.)
_CLASS = "[=+@\t\r-]"
_NEEDS_ESCAPE = re.compile(f"'*{_CLASS}")
_ESCAPED = re.compile(f"'+{_CLASS}")
# In SQL, by character codes: the first character's, then the first after any quotes'
# (`ascii`, one call each), a fraction of the cost of matching a regular expression on
# every typed cell of an export of 100,000s of rows.
_SQL_FIRST = ", ".join(str(ord(char)) for char in QUOTE + TRIGGERS)
_SQL_TRIGGERS = ", ".join(str(ord(char)) for char in TRIGGERS)


def escape(value):
    """`value` as a cell a spreadsheet reads as text; anything not a str is returned as is."""
    if isinstance(value, str) and _NEEDS_ESCAPE.match(value):
        return QUOTE + value
    return value


def unescape(value: str) -> str:
    """The value an escaped cell holds (exact: `unescape(escape(v)) == v`)."""
    if _ESCAPED.match(value):
        return value[1:]
    return value


class EscapedSql(str):
    """The SQL of an export column that is escaped: marks the column (`escaped_headers`)."""


def escaped_sql(expression: str) -> EscapedSql:
    """SQL giving `escape(expression)` (NULL stays NULL), for an export's COPY."""
    return EscapedSql(
        f"CASE WHEN ascii({expression}) IN ({_SQL_FIRST})"
        f" AND ascii(ltrim({expression}, '''')) IN ({_SQL_TRIGGERS})"
        f" THEN '''' || ({expression}) ELSE ({expression}) END"
    )


def escaped_headers(export_columns) -> frozenset[str]:
    """The headers of an export's (header, SQL) columns whose values are escaped."""
    return frozenset(header for header, expression in export_columns if isinstance(expression, EscapedSql))


def text_cell(sheet, value):
    """A workbook cell (openpyxl, write-only sheet) holding `value`: a str is a string
    cell, never a formula, with the quote-prefix style; any other value as it is."""
    from openpyxl.cell import WriteOnlyCell

    cell = WriteOnlyCell(sheet, value=value)
    if isinstance(value, str):
        cell.data_type = "s"  # openpyxl had made a string starting with "=" a formula
        cell.quotePrefix = True
    return cell

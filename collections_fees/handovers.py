"""The hand-over log (issue 26): every time a dealer took over a table's tablet from
another at a relief push (tables.models.DealerHandover, append-only, written by
tables/relief.py), as a compliance page and a streamed CSV export with its manifest.

Like the other logs (collections_fees/selectors.py), one SQL query serves the page (a
page of typed rows) and the export (COPY of text columns), so both show the same rows for
the same filters (its page and export: web/compliance/handovers.py). The back office
reads the tables app's schema (its models), never its code: the layers of
docs/architecture.md.
"""

from __future__ import annotations

from cardroom.spreadsheet import escaped_sql
from tables.models import DealerHandover, ReliefPlan, ReliefPush, Table

from cardroom.sql import Filters, SqlQuery, day_text, filter_conditions, local_text, utc_text, where_clause

HANDOVER = DealerHandover._meta.db_table
PUSH = ReliefPush._meta.db_table
PLAN = ReliefPlan._meta.db_table
TABLE = Table._meta.db_table
USER = DealerHandover._meta.get_field("incoming").related_model._meta.db_table

# The session is left out: the row keeps only its tag (events.session_tag), which says
# nothing to a reader of the file. The address and the table's event seq place the
# hand-over in the table's own record.
HANDOVER_EXPORT_COLUMNS = (
    ("table_id", "b.table_id"),
    ("table_name", escaped_sql("b.table_name")),
    ("gaming_day", day_text("b.gaming_day")),
    ("shift", "b.shift"),
    ("time_utc", utc_text("b.at")),
    ("time_local", local_text("b.at")),
    ("incoming_dealer", escaped_sql("b.incoming")),
    ("outgoing_dealer", escaped_sql("b.outgoing")),
    ("after_round", "b.after_round"),
    ("event_seq", "b.table_version"),
    ("push_utc", utc_text("b.push_at")),
    ("push_local", local_text("b.push_at")),
    ("plan_id", "b.plan_id"),
    ("plan_made_by", escaped_sql("b.plan_made_by")),
    ("address", "b.address"),
    ("handover_id", "b.id"),
)


def handover_log_query(filters: Filters) -> SqlQuery:
    """Every hand-over in the range, with both dealers, the round boundary (the rounds
    opened before it, the table's event seq), and the planned push it answered (its time,
    its plan and who made that plan). Ordered by time, then id."""
    conditions, params = filter_conditions(
        filters, {"day_from": "h.gaming_day", "day_to": "h.gaming_day", "table": "h.table_id"})
    if filters.dealer:
        conditions.append("(i.username = %s OR o.username = %s)")
        params += [filters.dealer, filters.dealer]
    sql = f"""
        SELECT h.id, h.table_id, t.name AS table_name, h.gaming_day, h.shift, h.at,
               i.username AS incoming, o.username AS outgoing, h.after_round, h.table_version,
               p.at AS push_at, p.plan_id, m.username AS plan_made_by, h.address
        FROM {HANDOVER} h
        JOIN {TABLE} t ON t.id = h.table_id
        JOIN {USER} i ON i.id = h.incoming_id
        LEFT JOIN {USER} o ON o.id = h.outgoing_id
        LEFT JOIN {PUSH} p ON p.id = h.push_id
        LEFT JOIN {PLAN} pl ON pl.id = p.plan_id
        LEFT JOIN {USER} m ON m.id = pl.made_by_id
        {where_clause(conditions)}
    """
    return SqlQuery(sql, tuple(params), "b.at, b.id", HANDOVER_EXPORT_COLUMNS)

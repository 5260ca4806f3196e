"""Reads for compliance: the collection log, its daily totals, drop counts, export records.

Each log is one SQL query (`SqlQuery`) built here once and used twice: the HTML pages
fetch a page of it through Django's connection (typed values, formatted by templates),
and the CSV exports wrap it in `COPY (SELECT <text columns> FROM (...)) TO STDOUT`
(collections_fees/exports.py). The page and the file therefore show the same rows for
the same filters.

Nothing here decides anything about the game: statuses and refund reasons are the ones
the command service stored (a fee row is "refunded" when a refund row points at it).
SQL text holds no literal percent sign: parameters are merged by psycopg, for which `%`
is a placeholder.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from django.utils import timezone

from cardroom.gaming_day import calendar
from cardroom.sql import (
    Filters,
    SqlQuery,
    bool_text,
    day_text,
    fetch_dicts,
    filter_conditions,
    local_text,
    utc_text,
    where_clause,
)
from cardroom.spreadsheet import escaped_sql
from rounds.models import Round
from tables.models import Approval, ApprovalDecision, Table, TableEvent

from . import counts
from cardroom.keyset import Key, KeysetRows
from .models import (
    BoxCount,
    BoxPlacement,
    CollectionEntry,
    CountSheet,
    CountSignature,
    DropBox,
    DropCount,
    ExportManifest,
    FeeSchedule,
    JackpotEntry,
    JackpotMeter,
    ShiftClose,
    ShiftReopenRequest,
    VarianceApproval,
)

CE = CollectionEntry._meta.db_table
EVENT = TableEvent._meta.db_table
TABLE = Table._meta.db_table
SCHEDULE = FeeSchedule._meta.db_table
DROP = DropCount._meta.db_table
ROUND = Round._meta.db_table
BOX = DropBox._meta.db_table
PLACEMENT = BoxPlacement._meta.db_table
BOX_COUNT = BoxCount._meta.db_table
SHEET = CountSheet._meta.db_table
VARIANCE_APPROVAL = VarianceApproval._meta.db_table
APPROVAL = Approval._meta.db_table
APPROVAL_DECISION = ApprovalDecision._meta.db_table
JACKPOT = JackpotEntry._meta.db_table
METER = JackpotMeter._meta.db_table


# --- Collection log ------------------------------------------------------------------

COLLECTION_EXPORT_COLUMNS = (
    ("gaming_day", day_text("b.gaming_day")),
    ("shift", "b.shift"),
    ("time_utc", utc_text("b.created_at")),
    ("time_local", local_text("b.created_at")),
    ("table_id", "b.table_id"),
    ("table_name", escaped_sql("b.table_name")),
    ("round_number", "b.round_number"),
    ("seat", "b.seat"),
    ("payer_role", "b.payer"),
    ("person_id", escaped_sql("b.player")),
    ("line", "b.kind"),
    ("basis_cents", "b.basis"),
    ("rate_row", "b.rate_index"),
    ("fee_cents", "CASE WHEN b.kind = 'fee' THEN b.amount END"),
    ("refund_cents", "CASE WHEN b.kind = 'refund' THEN b.amount END"),
    ("schedule_version", "b.schedule_version"),
    ("dealer", escaped_sql("b.dealer")),
    ("status", "b.status"),
    ("reason", escaped_sql("b.reason")),
    ("refund_of_seq", "b.refund_of_seq"),
    ("refunded_by_seq", "b.refunded_by_seq"),
    ("chain_seq", "b.seq"),
    ("row_hash", "b.row_hash"),
    ("drop_box", escaped_sql("b.drop_box")),  # last: the columns before it keep their places
)


# The collection log's filters as columns of its lines (`ce`) and their events (`ev`):
# the export, the page and the sums filter alike.
COLLECTION_FILTER_COLUMNS = {
    "day_from": "ce.gaming_day",
    "day_to": "ce.gaming_day",
    "table": "ce.table_id",
    "dealer": "ev.actor",
    "payer": "ce.payer",
    "player": "ce.player",
}


def collection_lines_query(filters: Filters) -> SqlQuery:
    """One row per collection entry (a fee line or its refund), with the round number,
    the schedule version, the dealer (actor of the command that wrote the line), and the
    status read from the stored rows: a fee is `collected` unless a refund row points at
    it (`refunded`, with that refund's reason); a refund row is `refund` with its reason.

    The refunded fee and the drop box are looked up a line at a time (most lines have
    neither), not joined: with three instances of the entries' table among eight joined
    tables, PostgreSQL spent 40-130 ms planning the page's query, which it then ran in
    2 ms. The refunds are read through their own index (`IS NOT NULL`: a few rows),
    not by scanning every entry.

    The round and the event are read a line at a time by their keys (LATERAL ... OFFSET
    0 keeps each a lookup of its own), not joined: a join planned as a hash join read
    every round and every event of the ledger to answer a month of lines (the export's
    cost grew with the years kept, not with the month asked for). In the export's order,
    (table, gaming day, seq) -- the same as (table, seq), since a table's lines never go
    back a gaming day -- the lines of a day range are one read of the index of that
    order, so the export streams from the index with no sort of the month."""
    conditions, params = filter_conditions(filters, COLLECTION_FILTER_COLUMNS)
    sql = f"""
        SELECT ce.id, ce.table_id, ce.seq, ce.gaming_day, ce.shift, ce.created_at,
               t.name AS table_name, r.number AS round_number, ce.round_id,
               ce.seat, ce.payer, ce.player, ce.kind, ce.basis, ce.rate_index, ce.amount,
               fs.version AS schedule_version, ev.actor AS dealer, ev.seq AS event_seq,
               CASE WHEN ce.kind = 'refund' THEN 'refund'
                    WHEN rf.id IS NULL THEN 'collected' ELSE 'refunded' END AS status,
               CASE WHEN ce.kind = 'refund' THEN ce.reason ELSE coalesce(rf.reason, '') END AS reason,
               (SELECT orig.seq FROM {CE} orig WHERE orig.id = ce.refund_of_id) AS refund_of_seq,
               rf.seq AS refunded_by_seq, ce.row_hash,
               (SELECT bx.identifier FROM {BOX} bx WHERE bx.id = ce.box_id) AS drop_box
        FROM {CE} ce
        JOIN {TABLE} t ON t.id = ce.table_id
        CROSS JOIN LATERAL (SELECT r.number FROM {ROUND} r WHERE r.id = ce.round_id OFFSET 0) r
        CROSS JOIN LATERAL (SELECT ev.actor, ev.seq FROM {EVENT} ev WHERE ev.id = ce.event_id OFFSET 0) ev
        JOIN {SCHEDULE} fs ON fs.id = ce.schedule_id
        LEFT JOIN {CE} rf ON rf.refund_of_id = ce.id AND rf.refund_of_id IS NOT NULL
        {where_clause(conditions)}
    """
    return SqlQuery(sql, tuple(params), "b.table_id, b.gaming_day, b.seq", COLLECTION_EXPORT_COLUMNS)


# --- Jackpot funds (game-rules 10.3), apart from the collection log --------------------------

JACKPOT_EXPORT_COLUMNS = (
    ("gaming_day", day_text("b.gaming_day")),
    ("shift", "b.shift"),
    ("time_utc", utc_text("b.created_at")),
    ("time_local", local_text("b.created_at")),
    ("meter", escaped_sql("b.meter_name")),
    ("meter_id", "b.meter_id"),
    ("line", "b.kind"),
    ("table_id", "b.table_id"),
    ("table_name", escaped_sql("b.table_name")),
    ("round_number", "b.round_number"),
    ("seat", "b.seat"),
    ("person_id", escaped_sql("b.player")),
    ("amount_cents", "b.amount"),
    ("meter_change_cents", "b.meter_delta"),
    ("reserve_change_cents", "b.reserve_delta"),
    ("owed_cents", "b.owed"),
    ("hand", "b.hand"),
    ("confirmed", bool_text("b.confirmed")),
    ("meter_after_cents", "b.meter_after"),
    ("reserve_after_cents", "b.reserve_after"),
    ("dealer", escaped_sql("b.dealer")),
    ("chain_seq", "b.seq"),
    ("row_hash", "b.row_hash"),
)


def jackpot_lines_query(filters: Filters) -> SqlQuery:
    """One row per movement of a jackpot fund (opening, contribution, award, reseed,
    reversal), chained per meter: a meter's rows in chain order."""
    conditions, params = filter_conditions(
        filters,
        {"day_from": "je.gaming_day", "day_to": "je.gaming_day", "table": "je.table_id", "player": "je.player",
         "meter": "m.name"},
    )
    sql = f"""
        SELECT je.id, je.meter_id, m.name AS meter_name, je.seq, je.kind, je.gaming_day, je.shift, je.created_at,
               je.table_id, t.name AS table_name, r.number AS round_number, je.seat, je.player, je.amount,
               je.meter_delta, je.reserve_delta, je.owed, je.hand, je.confirmed, je.meter_after,
               je.reserve_after, ev.actor AS dealer, je.row_hash
        FROM {JACKPOT} je
        JOIN {METER} m ON m.id = je.meter_id
        LEFT JOIN {TABLE} t ON t.id = je.table_id
        LEFT JOIN {ROUND} r ON r.id = je.round_id
        LEFT JOIN {EVENT} ev ON ev.id = je.event_id
        {where_clause(conditions)}
    """
    return SqlQuery(sql, tuple(params), "b.meter_name, b.seq", JACKPOT_EXPORT_COLUMNS)


def jackpot_meters(filters: Filters) -> list[dict]:
    """Each meter as it stands now (the meter, the reserve behind it, the awards it owes)
    with its movements in the selected rows: contributions, reversals and awards paid,
    counted and summed over the same query as the page's lines."""
    lines = jackpot_lines_query(filters)
    return fetch_dicts(
        f"""
        SELECT m.id, m.name, m.meter, m.reserve, m.owed, m.entry_seq,
               count(b.id) AS lines,
               count(b.id) FILTER (WHERE b.kind = 'contribution') AS contributions,
               coalesce(sum(b.amount) FILTER (WHERE b.kind = 'contribution'), 0)::bigint AS contributed,
               coalesce(sum(b.amount) FILTER (WHERE b.kind = 'reversal'), 0)::bigint AS reversed,
               count(b.id) FILTER (WHERE b.kind = 'award') AS awards,
               coalesce(sum(b.amount - b.owed) FILTER (WHERE b.kind = 'award'), 0)::bigint AS awards_paid
        FROM {METER} m LEFT JOIN ({lines.sql}) b ON b.meter_id = m.id
        {where_clause(["m.name = %s"] if filters.meter else [])}
        GROUP BY m.id ORDER BY m.name
        """,
        (*lines.params, *((filters.meter,) if filters.meter else ())),
    )


def meter_choices() -> list[str]:
    return list(JackpotMeter.objects.order_by("name").values_list("name", flat=True))


def _fee_and_refund_sums(alias: str) -> str:
    """fee_lines, fees, refund_lines, refunds of the collection lines `alias` (SQL)."""
    return f"""count(*) FILTER (WHERE {alias}.kind = 'fee') AS fee_lines,
        coalesce(sum({alias}.amount) FILTER (WHERE {alias}.kind = 'fee'), 0)::bigint AS fees,
        count(*) FILTER (WHERE {alias}.kind = 'refund') AS refund_lines,
        coalesce(sum({alias}.amount) FILTER (WHERE {alias}.kind = 'refund'), 0)::bigint AS refunds"""


# The log's order, (table, chain seq), as a keyset (cardroom/keyset.py). The
# gaming day between the two changes nothing: along a table's chain the lines are written
# in time order, so their gaming days never go back; it lets the index on (table,
# gaming day, seq) serve a day range in order.
COLLECTION_KEYS = (Key("table_id", "int"), Key("gaming_day", "date"), Key("seq", "int"))


def collection_line_rows(filters: Filters) -> KeysetRows:
    query = collection_lines_query(filters)
    return KeysetRows(query.sql, query.params, COLLECTION_KEYS)


SUMMED = ("fee_lines", "fees", "refund_lines", "refunds")


def collection_line_sums(filters: Filters, *, daily: list[dict] | None = None) -> dict:
    """Counts and sums of the lines the filters select (all filters apply). Read from
    the collection entries alone (the event's only for the dealer filter): each line of
    the log is one entry (its other joins follow foreign keys, or find at most one refund),
    so the sums are the log's, without joining six tables for every line of a month.

    `daily`, the daily totals of the same filters (daily_totals): when no filter beyond
    theirs (day range, table) is set, they cover exactly these lines, so the sums are
    theirs added up, and a month's lines are not read a second time."""
    if daily is not None and not any(getattr(filters, name) for name in ("dealer", "payer", "player")):
        sums = {name: sum(row[name] for row in daily) for name in SUMMED}
        sums["net"] = sums["fees"] - sums["refunds"]
        return sums
    conditions, params = filter_conditions(filters, COLLECTION_FILTER_COLUMNS)
    join = f"JOIN {EVENT} ev ON ev.id = ce.event_id" if filters.dealer else ""
    rows = fetch_dicts(f"SELECT {_fee_and_refund_sums('ce')} FROM {CE} ce {join} {where_clause(conditions)}", tuple(params))
    sums = rows[0]
    sums["net"] = sums["fees"] - sums["refunds"]
    return sums


# The filters the daily totals honour, each with its column (in both collection entries
# and drop counts); the others are ignored. The daily summary's manifest lists these only.
DAILY_TOTALS_SCOPE = {"day_from": "gaming_day", "day_to": "gaming_day", "table": "table_id"}


def daily_totals(filters: Filters) -> list[dict]:
    """Per table and gaming day: fees, refunds, expected drop (fees - refunds), what was
    counted and the variance (counted - expected).

    Counted is the count team's: the counts in force (collections_fees/counts.py) of the
    table's fee boxes over the day's shifts, by whom, the last count's time, and how many
    count rows (recounts included). A day counted before the count sheets existed keeps
    its legacy drop count (the latest DropCount entered).

    A day is often counted shift by shift: `uncounted_shifts` names the shifts that
    collected fees and have no count yet (in the order they collected), and the variance
    compares what was counted with what the counted shifts collected, never a counted
    shift's box with a whole day's fees. `expected` stays the whole day's.

    Only the day range and the table filter apply: the expected drop is what the whole
    table collected that day, whichever dealer or payer. Each entry counts on its own
    gaming day (a refund on the day it was given back). A table and day with a count but
    no collection is listed too (expected 0)."""
    scope = DAILY_TOTALS_SCOPE.items()
    ce_conditions, ce_params = filter_conditions(filters, {k: f"ce.{c}" for k, c in scope})
    box_conditions, box_params = filter_conditions(
        filters, {"day_from": "s.gaming_day", "day_to": "s.gaming_day", "table": "bc.table_id"}
    )
    drop_conditions, drop_params = filter_conditions(filters, {k: f"dc.{c}" for k, c in scope})
    sql = f"""
        WITH shift_totals AS (
            SELECT ce.table_id, ce.gaming_day, ce.shift, min(ce.created_at) AS first_at, {_fee_and_refund_sums('ce')}
            FROM {CE} ce {where_clause(ce_conditions)}
            GROUP BY ce.table_id, ce.gaming_day, ce.shift
        ), totals AS (
            SELECT table_id, gaming_day, sum(fee_lines)::bigint AS fee_lines, sum(fees)::bigint AS fees,
                   sum(refund_lines)::bigint AS refund_lines, sum(refunds)::bigint AS refunds
            FROM shift_totals GROUP BY table_id, gaming_day
        ), box_latest AS (
            SELECT DISTINCT ON (bc.sheet_id, bc.box_id) bc.table_id, s.gaming_day, s.shift, bc.counted, bc.counted_by,
                   bc.counted_at, count(*) OVER (PARTITION BY bc.sheet_id, bc.box_id) AS entries
            FROM {BOX_COUNT} bc JOIN {SHEET} s ON s.id = bc.sheet_id JOIN {BOX} bx ON bx.id = bc.box_id
            {where_clause([*box_conditions, "bx.kind <> 'jackpot'"])}
            ORDER BY bc.sheet_id, bc.box_id, bc.id DESC
        ), box_counts AS (
            SELECT table_id, gaming_day, sum(counted)::bigint AS counted,
                   string_agg(DISTINCT counted_by, ', ') AS counted_by, max(counted_at) AS counted_at,
                   sum(entries)::bigint AS count_entries
            FROM box_latest GROUP BY table_id, gaming_day
        ), legacy AS (
            SELECT DISTINCT ON (dc.table_id, dc.gaming_day)
                   dc.table_id, dc.gaming_day, dc.amount AS counted, dc.counted_by, dc.counted_at,
                   count(*) OVER (PARTITION BY dc.table_id, dc.gaming_day) AS count_entries
            FROM {DROP} dc {where_clause(drop_conditions)}
            ORDER BY dc.table_id, dc.gaming_day, dc.counted_at DESC, dc.id DESC
        ), counts AS (
            SELECT * FROM box_counts
            UNION ALL
            SELECT * FROM legacy l WHERE NOT EXISTS (
                SELECT 1 FROM box_counts b WHERE b.table_id = l.table_id AND b.gaming_day = l.gaming_day)
        ), uncounted AS (
            -- The shifts that collected and have no count (a legacy count covers its whole day).
            SELECT st.table_id, st.gaming_day, array_agg(st.shift ORDER BY st.first_at) AS shifts,
                   sum(st.fees - st.refunds)::bigint AS expected
            FROM shift_totals st
            WHERE NOT EXISTS (SELECT 1 FROM box_latest b WHERE b.table_id = st.table_id
                                AND b.gaming_day = st.gaming_day AND b.shift = st.shift)
              AND NOT EXISTS (SELECT 1 FROM legacy l WHERE l.table_id = st.table_id AND l.gaming_day = st.gaming_day)
            GROUP BY st.table_id, st.gaming_day
        )
        SELECT coalesce(tt.table_id, c.table_id) AS table_id, t.name AS table_name,
               coalesce(tt.gaming_day, c.gaming_day) AS gaming_day,
               coalesce(tt.fee_lines, 0) AS fee_lines, coalesce(tt.fees, 0) AS fees,
               coalesce(tt.refund_lines, 0) AS refund_lines, coalesce(tt.refunds, 0) AS refunds,
               coalesce(tt.fees, 0) - coalesce(tt.refunds, 0) AS expected,
               c.counted, c.counted_by, c.counted_at, coalesce(c.count_entries, 0) AS count_entries,
               c.counted - (coalesce(tt.fees, 0) - coalesce(tt.refunds, 0) - coalesce(u.expected, 0)) AS variance,
               coalesce(u.shifts, '{{}}') AS uncounted_shifts
        FROM totals tt
        FULL OUTER JOIN counts c ON c.table_id = tt.table_id AND c.gaming_day = tt.gaming_day
        LEFT JOIN uncounted u ON u.table_id = coalesce(tt.table_id, c.table_id)
                             AND u.gaming_day = coalesce(tt.gaming_day, c.gaming_day)
        JOIN {TABLE} t ON t.id = coalesce(tt.table_id, c.table_id)
        ORDER BY gaming_day, table_name, table_id
    """
    return fetch_dicts(sql, (*ce_params, *box_params, *drop_params))


def drop_count_history(*, table_id: int, gaming_day: date):
    """Every legacy drop count entered for a table and gaming day (before the count
    sheets), latest first."""
    return DropCount.objects.filter(table_id=table_id, gaming_day=gaming_day).order_by("-counted_at", "-id")


def table_choices() -> list[tuple[int, str]]:
    return list(Table.objects.order_by("name", "pk").values_list("pk", "name"))


def dealer_choices(filters: Filters) -> list[str]:
    """The staff who wrote collection lines in the day range (for the dealer filter).

    A line's gaming day is its event's (both are the command's), so the candidates are
    the actors of the range's events, found one at a time by skipping through the index on
    (actor, gaming day) (a few dealers, not a month of events), each kept if one of their
    events in the range wrote a line."""
    conditions, params = filter_conditions(filters, {"day_from": "e.gaming_day", "day_to": "e.gaming_day"})
    in_range = "".join(f" AND {c}" for c in conditions)
    sql = f"""
        WITH RECURSIVE actors(actor) AS (
            SELECT (SELECT min(e.actor) FROM {EVENT} e WHERE TRUE{in_range})
            UNION ALL
            SELECT (SELECT min(e.actor) FROM {EVENT} e WHERE e.actor > a.actor{in_range})
            FROM actors a WHERE a.actor IS NOT NULL
        )
        SELECT a.actor FROM actors a
        -- LIMIT 1 in a lateral step: each actor's events are read until one wrote a line
        -- (as an EXISTS the planner joined every event of the range to its lines first).
        CROSS JOIN LATERAL (
            SELECT 1 FROM {EVENT} e JOIN {CE} ce ON ce.event_id = e.id WHERE e.actor = a.actor{in_range} LIMIT 1
        ) wrote
        WHERE a.actor IS NOT NULL
        ORDER BY a.actor
    """
    return [row["actor"] for row in fetch_dicts(sql, (*params, *params, *params))]


def export_manifests(*, limit: int = 200):
    return ExportManifest.objects.order_by("-finished_at")[:limit]


def export_manifest_get(*, export_id) -> ExportManifest:
    return ExportManifest.objects.get(pk=export_id)



# --- The count and the closer summary (collections_fees/counts.py writes them) ------------



def _shift_scope(gaming_day: date, shift: str | None) -> tuple[list[str], datetime, datetime]:
    """The shifts a closer covers (one, or the whole gaming day) and their UTC bounds."""
    cal = calendar()
    if shift is None:
        start, end = cal.day_bounds(gaming_day)
        return cal.shift_names(), start, end
    start, end = cal.shift_bounds(gaming_day, shift)
    return [shift], start, end


COUNT_SHEET_EXPORT_COLUMNS = (
    ("gaming_day", day_text("b.gaming_day")),
    ("shift", "b.shift"),
    ("table_id", "b.table_id"),
    ("table_name", escaped_sql("b.table_name")),
    ("box", escaped_sql("b.box")),
    ("box_kind", "b.box_kind"),
    ("count_id", "b.count_id"),
    ("in_force", bool_text("b.in_force")),
    ("denominations", "b.denominations"),
    ("counted_cents", "b.counted"),
    ("expected_cents", "b.expected"),
    ("variance_cents", "b.variance"),
    ("explanation", escaped_sql("b.explanation")),
    ("approved_by", escaped_sql("b.approved_by")),
    ("counted_by", escaped_sql("b.counted_by")),
    ("counted_at_utc", utc_text("b.counted_at")),
    ("counted_at_local", local_text("b.counted_at")),
)


def count_sheet_query(*, gaming_day: date, shift: str | None = None) -> SqlQuery:
    """Every count row of the gaming day's sheets (or one shift's), recounts included:
    `in_force` marks the latest count of each box. The expected amount and variance are
    the ones recorded with the count."""
    shifts, _, _ = _shift_scope(gaming_day, shift)
    sql = f"""
        SELECT s.gaming_day, s.shift, bc.table_id, t.name AS table_name, bx.identifier AS box,
               bx.kind AS box_kind, bc.id AS count_id,
               bc.id = max(bc.id) OVER (PARTITION BY bc.sheet_id, bc.box_id) AS in_force,
               (SELECT string_agg(d.key || 'x' || d.value, ' ' ORDER BY d.key::bigint DESC)
                  FROM jsonb_each_text(bc.denominations) d) AS denominations,
               bc.counted, bc.expected, bc.variance, bc.explanation, va.approved_by,
               bc.counted_by, bc.counted_at
        FROM {BOX_COUNT} bc
        JOIN {SHEET} s ON s.id = bc.sheet_id
        JOIN {BOX} bx ON bx.id = bc.box_id
        JOIN {TABLE} t ON t.id = bc.table_id
        LEFT JOIN {VARIANCE_APPROVAL} va ON va.count_id = bc.id
        WHERE s.gaming_day = %s AND s.shift = ANY(%s)
    """
    return SqlQuery(sql, (gaming_day, shifts), "b.shift, b.table_name, b.box, b.count_id", COUNT_SHEET_EXPORT_COLUMNS)


CLOSER_EXPORT_COLUMNS = (
    ("gaming_day", day_text("b.gaming_day")),
    ("shifts", "b.shifts"),
    ("table_id", "b.table_id"),
    ("table_name", escaped_sql("b.table_name")),
    ("rounds_dealt", "b.rounds_dealt"),
    ("rounds_settled", "b.rounds_settled"),
    ("rounds_voided", "b.rounds_voided"),
    ("banked_by", escaped_sql("b.banked_by")),
    ("fee_lines", "b.fee_lines"),
    ("fees_cents", "b.fees"),
    ("refunds_cents", "b.refunds"),
    ("expected_drop_cents", "b.expected"),
    ("counted_drop_cents", "b.counted"),
    ("variance_cents", "b.variance"),
    ("jackpot_counted_cents", "b.jackpot_counted"),
    ("boxes", escaped_sql("b.boxes")),
    ("approvals_requested", "b.approvals_requested"),
    ("approvals_granted", "b.approvals_granted"),
)


def closer_summary_query(*, gaming_day: date, shift: str | None = None) -> SqlQuery:
    """The closer summary per table for a shift (or the whole gaming day): rounds dealt
    (opened in it), settled and voided; who banked and how many settled rounds
    (`person:rounds`, most first); fees, refunds and the expected drop (fees - refunds of
    the collection lines stamped with its shifts); the counted drop (the counts in force
    of its fee boxes) and the variance; jackpot boxes apart; the approvals asked at the
    table in it and how many were granted. A table with nothing in the shift is left out."""
    shifts, start, end = _shift_scope(gaming_day, shift)
    sql = f"""
        WITH rnd AS (
            SELECT table_id, count(*) AS dealt,
                   count(*) FILTER (WHERE status = 'settled') AS settled,
                   count(*) FILTER (WHERE status = 'voided') AS voided
            FROM {ROUND} WHERE opened_at >= %(start)s AND opened_at < %(end)s GROUP BY table_id
        ), banked AS (
            SELECT table_id, string_agg(pd_player || ':' || n, ' ' ORDER BY n DESC, pd_player) AS banked_by
            FROM (SELECT table_id, pd_player, count(*) AS n FROM {ROUND}
                  WHERE status = 'settled' AND opened_at >= %(start)s AND opened_at < %(end)s
                  GROUP BY table_id, pd_player) per_person
            GROUP BY table_id
        ), col AS (
            SELECT ce.table_id, {_fee_and_refund_sums('ce')}
            FROM {CE} ce WHERE ce.gaming_day = %(day)s AND ce.shift = ANY(%(shifts)s) GROUP BY ce.table_id
        ), latest AS (
            SELECT DISTINCT ON (bc.sheet_id, bc.box_id) bc.table_id, bc.counted, bx.kind, bx.identifier
            FROM {BOX_COUNT} bc JOIN {SHEET} s ON s.id = bc.sheet_id JOIN {BOX} bx ON bx.id = bc.box_id
            WHERE s.gaming_day = %(day)s AND s.shift = ANY(%(shifts)s)
            ORDER BY bc.sheet_id, bc.box_id, bc.id DESC
        ), cnt AS (
            SELECT table_id,
                   sum(counted) FILTER (WHERE kind <> 'jackpot')::bigint AS counted,
                   sum(counted) FILTER (WHERE kind = 'jackpot')::bigint AS jackpot_counted
            FROM latest GROUP BY table_id
        ), boxes AS (
            SELECT p.table_id, string_agg(DISTINCT bx.identifier, ' ') AS boxes
            FROM {PLACEMENT} p JOIN {BOX} bx ON bx.id = p.box_id
            WHERE p.gaming_day = %(day)s AND p.shift = ANY(%(shifts)s) GROUP BY p.table_id
        ), appr AS (
            SELECT a.table_id, count(*) AS requested, count(d.id) FILTER (WHERE d.approved) AS granted
            FROM {APPROVAL} a LEFT JOIN {APPROVAL_DECISION} d ON d.approval_id = a.id
            WHERE a.requested_at >= %(start)s AND a.requested_at < %(end)s GROUP BY a.table_id
        )
        SELECT %(day)s::date AS gaming_day, array_to_string(%(shifts)s::text[], ' ') AS shifts,
               t.id AS table_id, t.name AS table_name,
               coalesce(rnd.dealt, 0) AS rounds_dealt, coalesce(rnd.settled, 0) AS rounds_settled,
               coalesce(rnd.voided, 0) AS rounds_voided, coalesce(banked.banked_by, '') AS banked_by,
               coalesce(col.fee_lines, 0) AS fee_lines, coalesce(col.fees, 0) AS fees,
               coalesce(col.refunds, 0) AS refunds,
               coalesce(col.fees, 0) - coalesce(col.refunds, 0) AS expected,
               cnt.counted, cnt.counted - (coalesce(col.fees, 0) - coalesce(col.refunds, 0)) AS variance,
               cnt.jackpot_counted, coalesce(boxes.boxes, '') AS boxes,
               coalesce(appr.requested, 0) AS approvals_requested, coalesce(appr.granted, 0) AS approvals_granted
        FROM {TABLE} t
        LEFT JOIN rnd ON rnd.table_id = t.id
        LEFT JOIN banked ON banked.table_id = t.id
        LEFT JOIN col ON col.table_id = t.id
        LEFT JOIN cnt ON cnt.table_id = t.id
        LEFT JOIN boxes ON boxes.table_id = t.id
        LEFT JOIN appr ON appr.table_id = t.id
        WHERE rnd.table_id IS NOT NULL OR col.table_id IS NOT NULL OR cnt.table_id IS NOT NULL
              OR boxes.table_id IS NOT NULL OR appr.table_id IS NOT NULL
    """
    params = {"day": gaming_day, "shifts": shifts, "start": start, "end": end}
    return SqlQuery(sql, params, "b.table_name, b.table_id", CLOSER_EXPORT_COLUMNS)


def closer_summary(*, gaming_day: date, shift: str | None = None) -> list[dict]:
    query = closer_summary_query(gaming_day=gaming_day, shift=shift)
    return fetch_dicts(query.ordered(), query.params)


def count_sheet_rows(*, gaming_day: date, shift: str | None = None) -> list[dict]:
    query = count_sheet_query(gaming_day=gaming_day, shift=shift)
    return fetch_dicts(query.ordered(), query.params)


def _column_key(expression: str) -> str:
    return re.search(r"b\.(\w+)", expression).group(1)


def row_keys(export_columns) -> list[str]:
    """The keys of a query's rows, in its export's column order (a workbook writes the
    same columns as the CSV)."""
    return [_column_key(expression) for _, expression in export_columns]


def closer_totals(rows: list[dict]) -> dict:
    """The closer's sums over its tables (a counted drop only where a table was counted)."""
    keys = ("rounds_dealt", "rounds_settled", "rounds_voided", "fee_lines", "fees", "refunds", "expected")
    totals = {key: sum(row[key] for row in rows) for key in keys}
    counted = [row for row in rows if row["counted"] is not None]
    totals["counted"] = sum(row["counted"] for row in counted) if counted else None
    totals["variance"] = sum(row["variance"] for row in counted) if counted else None
    return totals


def latest_close(*, gaming_day: date, shift: str):
    return ShiftClose.objects.filter(gaming_day=gaming_day, shift=shift).order_by("-at", "-id").first()


def closer_filters(*, gaming_day: date, shift: str | None) -> dict:
    """What a closer document is of: the day, the shift (or all), and the close in force
    of each shift (None: not closed). A second document of the same close is a reprint;
    after a reopen and a new close, a new original."""
    names = [shift] if shift else calendar().shift_names()
    closes = {}
    for name in names:
        close = latest_close(gaming_day=gaming_day, shift=name)
        closes[name] = close.pk if close is not None and close.action == "close" else None
    return {"day_from": gaming_day.isoformat(), "day_to": gaming_day.isoformat(), "shift": shift or "all", "closes": closes}


def count_sheet_of(*, gaming_day: date, shift: str):
    return CountSheet.objects.filter(gaming_day=gaming_day, shift=shift).first()


def box_registry():
    return DropBox.objects.select_related("table").order_by("identifier")


def boxes_on_tables(*, gaming_day: date, shift: str) -> list[BoxPlacement]:
    """The placement in force per table and slot for a gaming day and shift."""
    in_force = {}
    placements = BoxPlacement.objects.filter(gaming_day=gaming_day, shift=shift).select_related("box", "table")
    for placement in placements.order_by("placed_at", "id"):
        in_force[(placement.table_id, placement.slot)] = placement
    return sorted(in_force.values(), key=lambda p: (p.table.name, p.slot))


def shift_states(gaming_day: date) -> list[dict]:
    """Each shift of a gaming day: its sheet, whether two counters signed it, closed.
    Read for all the day's shifts at once (a fixed number of queries, not one set per
    shift): the sheets, the placements, the counts, the signatures, the closes."""
    now, cal = timezone.now(), calendar()
    sheets = {sheet.shift: sheet for sheet in CountSheet.objects.filter(gaming_day=gaming_day)}
    placed, in_force, last, signatures = {}, {}, {}, {}
    labels = {}
    for shift, box_id, table_id, label in BoxPlacement.objects.filter(gaming_day=gaming_day).values_list(
            "shift", "box_id", "table_id", "box__identifier"):
        placed.setdefault(shift, {})[box_id] = table_id
        labels[box_id] = label
    sheet_ids = [sheet.pk for sheet in sheets.values()]
    for count in BoxCount.objects.filter(sheet_id__in=sheet_ids).select_related("approval").order_by("counted_at", "id"):
        in_force.setdefault(count.sheet_id, {})[count.box_id] = count
        last[count.sheet_id] = max(last.get(count.sheet_id, 0), count.pk)
    for signature in CountSignature.objects.filter(sheet_id__in=sheet_ids).order_by("signed_at", "id"):
        signatures.setdefault(signature.sheet_id, []).append(signature)
    closes = {}
    for close in ShiftClose.objects.filter(gaming_day=gaming_day).order_by("at", "id"):
        closes[close.shift] = close  # the latest of each shift is in force
    states = []
    for name in cal.shift_names():
        sheet = sheets.get(name)
        signers = counts.signers_of(signatures.get(sheet.pk, []), last.get(sheet.pk)) if sheet else []
        problems = counts.problems_of(placed.get(name, {}), in_force.get(sheet.pk, {}), labels) if sheet else []
        states.append({
            "shift": name,
            "over": now >= cal.shift_bounds(gaming_day, name)[1],
            "sheet": sheet,
            "signers": signers,
            "complete": bool(sheet) and counts.standing_of(signers, problems),
            "closed": name in closes and closes[name].action == "close",
        })
    return states


def count_sheet_view(*, gaming_day: date, shift: str) -> dict:
    """Everything the count sheet page draws: the boxes placed in the shift (with swaps),
    per box what the log expects and the count in force with its history, whether its
    variance needs an explanation or a manager, the signatures, what still stops the
    signing, the closes and reopen requests."""
    sheet = count_sheet_of(gaming_day=gaming_day, shift=shift)
    placements = list(
        BoxPlacement.objects.filter(gaming_day=gaming_day, shift=shift)
        .select_related("box", "table", "replaces__box").order_by("placed_at", "id")
    )
    history = {}
    if sheet is not None:
        for count in BoxCount.objects.filter(sheet=sheet).select_related("approval").order_by("counted_at", "id"):
            history.setdefault(count.box_id, []).append(count)
    expected = counts.boxes_expected(
        box_ids=[placement.box_id for placement in placements], gaming_day=gaming_day, shift=shift
    )
    boxes, seen = [], set()
    for placement in placements:
        if placement.box_id in seen:
            continue
        seen.add(placement.box_id)
        rows = history.get(placement.box_id, [])
        current = rows[-1] if rows else None
        boxes.append({
            "box": placement.box,
            "table": placement.table,
            "expected": expected[placement.box_id],
            "count": current,
            "recounts": rows[:-1][::-1],
            "needs_approval": current is not None and counts.needs_approval(current) and not hasattr(current, "approval"),
        })
    unboxed = fetch_dicts(
        f"""SELECT ce.table_id, t.name AS table_name, {_fee_and_refund_sums('ce')}
            FROM {CE} ce JOIN {TABLE} t ON t.id = ce.table_id
            WHERE ce.gaming_day = %s AND ce.shift = %s AND ce.box_id IS NULL GROUP BY ce.table_id, t.name""",
        (gaming_day, shift),
    )
    close = latest_close(gaming_day=gaming_day, shift=shift)
    closed = close is not None and close.action == "close"
    # Where the sheet stands, from the rows read above (counts.sheet_problems and
    # sheet_signers would read them again, twice each).
    signatures = list(sheet.signatures.order_by("signed_at", "id")) if sheet else []
    in_force = {box_id: rows[-1] for box_id, rows in history.items()}
    last = max((count.pk for rows in history.values() for count in rows), default=None)
    signers = counts.signers_of(signatures, last) if sheet else []
    problems = (counts.problems_of({p.box_id: p.table_id for p in placements}, in_force,
                                   {p.box_id: p.box.identifier for p in placements}) if sheet else [])
    return {
        "gaming_day": gaming_day,
        "shift": shift,
        "sheet": sheet,
        "placements": placements,
        "boxes": boxes,
        # No box placed in the shift: the page offers no signing and says why.
        "nothing_placed": sheet is not None and not placements,
        "unboxed": unboxed,
        "signatures": signatures,
        "signers": signers,
        "problems": problems,
        "complete": bool(sheet) and counts.standing_of(signers, problems),
        "closed": closed,
        "closes": list(ShiftClose.objects.filter(gaming_day=gaming_day, shift=shift).order_by("at", "id")),
        "reopen_requests": list(
            ShiftReopenRequest.objects.filter(gaming_day=gaming_day, shift=shift, reopen__isnull=True,
                                              requested_at__gte=close.at).order_by("requested_at")
        ) if closed else [],
        "shift_over": timezone.now() >= calendar().shift_bounds(gaming_day, shift)[1],
    }


def waiting_for_a_manager() -> dict:
    """What only a manager can move: closed shifts someone asked to reopen (no reopen
    yet), and counts in force whose variance is above the escalation threshold and not
    approved, on shifts not closed. The manager's home (web.tables.views.home). Reads only the
    sheets that hold an unapproved count, not the whole count history."""
    reopens = list(ShiftReopenRequest.objects.filter(reopen__isnull=True).order_by("requested_at", "id"))
    sheets = {sheet.pk: sheet for sheet in CountSheet.objects.filter(
        pk__in=BoxCount.objects.filter(approval__isnull=True).values("sheet_id"))}
    closed = {}
    for close in ShiftClose.objects.filter(sheet_id__in=sheets).order_by("at", "id"):
        closed[close.sheet_id] = close.action  # the latest of each shift is in force
    latest = {}
    for count in (BoxCount.objects.select_related("sheet", "box", "table", "approval")
                  .filter(sheet_id__in=[pk for pk in sheets if closed.get(pk) != "close"]).order_by("counted_at", "id")):
        latest[(count.sheet_id, count.box_id)] = count
    variances = [count for count in latest.values() if not hasattr(count, "approval") and counts.needs_approval(count)]
    return {"reopens": reopens, "variances": sorted(variances, key=lambda c: (c.counted_at, c.pk))}

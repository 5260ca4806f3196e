"""Reads for the floor's and compliance's patron pages, and the queries their CSV
exports stream (collections_fees/exports.py CsvExport: COPY, SHA-256, manifest).

No query here returns identification to a page: the pages read it through
patrons/identity.py `identification_read`, which audits each read. `possible_duplicates`
compares legal names and dates of birth to pair records, and its page shows numbers and
display names only and audits the comparison."""

from __future__ import annotations

import unicodedata
from datetime import date

from django.db.models import Count, Q

from cardroom.spreadsheet import escaped_sql
from cardroom.sql import SqlQuery
from rounds.models import Wager
from tables.models import RotationLogEntry, SeatOccupancy

from .folding import fold_name, near_name
from .identity import person_of, survivors
from .models import COUNTED_SQL, AwardCashOut, CashAlert, CashTransaction, ExclusionHit, ExclusionReview, Patron, UnidentifiedPatron

LOCAL = "to_char(b.{col}, 'YYYY-MM-DD\"T\"HH24:MI:SSOF')"
UTC = "to_char(b.{col} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"


def _times(col: str) -> tuple[tuple[str, str], ...]:
    return (("time_utc", UTC.format(col=col)), ("time_local", LOCAL.format(col=col)))


def floor_alerts(limit: int = 50) -> dict:
    """What the floor sees: cash warnings and CTRs due, self-exclusion hits, and the near
    matches held for a supervisor's check (open first, then the latest decided), by
    display name and number only."""
    alerts = CashAlert.objects.select_related("patron", "table", "transaction").order_by("-created_at", "-id")[:limit]
    hits = ExclusionHit.objects.select_related("patron", "table").order_by("-created_at", "-id")[:limit]
    reviews = ExclusionReview.objects.select_related("patron", "table", "entry", "decision")
    held = reviews.filter(decision__isnull=True).order_by("created_at", "id")[:limit]
    decided = reviews.filter(decision__isnull=False).order_by("-decision__decided_at", "-id")[:limit]
    # Progressive awards not paid yet: owed (the winner to identify) first, then due.
    awards = AwardCashOut.objects.select_related("table").exclude(state="paid").order_by("-state", "confirmed_at", "id")[:limit]
    return {"cash": list(alerts), "hits": list(hits), "held": list(held), "decided": list(decided),
            "awards": list(awards)}


def _day_range(filters: dict) -> tuple[str, list]:
    where, params = [], []
    if filters.get("day_from"):
        where.append("t.gaming_day >= %s")
        params.append(filters["day_from"])
    if filters.get("day_to"):
        where.append("t.gaming_day <= %s")
        params.append(filters["day_to"])
    return (" AND ".join(where) or "TRUE"), params


CASH_SQL = """
    SELECT t.seq, t.kind, t.direction, t.amount, t.patron_id, t.unidentified_id, t.player, t.table_id,
           t.employee, t.employee_role, t.note, t.mtl, t.created_at, t.gaming_day, t.shift,
           t.prev_hash, t.row_hash, t.hash_key, t.reverses_id, t.award_round_id, t.award_seat, p.number AS patron_number, p.display_name,
           u.description AS unidentified_description, l.patron_id AS linked_patron_id
    FROM patrons_cashtransaction t
    LEFT JOIN patrons_patron p ON p.id = t.patron_id
    LEFT JOIN patrons_unidentifiedpatron u ON u.id = t.unidentified_id
    LEFT JOIN patrons_patronlink l ON l.unidentified_id = t.unidentified_id
    WHERE {where}
"""

# The columns people type are escaped (cardroom/spreadsheet.py); the offline check of the
# export takes the escape off before re-hashing a row (patrons/integrity.py).
CASH_COLUMNS = (
    ("chain_seq", "b.seq"), ("kind", "b.kind"), ("direction", "b.direction"), ("amount_cents", "b.amount"),
    ("patron_id", "b.patron_id"), ("unidentified_id", "b.unidentified_id"), ("player", escaped_sql("b.player")),
    ("patron_number", escaped_sql("b.patron_number")), ("display_name", escaped_sql("b.display_name")),
    ("unidentified_description", escaped_sql("b.unidentified_description")), ("linked_patron_id", "b.linked_patron_id"),
    ("table_id", "b.table_id"), ("employee", escaped_sql("b.employee")), ("employee_role", "b.employee_role"),
    ("note", escaped_sql("b.note")),
    ("mtl", "b.mtl"), *_times("created_at"),
    ("created_at_utc_iso", "to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') || '+00:00'"),
    ("gaming_day", "b.gaming_day"), ("shift", "b.shift"),
    ("prev_hash", "b.prev_hash"), ("row_hash", "b.row_hash"), ("hash_key", "b.hash_key"),
    # The optional chained fields (empty when not set: chained only when set).
    ("reverses_id", "b.reverses_id"), ("award_round_id", "b.award_round_id"), ("award_seat", "b.award_seat"),
)


def cash_query(filters: dict, *, mtl_only: bool = False) -> SqlQuery:
    """The cash log (every transaction, the chain's columns included: an export of the
    whole log can be re-hashed offline with the key), or the MTL (entries at or over the
    threshold when recorded)."""
    where, params = _day_range(filters)
    if mtl_only:
        where += " AND t.mtl"
    return SqlQuery(CASH_SQL.format(where=where), tuple(params), "b.seq", CASH_COLUMNS)


def cash_rows(filters: dict, *, mtl_only: bool = False, limit: int = 500):
    rows = CashTransaction.objects.select_related("patron", "unidentified__link__patron", "table", "reverses").order_by("-seq")
    if filters.get("day_from"):
        rows = rows.filter(gaming_day__gte=filters["day_from"])
    if filters.get("day_to"):
        rows = rows.filter(gaming_day__lte=filters["day_to"])
    if mtl_only:
        rows = rows.filter(mtl=True)
    return list(rows[:limit])


CTR_COLUMNS = (
    ("gaming_day", "b.gaming_day"), ("subject", "b.subject"), ("direction", "b.direction"),
    ("day_total_cents", "b.day_total"), ("chain_seq", "b.seq"), ("kind", "b.kind"), ("amount_cents", "b.amount"),
    ("player", escaped_sql("b.player")), ("patron_number", escaped_sql("b.patron_number")), ("table_id", "b.table_id"),
    ("employee", escaped_sql("b.employee")), *_times("created_at"), ("row_hash", "b.row_hash"),
    ("reverses_seq", "b.reverses_seq"),
)


def ctr_query(gaming_day: date, above: int) -> SqlQuery:
    """Each transaction of the gaming day's CTR candidates (a patron's person: every
    record merged into one and every unidentified patron linked to one of them, named by
    the surviving record; or an unidentified patron's day total of one direction above
    the threshold: originals less reversals, patrons/cash.py), with the total it belongs
    to; a reversal shows as its own row naming the one it reverses. The merges come from
    identity.survivors, the one resolution of a record to its person."""
    merged = survivors()
    sql = """
        WITH merges AS (
            SELECT * FROM unnest(%(merged)s::bigint[], %(survivors)s::bigint[]) AS m(merged_id, survivor_id)
        ), tx AS (
            SELECT t.*, COALESCE('patron:' || COALESCE(m.survivor_id, t.patron_id, l.patron_id)::text,
                                 'unidentified:' || t.unidentified_id::text) AS subject,
                   COALESCE(m.survivor_id, t.patron_id, l.patron_id) AS owner_id
            FROM patrons_cashtransaction t
            LEFT JOIN patrons_patronlink l ON l.unidentified_id = t.unidentified_id
            LEFT JOIN merges m ON m.merged_id = COALESCE(t.patron_id, l.patron_id)
            WHERE t.gaming_day = %(day)s
        ), totals AS (
            SELECT subject, direction, sum({counted}) AS day_total FROM tx GROUP BY subject, direction
        )
        SELECT tx.*, totals.day_total, p.number AS patron_number, o.seq AS reverses_seq
        FROM tx JOIN totals USING (subject, direction)
        LEFT JOIN patrons_patron p ON p.id = tx.owner_id
        LEFT JOIN patrons_cashtransaction o ON o.id = tx.reverses_id
        WHERE totals.day_total > %(above)s
    """.replace("{counted}", COUNTED_SQL.format(t="tx"))
    params = {"day": gaming_day, "above": above, "merged": list(merged), "survivors": list(merged.values())}
    return SqlQuery(sql, params, "b.subject, b.direction, b.seq", CTR_COLUMNS)


HITS_COLUMNS = (
    ("hit_id", "b.id"), ("action", "b.action"), ("player", escaped_sql("b.player")),
    ("patron_number", escaped_sql("b.patron_number")), ("list", "b.source"), ("state_ref", escaped_sql("b.state_ref")),
    ("list_import_id", "b.list_import_id"), ("table_id", "b.table_id"), ("amount_cents", "b.amount"),
    ("employee", escaped_sql("b.employee")),
    *_times("created_at"), ("gaming_day", "b.gaming_day"),
)


def hits_query(filters: dict) -> SqlQuery:
    where, params = _day_range(filters)
    sql = f"""
        SELECT t.*, e.source, e.state_ref, e.list_import_id, p.number AS patron_number
        FROM patrons_exclusionhit t
        JOIN patrons_exclusionentry e ON e.id = t.entry_id
        LEFT JOIN patrons_patron p ON p.id = t.patron_id
        WHERE {where}
    """
    return SqlQuery(sql, tuple(params), "b.created_at, b.id", HITS_COLUMNS)


def patron_ids(patron: Patron) -> list[str]:
    """The seat ids a patron's person played under: the number and card of each of their
    records (merged ones too), every U-id linked to one of them,
    and every seat id recorded that folds to one of those as people write it ("р-4001"
    with a Cyrillic р, "P 4001": patrons/folding.py `fold_number`) and names no other
    patron. Since issue 34 such an id is seated as the number (SeatIdentity.seated_as);
    the ids found here are the ones recorded before, or typed where the fold was not
    known."""
    records = person_of(patron.pk).records
    linked = UnidentifiedPatron.objects.filter(link__patron_id__in=records).values_list("pk", flat=True)
    own = []
    for number, card in Patron.objects.filter(pk__in=records).order_by("pk").values_list("number", "card"):
        own += [i for i in (number, card) if i]
    own += [f"{UnidentifiedPatron.PREFIX}{pk}" for pk in linked]
    return own + _seat_ids_folding_to(records, own)


# The seat ids recorded whose digits are one of the patron's ids' digits: the few a fold
# is then computed for. Digits as a fold reads them: compatibility forms ("４") are digits,
# and the letters O, I and L, which a fold takes for 0 and 1, are read as those.
_DIGITS_SQL = "regexp_replace(translate(upper(normalize(player, NFKC)), 'OIL', '011'), '[^0-9]', '', 'g')"
_RECORDED_IDS_SQL = f"""
    SELECT DISTINCT player FROM (
        SELECT player FROM tables_seatoccupancy UNION ALL
        SELECT player FROM tables_rotationlogentry UNION ALL
        SELECT player FROM rounds_wager
    ) recorded
    WHERE {_DIGITS_SQL} = ANY(%s)
"""


def _digits(seat_id: str) -> str:
    """A seat id's digits as _DIGITS_SQL reads them."""
    plain = unicodedata.normalize("NFKC", seat_id).upper().translate(str.maketrans("OIL", "011"))
    return "".join(ch for ch in plain if ch in "0123456789")


def _seat_ids_folding_to(records, own: list[str]) -> list[str]:
    from django.db import connection

    from .folding import fold_number
    from .models import PatronKey

    folds = {fold_number(i) for i in own} - {""}
    digits = sorted({_digits(i) for i in own} - {""})
    if not digits:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_RECORDED_IDS_SQL, [digits])
        recorded = [player for (player,) in cursor.fetchall()]
    known = {i.upper() for i in own}
    found = {player: fold_number(player) for player in recorded if player.upper() not in known}
    found = {player: fold for player, fold in found.items() if fold in folds}
    # An id that folds to another patron's number or card too is not this one's alone.
    shared = set(
        PatronKey.objects.filter(fold__in=set(found.values()), field__in=("number", "card"))
        .exclude(patron_id__in=records).values_list("fold", flat=True)
    )
    return sorted(player for player, fold in found.items() if fold not in shared)


HISTORY_COLUMNS = (
    ("what", "b.what"), ("table_id", "b.table_id"), ("round_id", "b.round_id"), ("seat", "b.seat"),
    ("player", escaped_sql("b.player")), ("detail", "b.detail"), ("amount_cents", "b.amount"), *_times("at"),
)


def history_query(patron: Patron) -> SqlQuery:
    """A patron's history: seatings, rotation (offers, banks, passes), wagers, cash and
    self-exclusion hits, in time order; under every id they played under (a linked U-id's
    rotation follows the link), and of every record of their person (merged records)."""
    ids = [i.upper() for i in patron_ids(patron)]
    sql = """
        SELECT 'seated' AS what, o.table_id, NULL::bigint AS round_id, o.seat, o.player,
               COALESCE('left ' || to_char(o.left_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'seated') AS detail,
               NULL::bigint AS amount, o.sat_at AS at
        FROM tables_seatoccupancy o WHERE upper(o.player) = ANY(%(ids)s)
        UNION ALL
        SELECT 'rotation', e.table_id, NULL, e.seat, e.player, e.action, NULL, e.created_at
        FROM tables_rotationlogentry e WHERE upper(e.player) = ANY(%(ids)s)
        UNION ALL
        SELECT 'wager', r.table_id, w.round_id, w.seat, w.player, w.kind, w.amount, w.created_at
        FROM rounds_wager w JOIN rounds_round r ON r.id = w.round_id WHERE upper(w.player) = ANY(%(ids)s)
        UNION ALL
        SELECT 'cash', t.table_id, NULL, NULL, t.player,
               t.kind || CASE WHEN t.mtl THEN ' (MTL)' ELSE '' END
               || ' cash #' || t.seq || COALESCE(' reversal of cash #' || o.seq, ''),
               t.amount, t.created_at
        FROM patrons_cashtransaction t
        LEFT JOIN patrons_cashtransaction o ON o.id = t.reverses_id
        LEFT JOIN patrons_patronlink l ON l.unidentified_id = t.unidentified_id
        WHERE t.patron_id = ANY(%(records)s) OR l.patron_id = ANY(%(records)s)
        UNION ALL
        SELECT 'self_exclusion_hit', h.table_id, NULL, NULL, h.player, h.action, h.amount, h.created_at
        FROM patrons_exclusionhit h WHERE h.patron_id = ANY(%(records)s)
    """
    records = list(person_of(patron.pk).records)
    return SqlQuery(sql, {"ids": ids, "records": records}, "b.at, b.what", HISTORY_COLUMNS)


def history_rows(patron: Patron) -> dict:
    ids, records = patron_ids(patron), person_of(patron.pk).records
    match = Q()
    for player_id in ids:
        match |= Q(player__iexact=player_id)
    return {
        "ids": ids,
        "seatings": list(SeatOccupancy.objects.filter(match).select_related("table").order_by("-sat_at")[:200]),
        "rotation": list(RotationLogEntry.objects.filter(match).select_related("table").order_by("-created_at", "-id")[:200]),
        "wagers": list(Wager.objects.filter(match).select_related("round__table").order_by("-created_at")[:200]),
        "cash": list(
            CashTransaction.objects.filter(Q(patron_id__in=records) | Q(unidentified__link__patron_id__in=records))
            .select_related("table", "reverses").order_by("-seq")[:200]
        ),
        "hits": list(ExclusionHit.objects.filter(patron_id__in=records).select_related("table", "entry")[:200]),
    }


def possible_duplicates(limit: int = 200) -> list[dict]:
    """Pairs of records that may be one person, for compliance: born the same day, with
    legal names that fold alike (`same legal name`) or are near (`near legal name`: an
    initial, a suffix, one letter off; patrons.folding), and not one person already.
    SQL narrows to the dates of birth two records share; the names are compared here."""
    shared = (
        Patron.objects.exclude(date_of_birth=None).values("date_of_birth")
        .annotate(records=Count("id")).filter(records__gt=1).values("date_of_birth")
    )
    born: dict = {}
    for patron in Patron.objects.filter(date_of_birth__in=shared).order_by("date_of_birth", "number"):
        born.setdefault(patron.date_of_birth, []).append(patron)
    merged, pairs = survivors(), []
    for records in born.values():
        for i, first in enumerate(records):
            for second in records[i + 1:]:
                if person_of(first.pk, merged).survivor == person_of(second.pk, merged).survivor:
                    continue
                if fold_name(first.legal_name) == fold_name(second.legal_name):
                    why = "same legal name and date of birth"
                elif near_name(first.legal_name, second.legal_name):
                    why = "near legal name, same date of birth"
                else:
                    continue
                pairs.append({"first": first, "second": second, "why": why})
                if len(pairs) >= limit:
                    return pairs
    return pairs

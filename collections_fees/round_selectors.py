"""Reads for compliance: the round history and the rotation log.

Like the collection log (collections_fees/selectors.py), each is one SQL query used by
the HTML page (a page of typed rows) and by the streamed CSV export (COPY of text
columns), so both show the same rows for the same filters. Everything shown is what was
stored when the command ran; nothing is re-decided here (rounds/audit.py re-decides, on
request, and only reports).
"""

from __future__ import annotations

import json

from django.db import connection
from django.db.models import Prefetch

from cardroom.spreadsheet import escaped_sql
from collections_fees.models import CollectionEntry, JackpotEntry
from cardroom.sql import Filters, SqlQuery, bool_text, day_text, filter_conditions, local_text, utc_text, where_clause
from collections_fees.selectors import SCHEDULE
from cardroom.keyset import Key, KeysetRows
from rounds.models import Decision, Round, RoundCard, SettlementLine, Wager
from rounds.selectors import RoundCards, round_cards
from tables.models import RotationLogEntry, RuleSet, RuleSetChange, Table, TableConfig, TableEvent
from rounds.visibility import FINISHED, withheld_from_records

ROUND = Round._meta.db_table
WAGER = Wager._meta.db_table
DECISION = Decision._meta.db_table
CARD = RoundCard._meta.db_table
LINE = SettlementLine._meta.db_table
CE = CollectionEntry._meta.db_table
TABLE = Table._meta.db_table
CONFIG = TableConfig._meta.db_table
EVENT = TableEvent._meta.db_table
JACKPOT = JackpotEntry._meta.db_table
ROTATION = RotationLogEntry._meta.db_table
RULE_SET = RuleSet._meta.db_table
RULE_SET_CHANGE = RuleSetChange._meta.db_table

# The rule set and version a configuration version (alias c) carries (tables/rule_sets.py):
# NULLs for a table outside any rule set.
RULE_SET_OF_CONFIG = f"""
    (SELECT s.name FROM {RULE_SET_CHANGE} rc JOIN {RULE_SET} s ON s.id = rc.rule_set_id
      WHERE rc.id = c.rule_set_change_id) AS rule_set,
    (SELECT rc.version FROM {RULE_SET_CHANGE} rc WHERE rc.id = c.rule_set_change_id) AS rule_set_version
"""


# --- Round history -------------------------------------------------------------------

ROUND_EXPORT_COLUMNS = (
    ("table_id", "b.table_id"),
    ("table_name", escaped_sql("b.table_name")),
    ("round_number", "b.number"),
    ("gaming_day", day_text("b.gaming_day")),
    ("opened_utc", utc_text("b.opened_at")),
    ("opened_local", local_text("b.opened_at")),
    ("closed_utc", utc_text("b.closed_at")),
    ("status", "b.status"),
    ("config_version", "b.config_version"),
    ("rule_set", escaped_sql("b.rule_set")),
    ("rule_set_version", "b.rule_set_version"),
    ("fee_schedule_version", "b.fee_schedule_version"),
    ("deck", "b.deck"),
    ("pd_seat", "b.pd_seat"),
    ("pd_player", escaped_sql("b.pd_player")),
    ("bank_cents", "b.bank"),
    ("balance_cents", "b.balance"),
    ("pd_net_cents", "b.pd_net"),
    ("bank_exhausted", bool_text("b.exhausted")),
    ("pd_hand", "b.pd_hand"),
    ("pd_qualifies", "b.pd_qualifies"),
    ("community", "b.community"),
    ("pd_hole", "b.pd_hole"),
    ("player_hole", "b.player_hole"),
    ("wagers", "b.wagers"),
    ("progressive", "b.progressive"),
    ("decisions", "b.decisions"),
    ("settlement", "b.settlement_lines"),
    ("fees_cents", "b.fees"),
    ("refunds_cents", "b.refunds"),
    ("void_reason", escaped_sql("b.void_reason")),
    ("void_approved_by", escaped_sql("b.void_approved_by")),
)

# A card is in the export when its round's records may show it
# (rounds.visibility.withheld_from_records): every card of a finished round; of a round in
# play, those not in its entry of `withheld.cards` (withheld_cards), and none when it has
# no entry: a round that opened after the entries were read shows no card.
CARD_SHOWN = (
    f"(r.status IN ({', '.join(repr(status) for status in FINISHED)})"
    " OR NOT coalesce((withheld.cards -> r.id::text) ? c.card, true))"
)

# The compact encodings of the export's list columns (docs/compliance-exports.md):
#   wagers      "seat:kind:cents" in seat order, then ante, blind, trips, play
#   progressive "seat:cents" per progressive wager (its meter's contribution), seat order
#   decisions   "seat:street:action:cents" in the order they were made
#   player_hole "seat:card card" per seat, ";" between seats
#   settlement  "seat:wager:stake:result:amount:uncovered" in settlement order
def _spot(alias: str) -> str:
    """SQL naming whose an item of a list column is: the seat, or for a backline bettor's
    (game-rules 12) `seat/bettor`, the bettor's id percent-escaped where it holds a
    separator of the encoding (% space : ; /), so every item still splits the same way."""
    bettor = f"{alias}.bettor"
    # chr(37) is "%": a literal one would read as a placeholder to the query's parameters.
    for char, code in (("chr(37)", "chr(37) || '25'"), ("' '", "chr(37) || '20'"), ("':'", "chr(37) || '3A'"),
                       ("';'", "chr(37) || '3B'"), ("'/'", "chr(37) || '2F'")):
        bettor = f"replace({bettor}, {char}, {code})"
    return f"({alias}.seat || CASE WHEN {alias}.bettor <> '' THEN '/' || {bettor} ELSE '' END)"


# The list columns of the export. Each is read in one pass over its table for all the
# rounds asked for, not a read per round: a round's wagers, progressive contributions,
# decisions, cards, settlement lines and fee lines are grouped by round in SQL and
# joined to the rounds by hash. Seven index reads a round held the export near 10,000
# rounds/s, however few rows each read returned. A table's rows of those rounds are read
# through its index on the round with the rounds' ids as one sorted array (`= ANY
# (ARRAY(...))`): PostgreSQL walks the index once in round order for the whole array
# (not a descent per id), and never reads the rows of rounds not asked for (a range of
# ids would: with a table filter, or ids that are not in day order). A wager's place
# among its seat's bettors is the first id of that bettor's wagers in the round (a
# window); the cards are one read of the round's cards, each position's joined, then
# split three ways.
ROUND_LISTS = """
    wl.wagers, pl.progressive, dl.decisions,
    cl.community, cl.pd_hole, cl.player_hole,
    sl.settlement_lines,
    coalesce(fl.fees, 0)::bigint AS fees, coalesce(fl.refunds, 0)::bigint AS refunds,
"""

ROUND_LIST_JOINS = f"""
    LEFT JOIN (
        SELECT w.round_id,
               string_agg({_spot('w')} || ':' || w.kind || ':' || w.amount, ' '
                          -- the seat's own, then each bettor in the order they first wagered
                          ORDER BY w.seat, w.backline, w.first_id,
                                   array_position(ARRAY['ante','blind','trips','play']::varchar[], w.kind)) AS wagers
        FROM (SELECT w.*, min(w.id) OVER (PARTITION BY w.round_id, w.seat, w.bettor) AS first_id
                FROM {WAGER} w WHERE w.round_id = ANY (ARRAY(SELECT r.id FROM r ORDER BY r.id))) w
        GROUP BY w.round_id
    ) wl ON wl.round_id = r.id
    LEFT JOIN (
        SELECT j.round_id, string_agg(j.seat || ':' || j.amount, ' ' ORDER BY j.seat, j.id) AS progressive
        FROM {JACKPOT} j WHERE j.round_id = ANY (ARRAY(SELECT r.id FROM r ORDER BY r.id)) AND j.kind = 'contribution'
        GROUP BY j.round_id
    ) pl ON pl.round_id = r.id
    LEFT JOIN (
        SELECT d.round_id,
               string_agg({_spot('d')} || ':' || d.street || ':' || d.action || ':' || d.amount, ' ' ORDER BY d.id) AS decisions
        FROM {DECISION} d WHERE d.round_id = ANY (ARRAY(SELECT r.id FROM r ORDER BY r.id))
        GROUP BY d.round_id
    ) dl ON dl.round_id = r.id
    LEFT JOIN (
        SELECT h.round_id,
               max(h.cards) FILTER (WHERE h.position = 'community') AS community,
               max(h.cards) FILTER (WHERE h.position = 'player_dealer') AS pd_hole,
               string_agg(h.position || ':' || h.cards, ';' ORDER BY h.seat) FILTER (WHERE h.seat IS NOT NULL) AS player_hole
        FROM (SELECT c.round_id, c.position,
                     CASE WHEN c.position NOT IN ('community', 'player_dealer') THEN c.position::int END AS seat,
                     string_agg(c.card, ' ' ORDER BY c.index) AS cards
                FROM {CARD} c JOIN r ON r.id = c.round_id CROSS JOIN withheld
               WHERE c.round_id = ANY (ARRAY(SELECT r.id FROM r ORDER BY r.id)) AND {CARD_SHOWN}
               GROUP BY c.round_id, c.position) h
        GROUP BY h.round_id
    ) cl ON cl.round_id = r.id
    LEFT JOIN (
        SELECT l.round_id,
               string_agg({_spot('l')} || ':' || l.wager || ':' || l.stake || ':' || l.result || ':'
                          || l.amount || ':' || l.uncovered, ' ' ORDER BY l."order") AS settlement_lines
        FROM {LINE} l WHERE l.round_id = ANY (ARRAY(SELECT r.id FROM r ORDER BY r.id))
        GROUP BY l.round_id
    ) sl ON sl.round_id = r.id
    LEFT JOIN (
        SELECT ce.round_id, sum(ce.amount) FILTER (WHERE ce.kind = 'fee') AS fees,
               sum(ce.amount) FILTER (WHERE ce.kind = 'refund') AS refunds
        FROM {CE} ce WHERE ce.round_id = ANY (ARRAY(SELECT r.id FROM r ORDER BY r.id))
        GROUP BY ce.round_id
    ) fl ON fl.round_id = r.id
"""


def round_history_query(filters: Filters, *, with_lists: bool = True) -> SqlQuery:
    """One row per round: its inputs, its settlement and the player-dealer's result, the
    fees and refunds recorded for it. `player` selects rounds the person banked or wagered
    in; `status` a round status."""
    conditions, params = filter_conditions(
        filters, {"day_from": "r.gaming_day", "day_to": "r.gaming_day", "table": "r.table_id", "status": "r.status"}
    )
    if filters.player:
        conditions.append(f"(r.pd_player = %s OR EXISTS (SELECT 1 FROM {WAGER} w WHERE w.round_id = r.id AND w.player = %s))")
        params += [filters.player, filters.player]
    if with_lists:
        # Read before the query runs (an export's COPY runs on a connection of its own): a
        # round that moves on meanwhile shows fewer cards, never more (CARD_SHOWN).
        params = [json.dumps(withheld_cards()), *params]
    columns = """
        r.id, r.table_id, t.name AS table_name, r.number, r.gaming_day, r.opened_at, r.closed_at,
        r.status, r.street, c.version AS config_version, c.max_consecutive_banks, c.rule_set, c.rule_set_version,
        fs.version AS fee_schedule_version, r.deck, r.pd_seat, r.pd_player, r.bank, r.balance,
        r.pd_net, r.exhausted,
        r.settlement -> 'player_dealer' ->> 'hand' AS pd_hand,
        r.settlement -> 'player_dealer' ->> 'qualifies' AS pd_qualifies,
    """
    joins = f"""
        JOIN {TABLE} t ON t.id = r.table_id
        CROSS JOIN LATERAL (
            SELECT c.version, c.max_consecutive_banks, {RULE_SET_OF_CONFIG} FROM {CONFIG} c WHERE c.id = r.config_id
        ) c
        LEFT JOIN {SCHEDULE} fs ON fs.id = r.fee_schedule_id
    """
    if with_lists:
        # The rounds asked for, read once (MATERIALIZED), then each list table's rows of
        # them in one pass (ROUND_LIST_JOINS).
        sql = f"""
            WITH withheld AS (SELECT %s::jsonb AS cards),
                 r AS MATERIALIZED (SELECT r.* FROM {ROUND} r {where_clause(conditions)})
            SELECT {columns} {ROUND_LISTS} r.void_reason, r.void_approved_by
            FROM r {joins} {ROUND_LIST_JOINS}
        """
    else:
        sql = f"""
            SELECT {columns}
                   (SELECT coalesce(sum(ce.amount), 0)::bigint FROM {CE} ce WHERE ce.round_id = r.id AND ce.kind = 'fee') AS fees,
                   (SELECT coalesce(sum(ce.amount), 0)::bigint FROM {CE} ce WHERE ce.round_id = r.id AND ce.kind = 'refund') AS refunds,
                   r.void_reason, r.void_approved_by
            FROM {ROUND} r {joins}
            {where_clause(conditions)}
        """
    return SqlQuery(sql, tuple(params), "b.table_id, b.number", ROUND_EXPORT_COLUMNS)


# The round history's order, (table, number), as a keyset (cardroom/keyset.py):
# a table's rounds are numbered in time order, so their gaming days never go back, and
# the gaming day between lets the index on (table, gaming day, number) serve a day range.
ROUND_KEYS = (Key("table_id", "int"), Key("gaming_day", "date"), Key("number", "int"))


def round_history_rows(filters: Filters) -> KeysetRows:
    query = round_history_query(filters, with_lists=False)
    return KeysetRows(query.sql, query.params, ROUND_KEYS)


def withheld_cards() -> dict[str, list[str]]:
    """For each round in play, by id, the cards its records may not show
    (rounds.visibility.withheld_from_records); a round that cannot be judged is left out,
    and so shows no card. One row per table with a round in play."""
    rows = Round.objects.filter(status="in_progress").values_list("id", "status", "number", "table__state")
    withheld = {}
    for round_id, status, number, state in rows:
        cards = withheld_from_records(status, state, number)
        if cards is not None:
            withheld[str(round_id)] = sorted(cards)
    return withheld


def round_detail(*, round_id: int) -> Round:
    """A round with every row recorded about it, in the order they were recorded."""
    return (
        Round.objects.select_related("table", "config__rule_set_change__rule_set", "fee_schedule")
        .prefetch_related(
            Prefetch("wagers", queryset=Wager.objects.order_by("seat", "id")),
            Prefetch("decisions", queryset=Decision.objects.order_by("id")),
            Prefetch("cards", queryset=RoundCard.objects.order_by("position", "index")),
            Prefetch("lines", queryset=SettlementLine.objects.order_by("order")),
            # A progressive wager is not a Wager row: it is recorded as its meter's
            # contribution (tables/recording.py), and read from there.
            Prefetch(
                "jackpot",
                queryset=JackpotEntry.objects.filter(kind="contribution").select_related("meter").order_by("seat", "id"),
                to_attr="progressive_wagers",
            ),
            Prefetch(
                "collections",
                queryset=CollectionEntry.objects.select_related("refund_of", "schedule").order_by("seq"),
            ),
        )
        .get(pk=round_id)
    )


def round_cards_recorded(rnd: Round) -> RoundCards:
    """The round's cards as its records may show them (rounds.visibility
    .withheld_from_records): a round in play shows what its table has shown."""
    withheld = withheld_from_records(rnd.status, rnd.table.state, rnd.number)
    return round_cards(rnd, lambda card: withheld is not None and card not in withheld)


# Commands a supervisor sends as the approver of a step of the round, recorded under their
# own name (tables.services._approved): they approve, they do not deal.
APPROVER_COMMANDS = {"confirm_award": "Progressive award confirmed", "start_game": "New game approved"}


def round_people(rnd: Round) -> dict:
    """Who dealt the round (the staff whose commands drove it, open_round to settle or
    void) and who approved a step of it, under its own label: a supervisor confirming a
    progressive award is not one of the round's dealers, nor is the supervisor whose
    approval a void names."""
    events = TableEvent.objects.filter(table_id=rnd.table_id, created_at__gte=rnd.opened_at)
    if rnd.closed_at is not None:
        events = events.filter(created_at__lte=rnd.closed_at)
    dealers, approvals = set(), []
    for actor, kind, command in events.order_by("seq").values_list("actor", "command_type", "command"):
        command = command if isinstance(command, dict) else {}
        if kind in APPROVER_COMMANDS:
            seat = f" (seat {command['seat']})" if command.get("seat") is not None else ""
            approvals.append({"label": APPROVER_COMMANDS[kind] + seat, "by": command.get("approved_by") or actor})
            continue
        dealers.add(actor)
        if kind == "void_round" and command.get("approved_by"):
            approvals.append({"label": "Void approved", "by": command["approved_by"]})
    return {"dealers": sorted(dealers), "approvals": approvals}


# --- Rotation log --------------------------------------------------------------------

ROTATION_EXPORT_COLUMNS = (
    ("table_id", "b.table_id"),
    ("table_name", escaped_sql("b.table_name")),
    ("gaming_day", day_text("b.gaming_day")),
    ("time_utc", utc_text("b.at")),
    ("time_local", local_text("b.at")),
    ("entry", "b.entry"),
    ("action", "b.action"),
    ("seat", "b.seat"),
    ("person_id", escaped_sql("b.player")),
    ("round_number", "b.round_number"),
    ("consecutive_banked", "b.consecutive"),
    ("bank_limit", "b.bank_limit"),
    ("round_status", "b.round_status"),
    ("event_seq", "b.event_seq"),
    ("dealer", escaped_sql("b.dealer")),
    ("tppp_badge", escaped_sql("b.badge")),
    ("reason", escaped_sql("b.reason")),
    ("config_version", "b.config_version"),
    ("rotation_policy", "b.rotation_policy"),
    ("rule_set", escaped_sql("b.rule_set")),
    ("rule_set_version", "b.rule_set_version"),
)


def rotation_log_query(filters: Filters) -> SqlQuery:
    """The table's rotation record as one timeline: every offer, acceptance, decline,
    pass, limit reached and game stop (RotationLogEntry, entry `rotation`), and every
    round with who banked it (entry `banked`).

    `consecutive` is the banker's run of consecutive banked rounds, this one included, as
    the rules engine counted it when the round settled (Round.pd_consecutive; voided
    rounds are in no run: they do not count for rotation, and their status says why);
    `bank_limit` is the table's limit in the configuration version the round was played
    under. The log shows the count the engine enforced rather than working it out again.
    Each round also shows its configuration version and the rotation policy of that
    version (game-rules 2A; empty: section 2 alone), and a TPPP's badge on their entries
    and turns; a game ended or started under the policy shows its reason.

    Every row names the rule set and its version in force (tables/rule_sets.py): a round's
    through its configuration version, an offer's or a pass's through the configuration
    version the table played under when it was recorded (the latest at that time); empty
    for a table outside any rule set."""
    rot_conditions, rot_params = filter_conditions(
        filters,
        {"day_from": "e.gaming_day", "day_to": "e.gaming_day", "table": "e.table_id", "player": "e.player"},
    )
    round_conditions, round_params = filter_conditions(
        filters,
        {"day_from": "r.gaming_day", "day_to": "r.gaming_day", "table": "r.table_id", "player": "r.pd_player"},
    )
    # The log is in time order per table. Entries and rounds both record their gaming day
    # (the entry its event's), and a table's rows never go back a gaming day, so (table,
    # gaming day, time) is the same order as (table, time), and it is the order of both
    # halves' indexes within a day range: the page reads its rows from the range, in
    # order, and merges the halves, with no sort of the month. The event, the table and
    # the configuration are looked up a row at a time (LATERAL ... OFFSET 0): joined by
    # hash, they lose that order and the month is sorted again.
    sql = f"""
        SELECT 'rotation' AS entry, 1 AS entry_order, e.id AS entry_id, e.table_id, t.name AS table_name,
               e.gaming_day, e.created_at AS at, e.action, e.seat, e.player, e.round_number,
               NULL::bigint AS consecutive, NULL::integer AS bank_limit, NULL::varchar AS round_status,
               ev.seq AS event_seq, ev.actor AS dealer, e.badge, e.reason,
               NULL::integer AS config_version, NULL::text AS rotation_policy,
               rs.rule_set, rs.rule_set_version
        FROM {ROTATION} e
        CROSS JOIN LATERAL (SELECT ev.seq, ev.actor FROM {EVENT} ev WHERE ev.id = e.event_id OFFSET 0) ev
        CROSS JOIN LATERAL (SELECT t.name FROM {TABLE} t WHERE t.id = e.table_id OFFSET 0) t
        LEFT JOIN LATERAL (
            SELECT {RULE_SET_OF_CONFIG}
            FROM {CONFIG} c
            WHERE c.table_id = e.table_id AND c.effective_from <= e.created_at
            ORDER BY c.version DESC LIMIT 1
        ) rs ON true
        {where_clause(rot_conditions)}
        UNION ALL
        SELECT 'banked', 0, r.id, r.table_id, t.name, r.gaming_day, r.opened_at, 'banked', r.pd_seat, r.pd_player,
               r.number, r.pd_consecutive, c.max_consecutive_banks, r.status, NULL, NULL, r.pd_badge, '',
               c.version, c.rotation_policy::text, c.rule_set, c.rule_set_version
        FROM {ROUND} r
        CROSS JOIN LATERAL (SELECT t.name FROM {TABLE} t WHERE t.id = r.table_id OFFSET 0) t
        CROSS JOIN LATERAL (
            SELECT c.version, c.max_consecutive_banks, c.rotation_policy, {RULE_SET_OF_CONFIG}
            FROM {CONFIG} c WHERE c.id = r.config_id OFFSET 0
        ) c
        {where_clause(round_conditions)}
    """
    params = (*rot_params, *round_params)
    return SqlQuery(sql, params, "b.table_id, b.gaming_day, b.at, b.entry_order, b.entry_id", ROTATION_EXPORT_COLUMNS)


ROTATION_KEYS = (
    Key("table_id", "int"), Key("gaming_day", "date"), Key("at", "timestamptz"), Key("entry_order", "int"),
    Key("entry_id", "int"),
)


def rotation_log_rows(filters: Filters) -> KeysetRows:
    """The rotation log's page rows, by key in the log's own order (cardroom/keyset.py)."""
    query = rotation_log_query(filters)
    return KeysetRows(query.sql, query.params, ROTATION_KEYS)


# --- Offered before every round (game-rules 2A.1) --------------------------------------------

OFFER_EXPORT_COLUMNS = (
    ("table_id", "b.table_id"),
    ("table_name", escaped_sql("b.table_name")),
    ("round_number", "b.number"),
    ("gaming_day", day_text("b.gaming_day")),
    ("opened_local", local_text("b.opened_at")),
    ("pd_seat", "b.pd_seat"),
    ("pd_player", escaped_sql("b.pd_player")),
    ("config_version", "b.config_version"),
    ("rotation_policy", "b.rotation_policy"),
)


def rounds_not_offered_query(filters: Filters, *, not_offered_only: bool = True) -> SqlQuery:
    """The rounds whose player-dealer did not accept an offer of the position between
    the table's previous round opening and this one (from the rotation log's own rows,
    in event order): the rounds before which the position was not offered. Under the
    rotation policy there must be none; under section 2 alone a player-dealer who keeps
    the bank is listed. `not_offered_only=False` gives every round, with `offered`."""
    conditions, params = filter_conditions(
        filters, {"day_from": "o.gaming_day", "day_to": "o.gaming_day", "table": "o.table_id", "player": "o.pd_player"}
    )
    if not_offered_only:
        conditions.append("NOT o.offered")
    # The opening event of each round, and the one before it at the same table: the
    # window in which its player-dealer must have accepted an offer. Each step is read
    # for the round at hand, through an index, so a round costs a few rows however long
    # the table's history (OFFSET 0 and LIMIT keep a step from being merged into a join
    # the planner then ran over every round the table ever opened): the round's opening
    # event by the index of openings, the window's events by the table's event order,
    # and each one's rotation rows by event (looking the accepts up by player instead
    # read every accept of the player-dealer at the table).
    sql = f"""
        SELECT o.* FROM (
            SELECT r.id, r.table_id, t.name AS table_name, r.number, r.gaming_day, r.opened_at, r.pd_seat,
                   r.pd_player, r.status, c.version AS config_version, c.rotation_policy::text AS rotation_policy,
                   EXISTS (
                       SELECT 1 FROM (
                           SELECT ae.id FROM {EVENT} ae
                           WHERE ae.table_id = r.table_id AND ae.seq < oe.seq
                             AND ae.seq > COALESCE((
                                 SELECT max(pe.seq) FROM {EVENT} pe
                                 WHERE pe.table_id = r.table_id AND pe.command_type = 'open_round'
                                   AND pe.seq < oe.seq AND pe.result->>'round' IS NOT NULL
                             ), 0)
                           OFFSET 0
                       ) window_event
                       CROSS JOIN LATERAL (
                           SELECT 1 FROM {ROTATION} e
                           WHERE e.event_id = window_event.id AND e.action = 'accept' AND e.player = r.pd_player
                           LIMIT 1
                       ) accepted
                   ) AS offered
            FROM {ROUND} r
            JOIN {TABLE} t ON t.id = r.table_id
            JOIN {CONFIG} c ON c.id = r.config_id
            CROSS JOIN LATERAL (
                SELECT oe.seq FROM {EVENT} oe
                WHERE oe.table_id = r.table_id AND oe.command_type = 'open_round'
                  AND (oe.result->>'round') = r.number::text
                OFFSET 0
            ) oe
        ) o
        {where_clause(conditions)}
    """
    return SqlQuery(sql, tuple(params), "b.table_id, b.number", OFFER_EXPORT_COLUMNS)


def rounds_offered_counts(filters: Filters) -> dict:
    """How many rounds the filters select (`rounds`) and how many of them opened without
    an offer (`not_offered`), in one pass over the rounds (the page's summary)."""
    query = rounds_not_offered_query(filters, not_offered_only=False)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*), count(*) FILTER (WHERE NOT b.offered) FROM ({query.sql}) b", query.params
        )
        rounds, not_offered = cursor.fetchone()
    return {"rounds": rounds, "not_offered": not_offered}

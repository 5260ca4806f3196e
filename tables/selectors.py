"""Reads: the table's snapshot, what a client is shown. Writes are in tables/services.py.

The live screens draw from `table_snapshot`: the engine state, the screen hints the engine
derives from it (`view`, rounds/engine/view.py), the drop boxes on the table and a void
waiting for a supervisor. The floor's rows are read in tables/floor.py.
"""

from django.contrib.auth import get_user_model
from django.db import connection

from collections_fees import jackpot
from collections_fees.counts import boxes_now
from collections_fees.models import JackpotMeter
from patrons.awards import withheld_seats
from rounds.engine.table import TableGame
from rounds.engine.view import table_view
from rounds.visibility import snapshot_for

from .models import Approval, ApprovalDecision, Table



def table_snapshot(table: Table, audience: str) -> dict:
    """What a client of `audience` (rounds.visibility) needs to draw the table, with the
    version (event seq) it shows."""
    return snapshot_for(server_snapshot(table), audience)


def server_snapshot(table: Table) -> dict:
    """The whole snapshot, undealt cards and every hole card included: for the server's own
    messages only (the publisher's group message), never sent to a client as it is."""
    return {
        "table": table.pk,
        "name": table.name,
        "version": table.version,
        "game": table.state,
        "view": _view(table.state),
        # The drop boxes on the table now (collections_fees/counts.py), for the tablet's bar.
        "boxes": boxes_now([table])[table.pk],
        "void_request": pending_void(table),
        "last_wagers": last_wagers(table),
    }


def last_wagers(table: Table) -> dict:
    """Each seat's wagers in the table's last round, for the tablet's "Same bets as last
    round" (a tap the dealer makes, never a default): {seat: {"player", "ante", "trips",
    "pairs", "bad_beat", "progressive"}}, only for a seat whose occupant now is the player
    who made them, and only while wagers are taken (between rounds, or betting). One
    indexed query (the round's number is unique per table), otherwise none. The Blind is
    left out (the engine makes it equal to the Ante), and so is the Play (a decision)."""
    state = table.state or {}
    current = state.get("round")
    if current is not None and current.get("phase") != "betting":
        return {}
    last = (state.get("rounds_opened") or 0) - (1 if current is not None else 0)
    occupants = state.get("occupants") or {}
    if last < 1 or not occupants:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_LAST_WAGERS_SQL, (table.pk, last, table.pk, last))
        rows = cursor.fetchall()
    seats: dict[str, dict] = {}
    for seat, player, kind, amount in rows:
        if occupants.get(str(seat)) != player:
            continue
        entry = seats.setdefault(str(seat), {"player": player})
        entry[kind] = True if kind == "progressive" else amount
    return seats


# A round's own wagers placed before the cards (not the backline's) and its progressive contributions, by seat.
_LAST_WAGERS_SQL = """
SELECT w.seat, w.player, w.kind, w.amount FROM rounds_wager w JOIN rounds_round r ON r.id = w.round_id
 WHERE r.table_id = %s AND r.number = %s AND NOT w.backline AND w.kind IN ('ante', 'trips', 'pairs', 'bad_beat')
UNION ALL
SELECT j.seat, j.player, 'progressive', 0 FROM collections_fees_jackpotentry j JOIN rounds_round r ON r.id = j.round_id
 WHERE r.table_id = %s AND r.number = %s AND j.kind = 'contribution' AND j.seat IS NOT NULL
"""


def pending_void(table: Table) -> dict | None:
    """The void asked for the round in progress and not yet decided: part of the table's
    state, so every browser of the table shows it (and none offers to ask again)."""
    current = (table.state.get("round") or {}).get("number")
    if current is None:
        return None
    # Read for every event of a round in progress (the publisher's snapshot): one fixed
    # statement (_PENDING_VOID_SQL) rather than a queryset Django compiled anew each
    # time, which was most of the read's cost (py-spy, docs/scaling.md).
    with connection.cursor() as cursor:
        cursor.execute(_PENDING_VOID_SQL, (table.pk, current))
        row = cursor.fetchone()
    if row is None:
        return None
    approval, username, payload = row
    payload = _PAYLOAD_FIELD.from_db_value(payload, None, connection)  # decoded as the ORM does
    return {"approval": approval, "round": current, "requested_by": username, "reason": payload.get("reason", "")}


def _pending_void_sql() -> str:
    """The oldest undecided void request of a table's round, with who asked: the SQL of
    `Approval.objects.filter(table=, kind="void", round_number=, decision__isnull=True)
    .select_related("requested_by").order_by("pk").first()`, named from the models."""
    qn = connection.ops.quote_name
    approval, decision, user = Approval._meta, ApprovalDecision._meta, get_user_model()._meta

    def col(meta, name):
        return f"{qn(meta.db_table)}.{qn(meta.get_field(name).column)}"

    return (
        f"SELECT {col(approval, 'id')}, {col(user, user.model.USERNAME_FIELD)}, {col(approval, 'payload')} "
        f"FROM {qn(approval.db_table)} JOIN {qn(user.db_table)} ON {col(user, 'id')} = {col(approval, 'requested_by')} "
        f"WHERE {col(approval, 'table')} = %s AND {col(approval, 'kind')} = 'void' AND {col(approval, 'round_number')} = %s "
        f"AND NOT EXISTS (SELECT 1 FROM {qn(decision.db_table)} WHERE {col(decision, 'approval')} = {col(approval, 'id')}) "
        f"ORDER BY {col(approval, 'id')} LIMIT 1"
    )


_PENDING_VOID_SQL = _pending_void_sql()
_PAYLOAD_FIELD = Approval._meta.get_field("payload")


def _view(state: dict) -> dict:
    """The engine's screen hints; at a showdown with a progressive, with the meter's fund
    and the seats whose award the settle will withhold (self-excluded patrons, the same
    lookup as the command service's), so the preview says what the settle will do."""
    fund = _fund_for_preview(state)
    withheld = withheld_seats(TableGame.from_dict(state), "showdown") if fund is not None else []
    return table_view(state, fund=fund, withheld=withheld)


def _fund_for_preview(state: dict):
    """The progressive's meter as it stands, for the showdown's preview of its awards (an
    unlocked read: the preview is redrawn after every command); None when not needed."""
    progressive = ((state.get("config") or {}).get("side_bets") or {}).get("progressive")
    if progressive is None or (state.get("round") or {}).get("phase") != "showdown":
        return None
    meter = JackpotMeter.objects.filter(name=progressive["meter"]["name"]).first()
    return jackpot.fund_of(meter) if meter else None

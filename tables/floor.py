"""Reads: the floor's side. One row per table for the floor dashboard and its alerts
(bank exhausted, tablet gone, approvals waiting, the progressive's meter, the rotation
window, idle tables), read in a fixed number of queries whatever the number of tables.
The table's own snapshot is read in tables/selectors.py.
"""

import json
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from functools import lru_cache
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.utils import timezone

from cardroom import statements
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from collections_fees import jackpot
from collections_fees.counts import boxes_now
from collections_fees.models import CollectionEntry, JackpotMeter
from patrons.awards import withheld_seats
from rounds import labels
from rounds.engine.money import dollars
from rounds.engine.table import TableGame
from rounds.engine.view import bank_now, bank_run, unconfirmed_awards
from rounds.models import Round

from . import presence
from .models import (
    AlertAcknowledgement,
    Approval,
    ApprovalDecision,
    DealerAssignment,
    Table,
    TableEvent,
    TableStatusChange,
    void_request_expired,
)

# A table with players seated and no command for this long is flagged idle on the floor.
IDLE_AFTER = timedelta(minutes=10)


# Every floor screen asks for the whole floor on connect, at its periodic refresh and when
# it falls behind. 40 screens asking at once read the 250 rows 40 times: over a third of a
# Daphne process's time at peak (benchmarks/bench_e2e.py). One read serves every screen of
# the process that asks within WHOLE_FLOOR_MAX_AGE; a client keeps the highest seq per
# table, so a row a moment old never replaces a newer one.
WHOLE_FLOOR_MAX_AGE = 1.0
_whole_floor_lock = threading.Lock()
_whole_floor: tuple[float, list[dict]] = (float("-inf"), [])


def whole_floor() -> list[dict]:
    """Every table's floor row, read at most once per WHOLE_FLOOR_MAX_AGE per process."""
    global _whole_floor
    with _whole_floor_lock:
        read_at, rows = _whole_floor
        if time.monotonic() - read_at > WHOLE_FLOOR_MAX_AGE:
            rows = floor_rows()
            _whole_floor = (time.monotonic(), rows)
        return rows


def forget_whole_floor() -> None:
    """A table changed (this process's publisher saw it): the next screen reads afresh."""
    global _whole_floor
    with _whole_floor_lock:
        _whole_floor = (float("-inf"), [])


def floor_rows(table_ids: list[int] | None = None, *, now: datetime | None = None) -> list[dict]:
    """One row per table for the floor dashboard (all tables when `table_ids` is None).

    A fixed number of queries whatever the number of tables: the coalescer in
    tables/events.py calls this for every table that changed in a window.
    """
    now = now or timezone.now()
    today = calendar().gaming_day(now)
    day_start, _ = calendar().day_bounds(today)
    closed = Round.objects.filter(table=OuterRef("pk")).exclude(status="in_progress").order_by("-number")
    last_event = TableEvent.objects.filter(table=OuterRef("pk"), seq=OuterRef("version"))
    tables = Table.objects.order_by("name", "pk").only("pk", "name", "version", "state", "is_open", "boxes_placed", "retired")
    if table_ids is not None:
        # A table retired meanwhile is still answered for (`retired`): the screens drop it.
        tables = tables.filter(pk__in=table_ids)
    else:
        tables = tables.filter(retired=False)  # a retired table is not on the floor
    tables = list(
        tables.annotate(
            last_command=Subquery(last_event.values("command_type")[:1]),
            last_event_at=Subquery(last_event.values("created_at")[:1]),
            last_round=Subquery(closed.values("number")[:1]),
            last_round_status=Subquery(closed.values("status")[:1]),
            last_round_exhausted=Subquery(closed.values("exhausted")[:1]),
            last_void=Subquery(closed.filter(status="voided").values("void_reason")[:1]),
        )
    )
    ids = [t.pk for t in tables]
    fees = dict(
        CollectionEntry.objects.filter(table_id__in=ids, gaming_day=today)
        .values("table_id")
        .annotate(
            net=Sum("amount", filter=Q(kind="fee"), default=0) - Sum("amount", filter=Q(kind="refund"), default=0)
        )
        .values_list("table_id", "net")
    )
    rounds = {
        r["table_id"]: r
        for r in Round.objects.filter(table_id__in=ids)
        .values("table_id")
        .annotate(
            last_hour=Count("pk", filter=Q(status="settled", closed_at__gte=now - timedelta(hours=1))),
            voids_today=Count("pk", filter=Q(status="voided", closed_at__gte=day_start)),
        )
    }
    # A tablet is missed only where one connected during this shift and is gone now.
    tablets, tablets_this_shift, failing = presence.floor_marks(ids)
    # A tablet is missed only where a dealer is assigned now (the assignments can_drive reads).
    staffed = set(
        DealerAssignment.objects.filter(
            table_id__in=ids, gaming_day=today, shift=calendar().shift(now), ended_at__isnull=True
        ).values_list("table_id", flat=True)
    )
    # The last time a supervisor opened, closed or retired each table: who, when, why.
    status = {
        change["table_id"]: {"action": change["action"], "by": change["by"], "at": change["at"].isoformat(),
                             "reason": change["reason"]}
        for change in TableStatusChange.objects.filter(table_id__in=ids)
        .order_by("table_id", "-at", "-id").distinct("table_id")
        .values("table_id", "action", "by", "at", "reason")
    }
    acks = {}
    for ack in AlertAcknowledgement.objects.filter(table_id__in=ids, acknowledged_at__gte=day_start).values(
        "table_id", "kind", "ref", "acknowledged_by__username", "acknowledged_at"
    ):
        acks[(ack["table_id"], ack["kind"], ack["ref"])] = {
            "by": ack["acknowledged_by__username"], "at": ack["acknowledged_at"].isoformat()
        }
    boxes = boxes_now(tables, now)
    # A requester held back from typing supervisors' credentials (tables.approvals.tablet_login):
    # the table of the day's last such lockout, until the gaming day ends.
    logins_locked = {
        entry["table_id"]: entry
        for entry in AuditEntry.objects.filter(
            action="login_failed", table_id__in=ids, at__gte=day_start, detail__locked=True
        ).order_by("table_id", "-at", "-id").distinct("table_id").values("id", "table_id", "at", "detail")
    }
    waiting = {}
    for request in Approval.objects.filter(table_id__in=ids, decision__isnull=True).values("table_id", "kind", "round_number"):
        waiting.setdefault(request["table_id"], []).append(request)
    meter_names = {_meter_name(t.state) for t in tables} - {None}
    meters = {m.name: m for m in JackpotMeter.objects.filter(name__in=meter_names)} if meter_names else {}
    rows = [
        _floor_row(
            t, now, fees.get(t.pk, 0), rounds.get(t.pk, {}), tablets[t.pk], failing.get(t.pk), waiting.get(t.pk, []),
            meters.get(_meter_name(t.state)),
            boxes[t.pk], t.pk in staffed, logins_locked.get(t.pk), t.pk in tablets_this_shift,
        )
        for t in tables
    ]
    for row, t in zip(rows, tables):
        _finish(row, status.get(t.pk), t.retired, acks)
    return rows


def _finish(row: dict, status_change: dict | None, retired: bool, acks: dict) -> None:
    """What a row shows of the supervisors' side: the last status change, whether the table
    is retired, and each alert's acknowledgement, if any (by table, kind and ref)."""
    row["status_change"] = status_change
    row["retired"] = retired
    for alert in row["alerts"]:
        alert["ack"] = acks.get((row["table"], alert["kind"], alert["ref"]))


# --- the row from what a command holds (the publisher's window) ---------------------------
#
# A floor row is the table's game and row (what the command that changed it holds at commit)
# and what happens around the table, which no command knows: fees today, rounds in the
# sliding hour, voids today, the last closed round, the tablet's presence, the dealer
# assigned now, the last status change, acknowledgements, the supervisor-login lockout,
# approvals waiting and the progressive's meter (which other tables move). The publisher's
# window builds each command-changed table's row from the command's facts and reads the
# rest in one fixed statement (docs/scaling.md, "The floor's row"); floor_rows above reads
# everything, for a screen's whole floor and for a table no command of this process told of.


@dataclass(frozen=True)
class CommandFacts:
    """What an accepted command knows of its table's floor row once committed: the game it
    left (and its stored form), the version and configuration version it wrote them at, and
    its event's type and time. Only the game is kept from the command: the row's other
    columns (name, open, boxes, retired) are read with the rest, so a supervisor's change
    after the command is never hidden by it."""

    table: int
    version: int
    config_id: int | None
    event_head: str  # the event chain's head it wrote: no other command's (a rolled-back one's never stored)
    game: TableGame
    state: dict
    last_command: str
    last_event_at: datetime

    @classmethod
    def of(cls, table, game: TableGame, event) -> "CommandFacts":
        # In UTC, as the database gives the event's time back (a replay's `at` may carry its
        # own offset): the idle alert's ref is this time's text.
        return cls(table.pk, table.version, table.config_id, table.event_head, game, table.state, event.command_type,
                   event.created_at.astimezone(dt_timezone.utc))

    def describes(self, version: int, config_id: int | None, event_head: str) -> bool:
        """Whether the table row, as read, is the one this command wrote (and nothing has
        changed its game since: a configuration change writes a new configuration version)."""
        return (self.version, self.config_id, self.event_head) == (version, config_id, event_head)


@dataclass(frozen=True)
class _Meter:
    """The meter's columns a floor row shows (name, meter, reserve, owed)."""

    name: str
    meter: int
    reserve: int
    owed: int


def rows_from_facts(known: dict, now: datetime | None = None, *, later=None) -> tuple[list[dict], list[int]]:
    """The floor rows of the tables in `known` ({table id: CommandFacts, or a list of them:
    the last few commands' of this process}), each from the facts of the command that wrote
    the row as it is now, and one fixed statement for what no command knows
    (`_around_sql`), plus the presence marks in one cache read. Returns the rows, and the
    tables none of whose facts describe the row (another process's later command, a
    configuration change, a command whose commit failed), which the caller reads whole
    (floor_rows). `later(ids)`, if given, is asked after the read for the facts known then
    (the publisher's: a command of this process that committed while the window was on its
    way handed its facts over before its commit, so the row read has its facts)."""
    if not known:
        return [], []
    now = now or timezone.now()
    cal = calendar()
    today = cal.gaming_day(now)
    day_start, _ = cal.day_bounds(today)
    ids = sorted(known)
    candidates = {t: known[t] if isinstance(known[t], (list, tuple)) else [known[t]] for t in ids}
    # The meter the newest facts name (a rule set's change may name another: then read whole).
    meter_names = {t: _meter_name(max(candidates[t], key=lambda f: f.version).state) for t in ids}
    cursor = statements.cursor()
    # In the order of the statement's placeholders.
    cursor.execute(_around_sql(), (today, now - timedelta(hours=1), day_start, today, cal.shift(now),
                                   ids, [meter_names[t] for t in ids], day_start, day_start))
    found = cursor.fetchall()
    if later is not None:
        for t, more in later(ids).items():
            candidates[t] = [*candidates[t], *(more if isinstance(more, (list, tuple)) else [more])]
    tablets, tablets_this_shift, failing = presence.floor_marks(ids)
    rows, stale = [], set(ids)
    for (pk, name, version, config_id, event_head, is_open, boxes_placed, retired, last_round, last_round_status,
         last_round_exhausted, last_void, fees, last_hour, voids_today, staffed, status_action, status_by, status_at,
         status_reason, locked_id, locked_at, locked_detail, waiting_kinds, waiting_rounds, ack_kinds, ack_refs,
         ack_by, ack_at, meter_name, meter, reserve, owed) in found:
        facts = next((f for f in candidates[pk] if f.describes(version, config_id, event_head)), None)
        if facts is None or _meter_name(facts.state) != meter_names[pk]:
            continue  # not a game this process holds: read whole
        stale.discard(pk)
        table = SimpleNamespace(
            pk=pk, name=name, version=version, is_open=is_open, retired=retired,
            boxes_placed=_json(boxes_placed), last_command=facts.last_command, last_event_at=facts.last_event_at,
            last_round=last_round, last_round_status=last_round_status, last_round_exhausted=last_round_exhausted,
            last_void=last_void,
        )
        login_locked = ({"id": locked_id, "table_id": pk, "at": locked_at, "detail": _json(locked_detail)}
                        if locked_id is not None else None)
        approvals = [{"table_id": pk, "kind": kind, "round_number": number}
                     for kind, number in zip(waiting_kinds or (), waiting_rounds or ())]
        row = _floor_row(
            table, now, fees, {"last_hour": last_hour, "voids_today": voids_today}, tablets[pk], failing.get(pk),
            approvals, _Meter(meter_name, meter, reserve, owed) if meter_name is not None else None,
            boxes_now([table], now)[pk], staffed, login_locked, pk in tablets_this_shift, game=facts.game,
        )
        status = ({"action": status_action, "by": status_by, "at": status_at.isoformat(), "reason": status_reason}
                  if status_action is not None else None)
        acks = {(pk, kind, ref): {"by": by, "at": at.isoformat()}
                for kind, ref, by, at in zip(ack_kinds or (), ack_refs or (), ack_by or (), ack_at or ())}
        _finish(row, status, retired, acks)
        rows.append(row)
    return rows, sorted(stale)


def window_rows(table_ids: list[int], known: dict, now: datetime | None = None, *, later=None) -> list[dict]:
    """The publisher's window: the floor rows of `table_ids`, built from the facts in
    `known` ({table id: CommandFacts or a list of them}; `later`: see rows_from_facts) where
    they describe the row, the others read whole; in floor_rows's order (by name) when both
    kinds are sent."""
    now = now or timezone.now()
    rows, stale = rows_from_facts({t: known[t] for t in table_ids if t in known}, now, later=later)
    whole = [t for t in table_ids if t not in known] + stale
    if not rows:
        return floor_rows(whole, now=now)
    if whole:
        rows += floor_rows(whole, now=now)
    return sorted(rows, key=lambda row: (row["name"], row["table"]))


def _json(value):
    """A JSON column as Django's JSONField gives it (this backend hands jsonb over as text)."""
    return json.loads(value) if isinstance(value, str) else value


@lru_cache(maxsize=None)
def _around_sql() -> str:
    """What no command knows of its table's floor row, for any number of tables in one
    statement: the table row's own columns but its game, the last closed round and the last
    void's reason, fees today, rounds settled in the last hour, voids today, a dealer
    assigned now, the last status change, the day's last supervisor-login lockout, the
    approvals waiting, today's acknowledgements and the meter the table names. Each part is
    the query floor_rows makes for it (tests/service/test_floor_from_facts.py holds the
    rows equal)."""
    q, c = statements.table, statements.column
    user = get_user_model()
    ack, decision = AlertAcknowledgement, ApprovalDecision
    return f"""
SELECT t.{c(Table, 'id')}, t.{c(Table, 'name')}, t.{c(Table, 'version')}, t.{c(Table, 'config')}, t.{c(Table, 'event_head')},
       t.{c(Table, 'is_open')}, t.{c(Table, 'boxes_placed')}, t.{c(Table, 'retired')},
       closed.number, closed.status, closed.exhausted,
       (SELECT v.{c(Round, 'void_reason')} FROM {q(Round)} v
         WHERE v.{c(Round, 'table')} = t.{c(Table, 'id')} AND v.{c(Round, 'status')} = 'voided'
         ORDER BY v.{c(Round, 'number')} DESC LIMIT 1),
       (SELECT (COALESCE(SUM(f.{c(CollectionEntry, 'amount')}) FILTER (WHERE f.{c(CollectionEntry, 'kind')} = 'fee'), 0)
              - COALESCE(SUM(f.{c(CollectionEntry, 'amount')}) FILTER (WHERE f.{c(CollectionEntry, 'kind')} = 'refund'), 0))::bigint
          FROM {q(CollectionEntry)} f
         WHERE f.{c(CollectionEntry, 'table')} = t.{c(Table, 'id')} AND f.{c(CollectionEntry, 'gaming_day')} = %s),
       (SELECT count(*) FROM {q(Round)} r WHERE r.{c(Round, 'table')} = t.{c(Table, 'id')}
           AND r.{c(Round, 'status')} = 'settled' AND r.{c(Round, 'closed_at')} >= %s),
       (SELECT count(*) FROM {q(Round)} r WHERE r.{c(Round, 'table')} = t.{c(Table, 'id')}
           AND r.{c(Round, 'status')} = 'voided' AND r.{c(Round, 'closed_at')} >= %s),
       EXISTS (SELECT 1 FROM {q(DealerAssignment)} a WHERE a.{c(DealerAssignment, 'table')} = t.{c(Table, 'id')}
           AND a.{c(DealerAssignment, 'gaming_day')} = %s AND a.{c(DealerAssignment, 'shift')} = %s
           AND a.{c(DealerAssignment, 'ended_at')} IS NULL),
       status.{c(TableStatusChange, 'action')}, status.{c(TableStatusChange, 'by')}, status.{c(TableStatusChange, 'at')},
       status.{c(TableStatusChange, 'reason')},
       locked.{c(AuditEntry, 'id')}, locked.{c(AuditEntry, 'at')}, locked.{c(AuditEntry, 'detail')},
       waiting.kinds, waiting.rounds, acks.kinds, acks.refs, acks.names, acks.times,
       m.{c(JackpotMeter, 'name')}, m.{c(JackpotMeter, 'meter')}, m.{c(JackpotMeter, 'reserve')}, m.{c(JackpotMeter, 'owed')}
  FROM unnest(%s::bigint[], %s::text[]) AS k(id, meter)
  JOIN {q(Table)} t ON t.{c(Table, 'id')} = k.id
  LEFT JOIN {q(JackpotMeter)} m ON m.{c(JackpotMeter, 'name')} = k.meter
  LEFT JOIN LATERAL (
       SELECT r.{c(Round, 'number')} AS number, r.{c(Round, 'status')} AS status, r.{c(Round, 'exhausted')} AS exhausted
         FROM {q(Round)} r WHERE r.{c(Round, 'table')} = t.{c(Table, 'id')} AND r.{c(Round, 'status')} <> 'in_progress'
        ORDER BY r.{c(Round, 'number')} DESC LIMIT 1) closed ON true
  LEFT JOIN LATERAL (
       SELECT * FROM {q(TableStatusChange)} s WHERE s.{c(TableStatusChange, 'table')} = t.{c(Table, 'id')}
        ORDER BY s.{c(TableStatusChange, 'at')} DESC, s.{c(TableStatusChange, 'id')} DESC LIMIT 1) status ON true
  LEFT JOIN LATERAL (
       SELECT * FROM {q(AuditEntry)} e
        WHERE e.{c(AuditEntry, 'action')} = 'login_failed' AND e.{c(AuditEntry, 'table_id')} = t.{c(Table, 'id')}
          AND e.{c(AuditEntry, 'at')} >= %s AND (e.{c(AuditEntry, 'detail')} -> 'locked') = 'true'::jsonb
        ORDER BY e.{c(AuditEntry, 'at')} DESC, e.{c(AuditEntry, 'id')} DESC LIMIT 1) locked ON true
  LEFT JOIN LATERAL (
       SELECT array_agg(p.{c(Approval, 'kind')} ORDER BY p.{c(Approval, 'id')}) AS kinds,
              array_agg(p.{c(Approval, 'round_number')} ORDER BY p.{c(Approval, 'id')}) AS rounds
         FROM {q(Approval)} p
        WHERE p.{c(Approval, 'table')} = t.{c(Table, 'id')}
          AND NOT EXISTS (SELECT 1 FROM {q(decision)} d WHERE d.{c(decision, 'approval')} = p.{c(Approval, 'id')})) waiting ON true
  LEFT JOIN LATERAL (
       SELECT array_agg(a.{c(ack, 'kind')} ORDER BY a.{c(ack, 'id')}) AS kinds,
              array_agg(a.{c(ack, 'ref')} ORDER BY a.{c(ack, 'id')}) AS refs,
              array_agg(u.{c(user, user.USERNAME_FIELD)} ORDER BY a.{c(ack, 'id')}) AS names,
              array_agg(a.{c(ack, 'acknowledged_at')} ORDER BY a.{c(ack, 'id')}) AS times
         FROM {q(ack)} a JOIN {q(user)} u ON u.{c(user, 'id')} = a.{c(ack, 'acknowledged_by')}
        WHERE a.{c(ack, 'table')} = t.{c(Table, 'id')} AND a.{c(ack, 'acknowledged_at')} >= %s) acks ON true
"""


def _alert_refs(alerts: list[dict], seq: int, last_event_at) -> list[dict]:
    """Each alert's identity (its `ref`), by which an acknowledgement names it: its text
    where the text tells one occurrence from the next (a round number, a count), else the
    table's version while it stands (a tablet gone again later is a new alert; a failing
    tablet's growing count of retries is not)."""
    for alert in alerts:
        if "ref" in alert:
            continue  # named already
        if alert["kind"] in (
            "tablet_disconnected", "commands_failing", "stopped", "offer_pending", "game_ended", "window_warning", "meter_below_seed",
        ):
            alert["ref"] = f"{alert['kind']} @ {seq}"
        elif alert["kind"] == "idle":
            alert["ref"] = f"idle since {last_event_at.isoformat()}"
        else:
            alert["ref"] = alert["text"]
    return alerts


def floor_state(is_open: bool, game: TableGame) -> str:
    """The table's state as the floor colours it."""
    if not is_open:
        return "closed"
    if game.round is not None:
        return "dealing"
    if game.rotation.stopped or (game.policy is not None and game.clock.ended):
        return "stopped"
    if game.rotation.pd_seat is None:
        return "no_player_dealer"
    return "waiting"


def _meter_name(state: dict) -> str | None:
    """The progressive meter a table's configuration names, if any."""
    progressive = ((state.get("config") or {}).get("side_bets") or {}).get("progressive")
    return progressive["meter"]["name"] if progressive else None


def _meter_alerts(game: TableGame, meter, preview: dict | None) -> list[dict]:
    """A percentage award waiting for a supervisor, a meter below its seed (a reseed the
    reserve could not cover), and awards the fund could not pay (game-rules 10.3)."""
    alerts = []
    for award in unconfirmed_awards(game, preview):
        alerts.append({"kind": "award_unconfirmed", "seat": award["seat"],
                       "text": f"Progressive award at seat {award['seat']} waits for a supervisor's confirmation",
                       # What the supervisor confirms, read before the one tap that pays it.
                       "award": _award_facts(game, award)})
    if meter is None:
        return alerts
    seed = game.config.side_bets.progressive.seed
    if meter.meter < seed:
        alerts.append({"kind": "meter_below_seed", "text": f"Meter {meter.name} below its seed ({dollars(meter.meter)}, seed {dollars(seed)})"})
    if meter.owed:
        alerts.append({"kind": "award_owed", "text": f"Meter {meter.name}: {dollars(meter.owed)} of awards owed to players"})
    return alerts


def _award_facts(game: TableGame, award: dict) -> dict:
    """Seat, person, hand, cards and amount of a percentage award waiting for a supervisor."""
    rnd = game.round
    entry = rnd.seats.get(award["seat"])
    return {
        "seat": award["seat"],
        "player": entry.player if entry else "",
        "hand": labels.PROGRESSIVE.get(award["hand"], award["hand"]),
        "hole": list(entry.hole or ()) if entry else [],
        "board": [*rnd.community, *rnd.pending_community],
        "amount": award["award"],
        "meter": game.config.side_bets.progressive.meter,
    }


def _login_locked_alert(entry: dict) -> dict:
    """A person's failures typing supervisors' credentials reached a limit at this table
    (the audit row that reached it): who, how many, when. Never the name typed: a
    supervisor may have typed their password into it."""
    detail = entry["detail"]
    at = timezone.localtime(entry["at"]).strftime("%H:%M")
    return {
        "kind": "tablet_login_locked",
        "ref": f"tablet_login_locked @ audit {entry['id']}",
        "text": f"Supervisor logins on the tablet held back for {detail.get('requester_name', '?')}: "
                f"{detail.get('failures', '?')} failed at {at}",
    }


def _approval_alerts(requests: list[dict], rnd) -> list[dict]:
    """Requests waiting for a supervisor; a void whose round has ended meanwhile is expired
    (tables.models.approval_status), to be dismissed, not approved."""
    current = rnd.number if rnd else None
    expired = sum(1 for r in requests if void_request_expired(r["kind"], r["round_number"], current))
    alerts = []
    if len(requests) > expired:
        n = len(requests) - expired
        alerts.append({"kind": "approval_pending", "text": f"{n} approval{'s' if n > 1 else ''} waiting", "count": n})
    if expired:
        alerts.append({"kind": "approval_expired", "text": f"{expired} expired request{'s' if expired > 1 else ''} to dismiss", "count": expired})
    return alerts


def _floor_row(
    table, now, fees_today, rounds, tablets, failing=None, approvals=(), meter=None, boxes=None, staffed=True,
    login_locked=None, tablet_this_shift=False, game=None,
) -> dict:
    # The floor needs three facts of the table view, not the view itself (every seat, the
    # next step, the card picker): about half the cost of a row outside the showdown.
    # `game`: the table's game as a command left it (CommandFacts), else read from the row.
    game = game if game is not None else TableGame.from_dict(table.state)
    rot, rnd = game.rotation, game.round
    fund = jackpot.fund_of(meter) if meter is not None and game.phase == "showdown" else None
    # The preview withholds what the settle will (a self-excluded patron's award).
    withheld = withheld_seats(game, "showdown") if fund is not None else []
    preview, bank_left = bank_now(game, fund, withheld)
    is_open = table.is_open
    alerts = []
    if table.last_round_status == "settled" and table.last_round_exhausted:
        alerts.append({"kind": "bank_exhausted", "text": f"Bank exhausted in round {table.last_round}"})
    if rot.stopped:
        alerts.append({"kind": "stopped", "text": "Game stopped: no player-dealer"})
    if rot.offer_seat is not None:
        alerts.append({"kind": "offer_pending", "text": f"Bank offered to seat {rot.offer_seat}"})
    if rounds.get("voids_today"):
        alerts.append({"kind": "void", "text": f"{rounds['voids_today']} void(s) today, last: {table.last_void}"})
    # A missing tablet matters where a game is on (an open table with players or a round),
    # a dealer is assigned now, and the table's tablet connected during this shift and is
    # gone: at a table nobody is to drive, or nobody has dealt yet, no tablet is missed.
    if is_open and staffed and tablet_this_shift and not tablets and (game.occupants or rnd):
        alerts.append({"kind": "tablet_disconnected", "text": "Tablet disconnected"})
    if failing:
        alerts.append(
            {"kind": "commands_failing", "text": f"Tablet commands failing: {failing['count']} server error(s), tablet retrying"}
        )
    alerts += _approval_alerts(list(approvals), rnd)
    if login_locked:
        alerts.append(_login_locked_alert(login_locked))
    if game.config.side_bets.progressive is not None:
        alerts += _meter_alerts(game, meter, preview)
    window = _window(game, now)
    if window and window["state"] == "ended":
        alerts.append({"kind": "game_ended", "text": "Game ended by the rotation window: a supervisor starts a new game"})
    elif window and window["state"] == "warning":
        minutes = max(0, int((window["deadline_at"] - now).total_seconds() // 60))
        alerts.append({"kind": "window_warning", "text": f"Rotation window: game ends in {minutes} min unless another player banks"})
    last_at = table.last_event_at
    if is_open and last_at is not None and now - last_at >= IDLE_AFTER:
        alerts.append({"kind": "idle", "text": f"Idle for {int((now - last_at).total_seconds() // 60)} min"})
    return {
        "table": table.pk,
        "name": table.name,
        "seq": table.version,
        "open": is_open,
        "street": game.phase,
        "round": rnd.number if rnd else None,
        "player_dealer": (
            {"seat": rot.pd_seat, "player": rot.pd_player, "consecutive_banks": rot.pd_streak,
             "bank_run": bank_run(game)}
            if rot.pd_seat is not None
            else None
        ),
        "bank": rnd.bank if rnd else None,
        "bank_left": bank_left,
        "seated": len(game.occupants),
        "seats": game.config.seats,
        "rounds_per_hour": rounds.get("last_hour", 0),
        "fees_today": fees_today,
        "last_command": table.last_command,
        "last_event_at": last_at.isoformat() if last_at else None,
        "tablets": tablets,
        "state": floor_state(is_open, game),
        "alerts": _alert_refs(alerts, table.version, last_at),
        "meter": {"name": meter.name, "meter": meter.meter, "reserve": meter.reserve} if meter else None,
        "boxes": boxes or {"fees": None, "jackpot": None},  # the drop boxes on the table now
        "tppp": {"seat": game.tppp.seat, "badge": game.tppp.badge} if game.tppp else None,
        # Only the TPPP sits: no game a player can join (the lobby board counts it apart).
        "props_only": game.props_only,
        "backlines": _floor_backlines(rnd),
        "window": {k: v for k, v in window.items() if k != "deadline_at"} if window else None,
    }


def _floor_backlines(rnd) -> list[dict]:
    """The backline wagers of the round in play, seat by seat: how many a seat carries and
    each one's amounts, never a bettor's id (the floor sees the table's action, not who
    stands behind a seat)."""
    if rnd is None:
        return []
    seats = sorted({b.seat for b in rnd.backlines})
    return [
        {
            "seat": seat,
            "count": len(rnd.behind(seat)),
            "wagers": [{"ante": b.ante, "blind": b.blind, "trips": b.trips, "play": b.play} for b in rnd.behind(seat)],
        }
        for seat in seats
    ]


def _window(game: TableGame, now: datetime) -> dict | None:
    """Under the rotation policy, the window rule's clock for the floor (game-rules 2A.4):
    when it would end the game unless another player banks, from when the floor warns
    (CARDROOM_WINDOW_WARNING_MINUTES ahead), and the state now: ok, warning or ended."""
    if game.policy is None:
        return None
    if game.clock.ended:
        return {"state": "ended", "deadline": None, "warn_from": None, "deadline_at": None}
    deadline = game.window_deadline()
    if deadline is None:
        return {"state": "ok", "deadline": None, "warn_from": None, "deadline_at": None}
    warn_from = deadline - timedelta(minutes=settings.CARDROOM_WINDOW_WARNING_MINUTES)
    return {
        "state": "warning" if now >= warn_from else "ok",
        "deadline": deadline.isoformat(),
        "warn_from": warn_from.isoformat(),
        "deadline_at": deadline,
    }

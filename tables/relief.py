"""Dealer relief rotation: a shift's plan of pushes, and the hand-over at each push.

A supervisor plans the shift's dealers across tables (`relief_plan_make`): every
CARDROOM_RELIEF_MINUTES (the house's setting) each dealer is pushed on to the next table,
the one at the last table to a break, the one back from a break to the first table. The
plan is kept as rows (ReliefPlan, ReliefPush; append-only: a new plan replaces the
shift's old one by being newer).

A push happens when the incoming dealer takes over the table's tablet with their own
login (`handover_take`). That is refused while a round is in progress: the outgoing
dealer finishes it (settled or voided) first. The take-over ends the other dealers' live
DealerAssignment rows for the table and makes the incoming dealer's, so `can_drive`
(cardroom/access.py), which the command service asks inside its transaction after locking
the table row, refuses the outgoing dealer's next command: the hand-over holds the same
lock, so no command slips between them, and nothing depends on Redis. Each hand-over is
a DealerHandover row (append-only) and an audit entry.

The floor reads `relief_board`: the next pushes ("14:20 ana → UTH-3, ben → break") and
who is late (an incoming dealer who has not taken over CARDROOM_RELIEF_LATE_MINUTES after
the push). Open floor screens are sent it live (`board_message`, through tables.events):
when a plan is made, at a take-over, and when a screen asks at the moment the board
changes by the clock alone (`changes_at`: a push time passing, a dealer turning late).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from cardroom import locks
from cardroom.access import SYSTEM, Actor
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from rounds.engine.errors import CodedError

from . import events, standing
from .models import DealerAssignment, DealerHandover, ReliefPlan, ReliefPush, Table

BREAK = "break"
# How many push times the floor shows ahead.
BOARD_PUSHES = 2


class ReliefError(CodedError):
    """A refused plan or take-over; nothing was recorded."""

    codes = frozenset({
        "invalid_command",  # malformed input: no dealers, a repeated one, a start outside any shift
        "not_authorized",  # a plan is a supervisor's; a take-over a dealer's own
        "not_a_dealer",
        "no_such_table",
        "not_enough_dealers",  # fewer dealers than tables: a table would stand without one
        "not_your_push",  # the dealer's push now (or within the early window) is not to this table
        "already_driving",
        "round_in_progress",  # the outgoing dealer finishes the round first
    })


def relief_minutes() -> int:
    return settings.CARDROOM_RELIEF_MINUTES


# --- the plan -------------------------------------------------------------------------

def rotation(dealers: list, tables: list, starts_at: datetime, ends_at: datetime, minutes: int) -> list[tuple]:
    """The pushes (at, dealer, table or None for a break) of `dealers` over `tables`, one
    every `minutes` from `starts_at` until `ends_at`. Positions are the tables in order,
    then one break per dealer beyond the tables; at each push every dealer moves on one
    position. A dealer is pushed only when their position changes."""
    positions = list(tables) + [None] * (len(dealers) - len(tables))
    pushes, where, at, step = [], {}, starts_at, 0
    while at < ends_at:
        for i, dealer in enumerate(dealers):
            to = positions[(i + step) % len(positions)]
            if dealer not in where or where[dealer] != to:
                pushes.append((at, dealer, to))
            where[dealer] = to
        step += 1
        at += timedelta(minutes=minutes)
    return pushes


def _ids(values, what: str) -> list[int]:
    try:
        ids = [int(v) for v in values]
    except (TypeError, ValueError):
        raise ReliefError("invalid_command", f"{what} are given by id") from None
    if not ids:
        raise ReliefError("invalid_command", f"choose at least one of the {what}")
    if len(set(ids)) != len(ids):
        raise ReliefError("invalid_command", f"each of the {what} once")
    return ids


def relief_plan_make(*, dealers, tables, starts_at: datetime, actor: Actor) -> ReliefPlan:
    """Plan the shift of `starts_at` (its gaming day and shift): `dealers` (ids, in their
    rotation order) across `tables` (ids, in push order), a push every relief_minutes()
    from `starts_at` to the shift's end. The newest plan of a shift is in force."""
    if actor.role not in ("supervisor", SYSTEM):
        raise ReliefError("not_authorized", "a supervisor plans the dealers' reliefs")
    dealer_ids, table_ids = _ids(dealers, "dealers"), _ids(tables, "tables")
    if not isinstance(starts_at, datetime) or timezone.is_naive(starts_at):
        raise ReliefError("invalid_command", "the first push needs a date and time with its zone")
    people = get_user_model().objects.in_bulk(dealer_ids)
    found = set(get_user_model().objects.filter(pk__in=dealer_ids, groups__name="dealer").values_list("pk", flat=True))
    missing = [str(d) for d in dealer_ids if d not in found]
    if missing:
        raise ReliefError("not_a_dealer", f"not a dealer: {', '.join(missing)}")
    found_tables = Table.objects.filter(pk__in=table_ids, retired=False).in_bulk()
    if len(found_tables) != len(table_ids):
        raise ReliefError("no_such_table", "every table is one in service (not retired)")
    if len(dealer_ids) < len(table_ids):
        raise ReliefError("not_enough_dealers",
                          f"{len(dealer_ids)} dealers for {len(table_ids)} tables: every table needs a dealer")
    cal, now = calendar(), timezone.now()
    day, shift = cal.gaming_day(starts_at), cal.shift(starts_at)
    _, shift_end = cal.shift_bounds(day, shift)
    if shift_end <= now:
        raise ReliefError("invalid_command", "that shift is over")
    minutes = relief_minutes()
    with transaction.atomic():
        plan = ReliefPlan.objects.create(gaming_day=day, shift=shift, starts_at=starts_at, relief_minutes=minutes,
                                         made_by_id=actor.user_id, made_at=now)
        ReliefPush.objects.bulk_create(
            ReliefPush(plan=plan, at=at, dealer_id=dealer, table_id=table)
            for at, dealer, table in rotation(dealer_ids, table_ids, starts_at, shift_end, minutes)
        )
        names = ", ".join(people[d].get_username() for d in dealer_ids)
        audit_record(
            actor=actor, action="assignment",
            summary=f"relief plan for {day} {shift}: {names} across {len(table_ids)} tables every {minutes} min"[:200],
            detail={"plan": plan.pk, "dealers": dealer_ids, "tables": table_ids, "starts_at": starts_at.isoformat()},
        )
        events.relief_changed_on_commit(board_message)
    return plan


def plan_in_force(day, shift) -> ReliefPlan | None:
    return ReliefPlan.objects.filter(gaming_day=day, shift=shift).order_by("-made_at", "-id").first()


def _pushes_now(now: datetime):
    cal = calendar()
    plan = plan_in_force(cal.gaming_day(now), cal.shift(now))
    return ReliefPush.objects.filter(plan=plan).select_related("dealer", "table") if plan else ReliefPush.objects.none()


def due_push(user_id: int, now: datetime) -> ReliefPush | None:
    """The dealer's push in force now: their latest one at or before now plus the early
    window (a dealer may take over a few minutes before the push time)."""
    early = now + timedelta(minutes=settings.CARDROOM_RELIEF_EARLY_MINUTES)
    return _pushes_now(now).filter(dealer_id=user_id, at__lte=early).order_by("-at", "-id").first()


# --- the hand-over ----------------------------------------------------------------------

def handover_take(*, table_id, actor: Actor) -> DealerHandover:
    """The incoming dealer (`actor`, their own login) takes over the table at their push.
    Refused while a round is in progress, and to anyone whose push now is not to this table."""
    if actor.role != "dealer" or actor.user_id is None:
        raise ReliefError("not_authorized", "a dealer takes over a table with their own login")
    try:
        table_id = int(table_id)
    except (TypeError, ValueError):
        raise ReliefError("no_such_table", "no such table") from None
    cal = calendar()
    with transaction.atomic():
        try:
            # The lock every command holds (tables/services.py): a command is either before
            # the hand-over (the outgoing dealer's, allowed) or after it (refused to them).
            table = locks.table(table_id)
        except Table.DoesNotExist:
            raise ReliefError("no_such_table", "no such table") from None
        now = timezone.now()
        day, shift = cal.gaming_day(now), cal.shift(now)
        push = due_push(actor.user_id, now)
        if push is None or push.table_id != table.pk:
            where = "no push yet" if push is None else f"your push is to {push.table.name if push.table else BREAK}"
            raise ReliefError("not_your_push", f"{table.name} is not your table now ({where})")
        live = DealerAssignment.objects.filter(table=table, gaming_day=day, shift=shift, ended_at__isnull=True)
        if live.filter(dealer_id=actor.user_id).exists() and not live.exclude(dealer_id=actor.user_id).exists():
            raise ReliefError("already_driving", f"you already drive {table.name}")
        if table.state.get("round") is not None:
            raise ReliefError("round_in_progress",
                              f"a round is in progress at {table.name}: the dealer there finishes it first")
        outgoing = live.exclude(dealer_id=actor.user_id).order_by("-assigned_at", "-id").first()
        ended = list(live.exclude(dealer_id=actor.user_id).values_list("dealer_id", flat=True))
        live.exclude(dealer_id=actor.user_id).update(ended_at=now)
        # A queryset update sends no post_save: the outgoing dealers' standing is announced
        # here, so once committed their table sockets check again and close (4403) at once,
        # not at their next command or periodic check (tables.standing). Their refusal
        # itself never waits for this: can_drive reads the assignments in the transaction.
        standing.changed(ended)
        DealerAssignment.objects.get_or_create(
            dealer_id=actor.user_id, table=table, gaming_day=day, shift=shift, ended_at=None,
            defaults={"assigned_by_id": push.plan.made_by_id, "assigned_at": now},
        )
        rounds = int(table.state.get("rounds_opened") or 0)
        handover = DealerHandover.objects.create(
            table=table, gaming_day=day, shift=shift, push=push, incoming_id=actor.user_id,
            outgoing_id=outgoing.dealer_id if outgoing else None, after_round=rounds, table_version=table.version,
            session=actor.recorded_session, address=actor.address, at=now,
        )
        was = f" from {outgoing.dealer.get_username()}" if outgoing else ""
        audit_record(
            actor=actor, action="assignment", table_id=table.pk,
            summary=f"{actor.name} took over {table.name}{was} after round {rounds}"[:200],
            detail={"handover": handover.pk, "push": push.pk, "after_round": rounds, "seq": table.version,
                    "outgoing": outgoing.dealer_id if outgoing else None},
        )
        # The floor's tile follows once committed (through the channel layer; the refusal
        # of the outgoing dealer does not wait for it).
        events.floor_row_changed_on_commit(table.pk)
        events.relief_changed_on_commit(board_message)
    return handover


# --- the floor --------------------------------------------------------------------------

@dataclass(frozen=True)
class Late:
    dealer: str
    table: str
    at: datetime
    minutes: int


def relief_board(now: datetime | None = None) -> dict:
    """The floor's relief panel: the next push times with their moves, the incoming
    dealers who are late, and the shift's hand-overs (newest first)."""
    now = now or timezone.now()
    cal = calendar()
    day, shift = cal.gaming_day(now), cal.shift(now)
    pushes = list(_pushes_now(now))
    upcoming: dict[datetime, list[dict]] = {}
    for push in pushes:
        if push.at > now and (push.at in upcoming or len(upcoming) < BOARD_PUSHES):
            upcoming.setdefault(push.at, []).append(
                {"dealer": push.dealer.get_username(), "to": push.table.name if push.table else BREAK})
    live = set(DealerAssignment.objects.filter(gaming_day=day, shift=shift, ended_at__isnull=True)
               .values_list("dealer_id", "table_id"))
    latest: dict[int, ReliefPush] = {}
    for push in pushes:
        if push.at <= now:
            latest[push.dealer_id] = push  # ordered by time: the last one wins
    grace = timedelta(minutes=settings.CARDROOM_RELIEF_LATE_MINUTES)
    late = [
        Late(push.dealer.get_username(), push.table.name, push.at, int((now - push.at).total_seconds() // 60))
        for push in latest.values()
        if push.table_id is not None and now - push.at >= grace and (push.dealer_id, push.table_id) not in live
    ]
    handovers = (DealerHandover.objects.filter(gaming_day=day, shift=shift)
                 .select_related("table", "incoming", "outgoing").order_by("-at", "-id"))
    return {
        "next": [{"at": at, "moves": moves} for at, moves in sorted(upcoming.items())],
        "late": sorted(late, key=lambda item: (item.at, item.dealer)),
        "handovers": list(handovers[:20]),
        "planned": bool(pushes),
    }


def _local(at: datetime) -> str:
    return timezone.localtime(at).strftime("%H:%M")


def board_message(now: datetime | None = None) -> dict:
    """The relief panel as the floor's screens are sent it ({"type": "relief", ...}),
    JSON-ready: the times also given as the cardroom's local clock ("14:20"), which is
    what the panel shows (static/floor/relief.js draws it). `changes_at` is the next moment
    the board changes by the clock alone (a push time passes and leaves "next"; an
    incoming dealer turns late), or null: a screen asks again then."""
    now = now or timezone.now()
    board = relief_board(now)
    grace = timedelta(minutes=settings.CARDROOM_RELIEF_LATE_MINUTES)
    moments = [push["at"] for push in board["next"]]
    cal = calendar()
    live = set(DealerAssignment.objects.filter(gaming_day=cal.gaming_day(now), shift=cal.shift(now),
                                               ended_at__isnull=True).values_list("dealer_id", "table_id"))
    moments += [push.at + grace for push in _pushes_now(now).filter(at__lte=now, at__gt=now - grace,
                                                                       table__isnull=False)
                if (push.dealer_id, push.table_id) not in live]
    future = [moment for moment in moments if moment > now]
    return {
        "type": "relief",
        "planned": board["planned"],
        "next": [{"at": push["at"].isoformat(), "time": _local(push["at"]), "moves": push["moves"]}
                 for push in board["next"]],
        "late": [{"dealer": late.dealer, "table": late.table, "at": late.at.isoformat(), "time": _local(late.at)}
                 for late in board["late"]],
        "handovers": [{"at": h.at.isoformat(), "time": _local(h.at), "table": h.table.name,
                       "incoming": h.incoming.get_username(),
                       "outgoing": h.outgoing.get_username() if h.outgoing else None, "after_round": h.after_round}
                      for h in board["handovers"][:3]],
        "changes_at": min(future).isoformat() if future else None,
    }


def my_pushes(user_id: int, now: datetime | None = None) -> dict:
    """A dealer's page: the push in force now (the table to take over) and the next ones."""
    now = now or timezone.now()
    return {
        "due": due_push(user_id, now),
        "next": list(_pushes_now(now).filter(dealer_id=user_id, at__gt=now)[:5]),
    }

"""A settled or voided round on the surveillance clock (issue 38 item 3): when a patron
disputes a hand or a court asks, supervisors and compliance follow the round step by step,
each accepted command, refusal and approval with three times: the server's, the tablet's own
(`tapped_at`, kept on the event as `device_at`) and the camera's (the server's time plus the
table's latest camera offset, which a supervisor reads off the camera's picture and records,
with who and when).

A round still in progress is not shown: its cards and decisions are the table's live
business, and its record is not complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from cardroom.access import Actor
from cardroom.audit import audit_record
from rounds.engine.errors import CodedError, CommandError
from rounds import rebuild
from rounds.engine.config import TableConfig
from rounds.models import Round

from .models import Approval, CameraOffset, RejectedCommand, RoundStart, TableEvent

MAX_OFFSET_MS = 24 * 3600 * 1000  # a camera clock a day off is misread, not drifted


class SurveillanceError(CodedError):
    codes = CommandError.codes


@dataclass(frozen=True)
class Step:
    """One thing that happened in the round, in the order it happened on the server."""

    kind: str  # "command", "refused", "approval"
    what: str
    who: str
    server_at: datetime
    device_at: datetime | None
    camera_at: datetime | None
    session: str  # the session's tag, shortened for the page ("" for a system process)
    seq: int | None = None
    detail: str = ""


def camera_offset_set(*, actor: Actor, table_id: int, offset_ms: int, reason: str = "") -> CameraOffset:
    """A supervisor's reading of the camera clock against the server's, recorded."""
    if actor.role != "supervisor":
        raise SurveillanceError("not_authorized", "a floor supervisor reads the camera clock")
    if type(offset_ms) is not int or abs(offset_ms) > MAX_OFFSET_MS:
        raise SurveillanceError("invalid_command", "the camera offset is a whole number of milliseconds, within a day")
    reason = reason.strip()[:200] if isinstance(reason, str) else ""
    offset = CameraOffset.objects.create(
        table_id=table_id, offset_ms=offset_ms, reason=reason, set_by=actor.name, set_by_user_id=actor.user_id,
        set_at=timezone.now(),
    )
    audit_record(actor=actor, action="configuration", table_id=table_id,
                 summary=f"camera clock offset {offset_ms} ms recorded", detail={"offset_ms": offset_ms, "reason": reason})
    return offset


def camera_offset(table_id: int) -> CameraOffset | None:
    return CameraOffset.objects.filter(table_id=table_id).order_by("-set_at", "-id").first()


def round_timeline(rnd: Round) -> tuple[list[Step], CameraOffset | None]:
    """Every step of a settled or voided round, in the server's order, and the camera
    offset the camera times use (None: no reading yet, no camera times)."""
    if rnd.status == "in_progress" or rnd.closed_at is None:
        raise SurveillanceError("wrong_state", "a round in progress is not replayed: it is the table's live business")
    offset = camera_offset(rnd.table_id)
    shift = timedelta(milliseconds=offset.offset_ms) if offset is not None else None

    def camera(at):
        return at + shift if shift is not None else None

    window = {"table_id": rnd.table_id, "created_at__gte": rnd.opened_at, "created_at__lte": rnd.closed_at}
    steps = [
        Step("command", event.command_type, event.actor, event.created_at, event.device_at, camera(event.created_at),
             event.session_tag[:8], seq=event.seq, detail=_summary(event.command))
        for event in TableEvent.objects.filter(**window).order_by("seq")
    ]
    steps += [
        Step("refused", f"{_kind(r.command)} refused: {r.code}", r.actor, r.created_at, _tapped(r.command),
             camera(r.created_at), r.session_tag[:8], detail=_summary(r.command))
        for r in RejectedCommand.objects.filter(**window).order_by("id")
    ]
    approvals = Approval.objects.filter(table_id=rnd.table_id, round_number=rnd.number).select_related(
        "requested_by", "decision__decided_by")
    for approval in approvals:
        steps.append(Step("approval", f"{approval.kind} requested", approval.requested_by.get_username(),
                          approval.requested_at, None, camera(approval.requested_at), approval.requested_session[:8]))
        decision = getattr(approval, "decision", None)
        if decision is not None:
            steps.append(Step("approval", f"{approval.kind} {'approved' if decision.approved else 'refused'}",
                              decision.decided_by.get_username(), decision.decided_at, None,
                              camera(decision.decided_at), decision.session[:8]))
    steps.sort(key=lambda step: (step.server_at, step.seq or 0))
    return steps, offset


def _kind(command) -> str:
    kind = command.get("type") if isinstance(command, dict) else None
    return kind if isinstance(kind, str) else "a message"


def _tapped(command) -> datetime | None:
    text = command.get("tapped_at") if isinstance(command, dict) else None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")) if isinstance(text, str) else None
    except ValueError:
        return None


def _summary(command) -> str:
    """The command's own fields, as the dealer sent them (no id, version or tap time)."""
    if not isinstance(command, dict):
        return ""
    shown = {k: v for k, v in command.items() if k not in ("type", "id", "version", "tapped_at", "at")}
    return ", ".join(f"{k} {v}" for k, v in shown.items())


# --- The round played again ------------------------------------------------------------


@dataclass(frozen=True)
class ReplayStep:
    """One accepted command of the round, played again: its event, what the tablet was
    shown after it, and what (if anything) the replay did not give again."""

    event: TableEvent
    command: dict  # as the engine received it, with the server's `at`
    deck: list[str] | None  # the cards a software shuffle drew at this command, in order
    fund: dict | None  # the progressive's fund as it stood, for the commands that read it
    tablet: dict | None
    problems: tuple[str, ...]


@dataclass(frozen=True)
class RoundReplay:
    start: RoundStart
    steps: list[ReplayStep]

    @property
    def problems(self) -> list[str]:
        return [f"#{s.event.seq} {s.event.command_type}: {p}" for s in self.steps for p in s.problems]


def round_events(rnd: Round, start: RoundStart) -> list[TableEvent]:
    """The table's events from the round's open_round to the one that settled or voided it
    (a seat taken or left meanwhile included: the replay needs every command the table took)."""
    return list(TableEvent.objects.filter(table_id=rnd.table_id, seq__gte=start.seq, created_at__lte=rnd.closed_at)
                .order_by("seq"))


def engine_command(event: TableEvent) -> dict:
    """The command as the engine received it: the service stamps the server's time as `at`
    (tables/services.py `_do`), in the cardroom's zone."""
    return {**event.command, "at": timezone.localtime(event.created_at).isoformat()}


def _fund_before(event: TableEvent, meter_name: str | None) -> dict | None:
    """The progressive's fund just before `event`: its own first fund line less what it
    moved, or else the meter after its last line written before it (None: no progressive)."""
    if meter_name is None:
        return None
    from collections_fees.models import JackpotEntry, JackpotMeter

    own = JackpotEntry.objects.filter(event_id=event.pk).order_by("seq").first()
    if own is not None:
        return {"meter": own.meter_after - own.meter_delta, "reserve": own.reserve_after - own.reserve_delta}
    before = (JackpotEntry.objects.filter(meter__name=meter_name, created_at__lte=event.created_at)
              .exclude(event_id=event.pk).order_by("-seq").first())
    if before is not None:
        return {"meter": before.meter_after, "reserve": before.reserve_after}
    meter = JackpotMeter.objects.filter(name=meter_name).first()
    return {"meter": meter.meter, "reserve": meter.reserve} if meter is not None else None


def round_replay(rnd: Round) -> RoundReplay:
    """The settled or voided round played again from its recorded start, each command with
    the cards its deal drew (rounds/rebuild.py); refused for a round in progress, or one
    played before starts were recorded."""
    if rnd.status == "in_progress" or rnd.closed_at is None:
        raise SurveillanceError("wrong_state", "a round in progress is not replayed: it is the table's live business")
    start = RoundStart.objects.filter(table_id=rnd.table_id, round_number=rnd.number).first()
    if start is None:
        raise SurveillanceError("wrong_state", "this round was played before rounds kept their starting state: "
                                               "its timeline is shown, its screens cannot be rebuilt")
    config = TableConfig.from_config(start.state["config"])
    procedure = config.dealing
    meter_name = config.side_bets.progressive.meter if config.side_bets.progressive else None
    events = round_events(rnd, start)
    inputs = [
        {"command": engine_command(e), "deck": rebuild.drawn_deck(e.records, procedure), "fund": _fund_before(e, meter_name)}
        for e in events
    ]
    steps, game_state = [], start.state
    for event, step in zip(events, inputs):
        try:
            (done,) = rebuild.replay(game_state, [step])
        except rebuild.ReplayMismatch as exc:
            steps.append(ReplayStep(event, step["command"], step["deck"], step["fund"], None, (exc.message,)))
            # The record's own state cannot be had: the rest of the round is not replayed.
            break
        game_state = done.state
        problems = tuple(rebuild.differences(done, event.result, event.records))
        steps.append(ReplayStep(event, step["command"], step["deck"], step["fund"], done.tablet, problems))
    return RoundReplay(start, steps)

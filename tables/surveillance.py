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
from rounds.models import Round

from .models import Approval, CameraOffset, RejectedCommand, TableEvent

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

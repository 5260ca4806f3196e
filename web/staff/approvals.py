"""The approval views, next to the approval service (tables/approvals.py) they call: a
request from the table (`POST /api/tables/<id>/approvals`), its state for the tablet that
sent it, a supervisor's decision typed on the tablet, a progressive award confirmed there,
and the supervisors' queue (`/staff/approvals/`). Thin: every change goes through
tables.approvals."""

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from cardroom import wire
from cardroom.access import DRIVERS, Actor, api_for, can_drive, page_for
from rounds.engine.errors import CommandError
from tables.approvals import (
    approval_decide,
    approval_request,
    approval_request_approved_here,
    command_confirmed_on_tablet,
    tablet_login,
)
from tables.models import Approval, approval_status
from tables.setup import request_changes
from web.staff.views import json_call
from web.tables.views import COMMAND_STATUS


@api_for(*DRIVERS)
@require_POST
def approval_create(request, table_id: int):
    """A dealer (or supervisor) asks for a void, a correction or a configuration change:
    sent to the supervisors' queue (`status` pending), or, with `approver` (a supervisor's
    username and password typed at the table), approved at once (`status` approved)."""

    def request_approval(body):
        asked = {"actor": Actor.from_request(request), "table_id": table_id, "kind": body.get("kind"),
                 "payload": body.get("payload") or {}}
        if "approver" not in body:
            approval = approval_request(**asked)
            return JsonResponse({"ok": True, "approval": approval.pk, "status": "pending"})
        approval, _, outcome = approval_request_approved_here(
            **asked, approver=body["approver"], tablet_actor=lambda user: Actor.from_request(request, user)
        )
        return JsonResponse({"ok": True, "approval": approval.pk, "status": "approved",
                             "result": getattr(outcome, "result", None)})

    return json_call(request, request_approval, status=400, statuses={"rate_limited": 429})


@api_for(*DRIVERS)
@require_GET
def approval_state(request, approval_id: int):
    """Where a request stands (pending, approved, refused, expired), for the tablet that
    sent it: to a person who may drive its table."""
    approval = Approval.objects.select_related("table", "decision__decided_by").filter(pk=approval_id).first()
    if approval is None:
        return wire.api_error("invalid_command", "no such approval", 404)
    if not can_drive(Actor.from_request(request), approval.table_id):
        return wire.api_error("not_authorized", "not your table", 403)
    decision = getattr(approval, "decision", None)
    return JsonResponse({
        "approval": approval.pk, "kind": approval.kind, "table": approval.table_id, "round": approval.round_number,
        "status": approval_status(approval),
        "decided_by": decision.decided_by.get_username() if decision else None,
        "reason": decision.reason if decision else "",
    })


@api_for(*DRIVERS)
@require_POST
def approval_decide_on_tablet(request, approval_id: int):
    """A supervisor approves at the table with their own credentials (not the tablet's
    session): both identities are stored. An unknown request is 404 and a tablet whose
    person does not drive the request's table 403, before any credential is checked or
    counted (tablet_login, docs/controls.md)."""

    def decide(body):
        tablet = Actor.from_request(request)
        table_id = Approval.objects.values_list("table_id", flat=True).get(pk=approval_id)
        supervisor = tablet_login(
            table_id=table_id, username=body.get("username"), password=body.get("password"), actor=tablet
        )
        decision, outcome = approval_decide(
            approval_id=approval_id,
            decider=Actor.from_request(request, supervisor),
            approve=body.get("approve"),
            via="tablet",
            reason=body.get("reason", ""),
        )
        return JsonResponse({"ok": True, "approved": decision.approved, "result": getattr(outcome, "result", None)})

    return json_call(request, decide, statuses={"rate_limited": 429})


@api_for(*DRIVERS)
@require_POST
def command_confirmed_here(request, table_id: int):
    """A supervisor at the table confirms a progressive award on the dealer's tablet with
    their own username and password: `{"command": {"type": "confirm_award", ...},
    "approver": {"username", "password"}}`, answered as a command is (web/tables/views.py)."""

    def confirm(body):
        command = body.get("command")
        outcome = command_confirmed_on_tablet(
            actor=Actor.from_request(request), table_id=table_id, command=command, approver=body.get("approver"),
            tablet_actor=lambda user: Actor.from_request(request, user),
        )
        return JsonResponse(outcome.reply(command), status=COMMAND_STATUS.get(outcome.code, 200))

    return json_call(request, confirm, statuses={"rate_limited": 429})


@page_for("supervisor")
def approval_queue(request):
    if request.method == "POST":
        _decide_on_device(request, request.POST.get("approval", ""), approve=request.POST.get("approve") == "1",
                          reason=request.POST.get("reason", ""))
        return redirect("approval-queue")
    pending = list(
        Approval.objects.filter(decision__isnull=True).select_related("table", "requested_by").order_by("requested_at")
    )
    for approval in pending:
        approval.status = approval_status(approval)
        if approval.kind == "config":
            # The same comparison the requester saw, against the version in force now.
            approval.changes = request_changes(approval)
    decided = Approval.objects.filter(decision__isnull=False).select_related(
        "table", "requested_by", "decision__decided_by"
    ).order_by("-decision__decided_at")[:50]
    return render(request, "staff/approvals.html", {"pending": pending, "decided": decided})


def _decide_on_device(request, approval_id: str, *, approve: bool, reason: str = "") -> None:
    """The queue's decision, its outcome shown as a message on the queue."""
    try:
        _, outcome = approval_decide(
            approval_id=int(approval_id), decider=Actor.from_request(request), approve=approve, via="device",
            reason=reason,
        )
    except CommandError as err:
        messages.error(request, f"Not decided: {err.message}")
        return
    except (Approval.DoesNotExist, ValueError):
        messages.error(request, "Not decided: no such approval")
        return
    messages.success(request, "Approved." if approve else "Refused.")

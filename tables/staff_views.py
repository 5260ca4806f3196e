"""Thin views for supervisors and compliance: the approval queue, dealer assignments and
the audit trail. Changes go through tables.approvals / tables.services."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from cardroom import wire
from cardroom.access import DRIVERS, Actor, api_for, can_drive, page_for
from cardroom.audit import audit_record
from tables.forms import AssignmentForm
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from rounds.engine.errors import CommandError
from tables.approvals import (
    approval_decide,
    approval_request,
    approval_request_approved_here,
    approval_status,
    command_confirmed_on_tablet,
    tablet_login,
)
from tables.alerts import alert_acknowledge
from tables.setup import request_changes
from tables.models import Approval, DealerAssignment, Table
from tables.services import table_configure, table_open_close
from tables.views import COMMAND_STATUS


def _error(err: CommandError, status=400):
    return JsonResponse(err.as_result(), status=status)


def _json_call(request, act, *, status: int = 400, statuses: dict[str, int] | None = None):
    """`act(body)` with the request's JSON body, its refusals answered as JSON: a body that
    is not JSON 400, an unknown table 404, not_authorized 403, another CommandError
    `statuses[code]` or else `status`."""
    try:
        body = wire.request_json(request)
    except wire.WireError as refused:
        return wire.api_error(refused.code, refused.message, refused.status)
    if not isinstance(body, dict):
        return _error(CommandError("invalid_command", "the body is a JSON object"))
    try:
        return act(body)
    except CommandError as err:
        return _error(err, status={"not_authorized": 403, **(statuses or {})}.get(err.code, status))
    except Table.DoesNotExist:
        return wire.api_error("invalid_command", "no such table", 404)
    except Approval.DoesNotExist:
        return wire.api_error("invalid_command", "no such approval", 404)


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

    return _json_call(request, request_approval, status=400, statuses={"rate_limited": 429})


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
    })


@api_for(*DRIVERS)
@require_POST
def approval_decide_on_tablet(request, approval_id: int):
    """A supervisor approves at the table with their own credentials (not the tablet's
    session): both identities are stored."""

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
        )
        return JsonResponse({"ok": True, "approved": decision.approved, "result": getattr(outcome, "result", None)})

    return _json_call(request, decide, statuses={"rate_limited": 429})


@api_for(*DRIVERS)
@require_POST
def command_confirmed_here(request, table_id: int):
    """A supervisor at the table confirms a progressive award on the dealer's tablet with
    their own username and password: `{"command": {"type": "confirm_award", ...},
    "approver": {"username", "password"}}`, answered as a command is (tables/views.py)."""

    def confirm(body):
        command = body.get("command")
        outcome = command_confirmed_on_tablet(
            actor=Actor.from_request(request), table_id=table_id, command=command, approver=body.get("approver"),
            tablet_actor=lambda user: Actor.from_request(request, user),
        )
        return JsonResponse(outcome.reply(command), status=COMMAND_STATUS.get(outcome.code, 200))

    return _json_call(request, confirm, statuses={"rate_limited": 429})


@page_for("supervisor")
def approval_queue(request):
    if request.method == "POST":
        _decide_on_device(request, request.POST.get("approval", ""), approve=request.POST.get("approve") == "1")
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


def _decide_on_device(request, approval_id: str, *, approve: bool) -> None:
    """The queue's decision, its outcome shown as a message on the queue."""
    try:
        _, outcome = approval_decide(
            approval_id=int(approval_id), decider=Actor.from_request(request), approve=approve, via="device"
        )
    except CommandError as err:
        messages.error(request, f"Not decided: {err.message}")
        return
    except (Approval.DoesNotExist, ValueError):
        messages.error(request, "Not decided: no such approval")
        return
    messages.success(request, "Approved." if approve else "Refused.")


@page_for("supervisor")
def assignments(request):
    cal, now = calendar(), timezone.now()
    day, shift = cal.gaming_day(now), cal.shift(now)
    if request.method == "POST":
        _assign(request, AssignmentForm(request.POST), day, shift, now)
        return redirect("assignments")
    current = DealerAssignment.objects.filter(gaming_day=day, ended_at__isnull=True).select_related("dealer", "table", "assigned_by")
    dealers = get_user_model().objects.filter(groups__name="dealer").order_by("username")
    return render(
        request,
        "staff/assignments.html",
        {"current": current, "dealers": dealers, "tables": Table.objects.filter(retired=False).order_by("name"), "day": day, "shift": shift,
         "shifts": [name for name, _ in cal.shifts]},
    )


def _assign(request, form: AssignmentForm, day, shift, now) -> None:
    """The assignment asked for, its outcome shown as a message on the page; an assignment
    that already stands is neither made again nor audited again."""
    if not form.is_valid():
        errors = "; ".join(f"{field}: {' '.join(problems)}" for field, problems in form.errors.items())
        messages.error(request, f"Not assigned: {errors}")
        return
    dealer, table = form.cleaned_data["dealer"], form.cleaned_data["table"]
    day, shift = form.cleaned_data["gaming_day"] or day, form.cleaned_data["shift"] or shift
    what = f"{dealer.get_username()} assigned to {table.name} for {day} {shift}"
    _, created = DealerAssignment.objects.get_or_create(
        dealer=dealer, table=table, gaming_day=day, shift=shift, ended_at=None,
        defaults={"assigned_by": request.user, "assigned_at": now},
    )
    if not created:
        messages.info(request, f"Already {what}.")
        return
    audit_record(actor=Actor.from_request(request), action="assignment", table_id=table.pk, summary=what)
    messages.success(request, f"{what}.")


@page_for("supervisor", "compliance")
def audit_trail(request):
    entries = AuditEntry.objects.all()
    q = request.GET
    if q.get("user"):
        entries = entries.filter(username__icontains=q["user"])
    if q.get("action"):
        entries = entries.filter(action=q["action"])
    if q.get("table"):
        entries = entries.filter(table_id=q["table"]) if q["table"].isdigit() else entries.none()
    page = Paginator(entries, 100).get_page(q.get("page"))
    return render(
        request, "staff/audit.html", {"page": page, "actions": [a for a, _ in AuditEntry.ACTIONS], "q": q}
    )


@api_for("supervisor")
@require_POST
def alert_acknowledgement(request, table_id: int):
    """A supervisor acknowledges one of the table's floor alerts: `{"kind", "ref"}`."""

    def acknowledge(body):
        ack = alert_acknowledge(table_id=table_id, kind=body.get("kind"), ref=body.get("ref"), actor=Actor.from_request(request))
        return JsonResponse({"ok": True, "by": ack.acknowledged_by.get_username(), "at": ack.acknowledged_at.isoformat()})

    return _json_call(request, acknowledge, status=400, statuses={"wrong_state": 409})


@api_for("supervisor")
@require_POST
def table_status(request, table_id: int):
    """Open or close a table, saying why: `{"open": true|false, "reason": "..."}` (the
    floor tile's buttons send it)."""

    def open_close(body):
        if type(body.get("open")) is not bool:
            raise CommandError("invalid_command", "open is true or false")
        table = table_open_close(
            table_id=table_id, open=body["open"], actor=Actor.from_request(request), reason=body.get("reason")
        )
        return JsonResponse({"ok": True, "open": table.is_open})

    return _json_call(request, open_close, status=409, statuses={"invalid_command": 400})


@api_for("supervisor")
@require_POST
def table_config(request, table_id: int):
    """A configuration change, `{"config": {...}}`, straight from a supervisor: refused
    with `approval_required` (409) once the configuration is checked, open table or
    closed. Every change is requested (`/api/tables/<id>/approvals`, kind `config`) and
    carried out when a second supervisor approves it."""

    def configure(body):
        version = table_configure(table_id=table_id, config=body.get("config") or {}, changed_by=Actor.from_request(request))
        return JsonResponse({"ok": True, "config_version": version.version})

    return _json_call(request, configure, status=400, statuses={"wrong_state": 409, "approval_required": 409})


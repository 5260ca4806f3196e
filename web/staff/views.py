"""Thin views for supervisors and compliance: dealer assignments, the audit trail, and the
floor's table actions (open or close, configure, acknowledge an alert). Changes go through
tables.services, tables.alerts and tables.assignments; the approval views are in
web/staff/approvals.py."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from cardroom import wire
from cardroom.access import Actor, api_for, page_for
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from rounds.engine.errors import CommandError
from tables.alerts import alert_acknowledge
from tables.assignments import assignment_create, assignment_text
from web.tables.forms import AssignmentForm
from tables.models import Approval, DealerAssignment, Table
from tables.lifecycle import table_configure, table_open_close


def _error(err: CommandError, status=400):
    return JsonResponse(err.as_result(), status=status)


def json_call(request, act, *, status: int = 400, statuses: dict[str, int] | None = None):
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
    """The assignment asked for (tables.assignments writes it and its audit entry), its
    outcome shown as a message on the page."""
    if not form.is_valid():
        errors = "; ".join(f"{field}: {' '.join(problems)}" for field, problems in form.errors.items())
        messages.error(request, f"Not assigned: {errors}")
        return
    dealer, table = form.cleaned_data["dealer"], form.cleaned_data["table"]
    day, shift = form.cleaned_data["gaming_day"] or day, form.cleaned_data["shift"] or shift
    what = assignment_text(dealer=dealer, table=table, gaming_day=day, shift=shift)
    _, created = assignment_create(
        actor=Actor.from_request(request), dealer=dealer, table=table, gaming_day=day, shift=shift, at=now
    )
    if not created:
        messages.info(request, f"Already {what}.")
        return
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

    return json_call(request, acknowledge, status=400, statuses={"wrong_state": 409})


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

    return json_call(request, open_close, status=409, statuses={"invalid_command": 400})


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

    return json_call(request, configure, status=400, statuses={"wrong_state": 409, "approval_required": 409})


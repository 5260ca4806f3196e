"""Thin views: pages, and the command/state API. Every change goes through
tables.services.command_execute; every read through tables.selectors."""

import json

from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST

from cardroom.access import DRIVERS, EVERY_ROLE, READERS, Actor, api_for, can_drive, can_view_table, page_for

from . import presence
from .models import Table
from .selectors import floor_rows, table_snapshot
from .services import command_execute
from .ui_text import ERROR_TEXT
from .visibility import LIVE, TABLET, audience_of


@page_for(*EVERY_ROLE)
def home(request):
    return render(request, "tables/home.html", {"tables": Table.objects.order_by("name", "pk")})


@page_for(*READERS)
def floor(request):
    return render(request, "tables/floor.html", {"rows": floor_rows()})


@page_for(*EVERY_ROLE)
def table_live(request, table_id: int):
    if not can_view_table(Actor.from_request(request), table_id):
        raise PermissionDenied("a dealer sees the tables assigned to them")
    return _table_page(request, table_id, "tables/live.html", LIVE)


@page_for(*DRIVERS)
def tablet(request, table_id: int):
    if not can_drive(Actor.from_request(request), table_id):
        raise PermissionDenied("a dealer drives the tables assigned to them for this shift")
    return _table_page(request, table_id, "tables/tablet.html", TABLET)


def _table_page(request, table_id: int, template: str, audience: str):
    table = get_object_or_404(Table, pk=table_id)
    return render(
        request,
        template,
        {
            "table": table,
            "page": {
                "table": table.pk,
                "snapshot": table_snapshot(table, audience),
                "errors": ERROR_TEXT,
                "heartbeat": presence.HEARTBEAT,
                "user": request.user.get_username(),
            },
        },
    )


@api_for(*DRIVERS)
@require_POST
def table_command(request, table_id: int):
    """One command (commands.md, with optional `id` and `version`) as the JSON body."""
    try:
        command = json.loads(request.body)
    except ValueError:
        return JsonResponse(
            {"result": {"ok": False, "error": {"code": "invalid_command", "message": "the body is not JSON"}}}, status=400
        )
    try:
        outcome = command_execute(table_id=table_id, command=command, actor=Actor.from_request(request))
    except Table.DoesNotExist:
        return JsonResponse({"ok": False, "error": {"code": "invalid_command", "message": "no such table"}}, status=404)
    refused = not outcome.ok and outcome.result["error"]["code"] == "not_authorized"
    return JsonResponse(outcome.reply(command), status=403 if refused else 200)


@api_for(*EVERY_ROLE)
@require_GET
def table_state(request, table_id: int):
    """The live view's snapshot; `?role=tablet` asks for the tablet's, given to a person
    who may drive the table (as on the socket)."""
    table = get_object_or_404(Table, pk=table_id)
    actor = Actor.from_request(request)
    if not can_view_table(actor, table_id):
        return JsonResponse({"ok": False, "error": {"code": "not_authorized", "message": "not your table"}}, status=403)
    audience = audience_of(actor, table_id, asks_tablet=request.GET.get("role") == "tablet")
    return JsonResponse(table_snapshot(table, audience))


def healthz(request):
    return JsonResponse({"ok": True})

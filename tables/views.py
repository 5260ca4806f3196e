"""Thin views: pages, and the command/state API. Every change goes through
tables.services.command_execute; every read through tables.selectors."""

import json
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST

from . import presence
from .models import Table
from .selectors import floor_rows, table_snapshot
from .services import command_execute
from .ui_text import ERROR_TEXT


def api_login_required(view):
    """Like login_required, but an API answers 401 instead of redirecting to a page."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return JsonResponse({"ok": False, "error": {"code": "not_authorized", "message": "log in first"}}, status=401)
        return view(request, *args, **kwargs)

    return wrapped


@login_required
def home(request):
    return render(request, "tables/home.html", {"tables": Table.objects.order_by("name", "pk")})


@login_required
def floor(request):
    return render(request, "tables/floor.html", {"rows": floor_rows()})


@login_required
def table_live(request, table_id: int):
    return _table_page(request, table_id, "tables/live.html")


@login_required
def tablet(request, table_id: int):
    return _table_page(request, table_id, "tables/tablet.html")


def _table_page(request, table_id: int, template: str):
    table = get_object_or_404(Table, pk=table_id)
    return render(
        request,
        template,
        {
            "table": table,
            "page": {
                "table": table.pk,
                "snapshot": table_snapshot(table),
                "errors": ERROR_TEXT,
                "heartbeat": presence.HEARTBEAT,
                "user": request.user.get_username(),
            },
        },
    )


@api_login_required
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
        outcome = command_execute(table_id=table_id, command=command, actor=request.user.get_username())
    except Table.DoesNotExist:
        return JsonResponse({"ok": False, "error": {"code": "invalid_command", "message": "no such table"}}, status=404)
    return JsonResponse(
        {
            "id": command.get("id") if isinstance(command, dict) else None,
            "result": outcome.result,
            "version": outcome.version,
            "replayed": outcome.replayed,
        }
    )


@api_login_required
@require_GET
def table_state(request, table_id: int):
    return JsonResponse(table_snapshot(get_object_or_404(Table, pk=table_id)))


def healthz(request):
    return JsonResponse({"ok": True})

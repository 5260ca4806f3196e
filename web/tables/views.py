"""Thin views: pages, and the command/state API. Every change goes through
tables.services.command_execute; every read through tables.selectors (the snapshot) and
tables.floor (the floor's rows)."""

from django.core.exceptions import PermissionDenied
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from cardroom import wire
from cardroom.gaming_day import calendar
from cardroom.access import (
    DRIVERS,
    EVERY_ROLE,
    READERS,
    Actor,
    api_for,
    can_drive,
    can_view_table,
    page_for,
    tables_drivable,
    tables_viewable,
)
from rounds.engine.view import posted_rules
from rounds.labels import side_bet_pays
from rounds.visibility import LIVE, TABLET, audience_of

from tables import presence, rule_sets
from tables.floor import floor_rows
from tables.models import Table
from tables.relief import relief_board
from tables.selectors import table_snapshot
from tables.services import command_execute
from tables.trends import FLOOR_TREND_REFRESH_SECONDS, floor_trends
from web.sockets import ANOTHER_LOGIN
from web.tables.ui_text import ERROR_TEXT, FLOOR_STATES, POSTED_TEXT, UNKNOWN_ERROR_TEXT


# Each person lands on their own work: the count team and a manager on the count (with
# what waits for a manager on top). A dealer, a supervisor and compliance on the tables
# (compliance's live views and the floor; its pages are one link away).
HOME_OF_ROLE = {"count_team": "compliance:count-index", "manager": "compliance:count-index"}


@page_for(*EVERY_ROLE)
def home(request):
    """Every table, with links only to the pages this person may open (can_drive and
    can_view_table, cardroom.access: a dealer's are the tables assigned now); a role
    whose work is elsewhere is sent there (HOME_OF_ROLE)."""
    elsewhere = HOME_OF_ROLE.get(Actor.from_request(request).role)
    if elsewhere is not None:
        return redirect(elsewhere)
    tables = list(Table.objects.order_by("name", "pk"))
    actor = Actor.from_request(request)
    everyone = {t.pk for t in tables}
    context = {"tables": tables, "drivable": tables_drivable(actor, everyone), "viewable": tables_viewable(actor, everyone)}
    return render(request, "tables/home.html", context)


@page_for(*READERS)
def floor(request):
    return render(request, "tables/floor.html", {
        "rows": floor_rows(), "states": FLOOR_STATES,
        "trends": {"tables": floor_trends(), "refresh_seconds": FLOOR_TREND_REFRESH_SECONDS},
        "board": relief_board(),
        # What changes when: every rule set version not yet on its tables (the readers see
        # the pending ones too), as the page opened.
        "rule_changes": rule_sets.upcoming(today=calendar().gaming_day(timezone.now())),
    })


@require_GET
@page_for(*READERS)
def floor_trend(request):
    """The tiles' trend charts again: an open floor page asks every few minutes
    (tables/trends.py), apart from the live rows."""
    return JsonResponse({"tables": floor_trends(), "refresh_seconds": FLOOR_TREND_REFRESH_SECONDS})


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
    # What changes when at this table (the tablet only): the approved rule set versions still to
    # come, and for a supervisor those waiting for a second supervisor's approval as well.
    rule_changes = rule_sets.upcoming(
        today=calendar().gaming_day(timezone.now()), table=table,
        with_pending=Actor.from_request(request).role == "supervisor",
    ) if audience == TABLET else []
    return render(
        request,
        template,
        {
            "table": table,
            "rule_changes": rule_changes,
            "page": {
                "table": table.pk,
                "snapshot": table_snapshot(table, audience),
                "errors": ERROR_TEXT,
                "unknown_error": UNKNOWN_ERROR_TEXT,
                # As posted when the page was opened: an open table's configuration
                # changes only with a second supervisor's approval, between rounds.
                "posted": {**posted_rules(table.state["config"]),
                           "side_bet_pays": side_bet_pays(table.state["config"].get("side_bets"))},
                "posted_text": POSTED_TEXT,
                # What changes when at this table (the tablet's "Table rules" lists it too).
                "rule_changes": [change.words for change in rule_changes],
                "heartbeat": presence.HEARTBEAT,
                "user": request.user.get_username(),
                # Whose taps and kept snapshot these are (static/table.js keys its storage by it).
                "user_id": request.user.pk,
            },
        },
    )


# A command's refusal is an answer (200), but for these the status says it too.
COMMAND_STATUS = {"not_authorized": 403, "rate_limited": 429}


@api_for(*DRIVERS)
@require_POST
def table_command(request, table_id: int):
    """One command (docs/commands.md, with optional `id` and `version`) as the JSON body."""
    try:
        command = wire.request_json(request)
    except wire.WireError as refused:
        # Refused before the service: nothing is stored. `result` too, as a command's answer.
        error = {"ok": False, "error": refused.as_error()}
        return JsonResponse({**error, "result": error}, status=refused.status)
    made_by = request.headers.get("X-Cardroom-User")
    if made_by is not None and made_by != str(request.user.pk):
        # A tap made under another person's login (static/table.js) is never run under this one.
        return JsonResponse({**ANOTHER_LOGIN, **wire.unsent_answer(command, ANOTHER_LOGIN, version=0)}, status=403)
    try:
        outcome = command_execute(
            table_id=table_id, command=command, actor=Actor.from_request(request), received=request.body
        )
    except Table.DoesNotExist:
        return wire.api_error("invalid_command", "no such table", 404)
    return JsonResponse(outcome.reply(command), status=COMMAND_STATUS.get(outcome.code, 200))


@api_for(*EVERY_ROLE)
@require_GET
def table_state(request, table_id: int):
    """The live view's snapshot; `?role=tablet` asks for the tablet's, given to a person
    who may drive the table (as on the socket)."""
    table = get_object_or_404(Table, pk=table_id)
    actor = Actor.from_request(request)
    if not can_view_table(actor, table_id):
        return wire.api_error("not_authorized", "not your table", 403)
    audience = audience_of(actor, table_id, asks_tablet=request.GET.get("role") == "tablet")
    return JsonResponse(table_snapshot(table, audience))


@require_GET
def tablet_service_worker(request):
    """The tablet's service worker (static/tablet-sw.js), served from the site's root: a
    worker controls only the pages under its own path, and the tablet's are under
    /tables/. Public like every script; never cached by the browser, so a new version is
    taken at the next visit."""
    path = finders.find("tablet-sw.js")
    if path is None:
        raise Http404("no service worker")
    with open(path, "rb") as script:
        response = HttpResponse(script.read(), content_type="application/javascript")
    response["Cache-Control"] = "no-cache"
    return response


def healthz(request):
    return JsonResponse({"ok": True})

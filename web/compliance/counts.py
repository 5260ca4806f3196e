"""The count pages: the drop-box registry, the count sheet of a shift (which replaces the
old per-table drop count), the closer summary, and their exports.

Thin, like web/compliance/views.py: the rules are in collections_fees/counts.py (every
write, with its role check), reads in collections_fees/selectors.py, files in
collections_fees/exports.py. Everyone who reads the count (supervisors, compliance,
admins, the count team, managers) sees the pages; the forms shown depend on the role, and
the service refuses anyone else whatever they post. Compliance reads and signs nothing.
"""

from __future__ import annotations

from datetime import date, datetime

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from cardroom.access import COUNT_READERS, Actor, page_for, request_role
from cardroom.gaming_day import calendar

from collections_fees import counts, selectors, trends
from collections_fees.counts import CountError
from collections_fees.templatetags.compliance import dollars, signed_dollars
from collections_fees.exports import XLSX_MEDIA_TYPE, CsvExport, document_export, rows_xlsx
from web.compliance.views import csv_export_response, export_attachment


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise Http404("a gaming day is written YYYY-MM-DD") from None


def _shift(text: str | None) -> str | None:
    if text in (None, ""):
        return None
    if text not in dict(calendar().shifts):
        raise Http404("no such shift")
    return text


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _done(request, outcome: str):
    messages.success(request, outcome)
    return redirect(request.get_full_path())


def _refused(request, problem: CountError):
    # The words only: the code stays in the audit and the service's answer.
    messages.error(request, f"Not recorded: {problem.message}", extra_tags=problem.code)
    return redirect(request.get_full_path())


# --- Boxes ------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@page_for(*COUNT_READERS)
def boxes(request):
    """The registry, the boxes on the tables now, and (supervisors, managers) register,
    place and swap."""
    if request.method == "POST":
        actor = Actor.from_request(request)
        try:
            if request.POST.get("action") == "register":
                box = counts.box_register(
                    identifier=request.POST.get("identifier"), kind=request.POST.get("kind"),
                    table_id=_int(request.POST.get("table")), actor=actor,
                )
                return _done(request, f"Box {box.identifier} registered.")
            placement = counts.box_place(
                table_id=_int(request.POST.get("table")), box_id=_int(request.POST.get("box")),
                reason=request.POST.get("reason", ""), actor=actor,
            )
            return _done(request, f"Box {placement.box.identifier} is on {placement.table.name}.")
        except CountError as problem:
            return _refused(request, problem)
    now, cal = timezone.now(), calendar()
    context = {
        "registry": selectors.box_registry(),
        "on_tables": selectors.boxes_on_tables(gaming_day=cal.gaming_day(now), shift=cal.shift(now)),
        "gaming_day": cal.gaming_day(now),
        "shift": cal.shift(now),
        "tables": selectors.table_choices(),
        "kinds": [k for k, _ in counts.DropBox.KINDS],
        "may_keep_boxes": request_role(request) in counts.BOX_KEEPERS,
    }
    return render(request, "compliance/boxes.html", context)


# --- The count sheet ----------------------------------------------------------------------


@require_GET
@page_for(*COUNT_READERS)
def count_index(request):
    """The shifts of a gaming day (`?day=`, the current one by default) and where each
    stands: no sheet, counting, signed, closed."""
    day = _day(request.GET["day"]) if request.GET.get("day") else calendar().gaming_day(timezone.now())
    # What waits for a manager is read for a manager only (the others' page costs nothing more).
    waiting = selectors.waiting_for_a_manager() if request_role(request) == "manager" else None
    return render(request, "compliance/count_index.html", {
        "gaming_day": day, "shifts": selectors.shift_states(day), "waiting": waiting,
    })


def _count_action(request, day: date, shift: str):
    actor, post = Actor.from_request(request), request.POST
    action = post.get("action")
    sheet = selectors.count_sheet_of(gaming_day=day, shift=shift)
    try:
        if action == "open":
            counts.count_sheet_open(gaming_day=day, shift=shift, actor=actor)
            return _done(request, "Count sheet opened.")
        if action == "request_reopen":
            counts.shift_reopen_request(gaming_day=day, shift=shift, reason=post.get("reason"), actor=actor)
            return _done(request, "Reopen requested: a manager must approve it.")
        if action == "approve_reopen":
            counts.shift_reopen_approve(request_id=_int(post.get("request")), actor=actor)
            return _done(request, "Shift reopened.")
        if action == "close":
            counts.shift_close(gaming_day=day, shift=shift, actor=actor)
            return _done(request, "Shift closed: its count is frozen and its closer summary produced.")
        if action == "approve_variance":
            counts.variance_approve(count_id=_int(post.get("count")), note=post.get("note", ""), actor=actor)
            return _done(request, "Variance approved.")
        if sheet is None:
            raise CountError("wrong_state", "open the count sheet first")
        if action == "count":
            pieces = {}
            for denomination in settings.CARDROOM_COUNT_DENOMINATIONS:
                text = post.get(f"d{denomination}", "").strip()
                if text:
                    pieces[str(denomination)] = _int(text) if _int(text) is not None else text
            record = counts.box_count_record(
                sheet_id=sheet.pk, box_id=_int(post.get("box")), denominations=pieces,
                explanation=post.get("explanation", ""), actor=actor,
            )
            return _done(request, f"Box counted: {dollars(record.counted)} (variance {signed_dollars(record.variance)}).")
        if action == "sign":
            counts.count_sign(sheet_id=sheet.pk, actor=actor)
            return _done(request, "Count sheet signed.")
    except CountError as problem:
        return _refused(request, problem)
    return HttpResponseBadRequest("unknown action", content_type="text/plain")


@require_http_methods(["GET", "POST"])
@page_for(*COUNT_READERS)
def count_sheet(request, gaming_day: str, shift: str):
    day, shift = _day(gaming_day), _shift(shift)
    if shift is None:
        raise Http404("no such shift")
    if request.method == "POST":
        return _count_action(request, day, shift)
    role = request_role(request)
    view = selectors.count_sheet_view(gaming_day=day, shift=shift)
    context = {
        **view,
        "trends": trends.table_trends(gaming_day=day, tables=[(b["table"].pk, b["table"].name) for b in view["boxes"]]),
        "denominations": settings.CARDROOM_COUNT_DENOMINATIONS,
        "explain_above": settings.CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS,
        "escalate_above": settings.CARDROOM_COUNT_ESCALATE_ABOVE_CENTS,
        "may_count": role in counts.COUNTERS,
        "may_close": role in counts.CLOSERS,
        "may_manage": role in counts.MANAGERS,
        "may_request_reopen": role in counts.REOPEN_REQUESTERS,
    }
    return render(request, "compliance/count_sheet.html", context)


# --- Exports ------------------------------------------------------------------------------


def _scope(request, gaming_day: str) -> tuple[date, str | None, dict]:
    day, shift = _day(gaming_day), _shift(request.GET.get("shift"))
    return day, shift, selectors.closer_filters(gaming_day=day, shift=shift)


def _csv_view(kind: str, query_of):
    @require_GET
    @page_for(*COUNT_READERS)
    async def export_view(request, gaming_day: str):
        day, shift = _day(gaming_day), _shift(request.GET.get("shift"))
        user = await request.auser()
        filters = await sync_to_async(selectors.closer_filters)(gaming_day=day, shift=shift)
        export = CsvExport(kind=kind, query=query_of(gaming_day=day, shift=shift), filters=filters,
                           requested_by=user.get_username())
        return csv_export_response(export)

    return export_view


count_sheet_csv = _csv_view("count_sheet", selectors.count_sheet_query)
closer_csv = _csv_view("closer_summary", selectors.closer_summary_query)


@require_GET
@page_for(*COUNT_READERS)
def closer(request, gaming_day: str):
    """The closer summary on screen (not a document: nothing recorded)."""
    day, shift, filters = _scope(request, gaming_day)
    context = _closer_context(day, shift, filters)
    # On screen only: the recorded print and the exports keep to the shift's figures.
    context["trends"] = trends.table_trends(
        gaming_day=day, tables=[(row["table_id"], row["table_name"]) for row in context["rows"]]
    )
    return render(request, "compliance/closer.html", context)


def _closer_context(day: date, shift: str | None, filters: dict) -> dict:
    rows = selectors.closer_summary(gaming_day=day, shift=shift)
    return {
        "gaming_day": day,
        "shift": shift,
        "filters": filters,
        "rows": rows,
        "totals": selectors.closer_totals(rows),
        "closed": all(filters["closes"].values()),
        "query": f"?shift={shift}" if shift else "",
        "time_zone": calendar().zone,
        "produced_at": timezone.localtime(),
    }


CLOSER_COLUMNS = [header for header, _ in selectors.CLOSER_EXPORT_COLUMNS]


def _cell(value):
    """Workbooks take no zone-aware time: times are written in the cardroom's zone."""
    if isinstance(value, datetime):
        return timezone.localtime(value).strftime("%Y-%m-%d %H:%M:%S %Z")
    return value


def _xlsx_view(kind: str, title: str, export_columns, rows_of):
    """A workbook of a count sheet or closer (the CSV's columns, with dollar columns for
    reading), recorded with its manifest; the second one of the same closes says REPRINT."""
    columns = [header for header, _ in export_columns]
    keys = selectors.row_keys(export_columns)

    @require_GET
    @page_for(*COUNT_READERS)
    def view(request, gaming_day: str):
        day, shift, filters = _scope(request, gaming_day)
        rows = rows_of(gaming_day=day, shift=shift)
        values = [[_cell(row[key]) for key in keys] for row in rows]

        def build(export_id, copy):
            preamble = [
                [f"{title} {day} {shift or 'whole gaming day'}", copy],
                ["Status", "closed" if all(filters["closes"].values()) else "PRELIMINARY: not closed"],
                ["Export id", str(export_id), "manifest", reverse("compliance:export-manifest", args=[export_id])],
                ["Requested by", request.user.get_username(), "at", timezone.localtime().strftime("%Y-%m-%d %H:%M:%S %Z")],
            ]
            money = {name for name in columns if name.endswith("_cents")}
            return rows_xlsx(title=title, preamble=preamble, columns=columns, rows=values, money=money)

        content, manifest = document_export(
            kind=kind, media_type=XLSX_MEDIA_TYPE, extension="xlsx", filters=filters, columns=columns,
            rows=len(rows), requested_by=request.user.get_username(), build=build,
        )
        response = HttpResponse(content, content_type=XLSX_MEDIA_TYPE)
        return export_attachment(response, filename=manifest.filename, export_id=manifest.id)

    return view


closer_xlsx = _xlsx_view("closer_summary", "Closer summary", selectors.CLOSER_EXPORT_COLUMNS, selectors.closer_summary)
count_sheet_xlsx = _xlsx_view("count_sheet", "Count sheet", selectors.COUNT_SHEET_EXPORT_COLUMNS, selectors.count_sheet_rows)


def _print_view(kind: str, template: str, export_columns, context_of):
    """A printable page (a count sheet, a closer): its exact bytes are hashed into a
    manifest, and every print after the first of the same closes says REPRINT."""
    columns = [header for header, _ in export_columns]

    @require_GET
    @page_for(*COUNT_READERS)
    def view(request, gaming_day: str):
        day, shift, filters = _scope(request, gaming_day)
        context = context_of(day, shift, filters)

        def build(export_id, copy):
            manifest_url = reverse("compliance:export-manifest", args=[export_id])
            page = {**context, "copy": copy, "export_id": export_id, "manifest_url": manifest_url,
                    "requested_by": request.user.get_username()}
            return render_to_string(template, page, request=request).encode()

        content, manifest = document_export(
            kind=kind, media_type="text/html; charset=utf-8", extension="html", filters=filters,
            columns=columns, rows=len(context["rows"]), requested_by=request.user.get_username(), build=build,
        )
        response = HttpResponse(content, content_type="text/html; charset=utf-8")
        export_attachment(response, filename=manifest.filename, export_id=manifest.id)
        response["Content-Disposition"] = f'inline; filename="{manifest.filename}"'
        return response

    return view


def _count_sheet_print_context(day: date, shift: str | None, filters: dict) -> dict:
    names = [shift] if shift else calendar().shift_names()
    sheets = [selectors.count_sheet_view(gaming_day=day, shift=name) for name in names]
    return {
        "gaming_day": day,
        "shift": shift,
        "sheets": sheets,
        "rows": selectors.count_sheet_rows(gaming_day=day, shift=shift),
        "closed": all(filters["closes"].values()),
        "time_zone": calendar().zone,
        "produced_at": timezone.localtime(),
    }


closer_print = _print_view("closer_print", "compliance/closer_print.html", selectors.CLOSER_EXPORT_COLUMNS, _closer_context)
count_sheet_print = _print_view(
    "count_print", "compliance/count_sheet_print.html", selectors.COUNT_SHEET_EXPORT_COLUMNS, _count_sheet_print_context
)

"""Compliance pages: the collection log with daily totals and drop counts, the exports
and their manifests. Thin: forms read the request, selectors read the database,
services write, collections_fees/exports.py streams.

Pages are for supervisors, compliance and admins (cardroom.access.READERS). Drop boxes are
counted by the count team on the count sheet (web/compliance/counts.py).
"""

from __future__ import annotations

from datetime import date

from asgiref.sync import sync_to_async
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, HttpResponseBadRequest, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from cardroom.access import READERS, page_for
from cardroom.gaming_day import calendar

from collections_fees import selectors
from collections_fees.exports import CSV_MEDIA_TYPE, XLSX_MEDIA_TYPE, CsvExport, daily_summary_export, manifest_document
from cardroom.keyset import BadCursor, KeysetRows
from cardroom.sql import SqlRows
from web.compliance.forms import CollectionFilterForm, JackpotFilterForm, filter_query_string
from collections_fees.models import ExportManifest

PAGE_SIZE = 100


def default_month(query):
    """The page's filters, with the current gaming day's month when no day range is given
    (a compliance user starts from "this month")."""
    data = query.copy()
    if not any(data.get(k) for k in ("from", "to", "month")):
        data["month"] = calendar().gaming_day(timezone.now()).strftime("%Y-%m")
    return data


def csv_export_response(export: CsvExport) -> StreamingHttpResponse:
    """The streamed CSV; where its manifest will be once the last byte is sent."""
    response = StreamingHttpResponse(export.stream(), content_type=CSV_MEDIA_TYPE)
    return export_attachment(response, filename=export.filename, export_id=export.export_id)


def export_attachment(response, *, filename: str, export_id):
    """Every export is a download that names its manifest and is never cached."""
    manifest_url = reverse("compliance:export-manifest", args=[export_id])
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Export-Id"] = str(export_id)
    response["Link"] = f'<{manifest_url}>; rel="describedby"; type="application/json"'
    response["Cache-Control"] = "no-store"
    return response


@require_GET
@page_for(*READERS)
def index(request):
    return redirect("compliance:collections")


def log_page(request, template: str, form_class, contents):
    """A paginated log page. The filter form reads the request (this month when no day
    range is given); an invalid form answers 400 with its errors. Otherwise
    `contents(filters)` gives the log's rows and the page's own context: KeysetRows are
    paged by key (`after`/`before` a row; a cursor that does not parse answers 400), SqlRows
    by page number (a page whose summary needs the count anyway)."""
    form = form_class(default_month(request.GET))
    if not form.is_valid():
        return render(request, template, {"form": form, "tables": selectors.table_choices()}, status=400)
    filters = form.filters()
    rows, extra = contents(filters)
    if isinstance(rows, KeysetRows):
        # Keyset paging (cardroom/keyset.py): newer/older from a row, no count.
        try:
            page = rows.page(after=request.GET.get("after", ""), before=request.GET.get("before", ""), size=PAGE_SIZE)
        except BadCursor as refused:
            form.add_error(None, f"{refused} ({refused.code})")
            return render(request, template, {"form": form, "tables": selectors.table_choices()}, status=400)
    else:
        page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "filters": filters,
        "query_string": filter_query_string(filters),
        "page": page,
        "tables": selectors.table_choices(),
        "time_zone": calendar().zone,
        **extra,
    }
    return render(request, template, context)


@require_GET
@page_for(*READERS)
def collection_log(request):
    def contents(filters):
        totals = selectors.daily_totals(filters)
        return selectors.collection_line_rows(filters), {
            "sums": selectors.collection_line_sums(filters, daily=totals),
            "totals": totals,
            "dealers": selectors.dealer_choices(filters),
        }

    return log_page(request, "compliance/collections.html", CollectionFilterForm, contents)


@require_GET
@page_for(*READERS)
def jackpot_fund(request):
    """The progressive jackpot funds, apart from the collection log (4 CCR 12384): each
    meter (amount, reserve, owed) and its ledger's rows, filtered by gaming day, meter,
    table and person."""

    def contents(filters):
        meters = selectors.jackpot_meters(filters)
        rows = SqlRows(selectors.jackpot_lines_query(filters), count=sum(m["lines"] for m in meters))
        return rows, {"meters": meters, "meter_names": selectors.meter_choices()}

    return log_page(request, "compliance/jackpot.html", JackpotFilterForm, contents)


@require_GET
@page_for(*READERS)
def drop_count_history(request, table_id: int, gaming_day: str):
    try:
        day = date.fromisoformat(gaming_day)
    except ValueError:
        raise Http404("a gaming day is written YYYY-MM-DD")
    # The count team's box counts of the day (the count sheets) and any legacy drop count.
    box_counts = [row for row in selectors.count_sheet_rows(gaming_day=day) if row["table_id"] == table_id]
    counts = selectors.drop_count_history(table_id=table_id, gaming_day=day)
    context = {"counts": counts, "box_counts": box_counts, "table_id": table_id, "gaming_day": day}
    return render(request, "compliance/drop_counts.html", context)


def csv_export_view(kind: str, form_class, query_of):
    """The streamed CSV export of one log (`kind`), with the same filters as its page."""

    @require_GET
    @page_for(*READERS)
    async def export_view(request):
        form = form_class(request.GET)
        if not form.is_valid():
            return HttpResponseBadRequest(form.errors.as_text(), content_type="text/plain")
        filters = form.filters()
        user = await request.auser()
        # In a thread: a query may read the database to be built (the round export reads
        # which cards of the rounds in play it may show).
        query = await sync_to_async(query_of)(filters)
        export = CsvExport(kind=kind, query=query, filters=filters.as_dict(), requested_by=user.get_username())
        return csv_export_response(export)

    return export_view


collection_export_csv = csv_export_view("collections", CollectionFilterForm, selectors.collection_lines_query)
jackpot_export_csv = csv_export_view("jackpot", JackpotFilterForm, selectors.jackpot_lines_query)


@require_GET
@page_for(*READERS)
def daily_summary(request):
    form = CollectionFilterForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest(form.errors.as_text(), content_type="text/plain")
    filters = form.filters()
    # The summary is per table and day: only the day range and table filters apply.
    summary_filters = {k: v for k, v in filters.as_dict().items() if k in selectors.DAILY_TOTALS_SCOPE}
    content, manifest = daily_summary_export(
        totals=selectors.daily_totals(filters), filters=summary_filters, requested_by=request.user.get_username()
    )
    response = HttpResponse(content, content_type=XLSX_MEDIA_TYPE)
    return export_attachment(response, filename=manifest.filename, export_id=manifest.id)


@require_GET
@page_for(*READERS)
def export_list(request):
    return render(request, "compliance/exports.html", {"manifests": selectors.export_manifests()})


@require_GET
@page_for(*READERS)
def export_manifest(request, export_id):
    try:
        manifest = selectors.export_manifest_get(export_id=export_id)
    except ExportManifest.DoesNotExist:
        # Also the answer while the export is still streaming, or if it never finished.
        raise Http404("no finished export with this id")
    response = JsonResponse(manifest_document(manifest), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'inline; filename="{manifest.filename}.manifest.json"'
    return response

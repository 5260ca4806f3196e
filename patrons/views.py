"""Patron pages and endpoints (docs/patrons.md).

At the table (the dealer of the table, a supervisor): look a patron up, seat an
unidentified patron, record cash. Their answers carry a display name and number only,
and never a warning: the tablet is in the patron's sight. The floor's patron alerts and
the compliance pages are for supervisors and compliance; identification is read through
`identification_read`, which audits each read."""

from __future__ import annotations

from datetime import date

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cardroom import wire
from cardroom.access import DRIVERS, Actor, api_for, can_drive, page_for
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from collections_fees.exports import CsvExport
from collections_fees.views import csv_export_response

from . import cash, identity, selectors
from .identity import PatronError
from .models import ExclusionImport, Patron, PatronMerge, UnidentifiedPatron

PATRON_READERS = ("supervisor", "compliance")


def _refused(error: PatronError, status: int = 400) -> JsonResponse:
    status = 403 if error.code == "not_authorized" else (409 if error.code == "self_excluded" else status)
    return JsonResponse(error.as_result(), status=status)


def _form_texts(data):
    """Every (name, value) of a form or a query string, for the text check: a NUL typed
    into a field (%00) would otherwise reach PostgreSQL, which keeps none."""
    return [(name, value) for name, values in data.lists() for value in values]


def _body(request) -> dict:
    payload = wire.request_json(request)
    if not isinstance(payload, dict):
        raise PatronError("invalid_command", "the body is a JSON object")
    return payload


@api_for(*DRIVERS)
@require_GET
def patron_search(request, table_id: int):
    if not can_drive(Actor.from_request(request), table_id):
        return wire.api_error("not_authorized", "not your table", 403)
    try:
        identity.refuse_unstorable(_form_texts(request.GET), "invalid_command")
    except PatronError as error:
        return _refused(error)
    return JsonResponse({"ok": True, "patrons": identity.patron_lookup(request.GET.get("q", ""))})


@api_for(*DRIVERS)
@require_POST
def unidentified_new(request, table_id: int):
    actor = Actor.from_request(request)
    if not can_drive(actor, table_id):
        return wire.api_error("not_authorized", "not your table", 403)
    try:
        stranger = identity.unidentified_create(table_id=table_id, description=_body(request).get("description"), actor=actor)
    except PatronError as error:
        return _refused(error)
    except wire.WireError as refused:
        return JsonResponse({"ok": False, "error": refused.as_error()}, status=refused.status)
    return JsonResponse({"ok": True, "player": stranger.player_id})


@api_for(*DRIVERS)
@require_POST
def cash_new(request, table_id: int):
    """`{"kind": "chip_purchase"|"cash_payout", "amount": cents, "player": id, "note"}`."""
    try:
        body = _body(request)
        row = cash.cash_record(
            table_id=table_id, kind=body.get("kind"), amount=body.get("amount"), player=body.get("player"),
            note=body.get("note") or "", actor=Actor.from_request(request),
        )
    except PatronError as error:
        return _refused(error)
    except wire.WireError as refused:
        return JsonResponse({"ok": False, "error": refused.as_error()}, status=refused.status)
    return JsonResponse({"ok": True, "cash": {"seq": row.seq, "kind": row.kind, "amount": row.amount, "player": row.player}})


@page_for(*PATRON_READERS)
@require_GET
def floor_patron_alerts(request):
    return render(request, "patrons/floor_alerts.html", selectors.floor_alerts())


def _day_filters(request) -> dict:
    filters = {}
    for name, key in (("from", "day_from"), ("to", "day_to")):
        value = request.GET.get(name)
        if value:
            try:
                filters[key] = date.fromisoformat(value).isoformat()
            except ValueError:
                raise PatronError("invalid_command", f"{name} is a gaming day, YYYY-MM-DD") from None
    return filters


@page_for(*PATRON_READERS)
@require_GET
def mtl_log(request):
    try:
        filters = _day_filters(request)
    except PatronError as error:
        return HttpResponseBadRequest(error.message)
    return render(request, "patrons/mtl.html", {"rows": selectors.cash_rows(filters, mtl_only=True), "filters": filters})


def _csv_view(kind: str, build):
    """A streamed CSV export with its manifest (collections_fees/exports.py): async, as
    the other exports, so Daphne streams it rather than holding it whole."""

    @require_GET
    @page_for(*PATRON_READERS)
    async def view(request, **kwargs):
        try:
            filters, query = await sync_to_async(build)(request, **kwargs)
        except PatronError as error:
            return HttpResponseBadRequest(error.message)
        user = await request.auser()
        return csv_export_response(CsvExport(kind=kind, query=query, filters=filters, requested_by=user.get_username()))

    return view


mtl_export = _csv_view("mtl", lambda request: (f := _day_filters(request), selectors.cash_query(f, mtl_only=True)))
cash_export = _csv_view("cash", lambda request: (f := _day_filters(request), selectors.cash_query(f)))
hits_export = _csv_view("self_exclusion", lambda request: (f := _day_filters(request), selectors.hits_query(f)))


def _gaming_day(text: str | None) -> date:
    if not text:
        return calendar().gaming_day(timezone.now())
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise Http404("a gaming day is written YYYY-MM-DD") from None


@page_for(*PATRON_READERS)
@require_GET
def ctr_candidates(request):
    day = _gaming_day(request.GET.get("day"))
    return render(request, "patrons/ctr.html", {"day": day, "candidates": cash.ctr_candidates(day)})


ctr_export = _csv_view(
    "ctr",
    lambda request: (
        {"gaming_day": _gaming_day(request.GET.get("day")).isoformat()},
        selectors.ctr_query(_gaming_day(request.GET.get("day")), settings.CARDROOM_CTR_THRESHOLD_CENTS),
    ),
)


@page_for(*PATRON_READERS)
@require_http_methods(["GET", "POST"])
def self_exclusion(request):
    """The hits, the lists in force; compliance uploads the state's list here."""
    message, status = "", 200
    if request.method == "POST":
        upload = request.FILES.get("list")
        try:
            if upload is None:
                raise PatronError("invalid_list", "choose the state's CSV file")
            batch = identity.state_list_import(
                actor=Actor.from_request(request), filename=upload.name, content=upload.read()
            )
            return redirect(f"{request.path}?imported={batch.pk}")
        except PatronError as error:
            message, status = f"{error.code}: {error.message}", (403 if error.code == "not_authorized" else 400)
    context = {
        "hits": selectors.floor_alerts()["hits"],
        "imports": ExclusionImport.objects.all()[:10],
        "in_force": identity.entries_in_force().count(),
        "message": message,
    }
    return render(request, "patrons/self_exclusion.html", context, status=status)


@page_for(*PATRON_READERS)
@require_http_methods(["GET", "POST"])
def patron_list(request):
    actor, message, status = Actor.from_request(request), "", 200
    if request.method == "POST":
        form = request.POST
        try:
            identity.refuse_unstorable(_form_texts(form), "invalid_patron")
            born = date.fromisoformat(form["date_of_birth"]) if form.get("date_of_birth") else None
            patron = identity.patron_create(
                actor=actor, number=form.get("number", ""), card=form.get("card", ""),
                display_name=form.get("display_name", ""), legal_name=form.get("legal_name", ""),
                date_of_birth=born, id_type=form.get("id_type", ""), id_number=form.get("id_number", ""),
                id_issuer=form.get("id_issuer", ""), address=form.get("address", ""),
                tppp_company=form.get("tppp_company", ""), tppp_badge=form.get("tppp_badge", ""),
                confirm=form.get("confirm") == "on",
            )
            return redirect("patrons:detail", patron_id=patron.pk)
        except ValueError:
            message, status = "invalid_patron: the date of birth is written YYYY-MM-DD", 400
        except PatronError as error:
            message, status = f"{error.code}: {error.message}", 400
    query = request.GET.get("q", "")
    if wire.text_refusal(query):
        query, message, status = "", f"invalid_patron: the search {wire.text_refusal(query)}", 400
    found = identity.patron_lookup(query, limit=50) if query else [p.public() for p in Patron.objects.all()[:100]]
    unidentified = UnidentifiedPatron.objects.filter(link__isnull=True).order_by("-created_at")[:50]
    # A possible duplicate is answered with the form as it was sent and the box to confirm.
    confirm_asked = message.startswith("possible_duplicate_patron")
    return render(request, "patrons/list.html",
                  {"patrons": found, "q": query, "unidentified": unidentified, "message": message,
                   "confirm_asked": confirm_asked, "sent": request.POST if confirm_asked else {}}, status=status)


@page_for(*PATRON_READERS)
@require_GET
def patron_detail(request, patron_id: int):
    patron = get_object_or_404(Patron, pk=patron_id)
    ident = identity.identification_read(patron, actor=Actor.from_request(request), why="patron page")
    return render(request, "patrons/detail.html", {"patron": patron, "ident": ident, **selectors.history_rows(patron)})


history_export = _csv_view(
    "patron_history",
    lambda request, patron_id: (
        {"patron": patron_id},
        selectors.history_query(get_object_or_404(Patron, pk=patron_id)),
    ),
)


@page_for(*PATRON_READERS)
@require_POST
def patron_link(request, unidentified_id: int):
    try:
        identity.refuse_unstorable(_form_texts(request.POST), "invalid_patron")
        patron_id = int(request.POST.get("patron", ""))
        link = cash.patron_link(
            unidentified_id=unidentified_id, patron_id=patron_id, actor=Actor.from_request(request),
            reason=request.POST.get("reason", ""),
        )
    except ValueError:
        return HttpResponseBadRequest("patron is a patron id")
    except PatronError as error:
        return HttpResponseBadRequest(f"{error.code}: {error.message}")
    return redirect("patrons:detail", patron_id=link.patron_id)


@page_for("compliance")
@require_http_methods(["GET", "POST"])
def duplicates(request):
    """Possible duplicates (same date of birth, names that fold alike or are near), the
    merges waiting for a second compliance officer, and the merges made. A merge is asked
    for by one compliance officer and approved by another (cash.merge_request,
    cash.merge_approve)."""
    actor, message, status = Actor.from_request(request), "", 200
    if request.method == "POST":
        form = request.POST
        try:
            identity.refuse_unstorable(_form_texts(form), "invalid_patron")
            if form.get("action") == "approve":
                merge = cash.merge_approve(request_id=_form_int(form, "request"), actor=actor)
                return redirect(f"{request.path}?merged={merge.pk}")
            made = cash.merge_request(survivor_id=_form_int(form, "survivor"), merged_id=_form_int(form, "merged"),
                                      reason=form.get("reason", ""), actor=actor)
            return redirect(f"{request.path}?requested={made.pk}")
        except PatronError as error:
            message, status = f"{error.code}: {error.message}", (403 if error.code == "not_authorized" else 400)
    pairs = selectors.possible_duplicates()
    if pairs:
        audit_record(
            actor=actor, action="identification_read", summary="possible duplicate patrons listed",
            detail={"pairs": [[pair["first"].pk, pair["second"].pk] for pair in pairs]},
        )
    context = {
        "pairs": pairs, "waiting": cash.merge_requests_waiting(), "message": message,
        "merges": PatronMerge.objects.select_related("survivor", "merged").order_by("-approved_at")[:50],
    }
    return render(request, "patrons/duplicates.html", context, status=status)


def _form_int(form, name: str) -> int:
    try:
        return int(form.get(name, ""))
    except ValueError:
        raise PatronError("unknown_patron", f"{name} is a record's id") from None

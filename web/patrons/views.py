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
from web.compliance.views import csv_export_response

from patrons import awards, cash, identity, selectors
from patrons.identity import PatronError
from patrons.models import CashReversalDecision, ExclusionImport, ExclusionRemoval, Patron, PatronMerge, UnidentifiedPatron

PATRON_READERS = ("supervisor", "compliance")


FORBIDDEN = ("not_authorized", "second_person_required")
CONFLICTS = ("self_excluded", "check_required", "possible_duplicate", "already_reversed", "already_requested", "already_decided",
             "not_reversible")


def _refused(error: PatronError, status: int = 400) -> JsonResponse:
    status = 403 if error.code in FORBIDDEN else (409 if error.code in CONFLICTS else status)
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
@require_POST
def patron_search(request, table_id: int):
    """`{"q": text}`: a POST, so what a dealer types (a name, a card number) is in no URL
    and so in no access log (Daphne's, nginx's)."""
    actor = Actor.from_request(request)
    if not can_drive(actor, table_id):
        return wire.api_error("not_authorized", "not your table", 403)
    try:
        query = _body(request).get("q", "")
        if not isinstance(query, str):
            raise PatronError("invalid_command", "q is the text to look up")
        identity.refuse_unstorable([("q", query)], "invalid_command")
    except PatronError as error:
        return _refused(error)
    except wire.WireError as refused:
        return JsonResponse({"ok": False, "error": refused.as_error()}, status=refused.status)
    return JsonResponse({"ok": True, "patrons": identity.patron_lookup(query, actor=actor)})


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
    """`{"kind": "chip_purchase"|"cash_payout", "amount": cents, "player": id, "note",
    "client_id": the tablet's id of the entry, "confirm": true to record a possible duplicate,
    "award_round", "award_seat": the progressive award a payout pays}`.
    A retransmission (same client_id) answers the first entry with `"replayed": true`."""
    try:
        body = _body(request)
        row = cash.cash_record(
            table_id=table_id, kind=body.get("kind"), amount=body.get("amount"), player=body.get("player"),
            note=body.get("note") or "", actor=Actor.from_request(request), client_id=body.get("client_id"),
            confirm=body.get("confirm", False), award_round=body.get("award_round"), award_seat=body.get("award_seat"),
        )
    except PatronError as error:
        return _refused(error)
    except wire.WireError as refused:
        return JsonResponse({"ok": False, "error": refused.as_error()}, status=refused.status)
    return JsonResponse({"ok": True, "replayed": row.replayed,
                         "cash": {"seq": row.seq, "kind": row.kind, "amount": row.amount, "player": row.player}})


@api_for(*DRIVERS)
@require_POST
def cash_reversal_new(request, table_id: int, seq: int):
    """The table's dealer (or a supervisor) asks that cash #seq be reversed: `{"reason"}`.
    Another person approves it on the reversals page."""
    actor = Actor.from_request(request)
    if not can_drive(actor, table_id):
        return wire.api_error("not_authorized", "not your table", 403)
    try:
        if not cash.CashTransaction.objects.filter(seq=seq, table_id=table_id).exists():
            raise PatronError("unknown_cash", f"no cash entry #{seq} at this table")
        asked = cash.cash_reversal_request(seq=seq, reason=_body(request).get("reason"), actor=actor)
    except PatronError as error:
        return _refused(error)
    except wire.WireError as refused:
        return JsonResponse({"ok": False, "error": refused.as_error()}, status=refused.status)
    return JsonResponse({"ok": True, "reversal_request": asked.pk})


@page_for(*PATRON_READERS)
@require_http_methods(["GET", "POST"])
def cash_reversals(request):
    """Reversal requests: a supervisor or compliance asks for one (cash #, reason), and
    decides another person's (approve or decline)."""
    actor, message, status = Actor.from_request(request), "", 200
    if request.method == "POST":
        form = request.POST
        try:
            identity.refuse_unstorable(_form_texts(form), "invalid_command")
            if form.get("decide"):
                try:
                    request_id = int(form["decide"])
                except ValueError:
                    raise PatronError("invalid_command", "decide names a request number") from None
                cash.cash_reversal_decide(request_id=request_id, approve=form.get("approve") == "yes",
                                          actor=actor, note=form.get("note", ""))
            else:
                try:
                    seq = int(form.get("seq", ""))
                except ValueError:
                    raise PatronError("invalid_command", "name the cash entry by its number (cash #)") from None
                cash.cash_reversal_request(seq=seq, reason=form.get("reason", ""), actor=actor)
            return redirect(request.path)
        except PatronError as error:
            message = f"{error.code}: {error.message}"
            status = 403 if error.code in FORBIDDEN else (409 if error.code in CONFLICTS else 400)
    context = {
        "pending": list(cash.pending_reversals()[:100]),
        "decided": list(CashReversalDecision.objects.select_related("request__original", "reversal")
                        .order_by("-decided_at", "-id")[:50]),
        "message": message,
    }
    return render(request, "patrons/reversals.html", context, status=status)


@page_for(*PATRON_READERS)
@require_GET
def floor_patron_alerts(request):
    return render(request, "patrons/floor_alerts.html", selectors.floor_alerts())


@page_for("supervisor")
@require_POST
def exclusion_review_decide(request, review_id: int):
    """A supervisor clears or confirms a held near match, with a reason (a form on the
    floor's patron alerts). Refusals name their code; nothing changes."""
    try:
        identity.refuse_unstorable(_form_texts(request.POST), "invalid_command")
        identity.exclusion_review_decide(
            actor=Actor.from_request(request), review_id=review_id, decision=request.POST.get("decision", ""),
            reason=request.POST.get("reason", ""),
        )
    except PatronError as error:
        context = {**selectors.floor_alerts(), "message": f"{error.code}: {error.message}"}
        return render(request, "patrons/floor_alerts.html", context, status=409 if error.code == "wrong_state" else 400)
    return redirect("patrons:floor-alerts")


@page_for(*PATRON_READERS)
@require_POST
def award_identify(request, award_id: int):
    """A supervisor or compliance officer (not the one who confirmed it) names an owed
    award's winner (a form on the floor's patron alerts). Refusals name their code."""
    try:
        identity.refuse_unstorable(_form_texts(request.POST), "invalid_command")
        awards.award_identify(award_id=award_id, player=request.POST.get("player", ""), actor=Actor.from_request(request))
    except PatronError as error:
        context = {**selectors.floor_alerts(), "award_message": f"{error.code}: {error.message}"}
        status = {"wrong_state": 409, "not_authorized": 403, "unknown_award": 404}.get(error.code, 400)
        return render(request, "patrons/floor_alerts.html", context, status=status)
    return redirect("patrons:floor-alerts")


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


def _message(error: PatronError) -> tuple[str, int]:
    return f"{error.code}: {error.message}", (403 if error.code == "not_authorized" else 400)


def _self_exclusion_page(request, message: str = "", status: int = 200):
    imports = list(ExclusionImport.objects.select_related("removal")[:10])
    in_force = set(identity.state_imports_in_force())
    for batch in imports:
        batch.in_force = batch.pk in in_force
    waiting = [r for r in ExclusionRemoval.objects.select_related("list_import", "entry__patron")
               .filter(decision__isnull=True)[:50] if identity.removal_status(r) == "waiting"]
    context = {
        "hits": selectors.floor_alerts()["hits"],
        "imports": imports,
        "in_force": identity.entries_in_force().count(),
        "waiting": waiting,
        "message": message,
        "upload_limit": identity.MAX_STATE_LIST_BYTES,
    }
    return render(request, "patrons/self_exclusion.html", context, status=status)


@page_for(*PATRON_READERS)
@require_GET
def self_exclusion(request):
    """The hits, the lists in force, the state's imports and the removals that wait."""
    return _self_exclusion_page(request)


@page_for(*PATRON_READERS)
@require_POST
def state_list_upload(request):
    """Compliance uploads the state's list (its own route: the one body allowed past 64 KiB,
    config/asgi.py and docker/nginx.conf). The answer is the upload's diff."""
    upload = request.FILES.get("list")
    try:
        if upload is None:
            raise PatronError("invalid_list", "choose the state's CSV file")
        batch = identity.state_list_import(actor=Actor.from_request(request), filename=upload.name, content=upload.read())
    except PatronError as error:
        return _self_exclusion_page(request, *_message(error))
    return redirect("patrons:state-import", import_id=batch.pk)


def _state_import_page(request, import_id: int, message: str = "", status: int = 200):
    batch = get_object_or_404(ExclusionImport.objects.select_related("removal"), pk=import_id)
    removal = getattr(batch, "removal", None)
    context = {
        "batch": batch,
        "diff": identity.import_diff(batch),
        "removal": removal,
        "status": identity.removal_status(removal) if removal else None,
        "in_force": batch.pk in identity.state_imports_in_force(),
        "message": message,
    }
    return render(request, "patrons/state_import.html", context, status=status)


@page_for(*PATRON_READERS)
@require_GET
def state_import(request, import_id: int):
    """One upload: who it added (in force since) and who it removes, and whether its
    removals wait for a second compliance person, were confirmed or declined."""
    return _state_import_page(request, import_id)


@page_for(*PATRON_READERS)
@require_POST
def removal_decide(request, removal_id: int):
    """A compliance person confirms or declines a removal from a list."""
    removal = get_object_or_404(ExclusionRemoval, pk=removal_id)
    try:
        identity.refuse_unstorable(_form_texts(request.POST), "invalid_command")
        identity.removal_decide(actor=Actor.from_request(request), removal_id=removal.pk,
                                outcome=request.POST.get("outcome", ""), reason=request.POST.get("reason", ""))
        message, status = "", 200
    except PatronError as error:
        message, status = _message(error)
    if removal.list_import_id is not None:
        if status != 200:
            return _state_import_page(request, removal.list_import_id, message, status)
        return redirect("patrons:state-import", import_id=removal.list_import_id)
    if status != 200:
        return _house_list_page(request, message, status)
    return redirect("patrons:house-list")


def _house_list_page(request, message: str = "", status: int = 200):
    entries = list(identity.entries_in_force().filter(source="house").select_related("patron").order_by("-added_at", "-id"))
    waiting = {r.entry_id: r for r in ExclusionRemoval.objects.filter(entry__in=entries, decision__isnull=True)}
    for entry in entries:
        entry.waiting_removal = waiting.get(entry.pk)
    history = ExclusionRemoval.objects.filter(entry__isnull=False).select_related("entry__patron", "decision")[:50]
    return render(request, "patrons/house_list.html",
                  {"entries": entries, "history": history, "message": message}, status=status)


@page_for(*PATRON_READERS)
@require_http_methods(["GET", "POST"])
def house_list(request):
    """The house's own list: a patron added at once (compliance or a supervisor: a patron
    who asks at the floor is refused from then on); compliance asks for a removal here,
    and another compliance person confirms it."""
    if request.method == "GET":
        return _house_list_page(request)
    actor, form = Actor.from_request(request), request.POST
    try:
        identity.refuse_unstorable(_form_texts(form), "invalid_command")
        if form.get("action") == "remove":
            try:
                entry_id = int(form.get("entry", ""))
            except ValueError:
                raise PatronError("unknown_entry", "entry is an entry id") from None
            identity.house_list_remove_request(actor=actor, entry_id=entry_id, reason=form.get("reason", ""))
        else:
            patron, _ = identity.patron_of_player(form.get("patron", ""))
            if patron is None:
                raise PatronError("unknown_patron", "no patron has that number or card")
            identity.house_list_add(actor=actor, patron_id=patron.pk, reason=form.get("reason", ""))
    except PatronError as error:
        return _house_list_page(request, *_message(error))
    return redirect("patrons:house-list")


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
    found = identity.patron_lookup(query, actor=actor, limit=50) if query else [p.public() for p in Patron.objects.all()[:100]]
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

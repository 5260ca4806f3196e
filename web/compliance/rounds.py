"""Compliance pages for rounds: the round history (list, detail, CSV) and the rotation log
(page, CSV). Thin: forms read the request, collections_fees/round_selectors.py reads the database,
collections_fees/exports.py streams. Pages are for supervisors, compliance and admins.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from cardroom.access import READERS, Actor, page_for, request_role
from cardroom.gaming_day import calendar
from collections_fees import round_selectors as selectors
from cardroom.sql import SqlRows
from rounds.audit import round_verify
from rounds.engine.errors import CommandError
from rounds.models import Round
from tables.approvals import approval_request
from tables.models import Approval, approval_status
from web.compliance.forms import RotationFilterForm, RoundFilterForm
from web.compliance.views import csv_export_view, log_page


@require_GET
@page_for(*READERS)
def round_history(request):
    return log_page(
        request,
        "compliance/rounds.html",
        RoundFilterForm,
        lambda filters: (selectors.round_history_rows(filters), {}),
    )


@require_http_methods(["GET", "POST"])
@page_for(*READERS)
def round_detail(request, round_id: int):
    """A round's whole record. A supervisor may also ask here for the correction of a
    settled round (game-rules section 8): the request waits in the approval queue for a
    second supervisor, whose approval records the reversing entry (tables/approvals.py)."""
    try:
        rnd = selectors.round_detail(round_id=round_id)
    except Round.DoesNotExist:
        raise Http404("no such round")
    if request.method == "POST":
        return _correction_request(request, rnd)
    requests = list(
        Approval.objects.filter(table_id=rnd.table_id, kind="correction", round_number=rnd.number)
        .select_related("requested_by", "decision__decided_by", "table")
        .order_by("requested_at")
    )
    for asked in requests:
        asked.status = approval_status(asked)
    corrections = list(rnd.corrections.all())
    context = {
        "round": rnd,
        "cards": selectors.round_cards_recorded(rnd),
        **selectors.round_people(rnd),
        # Re-decided from the stored inputs by the rules engine (rounds/audit.py): what
        # `manage.py verify_rounds` reports, for this one round.
        "differences": round_verify(rnd) if rnd.status == "settled" else None,
        "time_zone": calendar().zone,
        "correction_requests": requests,
        "corrections": corrections,
        # One request at a time, and none once the round is reversed (the service refuses
        # a second reversal; the form is simply not offered).
        # The timeline is for the roles its page admits (not an admin login): no link to a 403.
        "may_see_timeline": request_role(request) in TIMELINE_READERS,
        "may_request_correction": request_role(request) == "supervisor" and rnd.status == "settled"
        and not corrections and not any(asked.status == "pending" for asked in requests),
    }
    return render(request, "compliance/round_detail.html", context)


def _correction_request(request, rnd: Round):
    if request_role(request) != "supervisor":
        raise PermissionDenied("only a supervisor asks for a correction")  # compliance reads
    try:
        # Filed in the one home of a table's requests (tables/approvals.py), where a second
        # supervisor decides it.
        approval_request(actor=Actor.from_request(request), table_id=rnd.table_id, kind="correction",
                         payload={"reason": request.POST.get("reason", "").strip(), "round": rnd.number})
    except CommandError as refused:
        messages.error(request, f"Not requested ({refused.code}): {refused.message}")
    else:
        messages.success(request, "Correction requested: a second supervisor approves it in the approval queue.")
    return redirect(request.get_full_path())


round_export_csv = csv_export_view("rounds", RoundFilterForm, selectors.round_history_query)


@require_GET
@page_for(*READERS)
def rotation_log(request):
    return log_page(
        request,
        "compliance/rotation.html",
        RotationFilterForm,
        lambda filters: (selectors.rotation_log_rows(filters), {}),
    )


rotation_export_csv = csv_export_view("rotation", RotationFilterForm, selectors.rotation_log_query)


@require_GET
@page_for(*READERS)
def rounds_offered(request):
    """Was the position offered before every round (game-rules 2A.1)? The rounds where it
    was not, for the tables and gaming days chosen."""

    def contents(filters):
        # Both figures of the summary in one pass; the page of rounds reuses the count.
        counts = selectors.rounds_offered_counts(filters)
        rows = SqlRows(selectors.rounds_not_offered_query(filters), count=counts["not_offered"])
        return rows, {"rounds_total": counts["rounds"]}

    return log_page(request, "compliance/rotation_offers.html", RotationFilterForm, contents)


# A round on the camera's clock is for a dispute or a court: supervisors and compliance.
TIMELINE_READERS = ("supervisor", "compliance")


@require_http_methods(["GET", "POST"])
@page_for(*TIMELINE_READERS)
def round_timeline(request, round_id: int):
    """A settled or voided round on three clocks (tables/surveillance.py), for a dispute or
    a court; a supervisor records the camera clock's offset here."""
    from tables import surveillance

    rnd = Round.objects.select_related("table").filter(pk=round_id).first()
    if rnd is None:
        raise Http404("no such round")
    if request.method == "POST":
        try:
            offset_ms = int(round(float(request.POST.get("offset_seconds") or "") * 1000))
        except ValueError:
            messages.error(request, "Not recorded: give the camera's clock minus the server's, in seconds (e.g. -2.5)")
            return redirect("compliance:round-timeline", round_id=round_id)
        try:
            surveillance.camera_offset_set(actor=Actor.from_request(request), table_id=rnd.table_id,
                                           offset_ms=offset_ms, reason=request.POST.get("reason") or "")
        except surveillance.SurveillanceError as refused:
            messages.error(request, f"Not recorded: {refused.message}")
            return redirect("compliance:round-timeline", round_id=round_id)
        messages.success(request, "Camera offset recorded.")
        return redirect("compliance:round-timeline", round_id=round_id)
    try:
        steps, offset = surveillance.round_timeline(rnd)
    except surveillance.SurveillanceError as refused:
        return render(request, "compliance/round_timeline.html", {"round": rnd, "refused": refused.message}, status=409)
    return render(request, "compliance/round_timeline.html", {
        "round": rnd, "steps": steps, "offset": offset, "may_set": request_role(request) == "supervisor",
        "offset_seconds": offset.offset_ms / 1000 if offset else None, **_replayed(rnd, request.GET.get("step"), offset),
    })


def _replayed(rnd, asked, offset) -> dict:
    """The round played again (tables/surveillance.py) and the tablet's screen after the
    step asked for (`?step=SEQ`; the first command when none is), with its camera time."""
    from tables import surveillance

    try:
        replayed = surveillance.round_replay(rnd)
    except surveillance.SurveillanceError as refused:
        return {"replay_refused": refused.message}
    seqs = [s.event.seq for s in replayed.steps]
    seq = int(asked) if asked and asked.isdigit() and int(asked) in seqs else seqs[0]
    at = seqs.index(seq)
    shown = replayed.steps[at]
    return {
        "replay": replayed, "shown": shown,
        "shown_camera_at": shown.event.created_at + timedelta(milliseconds=offset.offset_ms) if offset else None, "shown_screen": screen(replayed.steps[at].tablet),
        "previous_seq": seqs[at - 1] if at > 0 else None, "next_seq": seqs[at + 1] if at + 1 < len(seqs) else None,
    }


def screen(tablet: dict | None) -> dict | None:
    """What the page draws of the tablet's screen: the phase and the dealer's next step, the
    board, the player-dealer's cards and bank, and each seat's player, wagers, cards and
    decisions."""
    if tablet is None:
        return None
    game, view = tablet["game"], tablet["view"]
    rnd = game.get("round") or {}
    seats = []
    for seat in view.get("seats", []):
        if not seat.get("player"):
            continue
        wager = seat.get("wager") or {}
        seats.append({
            "seat": seat["seat"], "player": seat["player"], "banks": seat.get("role") == "player_dealer",
            "hole": [c for c in (wager.get("hole") or []) if c],
            "wagers": {kind: wager[kind] for kind in ("ante", "blind", "trips", "bad_beat", "pairs", "play") if wager.get(kind)},
            "checked": wager.get("checked") or [], "folded": wager.get("folded", False),
        })
    return {
        "phase": view.get("phase", ""), "next": (view.get("next") or {}).get("step", ""),
        "board": rnd.get("community") or [], "pd_hole": [c for c in (rnd.get("pd_hole") or []) if c],
        "bank": rnd.get("bank"), "seats": seats,
    }


@require_GET
@page_for(*TIMELINE_READERS)
def round_replay_export(request, round_id: int):
    """The round's surveillance export (CSV) and its manifest, for a court or the regulator
    to check offline with `verify_logs --checkpoints`."""
    from tables import surveillance
    from web.compliance.views import export_attachment

    rnd = Round.objects.select_related("table").filter(pk=round_id).first()
    if rnd is None:
        raise Http404("no such round")
    try:
        content, manifest = surveillance.round_replay_export(rnd, requested_by=request.user.get_username())
    except surveillance.SurveillanceError as refused:
        return render(request, "compliance/round_timeline.html", {"round": rnd, "refused": refused.message}, status=409)
    return export_attachment(HttpResponse(content, content_type=manifest.media_type), filename=manifest.filename,
                             export_id=manifest.id)

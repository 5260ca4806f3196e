"""Compliance pages for rounds: the round history (list, detail, CSV) and the rotation log
(page, CSV). Thin: forms read the request, rounds/selectors.py reads the database,
collections_fees/exports.py streams. Pages are for supervisors, compliance and admins.
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET

from cardroom.access import READERS, page_for
from cardroom.gaming_day import calendar
from collections_fees.forms import RotationFilterForm, RoundFilterForm
from collections_fees.selectors import SqlRows
from collections_fees.views import csv_export_view, log_page

from . import selectors
from .audit import round_verify
from .models import Round


@require_GET
@page_for(*READERS)
def round_history(request):
    return log_page(
        request,
        "compliance/rounds.html",
        RoundFilterForm,
        lambda filters: (SqlRows(selectors.round_history_query(filters, with_lists=False)), {}),
    )


@require_GET
@page_for(*READERS)
def round_detail(request, round_id: int):
    try:
        rnd = selectors.round_detail(round_id=round_id)
    except Round.DoesNotExist:
        raise Http404("no such round")
    context = {
        "round": rnd,
        "cards": selectors.round_cards_recorded(rnd),
        "dealers": selectors.round_dealers(rnd),
        # Re-decided from the stored inputs by the rules engine (rounds/audit.py): what
        # `manage.py verify_rounds` reports, for this one round.
        "differences": round_verify(rnd) if rnd.status == "settled" else None,
        "time_zone": calendar().zone,
    }
    return render(request, "compliance/round_detail.html", context)


round_export_csv = csv_export_view("rounds", RoundFilterForm, selectors.round_history_query)


@require_GET
@page_for(*READERS)
def rotation_log(request):
    return log_page(
        request,
        "compliance/rotation.html",
        RotationFilterForm,
        lambda filters: (SqlRows(selectors.rotation_log_query(filters)), {}),
    )


rotation_export_csv = csv_export_view("rotation", RotationFilterForm, selectors.rotation_log_query)


@require_GET
@page_for(*READERS)
def rounds_offered(request):
    """Was the position offered before every round (game-rules 2A.1)? The rounds where it
    was not, for the tables and gaming days chosen."""

    def contents(filters):
        every_round = SqlRows(selectors.rounds_not_offered_query(filters, not_offered_only=False))
        return SqlRows(selectors.rounds_not_offered_query(filters)), {"rounds_total": every_round.count()}

    return log_page(request, "compliance/rotation_offers.html", RotationFilterForm, contents)

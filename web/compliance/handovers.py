"""The hand-over log's page and CSV export (the query: collections_fees/handovers.py)."""

from __future__ import annotations

from django import forms
from django.views.decorators.http import require_GET

from cardroom.access import READERS, page_for
from collections_fees.handovers import handover_log_query
from cardroom.sql import SqlRows

from .forms import FilterForm
from .views import csv_export_view, log_page


class HandoverFilterForm(FilterForm):
    """The day range and table, and `dealer`: a login, incoming or outgoing."""

    fields_used = ("from", "to", "month", "table", "dealer")

    dealer = forms.CharField(required=False, max_length=150)


@require_GET
@page_for(*READERS)
def handover_log(request):
    return log_page(request, "compliance/handovers.html", HandoverFilterForm,
                    lambda filters: (SqlRows(handover_log_query(filters)), {}))


handover_export_csv = csv_export_view("handovers", HandoverFilterForm, handover_log_query)

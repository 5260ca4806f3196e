"""Forms of the compliance pages: the log filters (query string).

Filter forms touch no database (the export views are async): the table is a number and
the pages draw the table list themselves.
"""

from __future__ import annotations

import calendar as month_calendar
from datetime import date

from django import forms

from cardroom.sql import Filters

PAYER_CHOICES = [("", "any payer"), ("player", "player"), ("player_dealer", "player-dealer")]
STATUS_CHOICES = [("", "any status"), ("settled", "settled"), ("voided", "voided"), ("in_progress", "in progress")]


class FilterForm(forms.Form):
    """`?from=YYYY-MM-DD&to=YYYY-MM-DD` (gaming days, inclusive) or `?month=YYYY-MM`,
    `table=<id>`, and the text filters the page offers. Subclasses list their fields."""

    fields_used = ("from", "to", "month", "table")

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["from"] = forms.DateField(required=False)
        self.fields["to"] = forms.DateField(required=False)
        self.fields["month"] = forms.RegexField(regex=r"^\d{4}-(0[1-9]|1[0-2])$", required=False)
        self.fields["table"] = forms.IntegerField(required=False, min_value=1)
        for name in list(self.fields):
            if name not in self.fields_used:
                del self.fields[name]

    def clean(self):
        data = super().clean()
        month = data.get("month")
        if month and not data.get("from") and not data.get("to"):
            year, number = (int(part) for part in month.split("-"))
            data["from"] = date(year, number, 1)
            data["to"] = date(year, number, month_calendar.monthrange(year, number)[1])
        if data.get("from") and data.get("to") and data["from"] > data["to"]:
            raise forms.ValidationError("the first gaming day is after the last one")
        return data

    def filters(self) -> Filters:
        """The filters of a valid form."""
        data = self.cleaned_data
        return Filters(
            day_from=data.get("from"),
            day_to=data.get("to"),
            table=data.get("table"),
            dealer=(data.get("dealer") or "").strip(),
            payer=data.get("payer") or "",
            player=(data.get("player") or "").strip(),
            status=data.get("status") or "",
            meter=(data.get("meter") or "").strip(),
        )


class CollectionFilterForm(FilterForm):
    fields_used = ("from", "to", "month", "table", "dealer", "payer", "player")

    dealer = forms.CharField(required=False, max_length=150)
    payer = forms.ChoiceField(required=False, choices=PAYER_CHOICES)
    player = forms.CharField(required=False, max_length=64)


class RotationFilterForm(FilterForm):
    fields_used = ("from", "to", "month", "table", "player")

    player = forms.CharField(required=False, max_length=64)


class JackpotFilterForm(FilterForm):
    fields_used = ("from", "to", "month", "table", "player", "meter")

    player = forms.CharField(required=False, max_length=64)
    meter = forms.CharField(required=False, max_length=64)


class RoundFilterForm(FilterForm):
    fields_used = ("from", "to", "month", "table", "player", "status")

    player = forms.CharField(required=False, max_length=64)
    status = forms.ChoiceField(required=False, choices=STATUS_CHOICES)


def filter_query_string(filters: Filters) -> str:
    """The query string that selects the same rows (links from a page to its export)."""
    from urllib.parse import urlencode

    names = {"day_from": "from", "day_to": "to"}
    return urlencode({names.get(k, k): v for k, v in filters.as_dict().items()})

"""Forms of the supervisors' pages: what they accept, and the message when they do not."""

from django import forms
from django.contrib.auth import get_user_model

from cardroom.gaming_day import calendar
from tables.models import Table


class AssignmentForm(forms.Form):
    """A dealer to a table for one shift of one gaming day (the current ones when left out)."""

    dealer = forms.ModelChoiceField(queryset=get_user_model().objects.filter(groups__name="dealer"))
    table = forms.ModelChoiceField(queryset=Table.objects.filter(retired=False))  # a retired table takes no dealer
    gaming_day = forms.DateField(required=False)
    shift = forms.ChoiceField(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["shift"].choices = [(name, name) for name, _ in calendar().shifts]

"""Reproduction 5 of issue 34 in a real headless Chromium: on the tablet's "Patrons and
cash", a $3,640 cash payout for P-1001 is recorded once, the form clears, and the same
payout typed again is not recorded until the dealer says, in words, that it is not a
double tap."""

import pytest

from patrons.models import CashTransaction

from .test_browser import browsers, daphne, expect  # noqa: F401 (fixtures)
from .test_patrons_browser import _tablet, floor  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def _fill(form, player, dollars):
    form.locator("select[name=kind]").select_option(label="Cash payout")
    form.locator("input[name=player]").fill(player)
    form.locator("input[name=amount]").fill(dollars)


def test_the_cash_form_clears_after_record_and_asks_before_a_possible_duplicate(daphne, floor, browsers):  # noqa: F811
    tablet = _tablet(browsers, daphne.url, floor["t1"])
    form = tablet.locator("#patron-cash")
    again = form.locator("button[name=confirm]")
    _fill(form, "P-1001", "3640")
    form.locator("button[type=submit]").click()
    expect(form.locator("output")).to_contain_text("$3,640.00 for P-1001 recorded (cash #1)")
    # The form is empty: a second tap on Record sends nothing.
    for field in ("player", "amount", "note"):
        expect(form.locator(f"input[name={field}]")).to_have_value("")
    expect(again).to_be_hidden()
    # The same payout typed again within two minutes: nothing recorded, the dealer is asked.
    _fill(form, "P-1001", "3640")
    form.locator("button[type=submit]").click()
    expect(form.locator("output")).to_contain_text("Nothing recorded: the same entry")
    expect(again).to_be_visible()
    expect(again).to_have_text("Record again: it is not a double tap")
    assert CashTransaction.objects.count() == 1
    again.click()
    expect(form.locator("output")).to_contain_text("recorded (cash #2)")
    expect(again).to_be_hidden()
    assert list(CashTransaction.objects.values_list("amount", flat=True)) == [364000, 364000]
    assert len(set(CashTransaction.objects.values_list("client_id", flat=True))) == 2
    assert tablet.errors == [], tablet.errors

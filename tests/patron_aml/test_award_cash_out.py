"""A progressive award is a cash-out, paid once (issue 34, item 9): its payout row names it
(`award_round`, `award_seat`) and a second payout of the same award, a double tap or a
second person paying it again, is refused `award_paid` and writes nothing; the database
refuses it too (`cash_award_paid_once`)."""

from unittest import mock

import pytest
from django.db import IntegrityError

from patrons import cash
from patrons.identity import PatronError
from patrons.models import CashAlert, CashTransaction
from tests.patron_aml.test_cash_ledger import PAYOUT, confirmed_award, pay_award  # noqa: F401 (a fixture)


def test_an_award_is_cashed_out_once_and_counts_in_the_days_cash_out(confirmed_award):
    table, rnd, people = confirmed_award
    paid = pay_award(table, rnd, people["sue"])
    for again in (people["sue"], people["dan"]):  # the same person's double tap, another person
        with pytest.raises(PatronError) as refused:
            pay_award(table, rnd, again)
        assert refused.value.code == "award_paid"
        assert f"cash seq {paid.seq}" in str(refused.value)
    assert list(CashTransaction.objects.values_list("pk", flat=True)) == [paid.pk]
    # The $10,008 award is the winner's cash out of the day: above the CTR line.
    assert cash.day_total(f"patron:{paid.patron_id}", paid.gaming_day, "out") == PAYOUT
    assert CashAlert.objects.filter(kind="ctr_required", direction="out", transaction=paid).exists()
    assert cash.verify_chain() == []


def test_the_database_refuses_a_second_payout_of_an_award(confirmed_award):
    """Behind the service's check: with it gone, the unique constraint still refuses."""
    table, rnd, people = confirmed_award
    pay_award(table, rnd, people["sue"])
    with mock.patch("patrons.cash.award_already_paid", return_value=None), \
            mock.patch("patrons.cash._possible_duplicate", return_value=None), pytest.raises(IntegrityError):
        pay_award(table, rnd, people["dan"])

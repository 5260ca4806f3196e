"""A supervisor asks for the correction of a settled round from its compliance page
(/compliance/rounds/<id>/); a second supervisor approves it in the queue, which records
the reversing entry. Compliance reads the page but asks for nothing; a request without a
reason is refused and stores nothing; a round asked for or reversed offers no second form."""

import pytest
from django.test import Client

from rounds.models import Round
from tables.models import Approval, RoundCorrection
from tests.engine.helpers import seated_with_pd

from tests.service.conftest import full_round
from tests.playing import run_ok
from .test_access import staff  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def settled_round(table) -> Round:
    run_ok(table, *seated_with_pd([1, 2, 3], pd=1), *full_round([2, 3]))
    return Round.objects.get(table=table, number=1, status="settled")


def test_a_supervisor_asks_from_the_rounds_page_and_a_second_one_approves_in_the_queue(staff):  # noqa: F811
    rnd = settled_round(staff["table"])
    page = f"/compliance/rounds/{rnd.pk}/"
    asker = client_of(staff["sup"])
    assert 'id="correction-form"' in asker.get(page).content.decode()

    response = asker.post(page, {"reason": "wrong hole cards entered"}, follow=True)
    (asked,) = Approval.objects.filter(kind="correction")
    assert (asked.round_number, asked.payload, asked.requested_by) == (
        rnd.number, {"reason": "wrong hole cards entered", "round": rnd.number}, staff["sup"])
    shown = response.content.decode()
    assert "Correction requested" in shown and 'data-status="pending"' in shown
    assert 'id="correction-form"' not in shown  # one request at a time

    client_of(staff["sup2"]).post("/staff/approvals/", {"approval": asked.pk, "approve": "1"})
    (reversal,) = RoundCorrection.objects.filter(round=rnd)
    assert reversal.approval == asked
    shown = asker.get(page).content.decode()
    assert 'id="round-corrected"' in shown and 'data-status="approved"' in shown
    assert 'id="correction-form"' not in shown


def test_a_request_without_a_reason_is_refused_and_stores_nothing(staff):  # noqa: F811
    rnd = settled_round(staff["table"])
    response = client_of(staff["sup"]).post(f"/compliance/rounds/{rnd.pk}/", {"reason": "  "}, follow=True)
    assert "Not requested (invalid_command)" in response.content.decode()
    assert not Approval.objects.exists()


def test_compliance_reads_the_page_but_asks_for_no_correction(staff):  # noqa: F811
    rnd = settled_round(staff["table"])
    auditor = client_of(staff["auditor"])
    page = auditor.get(f"/compliance/rounds/{rnd.pk}/")
    assert page.status_code == 200 and 'id="correction-form"' not in page.content.decode()
    assert auditor.post(f"/compliance/rounds/{rnd.pk}/", {"reason": "looks wrong"}).status_code == 403
    assert not Approval.objects.exists()


def test_a_round_in_play_offers_no_correction(staff):  # noqa: F811
    table = staff["table"]
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000},
           {"type": "wager", "seat": 2, "ante": 500})
    rnd = Round.objects.get(table=table, number=1)
    asker = client_of(staff["sup"])
    assert 'id="correction-form"' not in asker.get(f"/compliance/rounds/{rnd.pk}/").content.decode()
    response = asker.post(f"/compliance/rounds/{rnd.pk}/", {"reason": "too early"}, follow=True)
    assert "Not requested (invalid_command)" in response.content.decode()
    assert not Approval.objects.exists()

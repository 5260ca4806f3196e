"""A void asked for on the tablet travels to the supervisors and back: the request waits in
the queue and on the floor, a supervisor decides on their own device, the tablet reads the
outcome; a request whose round has ended meanwhile is expired and can only be dismissed;
credentials typed on the tablet that fail leave no request behind."""

import json

import pytest
from django.test import Client

from cardroom.models import AuditEntry
from rounds.models import Round
from tables.models import Approval, ApprovalDecision
from tables.floor import floor_rows
from tests.engine.helpers import seated_with_pd

from tests.playing import run_ok
from .test_access import person, staff  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

VOID = {"kind": "void", "payload": {"reason": "card exposed"}}


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def post(client, url, body):
    response = client.post(url, json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


def open_round(table):
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000},
           {"type": "wager", "seat": 2, "ante": 500}, {"type": "no_more_bets"})


def alert_kinds(table):
    (row,) = floor_rows([table.pk])
    return {a["kind"]: a for a in row["alerts"]}


def test_a_void_request_waits_on_the_floor_and_the_tablet_follows_the_supervisors_decision(staff):  # noqa: F811
    table = staff["table"]
    open_round(table)
    tablet = client_of(staff["dealer"])
    status, asked = post(tablet, f"/api/tables/{table.pk}/approvals", VOID)
    assert status == 200 and asked["status"] == "pending"
    assert alert_kinds(table)["approval_pending"]["count"] == 1
    assert tablet.get(f"/api/approvals/{asked['approval']}").json()["status"] == "pending"

    queue = client_of(staff["sup"])
    queue.post("/staff/approvals/", {"approval": asked["approval"], "approve": "1"})
    state = tablet.get(f"/api/approvals/{asked['approval']}").json()
    assert state["status"] == "approved" and state["decided_by"] == "sam"
    assert Round.objects.get(table=table).status == "voided"
    assert "approval_pending" not in alert_kinds(table)


def test_another_tables_dealer_cannot_read_a_request(staff):  # noqa: F811
    table = staff["table"]
    open_round(table)
    _, asked = post(client_of(staff["dealer"]), f"/api/tables/{table.pk}/approvals", VOID)
    response = client_of(staff["other_dealer"]).get(f"/api/approvals/{asked['approval']}")
    assert response.status_code == 403 and response.json()["error"]["code"] == "not_authorized"


def test_a_request_whose_round_ended_is_expired_never_approved_and_can_be_dismissed(staff):  # noqa: F811
    table = staff["table"]
    open_round(table)
    tablet = client_of(staff["dealer"])
    _, asked = post(tablet, f"/api/tables/{table.pk}/approvals", VOID)
    # The round ends another way first (a replay-style void naming its approver).
    run_ok(table, {"type": "void_round", "reason": "shuffler jam", "approved_by": "sue"}, actor="test")
    assert tablet.get(f"/api/approvals/{asked['approval']}").json()["status"] == "expired"
    assert alert_kinds(table)["approval_expired"]["count"] == 1

    queue = client_of(staff["sup"])
    page = queue.post("/staff/approvals/", {"approval": asked["approval"], "approve": "1"}, follow=True)
    assert "has expired" in page.content.decode()
    assert not ApprovalDecision.objects.filter(approval_id=asked["approval"]).exists()
    assert b"Dismiss" in queue.get("/staff/approvals/").content

    queue.post("/staff/approvals/", {"approval": asked["approval"], "approve": "0"})
    decision = ApprovalDecision.objects.get(approval_id=asked["approval"])
    assert decision.approved is False
    assert AuditEntry.objects.filter(action="approval_decided", summary__contains="dismissed, expired").exists()
    assert tablet.get(f"/api/approvals/{asked['approval']}").json()["status"] == "refused"
    assert alert_kinds(table).keys().isdisjoint({"approval_pending", "approval_expired"})


def test_failed_credentials_on_the_tablet_leave_no_request(staff):  # noqa: F811
    table = staff["table"]
    open_round(table)
    tablet = client_of(staff["dealer"])
    wrong = {**VOID, "approver": {"username": "sam", "password": "not-his"}}
    status, answer = post(tablet, f"/api/tables/{table.pk}/approvals", wrong)
    assert status == 403 and answer["error"]["code"] == "not_authorized"
    assert not Approval.objects.exists()
    assert Round.objects.get(table=table).status == "in_progress"

    right = {**VOID, "approver": {"username": "sam", "password": "pw-sam"}}
    status, answer = post(tablet, f"/api/tables/{table.pk}/approvals", right)
    assert status == 200 and answer["status"] == "approved" and answer["result"]["ok"]
    decision = ApprovalDecision.objects.get(approval_id=answer["approval"])
    assert (decision.decided_by, decision.via, decision.approval.requested_by) == (staff["sup"], "tablet", staff["dealer"])
    assert Round.objects.get(table=table).status == "voided"


def test_a_dealer_cannot_approve_on_the_tablet_with_their_own_credentials(staff):  # noqa: F811
    table = staff["table"]
    open_round(table)
    tablet = client_of(staff["dealer"])
    own = {**VOID, "approver": {"username": "dan", "password": "pw-dan"}}
    status, answer = post(tablet, f"/api/tables/{table.pk}/approvals", own)
    assert status == 403 and answer["error"]["code"] == "not_authorized"
    # All or nothing: the request made on the way is rolled back with the refusal.
    assert not Approval.objects.exists()
    assert Round.objects.get(table=table).status == "in_progress"

"""The supervisors' pages: the approval queue's answers and the assignments list's cost."""

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from tables.approvals import approval_request
from tables.models import ApprovalDecision, DealerAssignment

from tests.engine.helpers import seated_with_pd

from tests.playing import run_ok

pytestmark = pytest.mark.django_db


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_queue_shows_why_a_decision_was_refused(make_table):
    sup, sup2 = person("sam", "supervisor"), person("sue", "supervisor")
    table = make_table()
    run_ok(table, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000})
    approval = approval_request(actor=Actor.of(sup), table_id=table.pk, kind="void", payload={"reason": "misdeal"})

    own = logged_in(sup).post("/staff/approvals/", {"approval": approval.pk, "approve": "1"}, follow=True)
    assert "the requester cannot approve their own request" in own.content.decode()
    assert not ApprovalDecision.objects.filter(approval=approval).exists()

    other = logged_in(sup2).post("/staff/approvals/", {"approval": approval.pk, "approve": "1"}, follow=True)
    assert "Approved" in other.content.decode()
    assert ApprovalDecision.objects.get(approval=approval).approved


def assignments_page_queries(make_table, dealers: int) -> int:
    sup = person(f"sup-{dealers}", "supervisor")
    now, cal = timezone.now(), calendar()
    for i in range(dealers):
        DealerAssignment.objects.create(
            dealer=person(f"d-{dealers}-{i}", "dealer"), table=make_table(), gaming_day=cal.gaming_day(now),
            shift=cal.shift(now), assigned_by=person(f"s-{dealers}-{i}", "supervisor"), assigned_at=now,
        )
    client = logged_in(sup)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get("/staff/assignments/").status_code == 200
    DealerAssignment.objects.all().delete()
    return len(ctx.captured_queries)


def test_the_assignments_page_costs_the_same_for_2_or_7_assignments(make_table):
    two, seven = assignments_page_queries(make_table, 2), assignments_page_queries(make_table, 7)
    print(f"assignments page queries: 2 assignments {two}, 7 assignments {seven}")
    assert two == seven


def test_the_staff_api_answers_refusals_with_their_statuses(make_table):
    sup, dealer = logged_in(person("sam", "supervisor")), logged_in(person("dan", "dealer"))
    table = make_table()

    def post(client, url, body):
        response = client.post(url, body, content_type="application/json")
        return response.status_code, response.json()["error"]["code"] if response.status_code != 200 else None

    assert post(sup, f"/api/tables/{table.pk}/config", "not json") == (400, "invalid_command")
    assert post(sup, "/api/tables/999999/config", '{"config": {}}') == (404, "invalid_command")
    assert post(sup, f"/api/tables/{table.pk}/config", '{"config": {"paytable": "UTH-02"}}') == (409, "approval_required")
    assert post(sup, f"/api/tables/{table.pk}/open", '{"open": false, "reason": "count"}') == (200, None)
    assert post(sup, f"/api/tables/{table.pk}/config", '{"config": {"paytable": "nope"}}') == (400, "invalid_command")
    below = sup.post(
        f"/api/tables/{table.pk}/config", '{"config": {"paytable": {"trips": {"two_pair": [1, 1]}}}}',
        content_type="application/json",
    )
    assert below.status_code == 400 and "pays only on three of a kind or better" in below.json()["error"]["message"]
    assert post(sup, "/api/tables/999999/open", '{"open": true, "reason": "game on"}') == (404, "invalid_command")
    assert post(dealer, f"/api/tables/{table.pk}/approvals", '{"kind": "void", "payload": {"reason": "x"}}') == (
        403, "not_authorized")
    assert post(sup, f"/api/tables/{table.pk}/approvals", '{"kind": "void", "payload": {"reason": "x"}}') == (
        400, "wrong_state")


def test_an_assignment_is_made_and_audited_once_and_bad_input_changes_nothing(make_table):
    sup, dealer, table = person("sam", "supervisor"), person("dan", "dealer"), make_table()
    page = logged_in(sup)

    def audited():
        return AuditEntry.objects.filter(action="assignment").count()

    made = page.post("/staff/assignments/", {"dealer": dealer.pk, "table": table.pk, "shift": "swing"}, follow=True)
    assert f"dan assigned to {table.name}" in made.content.decode()
    assert DealerAssignment.objects.filter(dealer=dealer, table=table, shift="swing").count() == 1
    assert audited() == 1

    again = page.post("/staff/assignments/", {"dealer": dealer.pk, "table": table.pk, "shift": "swing"}, follow=True)
    assert "Already dan assigned" in again.content.decode()
    assert DealerAssignment.objects.count() == 1 and audited() == 1  # the log shows what happened, once

    for bad in (
        {"dealer": dealer.pk, "table": table.pk, "shift": "night-owl"},  # no such shift
        {"dealer": "dan", "table": table.pk},
        {"dealer": sup.pk, "table": table.pk},  # not a dealer
        {"dealer": dealer.pk, "table": table.pk, "gaming_day": "someday"},
        {"table": table.pk},
    ):
        refused = page.post("/staff/assignments/", bad, follow=True)
        assert refused.status_code == 200 and "Not assigned:" in refused.content.decode(), bad
    assert DealerAssignment.objects.count() == 1 and audited() == 1

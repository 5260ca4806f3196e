"""Credentials typed anywhere but the login form: a supervisor's username and password
typed on a dealer's tablet (tables.approvals.tablet_login), behind `POST
/api/tables/<id>/approvals` with `approver`, `POST /api/approvals/<id>/decide` and `POST
/api/tables/<id>/commands/confirmed-here`. The rule is in docs/controls.md ("Credentials
typed on a tablet"). What each test here proves:

- the table must exist and the tablet's person must drive it before any credential is
  checked: a made-up table id, another table's approval, an unknown approval are answered
  without a password check and count nothing;
- failures count per requester (the person, by user id) and approver name across every
  table and session, and per requester over every name: the guess past the limit is
  refused whatever the table or the session, and cycling names is stopped too; another
  dealer is not held back;
- a wrong password and a name that may not approve get one answer at one hasher's cost;
- django-axes records nothing (the supervisor's own login stays open); every failure is a
  `login_failed` audit row; the floor shows the table where a limit was reached.
"""

import json

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client

from cardroom.access import Actor
from cardroom.models import AuditEntry
from rounds.models import Round
from tables.alerts import alert_acknowledge
from tables.approvals import approval_request
from tables.floor import floor_rows
from tables.models import Approval, ApprovalDecision

from tests.engine.helpers import seated_with_pd

from tests.playing import run_ok
from .test_access import assign, person

pytestmark = pytest.mark.django_db

WRONG = "not-the-password"
NOT_A_SUPERVISORS = {"code": "not_authorized", "message": "those credentials are not a supervisor's"}


@pytest.fixture
def floor(make_table):
    """Tables T (dealt by dan, a round in play) and U (dan's too) and O (dora's), the
    supervisors sam and sue, each person with the password pw-<name>."""
    sam, sue = person("sam", "supervisor"), person("sue", "supervisor")
    dan, dora = person("dan", "dealer"), person("dora", "dealer")
    table, second, other = make_table(), make_table(), make_table()
    for t in (table, second, other):
        run_ok(t, *seated_with_pd([1, 2], pd=1), {"type": "open_round", "bank": 5000},
               {"type": "wager", "seat": 2, "ante": 500})
    assign(dan, table, sam)
    assign(dan, second, sam)
    assign(dora, other, sam)
    return {"table": table, "second": second, "other": other, "sam": sam, "sue": sue, "dan": dan, "dora": dora}


def tablet_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def void_here(tablet, table_id, username, password):
    """A void requested and approved at once with a supervisor's credentials."""
    return tablet.post(f"/api/tables/{table_id}/approvals",
                       {"kind": "void", "payload": {"reason": "jam"},
                        "approver": {"username": username, "password": password}},
                       content_type="application/json")


def decide_here(tablet, approval_id, username, password):
    return tablet.post(f"/api/approvals/{approval_id}/decide",
                       {"username": username, "password": password, "approve": True}, content_type="application/json")


def refused_as_credentials(answer) -> bool:
    return answer.status_code == 403 and answer.json() == {"ok": False, "error": NOT_A_SUPERVISORS}


def rate_limited(answer) -> bool:
    return answer.status_code == 429 and answer.json()["error"]["code"] == "rate_limited"


def in_play(table) -> bool:
    return Round.objects.get(table=table, number=1).status == "in_progress"


def fail(tablet, table, username, times):
    for _ in range(times):
        assert refused_as_credentials(void_here(tablet, table.pk, username, WRONG))


def test_made_up_table_ids_check_no_credentials_and_the_guess_past_the_limit_is_refused_on_any_table(floor):
    """The reproduction of issue 33 finding 1: guesses through made-up table ids were each
    checked against a fresh counter, and never refused."""
    dan = tablet_of(floor["dan"])
    limit = settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT
    for made_up in range(floor["other"].pk + 1000, floor["other"].pk + 1000 + 2 * limit):
        answer = void_here(dan, made_up, "sue", WRONG)
        assert answer.status_code == 404 and answer.json()["error"]["message"] == "no such table", made_up
    assert not AuditEntry.objects.filter(action="login_failed").exists()  # nothing was checked
    # dan's own tables share one count: half the guesses at each...
    for n in range(limit):
        assert refused_as_credentials(void_here(dan, (floor["table"], floor["second"])[n % 2].pk, "sue", WRONG))
    # ...and the next is refused at either, even with sue's right password.
    for table in (floor["table"], floor["second"]):
        assert rate_limited(void_here(dan, table.pk, "sue", "pw-sue"))
        assert in_play(table)
    assert not Approval.objects.exists()


def test_another_session_of_the_same_dealer_is_refused_too(floor):
    fail(tablet_of(floor["dan"]), floor["table"], "sue", settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT)
    again = tablet_of(floor["dan"])  # a new login: a new session
    assert rate_limited(void_here(again, floor["table"].pk, "sue", "pw-sue"))
    approval = approval_request(actor=Actor.of(floor["dan"]), table_id=floor["table"].pk, kind="void",
                                payload={"reason": "jam"})
    assert rate_limited(decide_here(again, approval.pk, "sue", "pw-sue"))  # any form that takes credentials
    assert not ApprovalDecision.objects.exists() and in_play(floor["table"])


def test_the_limit_holds_back_that_requester_with_that_name_not_another_dealer_nor_another_name(floor):
    """Counted per requester and approver: dan's guesses at sue's password stop dan using
    sue's name; dora still has sue approve at her table (one dealer must not be able to lock
    a supervisor out of every tablet), and dan still has sam approve at his."""
    fail(tablet_of(floor["dan"]), floor["table"], "sue", settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT)
    approved = void_here(tablet_of(floor["dora"]), floor["other"].pk, "sue", "pw-sue")
    assert approved.status_code == 200 and approved.json()["result"]["ok"]
    assert not in_play(floor["other"])
    by_sam = void_here(tablet_of(floor["dan"]), floor["table"].pk, "sam", "pw-sam")
    assert by_sam.status_code == 200 and not in_play(floor["table"])


def test_cycling_through_names_is_stopped_by_the_requesters_total(floor):
    dan = tablet_of(floor["dan"])
    below = settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT - 1
    names = iter(f"guess-{n}" for n in range(100))
    failed = 0
    while failed < settings.CARDROOM_APPROVAL_LOGIN_REQUESTER_FAILURE_LIMIT:
        times = min(below, settings.CARDROOM_APPROVAL_LOGIN_REQUESTER_FAILURE_LIMIT - failed)
        fail(dan, floor["table"], next(names), times)  # never the limit with one name
        failed += times
    assert rate_limited(void_here(dan, floor["table"].pk, "sam", "pw-sam"))  # no name works now
    assert in_play(floor["table"])
    # dora is not held back.
    assert void_here(tablet_of(floor["dora"]), floor["other"].pk, "sam", "pw-sam").status_code == 200


def test_a_wrong_password_and_a_name_that_may_not_approve_get_one_answer_at_one_hashers_cost(floor, monkeypatch):
    person("cora", "compliance")
    inactive = person("ivy", "supervisor")
    inactive.is_active = False
    inactive.save()
    runs = []
    encode = MD5PasswordHasher.encode
    monkeypatch.setattr(MD5PasswordHasher, "encode", lambda self, *a, **k: runs.append(1) or encode(self, *a, **k))
    dan = tablet_of(floor["dan"])
    for name, password in [("sue", WRONG), ("dora", "pw-dora"), ("cora", "pw-cora"), ("ivy", "pw-ivy"),
                           ("nobody", "pw-nobody"), ("dan", "pw-dan")]:
        runs.clear()
        answer = void_here(dan, floor["table"].pk, name, password)
        assert refused_as_credentials(answer), (name, answer.content)
        assert len(runs) == 1, name  # the hasher ran once, whatever failed
    assert in_play(floor["table"]) and not Approval.objects.exists()


def test_the_decide_endpoint_checks_the_table_before_any_credential(floor):
    approval = approval_request(actor=Actor.of(floor["dan"]), table_id=floor["table"].pk, kind="void",
                                payload={"reason": "jam"})
    dora = tablet_of(floor["dora"])  # deals table O, not T
    for password in ["pw-sam"] + [WRONG] * (settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT + 1):
        answer = decide_here(dora, approval.pk, "sam", password)
        assert answer.status_code == 403 and answer.json()["error"]["message"] == "dora does not work this table"
    unknown = decide_here(dora, approval.pk + 1000, "sam", WRONG)
    assert unknown.status_code == 404 and unknown.json()["error"]["message"] == "no such approval"
    assert not AuditEntry.objects.filter(action="login_failed").exists()  # no credential was checked
    assert not ApprovalDecision.objects.exists() and in_play(floor["table"])
    # dan, who deals T, has it decided there.
    decided = decide_here(tablet_of(floor["dan"]), approval.pk, "sam", "pw-sam")
    assert decided.status_code == 200 and decided.json()["approved"] and not in_play(floor["table"])


def test_a_supervisors_credentials_confirm_nothing_at_a_table_the_tablets_person_does_not_drive(floor):
    answer = tablet_of(floor["dora"]).post(
        f"/api/tables/{floor['table'].pk}/commands/confirmed-here",
        {"command": {"type": "start_game"}, "approver": {"username": "sam", "password": WRONG}},
        content_type="application/json")
    assert answer.status_code == 403 and "does not work this table" in answer.json()["error"]["message"]
    assert not AuditEntry.objects.filter(action="login_failed").exists()


def test_django_axes_records_nothing_and_the_supervisors_own_login_stays_open(floor, settings):
    # More failures than django-axes would take before locking sue's own login.
    settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT = settings.AXES_FAILURE_LIMIT + 2
    settings.CARDROOM_APPROVAL_LOGIN_REQUESTER_FAILURE_LIMIT = settings.AXES_FAILURE_LIMIT + 2
    fail(tablet_of(floor["dan"]), floor["table"], "sue", settings.AXES_FAILURE_LIMIT + 1)
    assert not AccessAttempt.objects.exists() and not AccessFailureLog.objects.exists()
    assert not AccessLog.objects.filter(username="sue").exists()  # (dan's own login is logged)
    assert Client().post("/accounts/login/", {"username": "sue", "password": "pw-sue"}).status_code == 302


def test_each_failure_is_a_login_failed_audit_row_naming_the_requester(floor):
    limit = settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT
    dan = tablet_of(floor["dan"])
    fail(dan, floor["table"], "sue", limit)
    assert rate_limited(void_here(dan, floor["table"].pk, "sue", WRONG))  # refused unchecked: no row
    rows = list(AuditEntry.objects.filter(action="login_failed").order_by("at", "id"))
    assert len(rows) == limit
    assert {(r.username, r.table_id, r.detail["requester"], r.detail["requester_name"]) for r in rows} == {
        ("sue", floor["table"].pk, floor["dan"].pk, "dan")}
    assert [r.detail["failures_with_name"] for r in rows] == list(range(1, limit + 1))
    assert [r.detail["locked"] for r in rows] == [False] * (limit - 1) + [True]
    assert all(WRONG not in json.dumps(r.detail) + r.summary for r in rows)  # never the password


def test_the_floor_shows_the_table_where_a_requester_was_held_back(floor):
    limit = settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT

    def locked_alerts():
        rows = floor_rows([floor["table"].pk, floor["second"].pk])
        return {row["table"]: [a for a in row["alerts"] if a["kind"] == "tablet_login_locked"] for row in rows}

    dan = tablet_of(floor["dan"])
    fail(dan, floor["table"], "sue", limit - 1)
    assert locked_alerts() == {floor["table"].pk: [], floor["second"].pk: []}
    fail(dan, floor["second"], "sue", 1)  # the limit, reached at U
    alerts = locked_alerts()
    assert alerts[floor["table"].pk] == []
    (alert,) = alerts[floor["second"].pk]
    assert "dan" in alert["text"] and f"{limit} failed" in alert["text"] and "sue" not in alert["text"]
    ack = alert_acknowledge(table_id=floor["second"].pk, kind=alert["kind"], ref=alert["ref"], actor=Actor.of(floor["sam"]))
    assert ack.acknowledged_by == floor["sam"]
    assert locked_alerts()[floor["second"].pk][0]["ack"]["by"] == "sam"


def test_an_attempt_is_counted_before_its_password_is_checked(floor, monkeypatch):
    """Guesses sent in parallel cannot all pass the limit's check before one is counted:
    an attempt made while another's password is being checked (here, from inside that
    check) finds it counted already."""
    from tables import approvals

    dan = tablet_of(floor["dan"])
    fail(dan, floor["table"], "sue", settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT - 1)
    meanwhile = []
    check = approvals._supervisor_login

    def slow_check(username, password):
        if not meanwhile:
            meanwhile.append(void_here(tablet_of(floor["dan"]), floor["second"].pk, "sue", "pw-sue"))
        return check(username, password)

    monkeypatch.setattr(approvals, "_supervisor_login", slow_check)
    assert refused_as_credentials(void_here(dan, floor["table"].pk, "sue", WRONG))  # the last one allowed
    assert rate_limited(meanwhile[0])
    assert in_play(floor["second"])


def test_a_right_password_is_not_counted_as_a_failure(floor):
    dan = tablet_of(floor["dan"])
    total = settings.CARDROOM_APPROVAL_LOGIN_REQUESTER_FAILURE_LIMIT
    for n in range(total - 1):
        fail(dan, floor["table"], f"guess-{n}", 1)
    assert void_here(dan, floor["table"].pk, "sam", "pw-sam").status_code == 200
    # One failure left before the requester's total: refused as credentials, not held back.
    assert refused_as_credentials(void_here(dan, floor["second"].pk, "sue", WRONG))
    assert rate_limited(void_here(dan, floor["second"].pk, "sue", "pw-sue"))


def test_of_two_attempts_that_both_passed_the_limits_check_the_second_counted_is_refused(floor, monkeypatch):
    """The race the up-front count closes: both attempts read the count below the limit,
    then each counts itself; the one counted past the limit checks no password."""
    from tables import approvals

    dan = tablet_of(floor["dan"])
    fail(dan, floor["table"], "sue", settings.CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT - 1)
    meanwhile = []
    count = approvals._count_failure

    def count_after_another(key):
        if not meanwhile:  # the other attempt runs whole between this one's check and its count
            meanwhile.append(None)
            meanwhile[0] = void_here(tablet_of(floor["dan"]), floor["second"].pk, "sue", WRONG)
        return count(key)

    monkeypatch.setattr(approvals, "_count_failure", count_after_another)
    answer = void_here(dan, floor["table"].pk, "sue", "pw-sue")
    assert refused_as_credentials(meanwhile[0])  # the limit's last failure
    assert rate_limited(answer)  # past the limit: the right password is not even checked
    assert in_play(floor["table"])

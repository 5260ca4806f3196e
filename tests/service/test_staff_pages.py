"""The supervisors' pages: the approval queue's answers."""

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from cardroom.access import Actor
from tables.approvals import approval_request
from tables.models import ApprovalDecision

from .conftest import run_ok, seated

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
    run_ok(table, *seated(6, [1, 2], pd=1), {"type": "open_round", "bank": 5000})
    approval = approval_request(actor=Actor.of(sup), table_id=table.pk, kind="void", payload={"reason": "misdeal"})

    own = logged_in(sup).post("/staff/approvals/", {"approval": approval.pk, "approve": "1"}, follow=True)
    assert "the requester cannot approve their own request" in own.content.decode()
    assert not ApprovalDecision.objects.filter(approval=approval).exists()

    other = logged_in(sup2).post("/staff/approvals/", {"approval": approval.pk, "approve": "1"}, follow=True)
    assert "Approved" in other.content.decode()
    assert ApprovalDecision.objects.get(approval=approval).approved

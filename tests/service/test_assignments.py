"""The assignment service (tables/assignments.py), the one writer of dealer assignments."""

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from tables import assignments
from tables.models import DealerAssignment

pytestmark = pytest.mark.django_db


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def test_an_assignment_whose_audit_entry_fails_is_not_made(make_table, monkeypatch):
    sup, dealer, table = person("sam", "supervisor"), person("dan", "dealer"), make_table()
    now = timezone.now()

    def audit_fails(**_):
        raise RuntimeError("audit trail unavailable")

    monkeypatch.setattr(assignments, "audit_record", audit_fails)
    with pytest.raises(RuntimeError):
        assignments.assignment_create(
            actor=Actor.of(sup), dealer=dealer, table=table, gaming_day=calendar().gaming_day(now), shift="swing", at=now
        )
    assert not DealerAssignment.objects.filter(dealer=dealer).exists()  # no assignment without its audit entry
    assert not AuditEntry.objects.filter(action="assignment").exists()


def test_the_assignment_is_made_by_the_actor_and_audited_in_its_words(make_table):
    sup, dealer, table = person("sam", "supervisor"), person("dan", "dealer"), make_table()
    now = timezone.now()
    day = calendar().gaming_day(now)
    made, created = assignments.assignment_create(
        actor=Actor.of(sup), dealer=dealer, table=table, gaming_day=day, shift="swing", at=now
    )
    assert created and made.assigned_by == sup and made.assigned_at == now and made.ended_at is None
    entry = AuditEntry.objects.get(action="assignment")
    assert entry.username == "sam" and entry.table_id == table.pk
    assert entry.summary == assignments.assignment_text(dealer=dealer, table=table, gaming_day=day, shift="swing")
    assert entry.summary.startswith(f"dan assigned to {table.name} for {day} swing")

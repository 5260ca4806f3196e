import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from patrons.identity import patron_create
from tables.models import DealerAssignment
from tests.playing import new_table


def person(username, role):
    user = User.objects.create_user(username, password=f"{username}-pw")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def people(db):
    made = {role: person(role, role) for role in ("dealer", "supervisor", "compliance")}
    # A second compliance person: removals from a self-exclusion list take two (issue 34).
    made["compliance2"] = person("compliance2", "compliance")
    return made


@pytest.fixture
def actors(people):
    return {role: Actor.of(user) for role, user in people.items()}


@pytest.fixture
def tables(people):
    made = [new_table(f"T{i}") for i in (1, 2)]  # their boxes placed: a person opens a round only with them
    now, cal = timezone.now(), calendar()
    for table in made:
        DealerAssignment.objects.create(
            dealer=people["dealer"], table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
            assigned_by=people["supervisor"], assigned_at=now,
        )
    return made


@pytest.fixture
def ann(actors):
    return patron_create(
        actor=actors["compliance"], number="P-1001", card="CC-77001", display_name="Ann L.", legal_name="Ann Lee",
        id_type="drivers_license", id_number="D1234567", id_issuer="CA",
    )

"""Who may drive a table is checked where it cannot be missed (issue 24): the table row's
`drivers_version`, moved by the database on every change of the table's assignments
(tables/migrations/0019_table_drivers_version.py), compared under the table lock with what the socket's actor
holds (cardroom.access.DriveGrant), together with the gaming day and shift."""

from contextlib import nullcontext
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.db import ProgrammingError, connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cardroom.access import Actor, DriveGrant
from cardroom.gaming_day import calendar
from tables import standing
from tables.models import DealerAssignment, Table
from tables.relief import handover_take, relief_plan_make
from tables.services import command_execute
from tests.db_access import as_owner

pytestmark = pytest.mark.django_db


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def socket_actor(user) -> Actor:
    """The actor a socket sends commands as: made from its scope, holding its DriveGrant."""
    return Actor.from_scope({"user": user, "client": ("10.0.0.9", 1)})


def sit(seat):
    return {"type": "sit", "seat": seat, "player": f"P-{seat}"}


def drivers_version(table) -> int:
    return Table.objects.values_list("drivers_version", flat=True).get(pk=table.pk)


@pytest.fixture
def floor(make_table, monkeypatch):
    # Only the counter may carry a change here: the in-process announcement is off.
    monkeypatch.setattr(standing, "changed", lambda *args, **kwargs: None)
    now, cal = timezone.now(), calendar()
    sup, ana = person("sam", "supervisor"), person("ana", "dealer")
    table, other = make_table(), make_table()
    assignment = DealerAssignment.objects.create(
        dealer=ana, table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now), assigned_by=sup,
        assigned_at=now)
    return {"sup": sup, "ana": ana, "table": table, "other": other, "assignment": assignment}


def assignment_queries(captured) -> int:
    return sum("tables_dealerassignment" in q["sql"] for q in captured.captured_queries)


# --- the counter ----------------------------------------------------------------------------

def test_every_change_of_a_tables_assignments_moves_its_counter_and_no_other(floor):
    table, other, sup = floor["table"], floor["other"], floor["sup"]
    start, elsewhere = drivers_version(table), drivers_version(other)
    assert start >= 1  # the fixture's assignment moved it already
    ben = person("ben", "dealer")
    live = DealerAssignment.objects.create(dealer=ben, table=table, gaming_day=floor["assignment"].gaming_day,
                                           shift=floor["assignment"].shift, assigned_by=sup,
                                           assigned_at=timezone.now())
    assert drivers_version(table) == start + 1
    # One statement ending both of the table's assignments moves it once.
    DealerAssignment.objects.filter(table=table).update(ended_at=timezone.now())
    assert drivers_version(table) == start + 2
    with connection.cursor() as cursor:  # raw SQL, which no Django signal sees
        cursor.execute("UPDATE tables_dealerassignment SET ended_at = NULL WHERE id = %s", [live.pk])
    assert drivers_version(table) == start + 3
    live.delete()
    assert drivers_version(table) == start + 4
    # An assignment moved to another table moves both counters.
    DealerAssignment.objects.filter(pk=floor["assignment"].pk).update(table=other)
    assert (drivers_version(table), drivers_version(other)) == (start + 5, elsewhere + 1)


def test_only_the_assignment_trigger_moves_the_counter(floor):
    """The app's role updates table rows on every command, but not this column: an UPDATE
    that changes it is refused, to the app and to the owner alike, and changes nothing."""
    table = floor["table"]
    before = drivers_version(table)
    raise_it = lambda: Table.objects.filter(pk=table.pk).update(drivers_version=F("drivers_version") + 1)
    for role in (nullcontext, as_owner):  # the served app role, then the tables' owner
        with pytest.raises(ProgrammingError, match="moves only with its dealer assignments"), role(), \
                transaction.atomic():
            raise_it()
    with pytest.raises(ProgrammingError, match="moves only with its dealer assignments"), transaction.atomic():
        Table.objects.filter(pk=table.pk).update(drivers_version=0)  # nor wound back
    assert drivers_version(table) == before
    # A save of the row's other columns is untouched by it.
    Table.objects.filter(pk=table.pk).update(name="renamed")
    assert drivers_version(table) == before


# --- the command service ----------------------------------------------------------------------

def test_an_authorised_dealers_next_command_asks_no_assignment(floor):
    table, ana = floor["table"], floor["ana"]
    actor = socket_actor(ana)
    with CaptureQueriesContext(connection) as once:
        assert command_execute(table_id=table.pk, command=sit(1), actor=Actor.of(ana)).ok  # no grant: asks
    with CaptureQueriesContext(connection) as first:
        assert command_execute(table_id=table.pk, command=sit(2), actor=actor).ok
    with CaptureQueriesContext(connection) as second:
        assert command_execute(table_id=table.pk, command=sit(3), actor=actor).ok
    assert (assignment_queries(once), assignment_queries(first), assignment_queries(second)) == (1, 1, 0)
    # The same command at the same table, one query fewer: the assignment's.
    assert len(second) == len(first) - 1
    # The grant is the socket's: an actor made for it again (its periodic check) keeps it.
    again = Actor.from_scope({"user": ana, "client": ("10.0.0.9", 1), DriveGrant.SCOPE_KEY: actor.grant})
    with CaptureQueriesContext(connection) as after_check:
        assert command_execute(table_id=table.pk, command=sit(4), actor=again).ok
    assert assignment_queries(after_check) == 0


@pytest.mark.parametrize("how", ["saved", "raw_update", "deleted"])
def test_an_ended_assignment_refuses_the_next_command_at_once(floor, how):
    table, ana = floor["table"], floor["ana"]
    actor = socket_actor(ana)
    assert command_execute(table_id=table.pk, command=sit(1), actor=actor).ok  # the grant is held
    assignment = floor["assignment"]
    if how == "saved":  # as the admin does
        assignment.ended_at = timezone.now()
        assignment.save()
    elif how == "raw_update":
        with connection.cursor() as cursor:
            cursor.execute("UPDATE tables_dealerassignment SET ended_at = now() WHERE id = %s", [assignment.pk])
    else:
        assignment.delete()
    version = Table.objects.get(pk=table.pk).version
    outcome = command_execute(table_id=table.pk, command=sit(2), actor=actor)
    assert outcome.code == "not_authorized"
    assert Table.objects.get(pk=table.pk).version == version  # nothing applied


def test_a_new_assignment_lets_a_refused_dealer_drive_at_once(floor):
    other, ana = floor["other"], floor["ana"]
    actor = socket_actor(ana)
    assert command_execute(table_id=other.pk, command=sit(1), actor=actor).code == "not_authorized"
    a = floor["assignment"]
    DealerAssignment.objects.create(dealer=ana, table=other, gaming_day=a.gaming_day, shift=a.shift,
                                    assigned_by=floor["sup"], assigned_at=timezone.now())
    assert command_execute(table_id=other.pk, command=sit(1), actor=actor).ok


def test_a_relief_hand_over_refuses_the_outgoing_dealers_next_command(floor):
    table, ana, sup = floor["table"], floor["ana"], floor["sup"]
    ben = person("ben", "dealer")
    actor = socket_actor(ana)
    assert command_execute(table_id=table.pk, command=sit(1), actor=actor).ok
    now, cal = timezone.now(), calendar()
    start, _ = cal.shift_bounds(cal.gaming_day(now), cal.shift(now))
    relief_plan_make(dealers=[ben.pk, ana.pk], tables=[table.pk], starts_at=max(now - timedelta(seconds=30), start),
                     actor=Actor.of(sup))
    handover_take(table_id=table.pk, actor=Actor.of(ben))
    assert command_execute(table_id=table.pk, command=sit(2), actor=actor).code == "not_authorized"
    assert command_execute(table_id=table.pk, command=sit(2), actor=socket_actor(ben)).ok


def test_a_shift_turning_over_refuses_the_next_command_with_no_write(floor, monkeypatch):
    table, ana = floor["table"], floor["ana"]
    actor = socket_actor(ana)
    assert command_execute(table_id=table.pk, command=sit(1), actor=actor).ok
    cal, now = calendar(), timezone.now()
    _, end = cal.shift_bounds(cal.gaming_day(now), cal.shift(now))
    counter = drivers_version(table)
    monkeypatch.setattr(timezone, "now", lambda: end + timedelta(minutes=1))  # the next shift has begun
    assert command_execute(table_id=table.pk, command=sit(2), actor=actor).code == "not_authorized"
    assert drivers_version(table) == counter  # nothing was written to end the grant

"""Dealer relief rotation (issue 26, part 2; tables/relief.py): the plan, the take-over at a
push (never in the middle of a round), the outgoing dealer refused from the hand-over on,
the hand-over record, and the floor's panel of next pushes and late dealers."""

import importlib
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from cardroom.access import Actor, can_drive
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from tables.events import session_tag
from tables.models import DealerAssignment, DealerHandover, ReliefPlan, ReliefPush
from tables.relief import (
    BREAK,
    ReliefError,
    handover_take,
    relief_board,
    relief_plan_make,
    rotation,
)
from tests.engine.helpers import seated_with_pd

from tests.playing import run_as
from tests.service.conftest import full_round

pytestmark = pytest.mark.django_db


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def shift_now():
    now, cal = timezone.now(), calendar()
    day, shift = cal.gaming_day(now), cal.shift(now)
    return now, day, shift, cal.shift_bounds(day, shift)


def first_push_now():
    """A first push that is due now, within the current shift."""
    now, _, _, (start, _) = shift_now()
    return max(now - timedelta(seconds=30), start)


@pytest.fixture
def floor(make_table):
    sup = person("sam", "supervisor")
    ana, ben, cal_ = person("ana", "dealer"), person("ben", "dealer"), person("cal", "dealer")
    table, other = make_table(), make_table()
    table.name, other.name = "UTH-1", "UTH-2"
    table.save(update_fields=["name"])
    other.save(update_fields=["name"])
    now, day, shift, _ = shift_now()
    # Ana drives UTH-1 by the shift's assignment, made before any plan.
    DealerAssignment.objects.create(dealer=ana, table=table, gaming_day=day, shift=shift, assigned_by=sup,
                                    assigned_at=now)
    return {"sup": sup, "ana": ana, "ben": ben, "cal": cal_, "table": table, "other": other}


def plan(f, dealers, tables, starts_at=None):
    return relief_plan_make(dealers=[f[d].pk for d in dealers], tables=[f[t].pk for t in tables],
                            starts_at=starts_at or first_push_now(), actor=Actor.of(f["sup"]))


# --- the rotation -------------------------------------------------------------------------

@pytest.mark.parametrize("dealers, tables", [(4, 3), (3, 3), (5, 2), (1, 1)])
def test_at_every_push_each_table_has_exactly_one_dealer_and_the_rest_are_on_a_break(dealers, tables):
    start = timezone.now()
    pushes = rotation(list(range(dealers)), [f"T{t}" for t in range(tables)], start, start + timedelta(hours=3), 20)
    where = {}
    for slot in range(9):
        at = start + timedelta(minutes=20 * slot)
        pushed = {dealer: to for when, dealer, to in pushes if when == at}
        if slot and dealers > 1:
            # Every dealer at a table is relieved at the next push; nobody is pushed to where they are.
            assert {d for d, t in where.items() if t is not None} <= set(pushed)
            assert all(where[d] != to for d, to in pushed.items())
        where.update(pushed)
        assert sorted(t for t in where.values() if t is not None) == [f"T{t}" for t in range(tables)]
        assert list(where.values()).count(None) == dealers - tables
    assert all((when - start) % timedelta(minutes=20) == timedelta(0) for when, _, _ in pushes)


def test_a_plan_is_kept_with_its_pushes_and_audited(floor):
    made = plan(floor, ["ben", "ana", "cal"], ["table", "other"])
    assert made.relief_minutes == 20 and made.made_by == floor["sup"]
    first = ReliefPush.objects.filter(plan=made, at=made.starts_at)
    assert {(p.dealer.username, p.table.name if p.table else BREAK) for p in first} == {
        ("ben", "UTH-1"), ("ana", "UTH-2"), ("cal", BREAK)}
    assert AuditEntry.objects.filter(action="assignment", summary__startswith="relief plan").exists()


@pytest.mark.parametrize("dealers, tables, code", [
    (["ana", "sam"], ["table"], "not_a_dealer"),
    (["ana"], ["table", "other"], "not_enough_dealers"),
    (["ana", "ana"], ["table"], "invalid_command"),
    ([], ["table"], "invalid_command"),
])
def test_a_bad_plan_is_refused_with_its_code_and_changes_nothing(floor, dealers, tables, code):
    floor["sam"] = floor["sup"]
    with pytest.raises(ReliefError) as refused:
        plan(floor, dealers, tables)
    assert refused.value.code == code
    assert not ReliefPlan.objects.exists() and not ReliefPush.objects.exists()


def test_a_retired_table_and_a_dealer_planning_are_refused(floor):
    floor["other"].retired = True
    floor["other"].save(update_fields=["retired"])
    with pytest.raises(ReliefError) as refused:
        plan(floor, ["ana", "ben"], ["table", "other"])
    assert refused.value.code == "no_such_table"
    with pytest.raises(ReliefError) as refused:
        relief_plan_make(dealers=[floor["ana"].pk], tables=[floor["table"].pk], starts_at=first_push_now(),
                         actor=Actor.of(floor["ana"]))
    assert refused.value.code == "not_authorized"
    assert not ReliefPlan.objects.exists()


# --- the hand-over ---------------------------------------------------------------------------

def test_the_incoming_dealer_is_refused_mid_round_and_takes_over_once_it_is_settled(floor):
    table, ana, ben = floor["table"], floor["ana"], floor["ben"]
    plan(floor, ["ben", "ana"], ["table"])  # Ben's push to UTH-1 is now; Ana goes to a break
    setup = seated_with_pd([1, 2], pd=1)
    round_ = full_round([2])
    assert all(r["ok"] for r in run_as(ana, table, *setup, round_[0]))  # Ana opens a round
    # Before the hand-over: Ben's taps are refused, his take-over too while the round runs.
    assert run_as(ben, table, round_[1])[0]["error"]["code"] == "not_authorized"
    with pytest.raises(ReliefError) as refused:
        handover_take(table_id=table.pk, actor=Actor.of(ben))
    assert refused.value.code == "round_in_progress"
    assert not DealerHandover.objects.exists()
    # Ana drives on until the round is settled.
    assert all(r["ok"] for r in run_as(ana, table, *round_[1:]))
    table.refresh_from_db()
    handover = handover_take(table_id=table.pk, actor=Actor.of(ben, session="s-ben", address="10.0.0.2"))
    assert (handover.incoming, handover.outgoing, handover.after_round) == (ben, ana, table.state["rounds_opened"])
    assert handover.table_version == table.version
    assert (handover.session, handover.address) == (session_tag("s-ben"), "10.0.0.2")
    # From the hand-over: Ana's tap is refused, Ben's accepted.
    assert run_as(ana, table, {"type": "sit", "seat": 3, "player": "P-3"})[0]["error"]["code"] == "not_authorized"
    assert run_as(ben, table, {"type": "sit", "seat": 3, "player": "P-3"})[0]["ok"] is True
    assert AuditEntry.objects.filter(action="assignment", summary__contains="ben took over UTH-1 from ana").exists()


def test_the_outgoing_dealer_is_refused_with_redis_down(floor, settings, django_capture_on_commit_callbacks):
    """The refusal is the database's (the assignment ended in the hand-over's transaction),
    not a message through the channel layer: with Redis unreachable it holds the same."""
    dead = "redis://127.0.0.1:9/0"  # the discard port: nothing listens
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "cardroom.channel_layer.ChannelLayer",
                                           "CONFIG": {"hosts": [dead]}}}
    settings.CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": dead,
                                   "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 1}}}
    table, ana, ben = floor["table"], floor["ana"], floor["ben"]
    plan(floor, ["ben", "ana"], ["table"])
    with django_capture_on_commit_callbacks(execute=True):
        handover_take(table_id=table.pk, actor=Actor.of(ben))
    assert run_as(ana, table, {"type": "sit", "seat": 1, "player": "P-1"})[0]["error"]["code"] == "not_authorized"
    assert can_drive(Actor.of(ben), table.pk) and not can_drive(Actor.of(ana), table.pk)


def test_a_take_over_is_only_at_the_dealers_own_push(floor):
    table, other, ben, cal_ = floor["table"], floor["other"], floor["ben"], floor["cal"]
    with pytest.raises(ReliefError) as refused:  # no plan at all
        handover_take(table_id=table.pk, actor=Actor.of(ben))
    assert refused.value.code == "not_your_push"
    plan(floor, ["ben", "ana", "cal"], ["table", "other"])  # Ben → UTH-1, Ana → UTH-2, Cal → break
    for who, where in ((ben, other), (cal_, table)):
        with pytest.raises(ReliefError) as refused:
            handover_take(table_id=where.pk, actor=Actor.of(who))
        assert refused.value.code == "not_your_push"
    # A push later than the early window is not yet due.
    later = first_push_now() + timedelta(minutes=30)
    _, _, _, (_, end) = shift_now()
    if later < end:
        relief_plan_make(dealers=[ben.pk], tables=[other.pk], starts_at=later, actor=Actor.of(floor["sup"]))
        with pytest.raises(ReliefError) as refused:
            handover_take(table_id=other.pk, actor=Actor.of(ben))
        assert refused.value.code == "not_your_push"
    assert not DealerHandover.objects.exists()


def test_a_supervisor_does_not_take_over_and_a_dealer_not_twice(floor):
    table, ben = floor["table"], floor["ben"]
    plan(floor, ["ben", "ana"], ["table"])
    with pytest.raises(ReliefError) as refused:
        handover_take(table_id=table.pk, actor=Actor.of(floor["sup"]))
    assert refused.value.code == "not_authorized"
    handover_take(table_id=table.pk, actor=Actor.of(ben))
    with pytest.raises(ReliefError) as refused:
        handover_take(table_id=table.pk, actor=Actor.of(ben))
    assert refused.value.code == "already_driving"
    assert DealerHandover.objects.count() == 1


def test_an_unknown_table_is_refused(floor):
    with pytest.raises(ReliefError) as refused:
        handover_take(table_id="nope", actor=Actor.of(floor["ben"]))
    assert refused.value.code == "no_such_table"


# --- the floor ---------------------------------------------------------------------------------

def test_the_board_shows_the_next_pushes_and_who_is_late_until_they_take_over(floor, settings):
    _, _, _, (start, end) = shift_now()
    starts = start + (end - start) / 4
    made = plan(floor, ["ben", "ana", "cal"], ["table", "other"], starts_at=starts)
    before = relief_board(starts - timedelta(minutes=1))
    assert [push["at"] for push in before["next"]] == [starts, starts + timedelta(minutes=made.relief_minutes)]
    assert {(m["dealer"], m["to"]) for m in before["next"][0]["moves"]} == {
        ("ben", "UTH-1"), ("ana", "UTH-2"), ("cal", BREAK)}
    assert before["late"] == []
    grace = settings.CARDROOM_RELIEF_LATE_MINUTES
    # Within the grace nobody is late; after it, every incoming dealer not at their table is.
    assert relief_board(starts + timedelta(minutes=grace) - timedelta(seconds=1))["late"] == []
    late = relief_board(starts + timedelta(minutes=grace, seconds=1))["late"]
    assert {(item.dealer, item.table) for item in late} == {("ben", "UTH-1"), ("ana", "UTH-2")}
    # A dealer at their table (a live assignment, as a take-over makes) is not late.
    DealerAssignment.objects.create(dealer=floor["ben"], table=floor["table"], gaming_day=made.gaming_day,
                                    shift=made.shift, assigned_by=floor["sup"], assigned_at=starts)
    late = relief_board(starts + timedelta(minutes=grace, seconds=1))["late"]
    assert {(item.dealer, item.table) for item in late} == {("ana", "UTH-2")}


def test_an_incoming_dealer_is_late_at_the_grace_period_itself(floor, settings):
    """Late AT CARDROOM_RELIEF_LATE_MINUTES after the push, not only after it: the floor
    must see the dealer the moment the grace is used up (issue 33, finding 12)."""
    _, _, _, (start, end) = shift_now()
    starts = start + (end - start) / 4
    plan(floor, ["ben", "ana", "cal"], ["table", "other"], starts_at=starts)
    at_grace = starts + timedelta(minutes=settings.CARDROOM_RELIEF_LATE_MINUTES)
    assert relief_board(at_grace - timedelta(microseconds=1))["late"] == []
    late = relief_board(at_grace)["late"]
    assert {(item.dealer, item.table, item.minutes) for item in late} == {
        ("ben", "UTH-1", settings.CARDROOM_RELIEF_LATE_MINUTES), ("ana", "UTH-2", settings.CARDROOM_RELIEF_LATE_MINUTES)}


def test_the_floor_and_the_relief_page_show_the_pushes_and_the_handovers(floor, client):
    plan(floor, ["ben", "ana"], ["table"])
    handover_take(table_id=floor["table"].pk, actor=Actor.of(floor["ben"]))
    client.force_login(floor["sup"])
    for url in ("/floor/", "/floor/relief/"):
        page = client.get(url).content.decode()
        assert 'id="relief-board"' in page
        assert "ben took over UTH-1 from ana after round 0" in page


def test_the_relief_page_makes_a_plan_and_refuses_a_bad_one_with_its_code(floor, client):
    client.force_login(floor["sup"])
    clock = timezone.localtime(first_push_now()).strftime("%H:%M")
    refused = client.post("/floor/relief/", {"dealers": [floor["ana"].pk], "tables": [floor["table"].pk, floor["other"].pk],
                                              "starts_at": clock})
    assert refused.status_code == 409 and "not_enough_dealers" in refused.content.decode()
    bad_clock = client.post("/floor/relief/", {"dealers": [floor["ana"].pk], "tables": [floor["table"].pk],
                                                "starts_at": "noon"})
    assert bad_clock.status_code == 409 and "invalid_command" in bad_clock.content.decode()
    assert not ReliefPlan.objects.exists()
    made = client.post("/floor/relief/", {"dealers": [floor["ben"].pk, floor["ana"].pk], "tables": [floor["table"].pk],
                                           "starts_at": clock})
    assert made.status_code == 200 and ReliefPlan.objects.count() == 1


def test_the_dealers_page_takes_over_and_opens_the_tablet(floor, client):
    plan(floor, ["ben", "ana"], ["table"])
    client.force_login(floor["ana"])
    refused = client.post("/relief/", {"table": floor["table"].pk})
    assert refused.status_code == 409 and "not_your_push" in refused.content.decode()
    client.force_login(floor["ben"])
    assert "Take over UTH-1" in client.get("/relief/").content.decode()
    taken = client.post("/relief/", {"table": floor["table"].pk})
    assert taken.status_code == 302 and taken["Location"] == f"/tables/{floor['table'].pk}/tablet/"
    assert client.get(taken["Location"]).status_code == 200


def test_a_handover_names_its_session_by_tag_never_by_the_key(floor, client):
    """The session key is a login: the hand-over record (read by the floor, exported to the
    regulator) keeps only its tag, the one the sockets' messages use."""
    plan(floor, ["ben", "ana"], ["table"])
    client.force_login(floor["ben"])
    key = client.session.session_key
    assert client.post("/relief/", {"table": floor["table"].pk}).status_code == 302
    (row,) = DealerHandover.objects.values()
    assert row["session"] == session_tag(key)
    assert not [name for name, value in row.items() if key in str(value)]


def test_the_migration_turns_the_keys_already_recorded_into_tags_and_keeps_the_table_append_only(floor):
    """Hand-overs recorded before tables 0018 held the key: its data migration rewrites
    them (as the owner, the update trigger off for that alone) and leaves the rest as it was."""
    from django.apps import apps
    from django.db import connection

    from tests.db_access import as_owner, assert_refused_to_both

    migration = importlib.import_module("tables.migrations.0018_handover_session_tag")
    plan(floor, ["ben", "ana"], ["table"])
    made = handover_take(table_id=floor["table"].pk, actor=Actor.of(floor["ben"]))
    # A row as the old code wrote it: the raw key (a new row: the table takes no updates).
    key = "k3y0fasess1onthatwasst0redclear7"
    old = DealerHandover.objects.create(
        table=made.table, gaming_day=made.gaming_day, shift=made.shift, push=made.push, incoming=made.incoming,
        outgoing=made.outgoing, after_round=made.after_round, table_version=made.table_version,
        session=key, address="10.0.0.7", at=made.at)
    blank = DealerHandover.objects.create(
        table=made.table, gaming_day=made.gaming_day, shift=made.shift, incoming=made.incoming,
        after_round=0, table_version=0, session="", at=made.at)
    with as_owner(), connection.schema_editor() as editor:
        # The rows above were inserted in this test's transaction; a migration starts its
        # own, with no foreign-key checks still waiting, which ALTER TABLE needs.
        editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        migration.tag_sessions(apps, editor)
    old.refresh_from_db()
    assert (old.session, old.address) == (session_tag(key), "10.0.0.7")
    assert DealerHandover.objects.get(pk=blank.pk).session == ""
    assert not DealerHandover.objects.filter(session__contains=key).exists()
    # The trigger is on again: the owner's UPDATE is refused as before.
    assert_refused_to_both(lambda: DealerHandover.objects.filter(pk=old.pk).update(address="x"))


def test_a_plan_for_a_shift_that_is_over_or_without_a_zone_is_refused(floor):
    _, _, _, (start, _) = shift_now()
    for starts_at, code in ((start - timedelta(hours=1), "invalid_command"),
                            (timezone.make_naive(first_push_now()), "invalid_command")):
        with pytest.raises(ReliefError) as refused:
            plan(floor, ["ana"], ["table"], starts_at=starts_at)
        assert refused.value.code == code
    assert not ReliefPlan.objects.exists()


def test_the_board_is_four_queries_however_many_tables_and_pushes(floor, make_table, django_assert_num_queries):
    """The floor page reads it with every load: the plan, its pushes, the live assignments
    and the hand-overs, each one query."""
    more = [make_table() for _ in range(3)]
    dealers = [person(f"d{n}", "dealer") for n in range(6)]
    relief_plan_make(dealers=[d.pk for d in dealers], tables=[floor["table"].pk, floor["other"].pk, *(t.pk for t in more)],
                     starts_at=first_push_now(), actor=Actor.of(floor["sup"]))
    handover_take(table_id=floor["table"].pk, actor=Actor.of(dealers[0]))
    with django_assert_num_queries(4):
        board = relief_board()
    assert board["planned"] and len(board["handovers"]) == 1

"""Rule sets with effective dates (issue 38 item 1, tables/rule_sets.py): a change is filed by
one supervisor for a gaming day and approved by another; it changes nothing before that
day; it comes in at the day's first open_round on every table of the set, never mid-round;
and every round names, through its configuration version, the rule set version it was
played under."""

from datetime import datetime, time, timedelta

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from collections_fees.models import CollectionEntry
from rounds.models import Round
from tables import rule_sets
from tables.lifecycle import table_configure
from tables.models import RuleSetChange, Table
from tests.engine.helpers import FEES, dealt_round, seated_with_pd
from tests.patron_aml.conftest import person
from tests.playing import new_table, run

pytestmark = pytest.mark.django_db

DEARER_FEES = {**FEES, "rates": [{"min": 0, "max": 100000, "player_fee": 200, "pd_fee": 75}]}
NOTICE = "Rules of 11 CCR 2076 as brought back"


@pytest.fixture(autouse=True)
def supervisors(db):
    """Two supervisors, each their own login (module globals FILER and APPROVER)."""
    global FILER, APPROVER
    FILER = Actor.of(person("sup-ann", "supervisor"))
    APPROVER = Actor.of(person("sup-bob", "supervisor"))


def _member_tables(count=2):
    rule_set = rule_sets.rule_set_create(actor=FILER, name="California 2026")
    tables = [new_table(f"R{n}", fee_schedule=FEES) for n in range(count)]
    for table in tables:
        rule_sets.rule_set_join(actor="seed", table_id=table.pk, rule_set_id=rule_set.pk)
    return rule_set, tables


def _local(day, hour, minute):
    """`hour:minute` on the calendar day after gaming day `day`'s date when before the
    gaming day's start (the small hours belong to the day before), in the cardroom's zone."""
    return timezone.make_aware(datetime.combine(day, time(hour, minute)))


def next_pd(seat):
    """The bank passed on to `seat` between rounds."""
    return [{"type": "pass_bank"}, {"type": "accept_bank", "seat": seat}]  # passed on clockwise


def _players_fees(table, number) -> set[int]:
    return set(CollectionEntry.objects.filter(round__table=table, round__number=number, payer="player")
               .values_list("amount", flat=True))


def _round_config(table, number):
    return Round.objects.select_related("config__rule_set_change", "config__fee_schedule").get(table=table, number=number).config


def test_a_change_for_tomorrow_changes_nothing_today_and_a_round_across_the_days_start_finishes_under_the_old_rules():
    rule_set, (table, other) = _member_tables()
    today = calendar().gaming_day(timezone.now())
    tomorrow = today + timedelta(days=1)
    change = rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, effective_day=tomorrow,
                                     rules={"fee_schedule": DEARER_FEES, "notice": NOTICE})
    rule_sets.rule_set_decide(actor=APPROVER, change_id=change.pk, approve=True)

    # Today: rounds play under the table's own configuration.
    run(table, *seated_with_pd([1, 2, 3, 4], pd=1), *dealt_round([2, 3, 4]))
    assert _round_config(table, 1).rule_set_change is None
    assert Table.objects.get(pk=table.pk).config.rule_set_change is None

    # 05:50 of tomorrow's date is still today's gaming day: a round opens then and is still
    # being played at 06:05, tomorrow's gaming day. It finishes under today's rules.
    before_start = _local(tomorrow, 5, 50)
    assert calendar().gaming_day(before_start) == today
    second = next_pd(2) + dealt_round([1, 3, 4])
    opened_at = second.index({"type": "no_more_bets"})
    run(table, *second[:opened_at], actor="replay", at=before_start)
    after_start = _local(tomorrow, 6, 5)
    assert calendar().gaming_day(after_start) == tomorrow
    run(table, *second[opened_at:], actor="replay", at=after_start)
    assert _round_config(table, 2).pk == _round_config(table, 1).pk
    assert Round.objects.get(table=table, number=2).status == "settled"
    assert Table.objects.get(pk=table.pk).config_id == _round_config(table, 1).pk  # not rewritten mid-round
    assert _players_fees(table, 2) == {100}  # collected at today's rates

    # Tomorrow's first round comes in under the change, on each table of the set.
    run(table, *next_pd(3), *dealt_round([1, 2, 4]), actor="replay", at=_local(tomorrow, 6, 10))
    third = _round_config(table, 3)
    assert third.rule_set_change_id == change.pk and third.version == _round_config(table, 2).version + 1
    assert third.notice == NOTICE
    assert [(r.player_fee, r.pd_fee) for r in third.fee_schedule.rates.order_by("index")] == [(200, 75)]
    assert _players_fees(table, 3) == {200}
    run(other, *seated_with_pd([1, 2, 3], pd=1), *dealt_round([2, 3]), actor="replay", at=_local(tomorrow, 6, 20))
    assert _round_config(other, 1).rule_set_change_id == change.pk

    # Its next round carries the same version: no new configuration.
    run(table, *next_pd(4), *dealt_round([1, 2, 3]), actor="replay", at=_local(tomorrow, 6, 30))
    assert _round_config(table, 4).pk == third.pk


def test_one_supervisor_cannot_file_and_approve_a_change_and_a_pending_or_declined_one_changes_nothing():
    rule_set, (table,) = _member_tables(1)
    today = calendar().gaming_day(timezone.now())
    change = rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, effective_day=today,
                                     rules={"notice": NOTICE})
    with pytest.raises(rule_sets.RuleSetError) as refused:
        rule_sets.rule_set_decide(actor=FILER, change_id=change.pk, approve=True)
    assert refused.value.code == "second_person_required"
    # Another session of the same person (same user id, another name) is the same person.
    with pytest.raises(rule_sets.RuleSetError) as refused:
        rule_sets.rule_set_decide(actor=Actor(name="ann-tablet", role="supervisor", user_id=FILER.user_id),
                                  change_id=change.pk, approve=True)
    assert refused.value.code == "second_person_required"
    # Pending: today's next round plays under the table's own rules.
    run(table, *seated_with_pd([1, 2, 3, 4], pd=1), *dealt_round([2, 3, 4]))
    assert _round_config(table, 1).rule_set_change is None
    rule_sets.rule_set_decide(actor=APPROVER, change_id=change.pk, approve=False)
    run(table, *next_pd(2), *dealt_round([1, 3, 4]))
    assert _round_config(table, 2).rule_set_change is None
    with pytest.raises(rule_sets.RuleSetError) as refused:
        rule_sets.rule_set_decide(actor=APPROVER, change_id=change.pk, approve=True)
    assert refused.value.code == "wrong_state"


def test_the_database_refuses_a_decision_by_the_supervisor_who_filed_it():
    rule_set, _ = _member_tables(1)
    change = rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, rules={"notice": NOTICE},
                                     effective_day=calendar().gaming_day(timezone.now()))
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleSetChange.objects.filter(pk=change.pk).update(decision="approved", decided_by="x",
                                                          decided_by_user_id=FILER.user_id, decided_at=timezone.now())


@pytest.mark.parametrize("role, rules, day, code", [
    ("dealer", {"notice": NOTICE}, 0, "not_authorized"),
    ("compliance", {"notice": NOTICE}, 0, "not_authorized"),
    ("supervisor", {"seats": 8}, 0, "invalid_command"),
    ("supervisor", {}, 0, "invalid_command"),
    ("supervisor", {"notice": NOTICE}, -1, "invalid_command"),
    ("supervisor", {"max_consecutive_banks": 3}, 0, "invalid_command"),
])
def test_a_bad_change_is_refused_with_its_code_and_nothing_is_filed(role, rules, day, code):
    rule_set, _ = _member_tables(1)
    actor = FILER if role == "supervisor" else Actor.of(person(f"a-{role}", role))
    effective = calendar().gaming_day(timezone.now()) + timedelta(days=day)
    with pytest.raises(rule_sets.RuleSetError) as refused:
        rule_sets.rule_set_file(actor=actor, rule_set_id=rule_set.pk, rules=rules, effective_day=effective)
    assert refused.value.code == code
    assert not RuleSetChange.objects.exists()


def test_a_tables_own_configuration_change_keeps_the_rule_sets_keys():
    rule_set, (table,) = _member_tables(1)
    change = rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, rules={"notice": NOTICE},
                                     effective_day=calendar().gaming_day(timezone.now()))
    rule_sets.rule_set_decide(actor=APPROVER, change_id=change.pk, approve=True)
    run(table, *seated_with_pd([1, 2, 3, 4], pd=1), *dealt_round([2, 3, 4]))
    assert _round_config(table, 1).rule_set_change_id == change.pk
    version = table_configure(table_id=table.pk, config={"notice": "our own notice", "dealing": "shuffler"},
                              changed_by=APPROVER, approved=True)
    assert version.notice == NOTICE and version.dealing == "shuffler" and version.rule_set_change_id == change.pk


def test_a_staff_login_cannot_move_a_table_into_a_rule_set():
    rule_set, (table,) = _member_tables(1)
    other = rule_sets.rule_set_create(actor=FILER, name="Other rules")
    with pytest.raises(rule_sets.RuleSetError) as refused:
        rule_sets.rule_set_join(actor=FILER, table_id=table.pk, rule_set_id=other.pk)
    assert refused.value.code == "not_authorized"
    assert Table.objects.get(pk=table.pk).rule_set_id == rule_set.pk


def test_on_the_page_one_supervisor_files_and_only_another_can_approve():
    from django.test import Client

    rule_set, (table,) = _member_tables(1)
    ann, bob = Client(), Client()
    ann.force_login(User.objects.get(pk=FILER.user_id))
    bob.force_login(User.objects.get(pk=APPROVER.user_id))
    tomorrow = calendar().gaming_day(timezone.now()) + timedelta(days=1)

    refused = ann.post(f"/staff/rule-sets/{rule_set.pk}/changes", {"rules": "{not json", "effective_day": str(tomorrow)},
                       follow=True)
    assert b"Not filed: the rules are a JSON object" in refused.content and not RuleSetChange.objects.exists()
    page = ann.post(f"/staff/rule-sets/{rule_set.pk}/changes",
                    {"rules": '{"notice": "%s"}' % NOTICE, "effective_day": str(tomorrow), "reason": "the court's order"},
                    follow=True)
    change = RuleSetChange.objects.get()
    assert b"waiting for a second supervisor" in page.content
    assert f'/staff/rule-set-changes/{change.pk}/decide'.encode() not in page.content  # no button for the filer
    mine = ann.post(f"/staff/rule-set-changes/{change.pk}/decide", {"decision": "approve"}, follow=True)
    assert b"Not decided: the supervisor who filed a change does not decide it" in mine.content
    assert RuleSetChange.objects.get().decision == ""

    assert b'href="/staff/rule-sets/"' in bob.get("/staff/tables/").content  # reached from the table setup
    page = bob.get("/staff/rule-sets/")
    assert f'/staff/rule-set-changes/{change.pk}/decide'.encode() in page.content
    page = bob.post(f"/staff/rule-set-changes/{change.pk}/decide", {"decision": "approve"}, follow=True)
    assert f"from the first round of {tomorrow}".encode() in page.content
    assert f"from {tomorrow}".encode() in bob.get("/staff/rule-sets/").content
    assert RuleSetChange.objects.get().decided_by == "sup-bob"


def test_manage_py_rule_set_creates_a_set_and_moves_tables_in_and_out():
    from io import StringIO

    from django.core.management import call_command

    table = new_table("M1", fee_schedule=FEES)
    out = StringIO()
    call_command("rule_set", "Nightly rules", "--join", "M1", stdout=out)
    joined = Table.objects.get(pk=table.pk).rule_set
    assert joined.name == "Nightly rules" and "M1 plays under 'Nightly rules'" in out.getvalue()
    call_command("rule_set", "Nightly rules", "--leave", str(table.pk), stdout=out)
    assert Table.objects.get(pk=table.pk).rule_set_id is None
    # Each move is in the audit trail, by the system process.
    from cardroom.models import AuditEntry
    moves = AuditEntry.objects.filter(table_id=table.pk, summary__contains="joins rule set")
    assert moves.count() == 2 and {e.username for e in moves} == {"manage.py rule_set"}


def test_the_demo_floor_has_a_rule_set_in_force_and_a_change_waiting_for_the_second_supervisor():
    from io import StringIO

    from django.core.management import call_command

    call_command("seed_demo", stdout=StringIO())
    call_command("seed_demo", stdout=StringIO())  # idempotent
    from tables.models import RuleSet

    rule_set = RuleSet.objects.get()
    changes = list(rule_set.changes.order_by("version"))
    assert [(c.version, c.decision) for c in changes] == [(1, "approved"), (2, "")]
    assert changes[0].filed_by == "supervisor" and changes[0].decided_by == "supervisor2"
    assert sorted(rule_set.tables.values_list("name", flat=True)) == ["Demo UTH-1", "Demo UTH-2"]


def test_a_no_tppp_rule_set_stops_the_tppp_banking_from_the_first_round_of_its_day():
    """Issue 38 item 2: the TPPP holds the bank when the rule comes in; the round they would
    open is refused `tppp_barred` (and the rule waits, nothing written); they pass the bank,
    the next round opens under the rule with a player banking, and the TPPP is never offered."""
    from tables.models import RotationLogEntry
    from tests.playing import outcomes

    rule_set, (table,) = _member_tables(1)
    change = rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, rules={"no_tppp": True},
                                     effective_day=calendar().gaming_day(timezone.now()))
    rule_sets.rule_set_decide(actor=APPROVER, change_id=change.pk, approve=True)
    tppp = {"badge": "B-77", "company": "Acme TPPS", "expires": "2099-01-31"}
    run(table, {"type": "sit", "seat": 1, "player": "T-1", "tppp": tppp}, *seated_with_pd([2, 3], pd=1)[:2],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    [refused] = outcomes(table, {"type": "open_round", "bank": 100_000})
    assert refused.result["error"]["code"] == "tppp_barred"
    assert Table.objects.get(pk=table.pk).config.rule_set_change_id is None  # nothing written
    run(table, {"type": "pass_bank"}, {"type": "accept_bank", "seat": 2}, *dealt_round([1, 3])[0:1])
    config = _round_config(table, 1)
    assert config.rule_set_change_id == change.pk and config.no_tppp
    assert Round.objects.get(table=table, number=1).pd_player == "P-2"
    # The one offer to the TPPP is the house's, before the rule came in.
    assert RotationLogEntry.objects.filter(table=table, action="offer", seat=1).count() == 1


def test_an_approved_version_the_table_cannot_play_under_refuses_the_round_with_its_code_and_writes_nothing():
    """A version row the filing check never saw (written by other means) is a refusal at the
    round, with the engine's code, not a server error; the table keeps its configuration."""
    from tests.playing import outcomes

    rule_set, (table,) = _member_tables(1)
    run(table, *seated_with_pd([1, 2, 3], pd=1))
    RuleSetChange.objects.create(
        rule_set=rule_set, version=1, rules={"max_consecutive_banks": 3}, filed_by="x", filed_at=timezone.now(),
        effective_day=calendar().gaming_day(timezone.now()), decision="approved", decided_by="y", decided_at=timezone.now(),
    )
    config_before = Table.objects.get(pk=table.pk).config_id
    [refused] = outcomes(table, dealt_round([2, 3])[0])
    assert refused.result["error"]["code"] == "invalid_command"
    assert Table.objects.get(pk=table.pk).config_id == config_before


def _side_bets(meter: str, bad_beat: str = "BBB-01", pairs: str = "UPB-1") -> dict:
    return {
        "bad_beat": {"paytable": bad_beat, "min": 100, "max": 2500},
        "pairs": {"paytable": pairs, "min": 100, "max": 2500},
        "progressive": {"paytable": "PROG-01", "wager": 100,
                        "meter": {"name": meter, "meter_share": 80, "seed": 50000, "meter": 50000, "reserve": 0}},
    }


def test_a_rule_set_posts_the_side_bets_pay_tables_and_each_table_keeps_its_own_meter_and_limits():
    rule_set = rule_sets.rule_set_create(actor=FILER, name="Side bets 2026")
    east = new_table("East", fee_schedule=FEES, side_bets=_side_bets("East meter"))
    west = new_table("West", fee_schedule=FEES, side_bets={**_side_bets("West meter"), "pairs": None})
    for table in (east, west):
        rule_sets.rule_set_join(actor="seed", table_id=table.pk, rule_set_id=rule_set.pk)
    change = rule_sets.rule_set_file(
        actor=FILER, rule_set_id=rule_set.pk, effective_day=calendar().gaming_day(timezone.now()),
        rules={"side_bet_paytables": {"bad_beat": "BBB-03", "pairs": "UPB-4", "progressive": "PROG-01"}})
    rule_sets.rule_set_decide(actor=APPROVER, change_id=change.pk, approve=True)
    run(east, *seated_with_pd([1, 2, 3], pd=1), *dealt_round([2, 3]))
    run(west, *seated_with_pd([1, 2, 3], pd=1), *dealt_round([2, 3]))

    east_bets, west_bets = _round_config(east, 1).side_bets, _round_config(west, 1).side_bets
    assert _round_config(east, 1).rule_set_change_id == change.pk == _round_config(west, 1).rule_set_change_id
    assert east_bets["bad_beat"] == {"paytable": "BBB-03", "min": 100, "max": 2500}
    assert east_bets["pairs"]["paytable"] == "UPB-4" and west_bets["bad_beat"]["paytable"] == "BBB-03"
    # Not one meter for all: each table's progressive stays on its own meter.
    assert east_bets["progressive"]["meter"]["name"] == "East meter"
    assert west_bets["progressive"]["meter"]["name"] == "West meter"
    # The rule set posts what a bet pays, not whether a table offers it.
    assert "pairs" not in west_bets
    # A table's own change keeps the rule set's pay table.
    version = table_configure(table_id=east.pk, config={"side_bets": _side_bets("East meter", bad_beat="BBB-01")},
                              changed_by=APPROVER, approved=True)
    assert version.side_bets["bad_beat"]["paytable"] == "BBB-03"


@pytest.mark.parametrize("paytables", [
    {"bad_beat": "BBB-09"},  # no such Bad Beat pay table
    {"pairs": "BBB-01"},  # a Bad Beat pay table named for Pairs
    {"trips": "UTH-01"},  # not a side bet's pay table (the pay table key posts Trips and Blind)
    {},
    "BBB-01",
])
def test_a_side_bets_pay_table_no_bet_could_pay_under_is_refused_at_filing(paytables):
    """Checked when filed, also for a bet no member table offers today."""
    rule_set, _ = _member_tables(1)
    with pytest.raises(rule_sets.RuleSetError) as refused:
        rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, rules={"side_bet_paytables": paytables},
                                effective_day=calendar().gaming_day(timezone.now()))
    assert refused.value.code == "invalid_command"
    assert not RuleSetChange.objects.exists()


def _day_words(day) -> str:
    return f"from gaming day {day:%a} {day.day} {day:%b}"


def test_the_floor_and_the_tablet_say_what_changes_when_each_role_what_it_may_see(client):
    """The floor lists every version not yet on its tables with its tables, the pending ones
    too; a dealer's tablet the approved ones of its own table; a supervisor's tablet the
    pending ones as well. A version in force on a table leaves that table's list."""
    from tests.live.conftest import assign_dealer

    rule_set, (table, other) = _member_tables()
    outside = new_table("Own rules", fee_schedule=FEES)
    today = calendar().gaming_day(timezone.now())
    tomorrow, later = today + timedelta(days=1), today + timedelta(days=2)
    now = rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, effective_day=today, rules={"notice": NOTICE})
    rule_sets.rule_set_decide(actor=APPROVER, change_id=now.pk, approve=True)
    approved = rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, effective_day=tomorrow,
                                       rules={"max_consecutive_banks": 1, "fee_schedule": DEARER_FEES})
    rule_sets.rule_set_decide(actor=APPROVER, change_id=approved.pk, approve=True)
    rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, effective_day=later, rules={"no_tppp": True})
    declined = rule_sets.rule_set_file(actor=FILER, rule_set_id=rule_set.pk, effective_day=later, rules={"notice": "no"})
    rule_sets.rule_set_decide(actor=APPROVER, change_id=declined.pk, approve=False)
    run(table, *seated_with_pd([1, 2, 3], pd=1), *dealt_round([2, 3]))  # version 1 reaches the first table

    coming = (f"California 2026 version 2, {_day_words(tomorrow)}: Consecutive banks allowed: 1, fee schedule "
              "$0.00 to $1,000.00: a player $2.00, the player-dealer $0.75 (paid by every player and the player-dealer)")
    waiting = f"California 2026 version 3, {_day_words(later)}: No TPPP banks: yes; waiting for a second supervisor (filed by sup-ann)"
    client.force_login(User.objects.get(username="sup-bob"))
    floor = client.get("/floor/").content.decode()
    assert f"{coming}; approved by sup-bob — tables: R0, R1" in floor
    assert f"{waiting} — tables: R0, R1" in floor
    # Version 1 is in force on R0 (its round opened); R1 gets it at its next round.
    assert f"California 2026 version 1, {_day_words(today)} (from each table&#x27;s next round): Posted notice: {NOTICE}; approved by sup-bob — tables: R1" in floor
    assert "version 4" not in floor  # declined

    supervisor_tablet = client.get(f"/tables/{table.pk}/tablet/").content.decode()
    assert coming in supervisor_tablet and waiting in supervisor_tablet and "version 1," not in supervisor_tablet
    assert "— tables:" not in supervisor_tablet

    assign_dealer(table, "dee")
    client.force_login(User.objects.get(username="dee"))
    dealer_tablet = client.get(f"/tables/{table.pk}/tablet/").content.decode()
    assert coming in dealer_tablet and "approved by sup-bob" in dealer_tablet
    assert "version 3" not in dealer_tablet and "waiting for a second supervisor" not in dealer_tablet
    assign_dealer(outside, "dee")
    assert "Rule changes ahead" not in client.get(f"/tables/{outside.pk}/tablet/").content.decode()

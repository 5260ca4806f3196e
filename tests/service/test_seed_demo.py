"""The demo floor (`seed_demo`): the previous shift played and ready to count, side bets,
a progressive with its jackpot box, the rotation policy; logs that verify; pages that
render; and seeding twice changes nothing. A system process may state when a command or
a box action happened (`at`); a person may not."""

import io
import json
import time as time_module
from datetime import date, time, timedelta
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from collections_fees import counts
from collections_fees.models import (
    BoxPlacement,
    CollectionEntry,
    DropBox,
    JackpotEntry,
    JackpotMeter,
    ShiftClose,
)
from rounds.models import Round, Wager
from tables.management.commands.seed_demo import first_relief_push
from tables.models import (
    ChainCheckpoint,
    DealerAssignment,
    RejectedCommand,
    ReliefPlan,
    Table,
    TableConfig,
    TableEvent,
)
from tables.relief import plan_in_force, relief_board
from tables.services import command_execute
from tests.compliance.ledger import Clock
from tests.counts.play import pieces

from tests.playing import run_ok

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def demo(username: str) -> Actor:
    return Actor.of(User.objects.get(username=username), session=f"session-{username}")


@pytest.fixture(params=["now", "early in the day shift"])
def seeded_at(request):
    """Seeding now (whatever shift that is), and at 07:10 local, when the previous shift
    is last night's grave shift: across midnight, on the previous gaming day."""
    if request.param == "now":
        yield
        return
    clock = Clock()
    clock.set(date(2026, 3, 3), time(7, 10))
    with mock.patch("django.utils.timezone.now", clock):
        yield


def previous_shift():
    cal = calendar()
    day, shift = cal.previous_shift(timezone.now())
    return day, shift, cal.shift_bounds(day, shift)


def test_the_previous_shift_was_played_inside_it_and_two_counters_count_and_sign_it(seeded_at):
    seed()
    day, shift, (start, end) = previous_shift()
    played = Round.objects.filter(status="settled")
    assert played.count() >= 4 * 3  # four tables dealt three rounds each
    assert all(start <= r.opened_at <= r.closed_at < end for r in played)
    # Every fee of the demo went into a box of that shift, stamped inside it.
    fees = CollectionEntry.objects.all()
    assert fees.exists() and not fees.filter(box__isnull=True).exists()
    assert set(fees.values_list("gaming_day", "shift")) == {(day, shift)}
    assert all(start <= e.created_at < end for e in fees)

    sheet = counts.count_sheet_open(gaming_day=day, shift=shift, actor=demo("counter"))
    boxes = counts.placed_boxes(sheet)
    identifiers = dict(DropBox.objects.filter(pk__in=boxes).values_list("pk", "identifier"))
    expected = {identifiers[b]: counts.box_expected(box_id=b, gaming_day=day, shift=shift) for b in boxes}
    tables = {t.name: t.pk for t in Table.objects.all()}
    assert len(boxes) == len(tables) + 1  # a fee box on every table, the progressive's jackpot box
    for name in ("Demo UTH-1", "Demo UTH-2", "Demo UTH-3", "Demo UTH-4"):  # the tables that dealt
        assert expected[f"FEES-{tables[name]}"] > 0, name
    jackpot_box = f"JACKPOT-{tables['Demo UTH-3']}"
    contributions = JackpotEntry.objects.filter(kind="contribution", gaming_day=day, shift=shift)
    assert expected[jackpot_box] == sum(contributions.values_list("amount", flat=True)) > 0
    assert expected[f"FEES-{tables['Demo UTH-6']}"] == 0  # no players: an empty box to count

    for box_id in boxes:
        counted = counts.box_expected(box_id=box_id, gaming_day=day, shift=shift)
        counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(counted), actor=demo("counter"))
    counts.count_sign(sheet_id=sheet.pk, actor=demo("counter"))
    counts.count_sign(sheet_id=sheet.pk, actor=demo("counter2"))
    assert counts.sheet_signers(sheet) == ["counter", "counter2"] and counts.sheet_is_complete(sheet)
    counts.shift_close(gaming_day=day, shift=shift, actor=demo("supervisor"))
    assert counts.shift_is_closed(day, shift)


def test_two_tables_offer_side_bets_one_a_progressive_with_its_jackpot_box_one_the_rotation_policy():
    seed()
    configs = {t.name: t.config for t in Table.objects.select_related("config")}
    with_side_bets = [name for name, c in configs.items() if c.side_bets]
    assert len(with_side_bets) >= 2
    progressive = [name for name in with_side_bets if configs[name].side_bets.get("progressive")]
    assert len(progressive) == 1
    table = Table.objects.get(name=progressive[0])
    meter = JackpotMeter.objects.get(name=configs[table.name].side_bets["progressive"]["meter"]["name"])
    assert meter.entries.filter(kind="opening").count() == 1
    assert counts.boxes_now([table])[table.pk] == {"fees": f"FEES-{table.pk}", "jackpot": f"JACKPOT-{table.pk}"}
    # The past shift's rounds took the side bets (the progressive is the fund's, not a wager).
    assert {"bad_beat", "pairs"} <= set(Wager.objects.values_list("kind", flat=True))
    assert meter.entries.filter(kind="contribution", table=table).exists()
    under_policy = [name for name, c in configs.items() if c.rotation_policy is not None]
    assert under_policy == ["Demo UTH-5"]
    assert Table.objects.get(name="Demo UTH-5").state["config"]["rotation_policy"]["offer_every_round"] is True
    with_backline = [name for name, c in configs.items() if c.backline]
    assert with_backline == ["Demo UTH-4"]
    assert Table.objects.get(name="Demo UTH-4").state["config"]["backline"] == {"max_per_seat": 2, "trips": True}


def verify_offline(manifest) -> str:
    out = io.StringIO()
    try:
        call_command("verify_logs", "--checkpoints", str(manifest), stdout=out)
    except SystemExit:  # a problem: its lines are in the output
        pass
    return out.getvalue()


@pytest.mark.django_db(transaction=True)  # the export reads over its own connection: committed rows
def test_the_seeded_logs_verify_with_their_checkpoints_and_offline(seeded_at, tmp_path):
    seed()
    day, _, _ = previous_shift()
    # The dealer's first round today writes the past day's day_end checkpoints (when the
    # previous shift was on an earlier gaming day) and follows the seeded chain.
    table = Table.objects.get(name="Demo UTH-1")
    state = table.state["rotation"]
    if state["offer_seat"] is not None:
        run_ok(table, {"type": "accept_bank", "seat": state["offer_seat"]})
    run_ok(table, {"type": "open_round", "bank": 50000})
    if day != calendar().gaming_day(timezone.now()):
        assert ChainCheckpoint.objects.filter(table=table, kind="day_end", gaming_day=day).count() == 2
    out = io.StringIO()
    call_command("verify_logs", "--checkpoint", stdout=out)
    report = out.getvalue().splitlines()
    assert f"{Table.objects.count()} tables and 1 jackpot meters checked, 0 broken chains" in report
    assert report[-1].endswith("and the records cross-checked, 0 problems")  # the witness agrees
    today = calendar().gaming_day(timezone.now())
    for log in ("collections", "jackpot"):
        csv = tmp_path / f"{log}.csv"
        call_command("export_collections", "--log", log, "--from", str(day), "--to", str(today), "--out", str(csv),
                     "--by", "olga", "--no-progress", stdout=io.StringIO())
        manifest = tmp_path / f"{log}.csv.manifest.json"
        checkpoints = len(json.loads(manifest.read_text())["checkpoints"])
        assert checkpoints > 0
        assert verify_offline(manifest) == f"{checkpoints} checkpoints checked, 0 problems\n"


def footprint() -> dict:
    """Everything seeding writes, by table and row count, with every chain head."""
    models = (
        Table, TableEvent, TableConfig, RejectedCommand, ChainCheckpoint, Round, Wager, CollectionEntry,
        JackpotEntry, JackpotMeter, DropBox, BoxPlacement, DealerAssignment, User, AuditEntry, ShiftClose,
        ReliefPlan,
    )
    return {
        "rows": {model.__name__: model.objects.count() for model in models},
        "heads": sorted(Table.objects.values_list("name", "version", "event_head", "collection_head", "boxes_placed")),
        "meters": sorted(JackpotMeter.objects.values_list("name", "meter", "reserve", "entry_head")),
    }


def test_seeding_twice_changes_nothing(capsys):
    started = time_module.perf_counter()
    first = seed()
    seeded = time_module.perf_counter()
    before = footprint()
    assert before["rows"]["TableEvent"] > 0
    assert seed() == first
    again = time_module.perf_counter() - seeded
    assert footprint() == before
    with capsys.disabled():
        print(f"\nseed_demo: {seeded - started:.1f} s on an empty database, {again:.1f} s again "
              f"({before['rows']['TableEvent']} events, {before['rows']['Round']} rounds)")


def test_the_pages_render_the_seeded_floor_and_the_count_of_the_previous_shift():
    seed()
    day, shift, _ = previous_shift()
    supervisor, counter = Client(), Client()
    supervisor.force_login(User.objects.get(username="supervisor"))
    counter.force_login(User.objects.get(username="counter"))
    floor = supervisor.get("/floor/")
    assert floor.status_code == 200
    for table in Table.objects.all():
        assert table.name in floor.content.decode()
        for page in (f"/tables/{table.pk}/", f"/tables/{table.pk}/tablet/"):
            assert supervisor.get(page).status_code == 200, page
    assert supervisor.get("/").status_code == 200
    sheet = f"/compliance/count/{day}/{shift}/"
    assert counter.post(sheet, {"action": "open"}).status_code == 302
    page = counter.get(sheet).content.decode()
    uth3 = Table.objects.get(name="Demo UTH-3").pk
    assert f"FEES-{uth3}" in page and f"JACKPOT-{uth3}" in page and "Sign the count as it stands" in page


# --- a stated time (`at`) is a system process's only -------------------------------------------


def test_a_person_cannot_state_when_their_command_happened(make_table):
    table = make_table()
    supervisor = demo_person("sup-at", "supervisor")
    outcome = command_execute(
        table_id=table.pk, command={"type": "sit", "seat": 1, "player": "P-1"}, actor=supervisor,
        at=timezone.now() - timedelta(hours=9),
    )
    assert outcome.code == "not_authorized"
    assert not TableEvent.objects.filter(table=table).exists()
    system = command_execute(
        table_id=table.pk, command={"type": "sit", "seat": 1, "player": "P-1"}, actor="seed-test",
        at=timezone.now() - timedelta(hours=9),
    )
    assert system.ok and TableEvent.objects.get(table=table).created_at < timezone.now() - timedelta(hours=8)


def demo_person(name: str, role: str) -> Actor:
    from tests.counts.play import person

    return person(name, role)


def test_a_person_cannot_state_when_a_box_was_registered_or_placed(make_table):
    table = make_table(boxes=False)
    supervisor, earlier = demo_person("sup-box", "supervisor"), timezone.now() - timedelta(hours=9)
    with pytest.raises(counts.CountError) as refused:
        counts.box_register(identifier="B-1", kind="fees", table_id=table.pk, actor=supervisor, at=earlier)
    assert refused.value.code == "not_authorized" and not DropBox.objects.exists()
    box = counts.box_register(identifier="B-1", kind="fees", table_id=table.pk, actor=supervisor)
    with pytest.raises(counts.CountError) as refused:
        counts.box_place(table_id=table.pk, box_id=box.pk, actor=supervisor, at=earlier)
    assert refused.value.code == "not_authorized" and not BoxPlacement.objects.exists()
    placed = counts.box_place(table_id=table.pk, box_id=box.pk, actor=Actor.system("seed-test"), at=earlier)
    cal = calendar()
    assert (placed.gaming_day, placed.shift) == (cal.gaming_day(earlier), cal.shift(earlier))


def test_a_stated_time_without_its_zone_is_refused(make_table):
    table = make_table(boxes=False)
    with pytest.raises(counts.CountError) as refused:
        counts.box_register(identifier="B-1", kind="fees", table_id=table.pk, actor=Actor.system("seed-test"),
                            at=timezone.now().replace(tzinfo=None))
    assert refused.value.code == "invalid_input" and not DropBox.objects.exists()


def test_a_past_shift_too_short_for_the_demo_rounds_is_refused_and_nothing_is_seeded(settings):
    from django.core.management.base import CommandError

    # A 20-minute shift before the gaming day starts (it runs on the next calendar day).
    settings.CARDROOM_SHIFTS = [("grave", "22:00"), ("dawn", "05:40"), ("day", "06:00"), ("swing", "14:00")]
    clock = Clock()
    clock.set(date(2026, 3, 3), time(6, 30))
    with mock.patch("django.utils.timezone.now", clock), pytest.raises(CommandError, match="too short"):
        seed()
    assert not Table.objects.exists() and not TableEvent.objects.exists() and not JackpotMeter.objects.exists()


def test_a_box_is_not_placed_back_in_time_behind_a_later_placement(make_table):
    table, system = make_table(boxes=False), Actor.system("seed-test")
    now_box = counts.box_register(identifier="B-now", kind="fees", table_id=table.pk, actor=system)
    counts.box_place(table_id=table.pk, box_id=now_box.pk, actor=system)
    old_box = counts.box_register(identifier="B-old", kind="fees", table_id=table.pk, actor=system)
    with pytest.raises(counts.CountError) as refused:
        counts.box_place(table_id=table.pk, box_id=old_box.pk, actor=system, at=timezone.now() - timedelta(hours=9))
    assert refused.value.code == "wrong_state" and BoxPlacement.objects.count() == 1
    table.refresh_from_db()
    assert table.boxes_placed["fees"]["identifier"] == "B-now"  # the fees still go into the box on the table


def test_the_previous_shift_is_the_one_before_the_shift_running_now():
    from datetime import datetime
    from zoneinfo import ZoneInfo

    cal, la = calendar(), ZoneInfo("America/Los_Angeles")
    names = cal.shift_names()
    for name, clock in cal.shifts:
        # A minute into each shift (a shift starting before the day's start runs the next day).
        day = datetime(2026, 3, 2, tzinfo=la).date()
        start = cal.shift_bounds(day, name)[0] + timedelta(minutes=1)
        before = names[names.index(name) - 1]
        expected_day = day if names.index(name) > 0 else day - timedelta(days=1)
        assert cal.previous_shift(start) == (expected_day, before), name
        assert cal.shift_bounds(*cal.previous_shift(start))[1] <= start


# --- the shift's relief plan ---------------------------------------------------------------


def test_the_floor_shows_the_seeded_shifts_relief_pushes_and_nobody_late(seeded_at, shift_around_now):
    # The shift running now has hours to go (seeded in its last minutes, the plan has no
    # push still to come: first_relief_push, tested below).
    seed()
    now, cal = timezone.now(), calendar()
    plan = plan_in_force(cal.gaming_day(now), cal.shift(now))
    assert plan is not None and plan.made_by.username == "supervisor"
    board = relief_board(now)
    assert board["planned"] and board["late"] == []
    moves = {move["dealer"]: move["to"] for move in board["next"][0]["moves"]}
    tables = set(Table.objects.filter(name__in=["Demo UTH-1", "Demo UTH-2", "Demo UTH-3"]).values_list("name", flat=True))
    # Every planned table gets a dealer at the push; the one dealer left over goes to a break.
    assert sorted(t for t in moves.values() if t != "break") == sorted(tables)
    assert set(moves) == {"dealer", "dealer2", "dealer3", "dealer4"} and list(moves.values()).count("break") == 1
    supervisor = Client()
    supervisor.force_login(User.objects.get(username="supervisor"))
    page = supervisor.get("/floor/").content.decode()
    assert page.count('class="relief-push"') == len(board["next"]) >= 1
    # Seeding again makes no second plan.
    seed()
    assert ReliefPlan.objects.filter(gaming_day=plan.gaming_day, shift=plan.shift).count() == 1


def test_the_seeded_first_push_is_a_whole_mark_still_to_come_inside_the_shift():
    now = timezone.now().replace(hour=10, minute=2, second=7, microsecond=0)
    assert first_relief_push(now, now + timedelta(hours=4)) == now.replace(minute=5, second=0)
    # Exactly on a mark: the next one, so the push is still to come.
    on_mark = now.replace(minute=10, second=0)
    assert first_relief_push(on_mark, on_mark + timedelta(hours=1)) == on_mark + timedelta(minutes=5)
    # The shift ends before the next mark: the plan starts now, inside its shift.
    assert first_relief_push(now, now + timedelta(minutes=1)) == now


def test_the_demo_has_a_second_compliance_person_to_confirm_a_removal_from_a_list():
    """Issue 34: a removal from a self-exclusion list takes two compliance people; the demo
    seeds `compliance2` so that one can be confirmed."""
    from patrons import identity

    seed()
    first, second = demo("compliance"), demo("compliance2")
    assert first.role == second.role == "compliance" and first.user_id != second.user_id
    identity.state_list_import(actor=first, filename="1.csv", content=b"name\nBob Stone\nCarla Ruiz\n")
    shorter = identity.state_list_import(actor=first, filename="2.csv", content=b"name\nCarla Ruiz\n")
    identity.removal_decide(actor=second, removal_id=shorter.removal.pk, outcome="confirmed")
    assert [e.name for e in identity.entries_in_force().filter(source="state")] == ["Carla Ruiz"]


def test_the_demo_seeds_patrons_one_near_the_ctr_line_one_on_the_house_list():
    """Issue 34, finding 9: the demo had no patron records, so the patron panel found
    nobody. Now a patron near the CTR line today (cash rows, the warning), one on the
    house's list, and every patron's page shows something."""
    from patrons import cash
    from patrons.identity import listed_entry
    from patrons.models import CashAlert, Patron

    seed()
    maria, pete = Patron.objects.get(number="P-101"), Patron.objects.get(number="P-900")
    today = calendar().gaming_day(timezone.now())
    total = cash.day_total(f"patron:{maria.pk}", today, "in")
    assert cash.thresholds()[1] <= total <= cash.thresholds()[2]  # warned, not yet a CTR
    assert CashAlert.objects.filter(patron=maria, kind="warning", gaming_day=today).exists()
    assert listed_entry("P-900", pete).source == "house"
    compliance = Client()
    compliance.force_login(User.objects.get(username="compliance"))
    assert "Maria L." in compliance.get("/compliance/patrons/").content.decode()
    for patron in Patron.objects.all():
        page = compliance.get(f"/compliance/patrons/{patron.pk}/")
        assert page.status_code == 200 and patron.number in page.content.decode()
    assert "$4,000.00" in compliance.get(f"/compliance/patrons/{maria.pk}/").content.decode()


def test_every_round_the_demo_finished_plays_again_from_its_start_on_the_surveillance_page():
    """The demo's rounds (side bets, a progressive, backlines) are what
    a newcomer opens the round timeline on: each plays again from its recorded start with
    every answer and record the event chain holds (tables/surveillance.py)."""
    from tables import surveillance

    seed()
    finished = Round.objects.exclude(status="in_progress").select_related("table")
    assert finished.count() >= 5 and "Demo UTH-4" in {r.table.name for r in finished}  # with its backlines
    for rnd in finished:
        assert surveillance.round_replay(rnd).problems == [], (rnd.table.name, rnd.number)

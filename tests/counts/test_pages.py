"""The count pages as the count team, a manager, a supervisor and compliance use them:
each sees the forms of its role, and whatever anyone posts, the service decides."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from collections_fees import counts
from collections_fees.models import BoxCount, BoxPlacement, CountSignature, ShiftClose
from collections_fees.selectors import count_sheet_of

from .play import DAY, person, pieces

pytestmark = pytest.mark.django_db

SHEET = f"/compliance/count/{DAY}/day/"


def client_of(actor):
    client = Client()
    client.force_login(User.objects.get(pk=actor.user_id))
    return client


@pytest.fixture
def compliance():
    return client_of(person("officer-ola", "compliance"))


def test_two_counters_count_sign_and_a_supervisor_closes_over_the_pages(day):
    cal, cy = (client_of(c) for c in day.counters)
    assert cal.post(SHEET, {"action": "open"}).status_code == 302
    page = cal.get(SHEET).content.decode()
    assert "Sign the count as it stands" in page and f"T{day.tables[0].pk}-day" in page
    sheet = count_sheet_of(gaming_day=DAY, shift="day")
    for box_id in counts.placed_boxes(sheet):
        expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift="day")
        form = {"action": "count", "box": box_id, **{f"d{d}": n for d, n in pieces(expected).items()}}
        cal.post(SHEET, form)
    assert BoxCount.objects.filter(sheet=sheet).count() == len(counts.placed_boxes(sheet))
    cal.post(SHEET, {"action": "sign"})
    # One counter's signature does not let the supervisor close.
    supervisor = client_of(day.supervisor)
    supervisor.post(SHEET, {"action": "close"})
    assert not ShiftClose.objects.exists()
    cy.post(SHEET, {"action": "sign"})
    assert CountSignature.objects.filter(sheet=sheet).count() == 2
    assert "Close the shift" in supervisor.get(SHEET).content.decode()
    supervisor.post(SHEET, {"action": "close"})
    assert counts.shift_is_closed(DAY, "day")
    closer = supervisor.get(f"/compliance/closer/{DAY}/?shift=day").content.decode()
    assert "closed" in closer and day.tables[0].name in closer


def test_compliance_reads_everything_and_signs_nothing(day, compliance):
    page = compliance.get(SHEET)
    assert page.status_code == 200 and 'name="action"' not in page.content.decode()  # no count form drawn
    for form in ({"action": "open"}, {"action": "sign"}, {"action": "close"}):
        response = compliance.post(SHEET, form, follow=True)
        assert "not_authorized" in response.content.decode() or "wrong_state" in response.content.decode()
    box = day.boxes[(day.tables[0].pk, "day")][0]
    compliance.post("/compliance/boxes/", {"action": "place", "table": day.tables[1].pk, "box": box.pk})
    assert not BoxPlacement.objects.filter(placed_by="officer-ola").exists()
    assert not ShiftClose.objects.exists()


def test_a_bad_count_is_refused_with_its_code_and_changes_nothing(day):
    cal = client_of(day.counters[0])
    cal.post(SHEET, {"action": "open"})
    box = day.boxes[(day.tables[1].pk, "day")][0]
    for bad in ({"d100": "-1"}, {"d100": "two"}, {"d100": "1.5"}):
        page = cal.post(SHEET, {"action": "count", "box": box.pk, **bad}, follow=True).content.decode()
        assert "invalid_input" in page
    page = cal.post(SHEET, {"action": "count", "box": box.pk, "d10000": "5"}, follow=True).content.decode()
    assert "explanation_required" in page
    assert not BoxCount.objects.exists()


@pytest.mark.parametrize("role", ["count_team", "manager"])
def test_the_count_team_and_managers_reach_the_count_pages_and_nothing_of_the_floor(day, role):
    client = client_of(person(f"someone-{role}", role))
    for page in ("/compliance/count/", SHEET, "/compliance/boxes/", f"/compliance/closer/{DAY}/"):
        assert client.get(page).status_code == 200, page
    assert client.get("/floor/").status_code == 403
    assert client.get("/compliance/collections/").status_code == 403


def test_the_count_team_is_offered_only_the_pages_it_opens(day):
    client = client_of(day.counters[0])
    page = client.get(SHEET).content.decode()
    assert "/compliance/count/" in page and "/compliance/collections/" not in page and "/floor/" not in page


def test_the_demo_floor_has_a_count_team_a_manager_and_a_fee_box_on_every_played_table():
    from io import StringIO

    from django.core.management import call_command
    from django.utils import timezone

    from cardroom.gaming_day import calendar
    from collections_fees.counts import boxes_now
    from tables.models import Table

    for _ in range(2):  # idempotent
        out = StringIO()
        call_command("seed_demo", stdout=out)
    assert "user counter  password counter-demo  (count_team)" in out.getvalue()
    assert "user manager  password manager-demo  (manager)" in out.getvalue()
    tables = list(Table.objects.all())
    played = [t for t in tables if t.state["occupants"]]
    boxes = boxes_now(tables)
    assert played and all(boxes[t.pk]["fees"] == f"FEES-{t.pk}" for t in played)
    # The shift running now: a fee box on every table with players, a jackpot box on the
    # progressive's; the empty table waits for a supervisor to place its box (its first
    # round is refused until then). The previous shift, played by the seed, has a box on
    # every table: tests/service/test_seed_demo.py.
    empty = [t for t in tables if not t.state["occupants"]]
    assert len(empty) == 1 and not boxes.get(empty[0].pk, {}).get("fees")
    now = timezone.now()
    placed_now = BoxPlacement.objects.filter(gaming_day=calendar().gaming_day(now), shift=calendar().shift(now))
    assert placed_now.count() == len(played) + 1


def test_a_sheet_with_no_box_placed_offers_no_signing_and_says_why(clock):
    """Issue 22 item 14: a shift in which no box was placed has nothing to count, so its
    sheet does not offer "Sign the count as it stands" (which could only be refused); it
    says why, and a signature posted anyway is refused with its own code."""
    from .play import AFTER_THE_DAY

    clock.set(*AFTER_THE_DAY)
    cal = client_of(person("count-cal", "count_team"))
    assert cal.post(SHEET, {"action": "open"}).status_code == 302
    page = cal.get(SHEET).content.decode()
    assert "Sign the count as it stands" not in page
    assert "Nothing to sign: no box was placed on a table in the day shift" in page
    refused = cal.post(SHEET, {"action": "sign"}, follow=True).content.decode()
    assert "nothing_to_count" in refused
    assert not CountSignature.objects.exists()


# Issue 35, item 5: each person lands on their own work.

@pytest.mark.parametrize("role, home", [("count_team", "/compliance/count/"), ("manager", "/compliance/count/")])
def test_the_count_team_and_a_manager_land_on_the_count_not_the_dealers_tables(day, role, home):
    response = client_of(person(f"home-{role}", role)).get("/")
    assert response.status_code == 302 and response["Location"] == home
    page = client_of(person(f"home2-{role}", role)).get("/", follow=True).content.decode()
    assert "Count and close" in page and "not assigned to you" not in page


def test_the_manager_sees_a_waiting_reopen_and_an_unapproved_variance_and_neither_once_decided(day):
    from .play import count_shift, sign_and_close

    manager = client_of(day.manager)
    assert "Nothing is waiting for a manager." in manager.get("/compliance/count/").content.decode()
    sign_and_close(day, count_shift(day, "day"))
    request = counts.shift_reopen_request(gaming_day=DAY, shift="day", reason="box EMERG-1 miscounted", actor=day.supervisor)
    sheet = counts.count_sheet_open(gaming_day=DAY, shift="grave", actor=day.counters[0])
    box_id = next(iter(counts.placed_boxes(sheet)))
    expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift="grave")
    big = counts.box_count_record(sheet_id=sheet.pk, box_id=box_id, denominations=pieces(expected + 10001),
                                  explanation="a $100 bill found stuck in the slot", actor=day.counters[0])
    page = manager.get("/", follow=True).content.decode()
    assert 'data-waiting="reopen"' in page and "box EMERG-1 miscounted" in page and "asked by " in page
    assert 'data-waiting="variance"' in page and f"Box {big.box.identifier}" in page and "+$100.01" in page
    counts.shift_reopen_approve(request_id=request.pk, actor=day.manager)
    counts.variance_approve(count_id=big.pk, actor=day.manager, note="seen on camera")
    assert "Nothing is waiting for a manager." in manager.get("/compliance/count/").content.decode()


def test_a_count_refusal_and_result_read_as_words_with_dollars_and_box_labels(day):
    """Not "Not recorded (explanation_required)", "box 5", "151.00 (variance +127.00)"."""
    from collections_fees.models import CountSheet, DropBox
    from tests.service.test_words_not_codes import codes_in

    counter = client_of(day.counters[0])
    sheet_url = f"/compliance/count/{DAY}/grave/"
    counter.post(sheet_url, {"action": "open"})
    sheet = CountSheet.objects.get(gaming_day=DAY, shift="grave")
    box_id = next(iter(counts.placed_boxes(sheet)))
    expected = counts.box_expected(box_id=box_id, gaming_day=DAY, shift="grave")
    over = {"action": "count", "box": box_id, **{f"d{d}": n for d, n in pieces(expected + 10001).items()}}
    refused = counter.post(sheet_url, over, follow=True).content.decode()
    assert "Not recorded: " in refused and "explanation_required" not in codes_in(refused)
    counted = counter.post(sheet_url, {**over, "explanation": "a $100 bill stuck in the slot"}, follow=True).content.decode()
    assert f"Box counted: ${(expected + 10001) / 100:,.2f} (variance +$100.01)." in counted
    label = DropBox.objects.get(pk=box_id).identifier
    assert f"box {label}: its variance needs a manager's approval" in counts.sheet_problems(sheet)

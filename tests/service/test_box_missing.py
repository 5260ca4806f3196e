"""No round without its boxes (docs/controls.md): a person's open_round is refused
`box_missing` unless the table's fee box (and its jackpot box, where the table offers a
progressive) is placed for the current gaming day and shift. System processes are exempt."""
from datetime import timedelta

import pytest
from django.utils import timezone

from cardroom.access import Actor
from collections_fees import counts
from rounds.models import Round
from tables.models import Table
from tables.services import command_execute
from tests.engine.helpers import seated_with_pd
from tests.engine.test_sidebets import PROGRESSIVE
from tests.playing import new_table, run_ok
from tests.service.test_access import assign, person

pytestmark = pytest.mark.django_db

OPEN = {"type": "open_round", "bank": 10000}


@pytest.fixture
def staff():
    return {"sup": person("sam", "supervisor"), "dealer": person("dan", "dealer")}


def seated_table(staff, **config):
    table = new_table("UTH-7", **config, boxes=False)
    assign(staff["dealer"], table, staff["sup"])
    run_ok(table, *seated_with_pd([1, 3], 1))
    return table


def place(table, kind, sup):
    """The supervisor places the table's box of `kind` (registering it first, once)."""
    identifier = f"{'FEES' if kind == 'fees' else 'JACKPOT'}-{table.pk}"
    box = counts.DropBox.objects.filter(identifier=identifier).first() or counts.box_register(
        identifier=identifier, kind=kind, table_id=table.pk, actor=Actor.of(sup))
    counts.box_place(table_id=table.pk, box_id=box.pk, actor=Actor.of(sup))
    return identifier


def open_as(table, user):
    return command_execute(table_id=table.pk, command=OPEN, actor=Actor.of(user)).result


def test_a_dealer_cannot_open_a_round_before_the_fee_box_is_placed(staff):
    table = seated_table(staff)
    counts.box_register(identifier=f"FEES-{table.pk}", kind="fees", table_id=table.pk, actor=Actor.of(staff["sup"]))
    version = Table.objects.get(pk=table.pk).version
    refused = open_as(table, staff["dealer"])
    assert refused["error"]["code"] == "box_missing"
    shift = counts.calendar().shift(timezone.now())
    # The refusal says what is missing and which box to place.
    assert f"no fee box placed for the {shift} shift: place FEES-{table.pk} first" in refused["error"]["message"]
    assert Table.objects.get(pk=table.pk).version == version and not Round.objects.filter(table=table).exists()
    place(table, "fees", staff["sup"])
    assert open_as(table, staff["dealer"])["ok"]


def test_a_table_with_a_progressive_needs_its_jackpot_box_too(staff):
    table = seated_table(staff, side_bets={"progressive": PROGRESSIVE})
    refused = open_as(table, staff["dealer"])
    assert refused["error"]["code"] == "box_missing"
    assert "no fee box placed" in refused["error"]["message"] and "no jackpot box placed" in refused["error"]["message"]
    place(table, "fees", staff["sup"])
    refused = open_as(table, staff["dealer"])
    assert refused["error"]["code"] == "box_missing"
    shift = counts.calendar().shift(timezone.now())
    assert refused["error"]["message"].startswith(f"no jackpot box placed for the {shift} shift")
    assert "no fee box" not in refused["error"]["message"]
    place(table, "jackpot", staff["sup"])
    assert open_as(table, staff["dealer"])["ok"]


def test_a_table_with_no_registered_box_is_told_to_register_one(staff):
    table = seated_table(staff)
    refused = open_as(table, staff["dealer"])
    assert refused["error"]["code"] == "box_missing"
    assert "register and place a fee box first" in refused["error"]["message"]


def test_a_system_process_opens_rounds_without_boxes(staff):
    table = seated_table(staff)
    assert command_execute(table_id=table.pk, command=OPEN, actor="replay").result["ok"]


def test_a_table_left_open_across_a_shift_turn_needs_the_next_shifts_boxes(staff, settings, shift_around_now):
    table = seated_table(staff)
    place(table, "fees", staff["sup"])
    assert open_as(table, staff["dealer"])["ok"]
    run_ok(table, {"type": "void_round", "approved_by": "sam", "reason": "test"})
    # The shift turns (the calendar moves on by one shift): the table stays open and dealt.
    began = timezone.localtime(timezone.now() - timedelta(hours=1))
    clocks = [(began + timedelta(hours=8 * n)).strftime("%H:%M") for n in (-1, 0, 1)]
    settings.CARDROOM_GAMING_DAY_START = clocks[0]
    settings.CARDROOM_SHIFTS = list(zip(("day", "swing", "grave"), clocks))
    assign(staff["dealer"], table, staff["sup"])
    refused = open_as(table, staff["dealer"])
    assert refused["error"]["code"] == "box_missing"
    assert f"no fee box placed for the swing shift: place FEES-{table.pk} first" in refused["error"]["message"]
    place(table, "fees", staff["sup"])
    assert open_as(table, staff["dealer"])["ok"]


def test_the_setup_page_says_what_is_missing_and_who_places_it(staff):
    from django.test import Client

    table = seated_table(staff)
    supervisor, counter = Client(), Client()
    supervisor.force_login(staff["sup"])
    counter.force_login(person("cat", "count_team"))
    page = supervisor.get(f"/staff/tables/{table.pk}/").content.decode()
    assert "Fee box: none placed" in page and "No round opens at this table until" in page
    assert "A supervisor or the manager places a table&#x27;s boxes" in page or "A supervisor or the manager places a table's boxes" in page
    assert "placed by the count team" not in page
    # The words match who may: the supervisor's Drop boxes page has the step, the count team's has not.
    assert "Place or swap a box" in supervisor.get("/compliance/boxes/").content.decode()
    assert "Place or swap a box" not in counter.get("/compliance/boxes/").content.decode()
    place(table, "fees", staff["sup"])
    page = supervisor.get(f"/staff/tables/{table.pk}/").content.decode()
    assert f"Fee box: FEES-{table.pk}" in page and "No round opens at this table until" not in page

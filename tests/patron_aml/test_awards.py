"""A progressive award to a self-excluded patron is withheld (4 CCR 12464): recorded, not
paid, the fund keeps it, escalated to the floor and compliance (patrons/awards.py, the
engine's `withheld` in rounds/engine/sidebets.py)."""

import pytest
from django.test import Client

from cardroom.models import AuditEntry
from collections_fees.models import JackpotEntry, JackpotMeter
from patrons import identity
from patrons.models import ExclusionHit
from rounds.engine.sidebets import (
    Award, Fund, awaiting_confirmation, award_dicts, pay_awards, side_bets_from_config,
)
from tables.integrity import verify_meter
from tables.models import Table, TableEvent
from tables.selectors import server_snapshot
from tables.services import command_execute
from tests.engine.test_sidebets import PROGRESSIVE, SIDE_BETS
from tests.patron_aml.conftest import person
from tests.playing import new_table, run_ok
from tests.service.test_access import assign
from tests.service.test_sidebets_service import D_COMMANDS

PROG = side_bets_from_config({"progressive": PROGRESSIVE}).progressive

# Example D up to its showdown (the side-bet service's own commands): seat 2 (P-2) wins the
# progressive's full-house award ($10).
D_UP_TO_SHOWDOWN, SHOWDOWN = D_COMMANDS[:-2], D_COMMANDS[-2]


# --- the engine -------------------------------------------------------------------------


def test_the_engine_records_a_withheld_award_and_the_fund_keeps_it():
    fund = Fund(meter=1_000_000, reserve=600_000)
    awards = [Award(3, "P-3", "full_house", 100), Award(2, "P-2", "royal_first_five", 100)]
    lines, after = pay_awards(fund, PROG, awards, confirmed=set(), withheld=frozenset({2}))
    # Seat 3 is paid; seat 2's 100% award is recorded at the meter as it stood, not paid:
    # no delta, nothing owed, no reseed after it.
    assert [(l.kind, l.seat, l.meter_delta, l.reserve_delta, l.owed) for l in lines] == [
        ("award", 3, -1000, 0, 0), ("withheld", 2, 0, 0, 0)
    ]
    assert lines[1].amount == 999_000
    assert after == Fund(meter=999_000, reserve=600_000)
    shown = award_dicts(lines)
    assert [a.get("withheld", False) for a in shown] == [False, True]
    # Nothing to confirm for a withheld percentage award: it is not paid.
    assert awaiting_confirmation(PROG, shown) == []
    _, paid = pay_awards(fund, PROG, awards, confirmed=set())
    assert paid != after  # the same awards, none withheld, move the fund


# --- the command service ---------------------------------------------------------------


@pytest.fixture
def d_table(db):
    table = new_table("D", paytable="UTH-01", side_bets=SIDE_BETS)  # its boxes placed: a person deals
    dealer, sam = person("dan", "dealer"), person("sam", "supervisor")
    assign(dealer, table, sam)
    from cardroom.access import Actor

    return table, Actor.of(dealer)


@pytest.fixture
def bob(actors):
    # Patron P-2, seated before the state's list named him (the list came in mid-round).
    return identity.patron_create(actor=actors["compliance"], number="P-2", display_name="Bob S.", legal_name="Bob Stone")


def test_a_listed_patrons_award_is_withheld_escalated_and_kept_by_the_fund(d_table, bob, actors):
    table, dealer = d_table
    run_ok(table, *D_UP_TO_SHOWDOWN, actor=dealer)
    identity.state_list_import(actor=actors["compliance"], filename="s.csv", content="name\nBOB ST\u043eNE\n".encode())  # Cyrillic o
    before = JackpotMeter.objects.get(name="UTH-PROG-1")
    (preview,) = run_ok(table, SHOWDOWN, actor=dealer)
    assert preview["progressive"] == [
        {"seat": 2, "hand": "full_house", "award": 1000, "from_meter": 0, "from_reserve": 0, "owed": 0,
         "confirmed": False, "withheld": True}
    ]
    assert not ExclusionHit.objects.exists()  # a preview pays nothing, so escalates nothing
    # The tablet's settlement preview (asked of the engine again) withholds it too.
    table.refresh_from_db()
    shown = server_snapshot(table)["view"]["settlement_preview"]["progressive"]
    assert [(a["seat"], a.get("withheld")) for a in shown] == [(2, True)]
    (settled,) = run_ok(table, {"type": "settle"}, actor=dealer)
    assert settled["progressive"][0]["withheld"] is True
    meter = JackpotMeter.objects.get(name="UTH-PROG-1")
    assert (meter.meter, meter.reserve, meter.owed) == (before.meter, before.reserve, 0)  # the fund keeps it
    (line,) = JackpotEntry.objects.filter(kind="withheld")
    assert (line.seat, line.player, line.amount, line.meter_delta, line.reserve_delta) == (2, "P-2", 1000, 0, 0)
    assert not JackpotEntry.objects.filter(kind="award").exists()
    assert verify_meter(meter) == []
    # The command as recorded names the withheld seat: a replay withholds the same award.
    settle_event = TableEvent.objects.get(table=table, command_type="settle")
    assert settle_event.command["withheld"] == [2]
    # Escalated: a hit with its amount for the floor and compliance, and an audit row.
    (hit,) = ExclusionHit.objects.all()
    assert (hit.action, hit.patron, hit.amount, hit.table_id) == ("award", bob, 1000, table.pk)
    assert AuditEntry.objects.filter(action="self_exclusion", summary__contains="withheld").exists()
    client = Client()
    client.force_login(person("flo", "supervisor"))
    page = client.get("/floor/patrons/").content.decode()
    assert "progressive award $10.00 withheld" in page


def test_an_unlisted_patrons_award_is_paid(d_table, bob):
    table, dealer = d_table
    run_ok(table, *D_UP_TO_SHOWDOWN, actor=dealer)
    (settled,) = run_ok(table, SHOWDOWN, {"type": "settle"}, actor=dealer)[1:]
    assert "withheld" not in settled["progressive"][0] and settled["progressive"][0]["from_meter"] == 1000
    assert not ExclusionHit.objects.exists()


def test_a_person_may_not_say_whose_award_is_withheld(d_table):
    table, dealer = d_table
    run_ok(table, *D_UP_TO_SHOWDOWN, actor=dealer)
    version = Table.objects.get(pk=table.pk).version
    refused = command_execute(table_id=table.pk, command={**SHOWDOWN, "withheld": [2]}, actor=dealer).result
    assert refused["error"]["code"] == "invalid_command"
    assert Table.objects.get(pk=table.pk).version == version


def test_the_engine_refuses_a_withheld_that_is_not_a_list_of_seats(d_table):
    table, _ = d_table
    run_ok(table, *D_UP_TO_SHOWDOWN, actor="replay")
    for bad in (2, [9], ["2"]):
        refused = command_execute(table_id=table.pk, command={**SHOWDOWN, "withheld": bad}, actor="replay").result
        assert refused["error"]["code"] in ("invalid_command", "unknown_seat"), bad

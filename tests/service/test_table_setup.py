"""Table setup (issue 26): a supervisor creates a table and changes each part of its
configuration on the setup screens; each change is shown against the version in force and
filed for a second supervisor, who sees the same comparison in the queue. Retiring keeps
every record; opening and closing need a reason, and the floor shows who and when."""

import pytest
from django.db import IntegrityError, ProgrammingError, transaction
from django.test import Client

from cardroom.access import Actor
from rounds.engine.errors import CommandError
from rounds.engine.fees import PlayerWager, assess_fees, fee_schedule_from_config
from rounds.models import Round
from tables.approvals import approval_decide
from tables.models import Approval, Table, TableStatusChange
from tables.floor import floor_rows
from tables.lifecycle import table_configure, table_open_close, table_retire
from tables.setup import config_changes
from tests.db_access import as_owner
from tests.engine.helpers import seated_with_pd

from tests.service.conftest import full_round
from tests.playing import new_table, run_ok
from .test_access import person

pytestmark = pytest.mark.django_db

RATES = [(0, 2500, 100, 100), (2501, 100000, 200, 300)]  # cents: min, max, player's fee, player-dealer's fee


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def fees_form(reason="new schedule", step="review", **extra):
    data = {"fees-charged": "on", "fees-payers": "all_players", "fees-player_basis": "ante",
            "fees-pd_basis": "per_betting_square", "fees-samples": "10, 50", "fees-reason": reason, "step": step}
    for n, (low, high, player, pd) in enumerate(RATES, start=1):
        data.update({f"fees-rate{n}_min": f"{low / 100:.2f}", f"fees-rate{n}_max": f"{high / 100:.2f}",
                     f"fees-rate{n}_player_fee": f"{player / 100:.2f}", f"fees-rate{n}_pd_fee": f"{pd / 100:.2f}"})
    return {**data, **extra}


def created(client, name="UTH-9", seats=6):
    response = client.post("/staff/tables/", {"name": name, "seats": seats, "paytable": "UTH-01"})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Table.objects.get(name=name)


def test_a_new_table_waits_closed_for_another_supervisor_who_alone_can_approve_it():
    sam, sue = person("sam", "supervisor"), person("sue", "supervisor")
    table = created(logged_in(sam))
    assert not table.is_open and not table.config_approved
    (first,) = Approval.objects.filter(table=table, kind="config")
    queue = logged_in(sam).get("/staff/approvals/").content.decode()
    assert "your own request: another supervisor decides" in queue
    refused = logged_in(sam).post("/staff/approvals/", {"approval": first.pk, "approve": "1"}, follow=True)
    assert "the requester cannot approve their own request" in refused.content.decode()
    table.refresh_from_db()
    assert not table.config_approved
    # The second supervisor sees the whole first configuration (nothing is in force yet).
    shown = logged_in(sue).get("/staff/approvals/").content.decode()
    assert "Seats" in shown and "Pay table · name" in shown and "UTH-01" in shown
    logged_in(sue).post("/staff/approvals/", {"approval": first.pk, "approve": "1"})
    table.refresh_from_db()
    assert table.config_approved and not table.is_open  # opened from the floor, with a reason


def test_a_change_is_shown_against_the_version_in_force_filed_and_carried_out_only_on_approval():
    sam, sue = person("sam", "supervisor"), person("sue", "supervisor")
    table = created(logged_in(sam))
    before = table.state["config"]

    review = logged_in(sam).post(f"/staff/tables/{table.pk}/fees/", fees_form()).content.decode()
    assert "Fee schedule · Rate 2 · player-dealer&#x27;s fee" in review and "$3.00" in review
    assert "Request approval" in review
    # The preview is the engine's own assessment of the sample Antes.
    schedule = fee_schedule_from_config({"rates": [dict(zip(("min", "max", "player_fee", "pd_fee"), r)) for r in RATES]})
    for ante in (1000, 5000):
        lines = assess_fees(schedule, pd_seat=1, pd_player="PD", wagers=[PlayerWager(2, "P", ante, ante, 0)])
        (player,), (pd,) = ([x for x in lines if x.payer == who] for who in ("player", "player_dealer"))
        assert f"<td>${ante / 100:,.2f}</td><td>${player.amount / 100:,.2f}</td><td>${pd.amount / 100:,.2f}</td>" in review
    assert not Approval.objects.filter(table=table, payload__reason="new schedule").exists()  # a review files nothing

    without_reason = logged_in(sam).post(f"/staff/tables/{table.pk}/fees/", fees_form(reason="", step="request"))
    assert "a request says why" in without_reason.content.decode()
    assert not Approval.objects.filter(table=table, payload__has_key="config").exclude(
        payload__reason="a new table's first configuration").exists()

    filed = logged_in(sam).post(f"/staff/tables/{table.pk}/fees/", fees_form(step="request"))
    assert filed.status_code == 302
    request = Approval.objects.get(table=table, payload__reason="new schedule")
    assert set(request.payload["config"]) == {"fee_schedule"}  # only the part it changes
    table.refresh_from_db()
    assert table.state["config"] == before and table.config.fee_schedule is None  # nothing changed yet

    queue = logged_in(sue).get("/staff/approvals/").content.decode()
    assert "Fee schedule · Rate 2 · player-dealer&#x27;s fee" in queue and "$3.00" in queue
    approval_decide(approval_id=Approval.objects.get(table=table, payload__reason="a new table's first configuration").pk,
                    decider=Actor.of(sue), approve=True, via="device")
    approval_decide(approval_id=request.pk, decider=Actor.of(sue), approve=True, via="device")
    table.refresh_from_db()
    assert table.state["config"]["fee_schedule"]["rates"][1]["pd_fee"] == 300
    assert table.config.fee_schedule.rates.count() == 2


def test_bad_input_shows_the_engines_code_and_files_nothing():
    sam = person("sam", "supervisor")
    table = created(logged_in(sam))
    filed = Approval.objects.count()
    # Trips may pay only on three of a kind or better (game-rules section 6): the engine says so.
    below = logged_in(sam).post(f"/staff/tables/{table.pk}/paytable/", {
        "paytable-paytable": "custom", "paytable-trips_two_pair_x": "1", "paytable-trips_two_pair_y": "1",
        "paytable-reason": "cheaper", "step": "request"}).content.decode()
    assert "invalid_command: a Trips wager pays only on three of a kind or better" in below
    # Overlapping rates are refused by the engine's fee code.
    overlap = logged_in(sam).post(f"/staff/tables/{table.pk}/fees/", fees_form(step="request", **{
        "fees-rate2_min": "20.00"})).content.decode()
    assert "invalid_command: collection rates must not overlap" in overlap
    assert Approval.objects.count() == filed


def test_fewer_seats_only_where_nobody_sits_in_the_seats_taken_away(make_table):
    table = make_table(seats=6)
    run_ok(table, {"type": "sit", "seat": 6, "player": "P-6"})
    with pytest.raises(CommandError) as refused:
        table_configure(table_id=table.pk, config={"seats": 5}, changed_by="test")
    assert refused.value.code == "wrong_state"
    run_ok(table, {"type": "leave", "seat": 6})
    table_configure(table_id=table.pk, config={"seats": 5}, changed_by="test")
    table.refresh_from_db()
    assert table.seats == 5 and table.state["config"]["seats"] == 5


def test_opening_and_closing_need_a_reason_and_the_floor_shows_who_and_when(make_table):
    sam = person("sam", "supervisor")
    table = make_table()
    client = logged_in(sam)
    answer = client.post(f"/api/tables/{table.pk}/open", '{"open": false}', content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_command"
    with pytest.raises(CommandError):
        table_open_close(table_id=table.pk, open=False, actor=Actor.of(sam), reason="   ")
    table.refresh_from_db()
    assert table.is_open and not TableStatusChange.objects.exists()

    assert client.post(f"/api/tables/{table.pk}/open", '{"open": false, "reason": "dealer break"}',
                       content_type="application/json").json() == {"ok": True, "open": False}
    (row,) = floor_rows([table.pk])
    assert row["open"] is False
    assert row["status_change"]["action"] == "closed" and row["status_change"]["by"] == "sam"
    assert row["status_change"]["reason"] == "dealer break"
    change = TableStatusChange.objects.get()
    assert row["status_change"]["at"] == change.at.isoformat()
    # Append-only: the served role may not update it, nor may the tables' owner (the trigger).
    with pytest.raises(ProgrammingError), transaction.atomic():
        TableStatusChange.objects.filter(pk=change.pk).update(reason="nothing")
    with as_owner(), pytest.raises(IntegrityError), transaction.atomic():
        TableStatusChange.objects.filter(pk=change.pk).update(reason="nothing")


def test_a_retired_table_keeps_its_records_cannot_open_and_leaves_the_floor(make_table):
    sam = person("sam", "supervisor")
    table = make_table(seats=6)
    run_ok(table, *seated_with_pd([1, 2], pd=1), *full_round([2]))
    assert Round.objects.filter(table=table, status="settled").count() == 1
    with pytest.raises(CommandError):
        table_retire(table_id=table.pk, actor=Actor.of(sam), reason="")
    response = logged_in(sam).post(f"/staff/tables/{table.pk}/retire", {"reason": "felt worn out"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.retired and not table.is_open
    assert table.pk not in [r["table"] for r in floor_rows()]
    with pytest.raises(CommandError) as refused:
        table_open_close(table_id=table.pk, open=True, actor=Actor.of(sam), reason="back")
    assert refused.value.code == "wrong_state" and "retired" in refused.value.message
    # Its records stay, and the compliance pages still list them.
    assert Round.objects.filter(table=table, status="settled").count() == 1
    officer = logged_in(person("cora", "compliance"))
    listing = officer.get("/compliance/rounds/", {"table": table.pk}).content.decode()
    assert f"/compliance/rounds/{Round.objects.get(table=table).pk}/" in listing
    assert logged_in(sam).get("/staff/tables/").content.decode().count("Retired") >= 1


def test_the_comparison_names_each_changed_value_in_words_and_dollars():
    before = {"seats": 6, "paytable": "UTH-01", "limits": {"ante_min": 500}, "dealing": "shuffler",
              "max_consecutive_banks": 2, "fee_schedule": None, "side_bets": None, "rotation_policy": None, "notice": "n"}
    after = {**before, "limits": {"ante_min": 1000}, "max_consecutive_banks": 1,
             "side_bets": {"bad_beat": {"paytable": "BBB-01", "max": 2500}}}
    changes = {c.what: (c.before, c.after) for c in config_changes(before, after)}
    assert changes == {
        "Limits · Ante minimum": ("$5.00", "$10.00"),
        "Consecutive banks allowed": ("2", "1"),
        "Side bets · Bad Beat · Pay table": ("—", "BBB-01"),
        "Side bets · Bad Beat · up to": ("—", "$25.00"),
    }


def test_pages_have_a_favicon_served_by_the_app():
    page = logged_in(person("sam", "supervisor")).get("/staff/tables/").content.decode()
    assert 'rel="icon" href="/static/favicon.svg"' in page
    redirect = Client().get("/favicon.ico")
    assert redirect.status_code == 301 and redirect["Location"] == "/static/favicon.svg"
    icon = Client().get("/static/favicon.svg")
    assert icon.status_code == 200 and b"<svg" in b"".join(icon.streaming_content)


def backline_form(step="review", reason="backline for the weekend", **fields):
    return {"backline-offered": "on", "backline-max_per_seat": "2", "backline-trips": "on",
            "backline-reason": reason, "step": step, **fields}


def test_backline_is_changed_like_every_part_compared_and_approved_by_a_second_supervisor():
    """The backline section (game-rules section 12) goes through the same request and
    second-supervisor approval, with the same comparison on both sides."""
    sam, sue = person("sam", "supervisor"), person("sue", "supervisor")
    table = created(logged_in(sam))
    approval_decide(approval_id=Approval.objects.get(table=table).pk, decider=Actor.of(sue), approve=True, via="device")
    page = logged_in(sam).get(f"/staff/tables/{table.pk}/").content.decode()
    assert 'id="section-backline"' in page and "Backline wagers offered" in page

    review = logged_in(sam).post(f"/staff/tables/{table.pk}/backline/", backline_form()).content.decode()
    assert "Backline · bettors behind one seat" in review and "Request approval" in review
    assert not Approval.objects.filter(table=table, payload__reason="backline for the weekend").exists()

    filed = logged_in(sam).post(f"/staff/tables/{table.pk}/backline/", backline_form(step="request"))
    assert filed.status_code == 302
    request = Approval.objects.get(table=table, payload__reason="backline for the weekend")
    assert request.payload["config"] == {"backline": {"max_per_seat": 2, "trips": True}}
    table.refresh_from_db()
    assert table.state["config"].get("backline") is None  # not before the second supervisor approves

    queue = logged_in(sue).get("/staff/approvals/").content.decode()
    assert "Backline · bettors behind one seat" in queue
    approval_decide(approval_id=request.pk, decider=Actor.of(sue), approve=True, via="device")
    table.refresh_from_db()
    assert table.state["config"]["backline"] == {"max_per_seat": 2, "trips": True}
    assert table.config.backline == {"max_per_seat": 2, "trips": True}
    # The form shows the backline in force.
    page = logged_in(sam).get(f"/staff/tables/{table.pk}/").content.decode()
    assert 'name="backline-max_per_seat" value="2"' in page
    # Unticked, the review shows backline going away (its numbers are not sent on).
    off = {k: v for k, v in backline_form().items() if k != "backline-offered"}
    review = logged_in(sam).post(f"/staff/tables/{table.pk}/backline/", off).content.decode()
    assert "Backline · bettors behind one seat" in review and "Request approval" in review


def test_a_backline_the_engine_refuses_shows_its_code_and_files_nothing():
    sam = person("sam", "supervisor")
    table = created(logged_in(sam))
    filed = Approval.objects.count()
    for bad in ("4", ""):
        page = logged_in(sam).post(f"/staff/tables/{table.pk}/backline/",
                                   backline_form(step="request", **{"backline-max_per_seat": bad})).content.decode()
        assert "invalid_command: backline.max_per_seat must be a whole number from 1 to 3" in page
    assert Approval.objects.count() == filed


def test_naming_an_existing_shared_meter_says_it_is_shared_with_its_tables_and_amounts_now():
    """Issue 35, item 7: the review and the queue say the meter exists, who shares it and
    what it holds now, and that the starting amounts asked are not applied."""
    from collections_fees.models import JackpotMeter

    meter = {"name": "Demo Progressive", "meter_share": 80, "seed": 500000, "meter": 500000, "reserve": 0}
    progressive = {"paytable": "PROG-01", "wager": 100, "meter": meter}
    new_table("Demo UTH-3", side_bets={"progressive": progressive}, boxes=False)
    JackpotMeter.objects.filter(name="Demo Progressive").update(meter=999960, reserve=600240)
    after = {"seats": 6, "side_bets": {"progressive": progressive}}
    changes = {c.what: c.after for c in config_changes(None, after)}
    assert changes["Side bets · Progressive · shared meter"] == (
        "Demo Progressive exists (shared with Demo UTH-3): meter $9,999.60, reserve $6,002.40 now")
    starting = [after for what, after in changes.items() if what.endswith("starting amount")]
    assert starting and all("not applied" in text for text in starting)
    # A new meter's name: its starting amounts are what it starts with; nothing shared.
    fresh = {"seats": 6, "side_bets": {"progressive": {**progressive, "meter": {**meter, "name": "High Limit"}}}}
    assert not any("shared" in c.what or "not applied" in c.after for c in config_changes(None, fresh))

"""Side bets through the command service on PostgreSQL: worked example D by replay, the
meter as a shared, locked object, its append-only hash-chained fund ledger, the
supervisor's confirmation of a percentage award, and two tables on one meter at once."""

import io
import json
import threading

import pytest
from django.core.management import call_command
from django.test import Client
from django.contrib.auth.models import Group
from django.db import DatabaseError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from cardroom.access import Actor
from collections_fees.models import JackpotEntry, JackpotMeter
from rounds.audit import round_verify, rounds_to_verify
from rounds.models import Round, Wager
from tables.approvals import approval_decide, approval_request
from tests.db_access import as_owner
from tables.events import _send_changed
from tables.integrity import verify_meter
from tables.models import Table
from rounds.engine.view import posted_rules
from tables.floor import floor_rows
from tables.selectors import server_snapshot
from tables.services import command_execute
from tests.engine.helpers import quick_round, wager
from tests.engine.test_sidebets import D_BOARD, D_HOLES, D_LINES, D_PD, D_WAGERS, PROGRESSIVE, SIDE_BETS
from tests.playing import new_table, results as run, run_ok
from tests.service.test_access import assign, person
from tests.service.test_replay import replay

D_TABLE = {"name": "UTH-D", "seats": 6, "paytable": "UTH-01", "side_bets": SIDE_BETS}
D_COMMANDS = [
    *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3)),
    {"type": "offer_bank", "seat": 1},
    {"type": "accept_bank", "seat": 1},
    {"type": "open_round", "bank": 100000},
    *D_WAGERS,
    {"type": "no_more_bets"},
    {"type": "play", "seat": 2, "multiple": 4},
    {"type": "check", "seat": 3},
    {"type": "flop", "cards": D_BOARD[:3]},
    {"type": "check", "seat": 3},
    {"type": "turn_river", "cards": D_BOARD[3:]},
    {"type": "play", "seat": 3, "multiple": 1},
    {"type": "showdown", "player_dealer": D_PD, "hands": {str(s): h for s, h in D_HOLES.items()}},
    {"type": "settle"},
]


@pytest.mark.django_db
def test_replay_reproduces_example_d_whatever_a_meter_of_that_name_holds(monkeypatch):
    # A live meter of the same name at other amounts: the replay starts at the file's.
    new_table("live", side_bets={"progressive": {
        **PROGRESSIVE, "meter": {**PROGRESSIVE["meter"], "meter": 7, "reserve": 9}}}, boxes=False)
    results = replay({"table": D_TABLE, "commands": D_COMMANDS}, monkeypatch)["results"]
    assert all(r["ok"] for r in results), results
    nmb, settled = results[D_COMMANDS.index({"type": "no_more_bets"})], results[-1]
    assert nmb["meter"] == {"name": "UTH-PROG-1", "meter": 1000160, "reserve": 600040}
    assert settled["lines"] == D_LINES
    assert (settled["pd_net"], settled["balance"]) == (-33100, 66900)
    assert settled["progressive"][0]["award"] == 1000
    assert settled["meter"] == {"name": "UTH-PROG-1", "meter": 999160, "reserve": 600040}
    live = JackpotMeter.objects.get(name="UTH-PROG-1")
    assert (live.meter, live.reserve) == (7, 9)  # rolled back: the live meter is untouched
    assert verify_meter(live) == []


@pytest.mark.django_db
def test_the_fund_ledger_records_every_movement_apart_from_the_collection_log():
    table = new_table("D", **{k: v for k, v in D_TABLE.items() if k != "name"}, boxes=False)
    run_ok(table, *D_COMMANDS)
    meter = JackpotMeter.objects.get(name="UTH-PROG-1")
    assert (meter.meter, meter.reserve, meter.owed) == (999160, 600040, 0)
    rows = list(meter.entries.values_list("seq", "kind", "seat", "amount", "meter_delta", "reserve_delta", "meter_after"))
    assert rows == [
        (1, "opening", None, 1600000, 1000000, 600000, 1000000),
        (2, "contribution", 2, 100, 80, 20, 1000080),
        (3, "contribution", 3, 100, 80, 20, 1000160),
        (4, "award", 2, 1000, -1000, 0, 999160),
    ]
    assert verify_meter(meter) == []
    # Bad Beat and Pairs are wagers the player-dealer banks; the progressive is not.
    kinds = set(Wager.objects.filter(round__table=table).values_list("kind", flat=True))
    assert {"bad_beat", "pairs"} <= kinds and "progressive" not in kinds
    # verify_rounds re-settles the stored round, side bets included, and finds it the same.
    (stored,) = rounds_to_verify().filter(table=table)
    assert stored.side_bets["bad_beat"]["paytable"] == "BBB-01"
    assert round_verify(stored) == []
    with pytest.raises(DatabaseError), transaction.atomic():
        JackpotEntry.objects.filter(meter=meter, seq=4).update(amount=1)
    with connection.cursor() as cursor:  # a forged amount on the meter row is reported
        cursor.execute("UPDATE collections_fees_jackpotmeter SET meter = meter + 1 WHERE id = %s", [meter.pk])
    meter.refresh_from_db()
    assert "ledger adds up to 999160" in str(verify_meter(meter)[0])


@pytest.mark.django_db
def test_a_percentage_award_is_confirmed_by_a_supervisor_not_the_dealer(django_user_model):
    table = new_table("R", side_bets={"progressive": PROGRESSIVE}, boxes=False)
    run_ok(
        table,
        *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
        {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
        {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["2c", "3d"]}, {"type": "play", "seat": 2, "multiple": 1},
        {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"]}},
    )
    assert run(table, {"type": "settle"})[0]["error"]["code"] == "award_unconfirmed"
    # The tablet's next step and the floor both say a supervisor must confirm it.
    table.refresh_from_db()
    step = server_snapshot(table)["view"]["next"]
    assert step["step"] == "confirm_award" and [a["seat"] for a in step["awards"]] == [2]
    (row,) = floor_rows([table.pk])
    assert [a["seat"] for a in row["alerts"] if a["kind"] == "award_unconfirmed"] == [2]
    # What the supervisor reads before confirming (issue 22): seat, person, hand, cards, amount.
    (facts,) = [a["award"] for a in row["alerts"] if a["kind"] == "award_unconfirmed"]
    assert facts == {"seat": 2, "player": "P-2", "hand": "royal flush in the first five cards",
                     "hole": ["As", "Ks"], "board": ["Qs", "Js", "Ts", "2c", "3d"], "amount": 1000080,
                     "meter": "UTH-PROG-1"}
    assert row["meter"] == {"name": "UTH-PROG-1", "meter": 1000080, "reserve": 600020}
    # The table's own dealer (assigned: may drive it) cannot confirm, even naming a supervisor.
    dealer, sam = person("dan", "dealer"), person("sam", "supervisor")
    assign(dealer, table, sam)
    version = Table.objects.get(pk=table.pk).version
    for confirm_as_dealer in ({"type": "confirm_award", "seat": 2}, {"type": "confirm_award", "seat": 2, "approved_by": "sam"}):
        refused = command_execute(table_id=table.pk, command=confirm_as_dealer, actor=Actor.of(dealer)).result
        assert refused["error"]["code"] == "not_authorized"
    assert Table.objects.get(pk=table.pk).version == version
    confirm = {"type": "confirm_award", "seat": 2}
    supervisor = Actor(name="sup", role="supervisor", user_id=None)
    confirmed = command_execute(table_id=table.pk, command=confirm, actor=supervisor).result
    assert confirmed["ok"] and confirmed["award"]["approved_by"] == "sup"
    settled = run_ok(table, {"type": "settle"})[0]
    assert settled["progressive"][0]["hand"] == "royal_first_five" and settled["progressive"][0]["confirmed"]
    assert settled["meter"]["meter"] == 500000  # reseeded from the reserve
    table.refresh_from_db()
    assert server_snapshot(table)["view"]["next"]["step"] != "confirm_award"
    assert not [a for a in floor_rows([table.pk])[0]["alerts"] if a["kind"] == "award_unconfirmed"]


@pytest.mark.django_db
def test_the_floor_alerts_on_a_meter_below_its_seed_and_on_owed_awards():
    small = {**PROGRESSIVE, "meter": {**PROGRESSIVE["meter"], "meter": 500, "reserve": 200}}
    table = new_table("S", side_bets={"progressive": small}, boxes=False)
    run_ok(
        table,
        *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
        {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["9c", "9d", "4h"]},
        {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["7s", "Jd"]}, {"type": "play", "seat": 2, "multiple": 1},
        {"type": "showdown", "player_dealer": ["Kh", "Kd"], "hands": {"2": ["9s", "9h"]}},
        {"type": "settle"},
    )
    (row,) = floor_rows([table.pk])
    texts = {a["kind"]: a["text"] for a in row["alerts"]}
    # The floor speaks in dollars, as the supervisor reads the meter.
    assert texts["meter_below_seed"] == "Meter UTH-PROG-1 below its seed ($0.00, seed $5,000.00)"
    assert texts["award_owed"] == "Meter UTH-PROG-1: $92.00 of awards owed to players"
    assert JackpotMeter.objects.get(name="UTH-PROG-1").owed == 10000 - 800
    assert posted_rules(table.state["config"])["side_bets"]["progressive"]["wager"] == 100


def _showdown_round(players):
    return [
        {"type": "open_round", "bank": 100000},
        *({"type": "wager", "seat": s, "ante": 100, "progressive": True} for s in players),
        {"type": "no_more_bets"},
        *({"type": "check", "seat": s} for s in players), {"type": "flop", "cards": ["9h", "9d", "9c"]},
        *({"type": "check", "seat": s} for s in players), {"type": "turn_river", "cards": ["Ks", "2d"]},
        *({"type": "play", "seat": s, "multiple": 1} for s in players),
        {"type": "showdown", "player_dealer": ["Kh", "Kd"], "hands": {"2": ["As", "Ad"], "3": ["Qc", "Jc"]}},
    ]


@pytest.mark.django_db(transaction=True)
def test_two_tables_on_one_meter_settling_at_once_lose_no_update():
    config = {"seats": 6, "side_bets": {"progressive": PROGRESSIVE}}
    tables = [new_table(f"L{i}", **config, boxes=False) for i in (1, 2)]
    for table in tables:
        run_ok(table, *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3)),
               {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *_showdown_round([2, 3]))
    # Both tables' contributions are in: 4 x 80 on the meter, 4 x 20 in the reserve.
    meter = JackpotMeter.objects.get(name="UTH-PROG-1")
    assert (meter.meter, meter.reserve) == (1000320, 600080)

    results = [None, None]
    start = threading.Barrier(3)

    def settle(i):
        try:
            start.wait()
            results[i] = command_execute(table_id=tables[i].pk, command={"type": "settle"}, actor=f"tablet-{i}").result
        finally:
            connections.close_all()

    threads = [threading.Thread(target=settle, args=(i,)) for i in (0, 1)]
    with transaction.atomic():
        JackpotMeter.objects.select_for_update().get(pk=meter.pk)  # both reach the meter lock
        for t in threads:
            t.start()
        start.wait()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(0.3)")
    for t in threads:
        t.join(timeout=30)
    assert all(r["ok"] for r in results), results
    meter.refresh_from_db()
    # Each table's seat 2 (full house, 10 for 1 on 100) was paid 1000: both awards count.
    assert (meter.meter, meter.reserve) == (1000320 - 2000, 600080)
    assert sorted(r["meter"]["meter"] for r in results) == [1000320 - 2000, 1000320 - 1000]
    assert list(meter.entries.values_list("seq", flat=True)) == list(range(1, 8))
    assert verify_meter(meter) == []


@pytest.mark.django_db(transaction=True)  # the export reads over its own connection: committed rows
def test_the_jackpot_ledger_exports_as_csv_with_its_manifest(tmp_path):
    import csv
    import hashlib

    from cardroom.gaming_day import calendar
    from django.utils import timezone

    table = new_table("D", **{k: v for k, v in D_TABLE.items() if k != "name"}, boxes=False)
    run_ok(table, *D_COMMANDS)
    day = str(calendar().gaming_day(timezone.now()))
    out = tmp_path / "jackpot.csv"
    call_command("export_collections", "--log", "jackpot", "--from", day, "--to", day, "--out", str(out),
                 "--by", "olga", "--no-progress", stdout=io.StringIO())
    data = out.read_bytes()
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert [(r["line"], r["seat"], r["amount_cents"], r["meter_after_cents"]) for r in rows] == [
        ("opening", "", "1600000", "1000000"),
        ("contribution", "2", "100", "1000080"),
        ("contribution", "3", "100", "1000160"),
        ("award", "2", "1000", "999160"),
    ]
    assert rows[-1]["hand"] == "full_house" and rows[-1]["table_name"] == "D" and rows[-1]["round_number"] == "1"
    manifest = json.loads((tmp_path / "jackpot.csv.manifest.json").read_text())
    assert manifest["kind"] == "jackpot" and manifest["rows"] == 4
    assert manifest["file"]["sha256"] == hashlib.sha256(data).hexdigest()
    # Kept apart from the collection log: no fee line mentions the progressive.
    collections = tmp_path / "collections.csv"
    call_command("export_collections", "--from", day, "--to", day, "--out", str(collections), "--no-progress",
                 stdout=io.StringIO())
    assert len(collections.read_text().splitlines()) == 1  # the header: this table charges no fee


def _user(django_user_model, name, role, password="pw"):
    user = django_user_model.objects.create_user(name, password=password)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def _supervisor(django_user_model, name):
    return Actor.of(_user(django_user_model, name, "supervisor"))


@pytest.mark.django_db
def test_supervisors_configure_side_bets_through_the_approved_configuration_change(django_user_model):
    table = new_table("C", boxes=False)
    Table = type(table)
    Table.objects.filter(pk=table.pk).update(is_open=True)
    asker, approver = _supervisor(django_user_model, "sam"), _supervisor(django_user_model, "sue")
    approval = approval_request(actor=asker, table_id=table.pk, kind="config",
                                payload={"reason": "add side bets", "config": {"side_bets": SIDE_BETS}})
    assert not JackpotMeter.objects.exists()  # nothing changes until a second person approves
    approval_decide(approval_id=approval.pk, decider=approver, approve=True, via="device")
    table.refresh_from_db()
    assert table.state["config"]["side_bets"]["pairs"] == {"paytable": "UPB-1", "min": 100, "max": 2500}
    meter = JackpotMeter.objects.get(name="UTH-PROG-1")
    assert (meter.meter, meter.reserve) == (1000000, 600000)
    assert run(table, {"type": "sit", "seat": 1, "player": "P-1"})[0]["ok"]


@pytest.mark.django_db
def test_each_configuration_version_records_its_side_bets_and_each_round_its_version(django_user_model):
    """A regulator reads which side bets were in force for a round from the configuration
    version the round records: the version an approved change creates carries them."""
    table = new_table("V", boxes=False)
    pairs_round = quick_round(2)
    pairs_round[1] = wager(2, 100, pairs=100)
    run_ok(table, *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
           {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    assert table.configs.get().side_bets is None
    assert run(table, *pairs_round[:2])[1]["error"]["code"] == "side_bet_not_offered"
    run_ok(table, {"type": "void_round", "reason": "opened to show the refusal", "approved_by": "SUP-1"})
    offered = {**SIDE_BETS, "pairs": {"paytable": "UPB-2", "max": 5000}}
    approval = approval_request(actor=_supervisor(django_user_model, "sam"), table_id=table.pk, kind="config",
                                payload={"reason": "Pairs at UPB-2", "config": {"side_bets": offered}})
    _, version = approval_decide(approval_id=approval.pk, decider=_supervisor(django_user_model, "sue"),
                                 approve=True, via="device")
    assert (version.version, version.side_bets, version.created_by) == (2, offered, "sue")
    run_ok(table, *pairs_round)
    rounds = Round.objects.filter(table=table).order_by("number").select_related("config")
    assert [(r.status, r.config.version, r.config.side_bets) for r in rounds] == [
        ("settled", 1, None), ("voided", 1, None), ("settled", 2, offered)
    ]
    assert Wager.objects.get(round=rounds.last(), kind="pairs").amount == 100
    # The round's compliance page says which side bets were in force.
    officer = Client()
    officer.force_login(_user(django_user_model, "olga", "compliance"))
    pages = [officer.get(f"/compliance/rounds/{r.pk}/").content.decode() for r in (rounds.first(), rounds.last())]
    assert '<td id="side-bets-offered">none (configuration version 1)' in pages[0]
    assert (
        "Bad Beat BBB-01 ($1.00 to $25.00); Pairs UPB-2 (no minimum to $50.00); Progressive PROG-01: $1.00 wager, "
        "meter UTH-PROG-1 (80% to the meter, seed $5,000.00) (configuration version 2)"
    ) in pages[1]


@pytest.mark.django_db
def test_a_signed_checkpoint_catches_a_meter_chain_rewound_on_the_meter_row():
    """Whoever can update the meter row could drop the chain's last rows and rewind its
    head; a checkpoint signed with the ledger key (verify_logs --checkpoint) catches it."""
    table = new_table("D", **{k: v for k, v in D_TABLE.items() if k != "name"}, boxes=False)
    run_ok(table, *D_COMMANDS)
    out = io.StringIO()
    call_command("verify_logs", "--checkpoint", stdout=out)
    assert "1 jackpot meters checked, 0 broken chains" in out.getvalue()
    meter = JackpotMeter.objects.get(name="UTH-PROG-1")
    third = meter.entries.get(seq=3)
    with as_owner(), connection.cursor() as cursor:  # the owner rewinds the head to seq 3 and hides seq 4
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            "UPDATE collections_fees_jackpotmeter SET entry_seq = 3, entry_head = %s, meter = %s, reserve = %s WHERE id = %s",
            [third.row_hash, third.meter_after, third.reserve_after, meter.pk],
        )
        cursor.execute("ALTER TABLE collections_fees_jackpotentry DISABLE TRIGGER USER")
        cursor.execute("DELETE FROM collections_fees_jackpotentry WHERE meter_id = %s AND seq = 4", [meter.pk])
        cursor.execute("ALTER TABLE collections_fees_jackpotentry ENABLE TRIGGER USER")
    meter.refresh_from_db()
    (problem,) = verify_meter(meter)
    assert "rows after seq 3 were removed" in str(problem)


@pytest.mark.django_db
def test_a_contribution_refreshes_the_other_tables_on_its_meter_after_it_lets_go_of_the_locks(
    django_capture_on_commit_callbacks, monkeypatch
):
    """Two tables share a meter: a contribution at one moves the meter the other's floor row
    shows, so that row follows, once committed. Finding the linked tables scans every
    table's configuration: not while the command holds its table and the shared meter."""
    config = {"seats": 6, "side_bets": {"progressive": PROGRESSIVE}}
    here, there = (new_table(name, **config, boxes=False) for name in ("A", "B"))
    new_table("C", boxes=False)  # not on the meter
    run_ok(
        here,
        *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
    )
    changed = []
    monkeypatch.setattr("tables.events.publisher.changed", changed.append)
    with django_capture_on_commit_callbacks() as callbacks, CaptureQueriesContext(connection) as in_transaction:
        run_ok(here, {"type": "no_more_bets"})
    scans = [q["sql"] for q in in_transaction.captured_queries if 'FROM "tables_table"' in q["sql"] and "side_bets" in q["sql"]]
    assert scans == []
    assert changed == []  # nothing before the commit
    for callback in callbacks:
        if getattr(callback, "func", None) is not _send_changed:  # the table's own event needs no channel here
            callback()
    assert changed == [there.pk]

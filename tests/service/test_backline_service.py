"""Backline wagers through the command service on PostgreSQL (game-rules 12): worked example
E by `manage.py replay` and live, the records (wagers, decisions, settlement lines and the
collection log naming each bettor), the re-decided round, a void's refunds, a correction
reversing the bettors' nets, and a table without backline refusing them."""

import pytest

from collections_fees.models import CollectionEntry
from rounds.audit import round_verify, rounds_to_verify
from rounds.models import Decision, Round, SettlementLine, Wager
from tables.models import Table
from tables.lifecycle import round_correct
from tests.engine.helpers import ONE_RATE_FEES
from tests.engine.test_worked_examples import EXAMPLE_E, EXAMPLE_E_LINES, backline
from tests.playing import new_table, results as run, run_ok
from tests.service.test_replay import replay

E_TABLE = {"name": "UTH-E", "seats": 6, "paytable": "UTH-01", "backline": {"max_per_seat": 2, "trips": True}}
E_COMMANDS = [
    {"type": "sit", "seat": 1, "player": "P-1"},
    {"type": "sit", "seat": 2, "player": "P-2"},
    {"type": "offer_bank", "seat": 1},
    {"type": "accept_bank", "seat": 1},
    {"type": "open_round", "bank": 10000},
    {"type": "wager", "seat": 2, "ante": 1000},
    backline(2, "B-1", 500, trips=500),
    backline(2, "B-2", 2000),
    {"type": "no_more_bets"},
    {"type": "play", "seat": 2, "multiple": 4},
    {"type": "flop", "cards": EXAMPLE_E["board"][:3]},
    {"type": "turn_river", "cards": EXAMPLE_E["board"][3:]},
    {"type": "showdown", "player_dealer": EXAMPLE_E["pd_hole"], "hands": {"2": EXAMPLE_E["holes"][2]}},
    {"type": "settle"},
]
E_LINES = EXAMPLE_E_LINES


def e_table(**extra):
    config = {k: v for k, v in E_TABLE.items() if k != "name"}
    return new_table("E", **config, **extra, boxes=False)


@pytest.mark.django_db
def test_replay_reproduces_example_e(monkeypatch):
    results = replay({"table": E_TABLE, "commands": E_COMMANDS}, monkeypatch)["results"]
    assert all(r["ok"] for r in results), results
    settled = results[-1]
    assert settled["lines"] == E_LINES
    assert settled["backline"] == [{"seat": 2, "bettor": "B-1", "net": 3500}, {"seat": 2, "bettor": "B-2", "net": 0}]
    assert [(s["seat"], s["net"]) for s in settled["seats"]] == [(2, 6500)]
    assert (settled["pd_net"], settled["balance"], settled["exhausted"]) == (-10000, 0, True)
    assert not Round.objects.exists()


@pytest.mark.django_db
def test_replay_refuses_backline_where_the_table_offers_none(monkeypatch):
    table = {k: v for k, v in E_TABLE.items() if k != "backline"}
    results = replay({"table": table, "commands": E_COMMANDS}, monkeypatch)["results"]
    refused = [r["error"]["code"] for c, r in zip(E_COMMANDS, results) if c["type"] == "backline_wager"]
    assert refused == ["wrong_state", "wrong_state"]


@pytest.mark.django_db
def test_example_e_live_is_recorded_bettor_by_bettor_and_re_decided_the_same():
    table = e_table(fee_schedule=ONE_RATE_FEES)
    results = run_ok(table, *E_COMMANDS)
    assert results[-1]["lines"] == E_LINES
    rnd = Round.objects.get(table=table)
    wagers = list(Wager.objects.filter(round=rnd).order_by("id").values_list("seat", "bettor", "backline", "kind", "amount"))
    assert wagers == [
        (2, "", False, "ante", 1000), (2, "", False, "blind", 1000),
        (2, "B-1", True, "ante", 500), (2, "B-1", True, "blind", 500), (2, "B-1", True, "trips", 500),
        (2, "B-2", True, "ante", 2000), (2, "B-2", True, "blind", 2000),
        (2, "", False, "play", 4000), (2, "B-1", True, "play", 2000), (2, "B-2", True, "play", 8000),
    ]
    decisions = list(Decision.objects.filter(round=rnd).order_by("id").values_list("player", "bettor", "action", "amount"))
    assert decisions == [("P-2", "", "play", 4000), ("B-1", "B-1", "play", 2000), ("B-2", "B-2", "play", 8000)]
    stored = [
        {"seat": l.seat, "wager": l.wager, "stake": l.stake, "result": l.result, "amount": l.amount,
         "uncovered": l.uncovered, **({"bettor": l.bettor} if l.backline else {})}
        for l in SettlementLine.objects.filter(round=rnd).order_by("order")
    ]
    assert stored == E_LINES
    # The collection log: one fee per bettor (payer role backline), B-2's refunded (dead hand).
    log = list(CollectionEntry.objects.filter(round=rnd).order_by("seq").values_list("kind", "seat", "payer", "player", "amount"))
    assert log == [
        ("fee", 1, "player_dealer", "P-1", 150), ("fee", 2, "player", "P-2", 100),
        ("fee", 2, "backline", "B-1", 100), ("fee", 2, "backline", "B-2", 100),
        ("refund", 2, "backline", "B-2", 100),
    ]
    assert results[-1]["fee_refunds"] == [{"seat": 2, "amount": 100, "bettor": "B-2"}]
    (again,) = rounds_to_verify().filter(table=table)
    assert round_verify(again) == []


@pytest.mark.django_db
def test_a_void_refunds_each_bettors_fee():
    table = e_table(fee_schedule=ONE_RATE_FEES)
    run_ok(table, *E_COMMANDS[:9])
    result = run_ok(table, {"type": "void_round", "reason": "misdeal", "approved_by": "SUP-1"})[0]
    assert [(r["payer"], r.get("bettor")) for r in result["refunds"]] == [
        ("player_dealer", None), ("player", None), ("backline", "B-1"), ("backline", "B-2"),
    ]
    refunds = CollectionEntry.objects.filter(round__table=table, kind="refund", payer="backline")
    assert sorted(refunds.values_list("player", flat=True)) == ["B-1", "B-2"]


@pytest.mark.django_db
def test_a_correction_reverses_every_bettors_net_and_conserves_chips(django_user_model, client):
    from django.contrib.auth.models import Group

    from tables.models import Approval

    table = e_table()
    run_ok(table, *E_COMMANDS)
    approval = Approval.objects.create(
        table=table, kind="correction", round_number=1, payload={"reason": "wrong cards"},
        requested_by=django_user_model.objects.create(username="sam"), requested_role="supervisor",
        requested_at=Round.objects.get().opened_at,
    )
    correction = round_correct(approval=approval)
    reversal = correction.reversal
    assert reversal["backline"] == [{"seat": 2, "bettor": "B-1", "amount": -3500}, {"seat": 2, "bettor": "B-2", "amount": 0}]
    total = sum(s["amount"] for s in reversal["seats"]) + sum(b["amount"] for b in reversal["backline"])
    assert total + reversal["player_dealer"]["amount"] == 0
    # The round page says each bettor's reversal too, beside the seats' and the bank's.
    officer = django_user_model.objects.create_user("officer-correction", password="not-used-here")
    officer.groups.add(Group.objects.get_or_create(name="compliance")[0])
    client.force_login(officer)
    html = client.get(f"/compliance/rounds/{Round.objects.get(table=table).pk}/").content.decode()
    corrected = html[html.index('id="round-corrected"'):]
    assert "behind seat 2, bettor B-1 -$35.00" in corrected and "behind seat 2, bettor B-2 $0.00" in corrected


@pytest.mark.django_db
def test_a_refused_backline_command_records_nothing():
    table = e_table()
    run_ok(table, *E_COMMANDS[:6])
    before = Table.objects.get(pk=table.pk).state
    (refused,) = run(table, backline(2, "P-1", 500))
    assert refused["error"]["code"] == "player_already_seated"
    assert Table.objects.get(pk=table.pk).state == before


@pytest.mark.django_db
def test_the_rounds_export_names_each_backline_bettor_behind_its_seat():
    """The rounds export's list columns tell a bettor's wagers, decisions and lines from the
    seat's own: `seat/bettor` in place of the seat, the id escaped where it holds one of
    the encoding's separators (here a space and a colon)."""
    from django.db import connection

    from cardroom.sql import Filters
    from collections_fees.round_selectors import round_history_query

    odd = "B 1:x"
    table = e_table()
    run_ok(table, *({**c, "bettor": odd} if c.get("bettor") == "B-1" else c for c in E_COMMANDS))
    query = round_history_query(Filters(table=table.pk))
    with connection.cursor() as cursor:
        cursor.execute(query.sql, query.params)
        row = dict(zip([c.name for c in cursor.description], cursor.fetchone()))
    spot = "2/B%201%3Ax"
    assert row["wagers"].split(" ") == [
        "2:ante:1000", "2:blind:1000", "2:play:4000",
        f"{spot}:ante:500", f"{spot}:blind:500", f"{spot}:trips:500", f"{spot}:play:2000",
        "2/B-2:ante:2000", "2/B-2:blind:2000", "2/B-2:play:8000",
    ]
    assert f"{spot}:preflop:play:2000" in row["decisions"].split(" ")
    settled = [item.split(":")[0] for item in row["settlement_lines"].split(" ")]
    assert settled == ["2", "2", "2", spot, spot, spot, spot, "2/B-2", "2/B-2", "2/B-2"]


@pytest.mark.django_db
def test_the_floor_counts_a_seats_backlines_and_their_amounts_never_naming_a_bettor():
    import json

    from tables.floor import floor_rows

    table = e_table(fee_schedule=ONE_RATE_FEES)
    run_ok(table, *E_COMMANDS[: E_COMMANDS.index({"type": "no_more_bets"}) + 2])  # to seat 2's Play
    (row,) = floor_rows([table.pk])
    assert row["backlines"] == [
        {"seat": 2, "count": 2, "wagers": [
            {"ante": 500, "blind": 500, "trips": 500, "play": 2000},
            {"ante": 2000, "blind": 2000, "trips": 0, "play": 8000},
        ]},
    ]
    assert "B-1" not in json.dumps(row) and "B-2" not in json.dumps(row)
    run_ok(table, *E_COMMANDS[E_COMMANDS.index({"type": "no_more_bets"}) + 2:])
    assert floor_rows([table.pk])[0]["backlines"] == []  # between rounds nobody stands behind a seat


@pytest.mark.django_db
def test_the_round_page_names_each_backline_lines_bettor_under_its_seat(client):
    """The round's record (/compliance/rounds/<id>/): the bettors' wagers, carried decisions
    and settlement lines come under seat 2, each naming its bettor, and their nets."""
    import re

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    table = e_table(fee_schedule=ONE_RATE_FEES)
    run_ok(table, *E_COMMANDS)
    officer = get_user_model().objects.create_user("officer-backline", password="not-used-here")
    officer.groups.add(Group.objects.get_or_create(name="compliance")[0])
    client.force_login(officer)
    html = client.get(f"/compliance/rounds/{Round.objects.get(table=table).pk}/").content.decode()
    settlement = html[html.index('id="settlement-lines"'):html.index("</tbody>", html.index('id="settlement-lines"'))]
    rows = re.findall(r"<tr([^>]*)><td>(\d+)</td><td>(.*?)</td><td>(.*?)</td><td>(\w+)</td>", settlement)
    spots = [(cells[2], cells[3], cells[4]) for cells in rows]
    behind = '<span class="behind">&#8627; behind seat 2</span>'
    assert spots == [
        ("2", "P-2", "Ante"), ("2", "P-2", "Play"), ("2", "P-2", "Blind"),
        (behind, "bettor B-1", "Ante"), (behind, "bettor B-1", "Play"), (behind, "bettor B-1", "Blind"),
        (behind, "bettor B-1", "Trips"),
        (behind, "bettor B-2", "Ante"), (behind, "bettor B-2", "Play"), (behind, "bettor B-2", "Blind"),
    ]
    # 4 lines; 4 wagers (Ante, Blind, Trips, the Play recorded as a wager); the carried Play decision.
    assert html.count('class="backline" data-bettor="B-1"') == 4 + 4 + 1
    assert "behind seat 2, bettor B-1 +$35.00" in html and "behind seat 2, bettor B-2 $0.00" in html

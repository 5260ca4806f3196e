"""The rotation policy's records for compliance (game-rules 2A): the rotation log shows
game ends and starts with their reasons, each round's configuration version and policy
and the TPPP's badge, in the page and the CSV; and the "offered before every round?"
page lists the rounds that opened without an offer (none under the policy)."""

import csv
import io
from datetime import date, datetime, timezone

import pytest
from django.db import connection

from cardroom.sql import Filters
from collections_fees.round_selectors import rotation_log_query
from tests.engine.helpers import quick_round
from tests.playing import clocked, new_table

pytestmark = pytest.mark.django_db

POLICY = {"offer_every_round": True, "window_minutes": 40, "window_players": 2, "tppp_one_round": True}
TPPP = {"badge": "B-77", "company": "Acme TPPS", "expires": "2027-06-30"}
START = datetime(2026, 5, 1, 19, 0, tzinfo=timezone.utc)  # noon in Los Angeles
DAY = date(2026, 5, 1)


play = clocked(START, actor="replay")


def policy_table():
    """Tess (TPPP) banks at 12:00, Bob at 12:01, Ann at 12:30; Ann again at 12:59 ends the game."""
    table = new_table("Policy", rotation_policy=POLICY, boxes=False)
    play(table, 0, {"type": "sit", "seat": 1, "player": "Ann"}, {"type": "sit", "seat": 2, "player": "Bob"},
         {"type": "sit", "seat": 3, "player": "Tess", "tppp": TPPP},
         {"type": "offer_bank", "seat": 3}, {"type": "accept_bank", "seat": 3}, *quick_round(1))
    play(table, 1, {"type": "decline_bank", "seats": [1]}, {"type": "accept_bank", "seat": 2}, *quick_round(1))
    play(table, 30, {"type": "decline_bank", "seats": [3]}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    play(table, 59, {"type": "decline_bank", "seats": [2, 3]}, {"type": "accept_bank", "seat": 1},
         {"type": "open_round", "bank": 10_000})
    return table


def section_2_table():
    """Without the policy Ann keeps the bank for round 2: no offer before it."""
    table = new_table("Section 2", boxes=False)
    play(table, 0, {"type": "sit", "seat": 1, "player": "Ann"}, {"type": "sit", "seat": 2, "player": "Bob"},
         {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2), *quick_round(2))
    return table


def export_rows(table) -> list[dict]:
    """The rotation log's CSV, as the export writes it (its COPY), on this connection."""
    query = rotation_log_query(Filters(day_from=DAY, day_to=DAY, table=table.pk))
    out = io.BytesIO()
    with connection.cursor() as cursor:
        with cursor.cursor.copy(query.copy_sql(), query.params) as copy:
            for chunk in copy:
                out.write(chunk)
    return list(csv.DictReader(io.StringIO(out.getvalue().decode())))


def test_the_rotation_csv_has_game_end_reason_badges_and_each_rounds_policy():
    rows = export_rows(policy_table())
    ended = [r for r in rows if r["action"] == "game_ended"]
    assert [(r["person_id"], r["reason"]) for r in ended] == [("Ann", "rotation_window")]
    banked = [(r["round_number"], r["person_id"], r["tppp_badge"], r["config_version"]) for r in rows if r["action"] == "banked"]
    assert banked == [("1", "Tess", "B-77", "1"), ("2", "Bob", "", "1"), ("3", "Ann", "", "1")]
    assert all('"window_minutes": 40' in r["rotation_policy"] for r in rows if r["action"] == "banked")
    assert {r["tppp_badge"] for r in rows if r["person_id"] == "Tess"} == {"B-77"}
    # every answer is its own row: Bob declined after Tess's round, Tess and Bob after Ann's
    assert [r["person_id"] for r in rows if r["action"] == "decline"] == ["Ann", "Tess", "Bob", "Tess"]


def test_the_rotation_page_shows_the_game_end_and_the_badge(officer_client):
    table = policy_table()
    html = officer_client.get("/compliance/rotation/", {"from": DAY, "to": DAY, "table": table.pk}).content.decode()
    assert "game ended (rotation_window)" in html and "B-77" in html and "version 1, policy on" in html


def test_every_round_under_the_policy_was_offered(officer_client):
    table = policy_table()
    response = officer_client.get("/compliance/rotation/offered/", {"from": DAY, "to": DAY, "table": table.pk})
    assert response.context["rounds_total"] == 3
    assert list(response.context["page"]) == []
    assert "Offered before every round: 3 rounds" in response.content.decode()


def test_a_round_whose_player_dealer_kept_the_bank_is_listed_as_not_offered(officer_client):
    table = section_2_table()
    response = officer_client.get("/compliance/rotation/offered/", {"from": DAY, "to": DAY, "table": table.pk})
    assert [(r["number"], r["pd_player"]) for r in response.context["page"]] == [(2, "Ann")]
    assert "1 of 2 rounds opened without an offer" in response.content.decode()

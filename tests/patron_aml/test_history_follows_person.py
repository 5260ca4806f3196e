"""A patron's history follows the person (issue 34): the patron page and history.csv
show their seatings and wagers under every seat id that folds to their number or card
(patrons/folding.py `fold_number`) or is a U-id linked to them, not the exact spellings
only. Reproduction: P-4001 seated as "р-4001" (a Cyrillic р) showed "Seatings None,
Wagers None"."""

import csv
import io
import json

import pytest
from django.test import Client

from patrons import identity
from tests.compliance.asgi import AsgiClient

pytestmark = pytest.mark.django_db(transaction=True)  # the export reads committed rows

CYRILLIC_P = "\u0440"  # "р", which a UTS #39 skeleton reads as "p"


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def send(client, table, command):
    answer = client.post(f"/api/tables/{table.pk}/commands", json.dumps(command), content_type="application/json")
    result = answer.json()["result"]
    assert result["ok"], (command, result)
    return result


def play_until_bets_close(dealer, table, player):
    """`player` in seat 1 wagers against A-2's bank; the wagers are recorded at no_more_bets."""
    for command in ({"type": "sit", "seat": 1, "player": player}, {"type": "sit", "seat": 2, "player": "A-2"},
                    {"type": "offer_bank", "seat": 2}, {"type": "accept_bank", "seat": 2},
                    {"type": "open_round", "bank": 10000}, {"type": "wager", "seat": 1, "ante": 1000},
                    {"type": "no_more_bets"}):
        send(dealer, table, command)


def history_csv(user, patron) -> list[dict]:
    client = logged_in(user)
    asgi = AsgiClient(client)
    response = asgi.get(f"/compliance/patrons/{patron.pk}/history.csv")
    assert response.status == 200
    return list(csv.DictReader(io.StringIO(response.body.decode("utf-8-sig"))))


def section(page: str, title: str) -> str:
    return page.split(f"<h2>{title}</h2>", 1)[1].split("</ul>", 1)[0]


def test_a_patron_seated_under_a_look_alike_id_finds_it_in_their_history(people, tables, actors):
    patron = identity.patron_create(actor=actors["compliance"], number="P-4001", display_name="Dee", legal_name="Dee Ford")
    dealer = logged_in(people["dealer"])
    play_until_bets_close(dealer, tables[0], f"{CYRILLIC_P}-4001")
    page = logged_in(people["supervisor"]).get(f"/compliance/patrons/{patron.pk}/").content.decode()
    for title in ("Seatings", "Wagers"):
        assert "None." not in section(page, title), title
    assert "seat 1" in section(page, "Seatings")
    rows = history_csv(people["compliance"], patron)
    assert {"seated", "wager"} <= {row["what"] for row in rows}


def test_ids_recorded_before_the_patron_was_known_follow_the_patron(people, tables, actors):
    """Seated as "Р 4002" (Cyrillic Р, a space) before the house knew P-4002: when the
    patron record is made, their history has that seating and its wager; another
    patron's record does not."""
    dealer = logged_in(people["dealer"])
    typed = "\u0420 4002"
    play_until_bets_close(dealer, tables[0], typed)
    patron = identity.patron_create(actor=actors["compliance"], number="P-4002", display_name="Eve", legal_name="Eve Gold")
    other = identity.patron_create(actor=actors["compliance"], number="P-4003", display_name="Fay", legal_name="Fay Hill")
    page = logged_in(people["supervisor"]).get(f"/compliance/patrons/{patron.pk}/").content.decode()
    assert f"as {typed}" in section(page, "Seatings") and "None." not in section(page, "Wagers")
    rows = history_csv(people["compliance"], patron)
    assert {(row["what"], row["player"]) for row in rows} >= {("seated", typed), ("wager", typed)}
    assert history_csv(people["compliance"], other) == []


def test_an_id_that_folds_to_two_patrons_is_in_neither_history(people, tables, actors):
    dealer = logged_in(people["dealer"])
    play_until_bets_close(dealer, tables[0], "P 50")
    one = identity.patron_create(actor=actors["compliance"], number="P-50", display_name="A", legal_name="Al Bee")
    two = identity.patron_create(actor=actors["compliance"], number="P50", display_name="B", legal_name="Bo Cee")
    for patron in (one, two):
        assert history_csv(people["compliance"], patron) == []

"""The records of a round in play show only what the table has shown, and no refusal
names a card the table has not shown (rounds.visibility.withheld_from_records; the
engine's side, for any prefix of a round: tests/engine/test_refusals_show_no_card.py).

The cards no one may see yet are worked out from the engine's own state
(tests.live.test_visibility.secret: the undealt board, the hole cards, the hands the
showdown turns over), then searched for in every answer, page and file a person can get:
the state API and the table's pages for the dealer, a supervisor and compliance; the
round history, the round's page and the round export for supervisors and compliance;
a refusal's answer, its row in the refused-command log and its audit entry.
"""

import csv
import io
import random
import re

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone

from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from rounds.engine.cards import DECK
from rounds.engine.table import TableGame
from rounds.models import Round, RoundCard
from tables.models import DealerAssignment, RejectedCommand, Table, TableEvent
from tables.services import command_execute
from rounds.visibility import LIVE
from tests.compliance.asgi import AsgiClient
from tests.live.test_visibility import a_round, secret
from tests.playing import new_table, run

# The exports read committed rows over a connection of their own.
pytestmark = pytest.mark.django_db(transaction=True)

# A card written as the records write it, standing alone (not inside a word or a token).
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")


# Drawings (the admin's icons: path data such as "v2h-3") hold no card.
SVG = re.compile(r"<svg.*?</svg>", re.S)


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(SVG.sub("", text)))


def person(name: str, role: str) -> Client:
    user = User.objects.create_user(name, password="not-used-here")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def viewers():
    """A table and the people who look at it: its assigned dealer, a supervisor and
    compliance."""
    table = new_table("Redact", boxes=False)
    clients = {"dealer": person("dan", "dealer"), "supervisor": person("sam", "supervisor"),
               "compliance": person("cora", "compliance")}
    now, cal = timezone.now(), calendar()
    DealerAssignment.objects.create(
        dealer=User.objects.get(username="dan"), table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
        assigned_by=User.objects.get(username="sam"), assigned_at=now,
    )
    return table, clients


def state(table) -> dict:
    return Table.objects.get(pk=table.pk).state


def ok_text(client, path, params=None) -> str:
    response = client.get(path, params or {})
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


def live_views(table, clients) -> dict[tuple[str, str], str]:
    """What each viewer gets of the table now, by (viewer, where): the live view for all,
    the tablet's for those who may drive the table."""
    views = {}
    for who, client in clients.items():
        views[(who, "state API")] = ok_text(client, f"/api/tables/{table.pk}/state")
        views[(who, "live page")] = ok_text(client, f"/tables/{table.pk}/")
        if who != "compliance":
            views[(who, "tablet state API")] = ok_text(client, f"/api/tables/{table.pk}/state", {"role": "tablet"})
            views[(who, "tablet page")] = ok_text(client, f"/tables/{table.pk}/tablet/")
    return views


def round_export(client, table) -> list[dict]:
    body = AsgiClient(client).get("/compliance/rounds/export.csv", {"table": table.pk}).body.decode()
    return list(csv.DictReader(io.StringIO(body)))


def record_views(table, clients) -> dict[tuple[str, str], str]:
    """The records of the table's rounds as supervisors and compliance read them."""
    views = {}
    for who in ("supervisor", "compliance"):
        client = clients[who]
        views[(who, "round history")] = ok_text(client, "/compliance/rounds/", {"table": table.pk})
        for rnd in Round.objects.filter(table=table):
            views[(who, f"round {rnd.number} page")] = ok_text(client, f"/compliance/rounds/{rnd.pk}/")
        views[(who, "round export")] = AsgiClient(client).get(
            "/compliance/rounds/export.csv", {"table": table.pk}
        ).body.decode()
    return views


def admin_views(table) -> dict[tuple[str, str], str]:
    """The Django admin's pages of the table and of each of its events, as an admin reads
    them."""
    admin = Client()
    admin.force_login(User.objects.get_or_create(username="ada", defaults={"is_staff": True, "is_superuser": True})[0])
    views = {("admin", "table"): ok_text(admin, f"/admin/tables/table/{table.pk}/change/")}
    for event in TableEvent.objects.filter(table=table):
        views[("admin", f"event {event.seq} ({event.command_type})")] = ok_text(
            admin, f"/admin/tables/tableevent/{event.pk}/change/"
        )
    return views


def assert_none_shown(views: dict, unseen: set[str]) -> None:
    for where, text in views.items():
        assert not cards_in(text) & unseen, f"{where} shows {sorted(cards_in(text) & unseen)}"


def test_before_the_flop_no_viewer_finds_a_flop_card_anywhere(viewers):
    table, clients = viewers
    config, commands = a_round("server")
    first_decision = next(i for i, c in enumerate(commands) if c["type"] == "check")
    flop_at = next(i for i, c in enumerate(commands) if c["type"] == "flop")
    run(table, *commands[:first_decision], rng=random.Random(0))  # dealt by the server's shuffle

    game = state(table)
    board = TableGame.from_dict(game).round.pending_community
    flop, hidden_live = set(board[:3]), secret(game, LIVE)
    assert len(flop) == 3 and flop <= {c.card for c in RoundCard.objects.filter(round__table=table)}  # recorded
    assert_none_shown(live_views(table, clients), flop)
    records = record_views(table, clients)
    assert_none_shown(records, hidden_live)  # neither the board nor a hole card
    assert_none_shown(admin_views(table), hidden_live)
    assert 'id="cards-withheld"' in records[("compliance", "round 1 page")]

    # The decisions made, the dealer sends a flop that is not the dealt one.
    run(table, *commands[first_decision:flop_at], rng=random.Random(0))
    known = TableGame.from_dict(state(table)).round.known_cards()
    wrong = [c for c in DECK if c not in known][:3]
    outcome = command_execute(
        table_id=table.pk, command={"type": "flop", "cards": wrong, "id": "wrong-flop"}, actor="dealer-1"
    )
    assert outcome.result["ok"] is False and outcome.result["error"]["code"] == "card_mismatch"
    kept = RejectedCommand.objects.get(table=table, command_id="wrong-flop")
    audit = AuditEntry.objects.get(table_id=table.pk, action="command_refused")
    hidden_live = secret(state(table), LIVE)
    refusal = {"answer": str(outcome.result), "refused-command log": str((kept.result, kept.command)),
               "audit": str((audit.summary, audit.detail))}
    assert_none_shown(refusal, hidden_live)
    assert_none_shown(live_views(table, clients), flop)
    assert_none_shown(record_views(table, clients), secret(state(table), LIVE))

    # Settled: compliance (and supervisors) see every card of the round.
    run(table, *commands[flop_at:], rng=random.Random(0))
    every_card = {c.card for c in RoundCard.objects.filter(round__table=table)}
    deal = next(text for (_, where), text in admin_views(table).items() if "(deal)" in where)
    assert every_card <= cards_in(deal)  # the admin reads the deal's records whole again
    assert len(every_card) == 5 + 2 * 4  # the board, three players' and the player-dealer's hands
    for who in ("supervisor", "compliance"):
        page = ok_text(clients[who], f"/compliance/rounds/{Round.objects.get(table=table).pk}/")
        assert every_card <= cards_in(page) and 'id="cards-withheld"' not in page
        (row,) = round_export(clients[who], table)
        assert every_card == cards_in(" ".join((row["community"], row["pd_hole"], row["player_hole"])))


@pytest.mark.parametrize("procedure", ["server", "shuffler", "entered"])
def test_at_every_step_of_a_round_the_records_show_what_the_table_has_shown(viewers, procedure):
    """Every prefix of a round (server shuffle, a shuffler's sequence typed at the deal, or
    cards typed as they are shown): the records show each card the live view shows and
    none it hides; once settled, every card."""
    table, clients = viewers
    _, commands = a_round(procedure)
    readers = {who: clients[who] for who in ("supervisor", "compliance")}
    for command in commands:
        run(table, command, rng=random.Random(0))
        now = state(table)
        if now["round"] is None:
            continue  # no round yet, or settled (below)
        unseen = secret(now, LIVE)
        board = TableGame.from_dict(now).round.community
        rnd = Round.objects.get(table=table)
        for who, client in readers.items():
            page = ok_text(client, f"/compliance/rounds/{rnd.pk}/")
            (row,) = round_export(client, table)
            exported = " ".join((row["community"], row["pd_hole"], row["player_hole"]))
            for where, text in ((f"{who}'s round page", page), (f"{who}'s export", exported)):
                assert not cards_in(text) & unseen, f"after {command['type']}, {where} shows {sorted(cards_in(text) & unseen)}"
                assert set(board) <= cards_in(text), f"after {command['type']}, {where} lacks the board shown"
            assert row["community"].split() == board
    rnd = Round.objects.get(table=table)
    assert rnd.status == "settled"
    every_card = {c.card for c in RoundCard.objects.filter(round__table=table)}
    for who, client in readers.items():
        page = ok_text(client, f"/compliance/rounds/{rnd.pk}/")
        assert every_card <= cards_in(page) and 'id="cards-withheld"' not in page
        (row,) = round_export(client, table)
        assert every_card == cards_in(" ".join((row["community"], row["pd_hole"], row["player_hole"])))


def test_a_voided_round_shows_every_card_and_a_round_the_state_does_not_judge_shows_none(viewers):
    table, clients = viewers
    _, commands = a_round("server")
    run(table, *commands[: next(i for i, c in enumerate(commands) if c["type"] == "check")], rng=random.Random(0))
    rnd = Round.objects.get(table=table)
    recorded = {c.card for c in RoundCard.objects.filter(round=rnd)}

    # A state that is not at this round (a record that cannot be judged): no card at all.
    Table.objects.filter(pk=table.pk).update(state={**state(table), "round": None})
    page = ok_text(clients["compliance"], f"/compliance/rounds/{rnd.pk}/")
    (row,) = round_export(clients["compliance"], table)
    assert not cards_in(page) & recorded and (row["community"], row["pd_hole"], row["player_hole"]) == ("", "", "")

    # Voided (as the void writes it: status and close), every card is shown again.
    Round.objects.filter(pk=rnd.pk).update(status="voided", closed_at=timezone.now(), void_reason="misdeal",
                                           void_approved_by="sam")
    page = ok_text(clients["compliance"], f"/compliance/rounds/{rnd.pk}/")
    (row,) = round_export(clients["compliance"], table)
    assert recorded <= cards_in(page)
    assert recorded == cards_in(" ".join((row["community"], row["pd_hole"], row["player_hole"])))

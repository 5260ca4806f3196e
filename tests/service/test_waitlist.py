"""The waitlist (tables/waitlist.py): the floor adds, calls and seats players through the
engine's `sit`, every step kept as an append-only row; the public lobby board counts
games, open seats and waiting players, a props-only table apart, and names nobody."""

import re

import pytest
from django.contrib.auth.models import Group, User
from django.db import IntegrityError, ProgrammingError, transaction
from django.test import Client

from tables.models import WaitlistEvent
from tables.services import command_execute
from tables.waitlist import game_of
from tests.db_access import as_owner
from tests.playing import new_table

pytestmark = pytest.mark.django_db

TPPP = {"badge": "B-77", "company": "Acme TPPS", "expires": "2099-06-30"}
CONFIG = {"seats": 6, "paytable": "UTH-02", "limits": {"ante_min": 500, "ante_max": 10000}}


@pytest.fixture
def floor(db):
    sup = User.objects.create_user("sup", password="pw")
    sup.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    client = Client()
    client.force_login(sup)
    table = new_table("UTH-7", **CONFIG, boxes=False)
    return client, table, game_of(table.state["config"])


def post(client, **data):
    return client.post("/floor/waitlist/", data)


def test_a_waitlisted_player_is_called_and_seated_and_every_step_is_kept(floor):
    client, table, game = floor
    assert game == "UTH-02 · Ante $5–$100"
    assert post(client, action="add", game=game, player="P-1001").status_code == 200
    assert post(client, action="add", game=game, player="P-1002").status_code == 200
    page = post(client, action="call", game=game, table=table.pk)
    assert page.status_code == 200 and b"P-1001 called to UTH-7" in page.content
    entry = WaitlistEvent.objects.get(kind="added", player="P-1001")
    page = post(client, action="seat", entry=entry.pk, table=table.pk, seat=3)
    assert page.status_code == 200, page.content
    table.refresh_from_db()
    assert table.state["occupants"] == {"3": "P-1001"}
    assert list(WaitlistEvent.objects.filter(game=game).values_list("kind", "player", "by")) == [
        ("added", "P-1001", "sup"), ("added", "P-1002", "sup"),
        ("called", "", "sup"), ("seated", "", "sup"),
    ]
    # Seated, off the list: the next call is the second player's.
    again = post(client, action="call", game=game, table=table.pk)
    assert b"P-1002 called to UTH-7" in again.content
    # Already off the list: a second seating of the same entry is refused, nothing recorded.
    before = WaitlistEvent.objects.count()
    refused = post(client, action="seat", entry=entry.pk, table=table.pk, seat=4)
    assert refused.status_code == 409 and b"not_waiting" in refused.content
    assert WaitlistEvent.objects.count() == before


def test_call_next_never_calls_an_entry_already_called(floor):
    """Two seats open one after the other: the second call is the next player's, not the
    one already called and on their way (issue 33, finding 12); with everyone called,
    nobody is left to call."""
    client, table, game = floor
    post(client, action="add", game=game, player="P-1001")
    post(client, action="add", game=game, player="P-1002")
    assert b"P-1001 called to UTH-7" in post(client, action="call", game=game, table=table.pk).content
    second = post(client, action="call", game=game, table=table.pk)
    assert b"P-1002 called to UTH-7" in second.content and b"P-1001 called" not in second.content
    called = WaitlistEvent.objects.filter(kind="called").values_list("entry__player", flat=True)
    assert sorted(called) == ["P-1001", "P-1002"]
    third = post(client, action="call", game=game, table=table.pk)
    assert third.status_code == 409 and b"nobody_waiting" in third.content
    assert WaitlistEvent.objects.filter(kind="called").count() == 2


def test_a_second_tppp_is_refused_a_seat_with_the_engines_code(floor):
    client, table, game = floor
    assert command_execute(table_id=table.pk, actor="test",
                           command={"type": "sit", "seat": 1, "player": "Tess", "tppp": TPPP}).ok
    post(client, action="add", game=game, player="Tom", tppp_badge="B-78", tppp_company="Acme TPPS",
         tppp_expires="2099-06-30")
    entry = WaitlistEvent.objects.get(kind="added", player="Tom")
    refused = post(client, action="seat", entry=entry.pk, table=table.pk, seat=2)
    assert refused.status_code == 409
    assert b"tppp_limit" in refused.content
    table.refresh_from_db()
    assert table.state["occupants"] == {"1": "Tess"}
    assert not WaitlistEvent.objects.filter(kind="seated").exists()
    # Still waiting: the floor sees why and can seat them elsewhere or remove them.
    assert b"Tom" in refused.content


def test_a_removal_needs_a_reason_and_is_kept(floor):
    client, table, game = floor
    post(client, action="add", game=game, player="P-9")
    entry = WaitlistEvent.objects.get(kind="added")
    refused = post(client, action="remove", entry=entry.pk, reason=" ")
    assert refused.status_code == 409 and b"invalid_command" in refused.content
    assert post(client, action="remove", entry=entry.pk, reason="went home").status_code == 200
    assert WaitlistEvent.objects.filter(kind="removed", entry=entry, reason="went home").exists()
    nobody = post(client, action="call", game=game, table=table.pk)
    assert nobody.status_code == 409 and b"nobody_waiting" in nobody.content


def test_bad_input_is_refused_and_changes_nothing(floor):
    client, table, game = floor
    other = new_table("Other", paytable="UTH-03", boxes=False)
    for data, code in (
        ({"action": "add", "game": "Baccarat", "player": "P-1"}, b"invalid_command"),
        ({"action": "add", "game": game, "player": ""}, b"invalid_command"),
        ({"action": "add", "game": game, "player": "x" * 65}, b"invalid_command"),
        ({"action": "fly"}, b"invalid_command"),
        ({"action": "seat", "entry": "nope", "table": table.pk, "seat": 1}, b"invalid_command"),
    ):
        answer = post(client, **data)
        assert answer.status_code == 409 and code in answer.content, data
    # A TPPP's licence is checked by the engine's rule when they are added.
    for licence, code in (({"tppp_badge": "B-1"}, b"invalid_command"),
                          ({**{f"tppp_{k}": v for k, v in TPPP.items()}, "tppp_expires": "2020-01-01"}, b"badge_expired")):
        answer = post(client, action="add", game=game, player="Tom", **licence)
        assert answer.status_code == 409 and code in answer.content, licence
    assert not WaitlistEvent.objects.exists()
    post(client, action="add", game=game, player="P-1")
    twice = post(client, action="add", game=game, player="p-1")
    assert twice.status_code == 409 and b"already_waiting" in twice.content
    # A table of another game is not this list's: refused, nothing seated.
    wrong = post(client, action="call", game=game, table=other.pk)
    assert wrong.status_code == 409 and b"invalid_command" in wrong.content
    entry = WaitlistEvent.objects.get(kind="added")
    wrong = post(client, action="seat", entry=entry.pk, table=other.pk, seat=1)
    assert wrong.status_code == 409 and b"invalid_command" in wrong.content
    other.refresh_from_db()
    assert other.state["occupants"] == {}
    assert WaitlistEvent.objects.count() == 1


def test_the_waitlist_is_append_only(floor):
    """The served role may not change a row (its grants: SELECT, INSERT), and the trigger
    refuses even the tables' owner."""
    client, _, game = floor
    post(client, action="add", game=game, player="P-1")
    changes = (lambda: WaitlistEvent.objects.update(player="P-2"), lambda: WaitlistEvent.objects.all().delete())
    for change in changes:
        with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
            change()
        with as_owner(), pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
            change()
    assert WaitlistEvent.objects.get().player == "P-1"


def test_the_lobby_board_counts_a_props_only_table_apart_and_names_nobody(floor):
    client, table, game = floor
    props = new_table("UTH-8", **CONFIG, boxes=False)
    assert command_execute(table_id=props.pk, actor="test",
                           command={"type": "sit", "seat": 1, "player": "P-7777", "tppp": TPPP}).ok
    for seat, player in ((1, "P-4242"), (2, "P-5353")):
        assert command_execute(table_id=table.pk, actor="test",
                               command={"type": "sit", "seat": seat, "player": player}).ok
    post(client, action="add", game=game, player="P-6161")
    board = Client().get("/lobby/")  # public: nobody logged in
    assert board.status_code == 200
    html = board.content.decode()
    row = html.split(f'data-game="{game}"')[1].split("</tr>")[0]
    assert '<td class="running">1</td>' in row  # UTH-7 only: UTH-8 is not a game running
    assert '<td class="open-seats">4</td>' in row  # 6 - 2 at UTH-7; none counted at UTH-8
    assert '<td class="waiting">1</td>' in row
    assert "1 table, proposition players only" in row
    assert "Ultimate Texas Hold&#x27;em, $5 to $100 Ante" in row and "UTH-0" not in row  # the game in words (issue 35 item 8)
    for name in ("P-4242", "P-5353", "P-7777", "P-6161", "B-77", "Tess", "UTH-7", "UTH-8"):
        assert name not in html
    # No script from outside: every script the page loads is the app's own.
    scripts = re.findall(r'<script[^>]*\ssrc="([^"]*)"', html)
    assert scripts and all(src.startswith("/static/") for src in scripts), scripts


def test_the_floor_marks_a_props_only_table(floor):
    from tables.floor import floor_rows

    _, table, _ = floor
    assert command_execute(table_id=table.pk, actor="test",
                           command={"type": "sit", "seat": 1, "player": "Tess", "tppp": TPPP}).ok
    assert [r["props_only"] for r in floor_rows([table.pk])] == [True]
    assert command_execute(table_id=table.pk, actor="test", command={"type": "sit", "seat": 2, "player": "Ann"}).ok
    assert [r["props_only"] for r in floor_rows([table.pk])] == [False]

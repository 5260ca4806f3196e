"""A round's record as compliance reads it (issue 22, item 16): who dealt it and who only
approved a step of it, its progressive wagers (recorded as jackpot contributions, not as
wagers) on its page and in the rounds file, and hands and wagers in words on the page."""

import csv
import io
import re
from functools import partial

import pytest
from django.contrib.auth.models import Group, User

from cardroom.access import Actor
from cardroom.sql import Filters
from rounds.models import Round
from collections_fees.round_selectors import round_history_query
from tests import playing
from tests.engine.test_sidebets import SIDE_BETS

pytestmark = pytest.mark.django_db

DEALER = "dealer-dee"
run = partial(playing.run, actor=DEALER)


@pytest.fixture
def progressive_round():
    """Seat 2 plays Ante, Trips, Bad Beat and the progressive and makes a royal flush in
    its first five cards: a percentage award, which the supervisor sam confirms himself."""
    table = playing.new_table("Prog", side_bets=SIDE_BETS, boxes=False)
    run(
        table,
        *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 100000},
        {"type": "wager", "seat": 2, "ante": 100, "trips": 100, "bad_beat": 100, "progressive": True},
        {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
        {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["2c", "3d"]}, {"type": "play", "seat": 2, "multiple": 1},
        {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"]}},
    )
    sam = User.objects.create_user("sam")
    sam.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    run(table, {"type": "confirm_award", "seat": 2},
        actor=Actor(name="sam", role="supervisor", user_id=sam.pk, session="sam-device"))
    run(table, {"type": "settle"})
    return Round.objects.get(table=table)


def test_the_dealers_are_who_dealt_and_the_confirming_supervisor_has_a_label_of_his_own(progressive_round, officer_client):
    html = officer_client.get(f"/compliance/rounds/{progressive_round.pk}/").content.decode()
    dealers = re.search(r'<td id="round-dealers">(.*?)</td>', html).group(1)
    assert dealers == DEALER  # not "dealer-dee, sam"
    assert re.search(r"<th>Progressive award confirmed \(seat 2\) by</th><td>sam</td>", html)


def test_the_progressive_wager_is_among_the_rounds_wagers_on_its_page(progressive_round, officer_client):
    html = officer_client.get(f"/compliance/rounds/{progressive_round.pk}/").content.decode()
    wagers = html[html.index("<h2>Wagers</h2>"):html.index("<h2>Decisions</h2>")]
    row = re.search(r'<tr class="progressive-wager">(.*?)</tr>', wagers, re.S).group(1)
    assert "<td>2</td>" in row and "<td>P-2</td>" in row and "UTH-PROG-1" in row and "$1.00" in row


def test_hands_and_wagers_are_named_in_words_on_the_round_page(progressive_round, officer_client):
    html = officer_client.get(f"/compliance/rounds/{progressive_round.pk}/").content.decode()
    for key in ("bad_beat", "high_card", "royal_flush"):
        assert key not in html, key
    assert "<td>Bad Beat</td>" in html and "<td>Trips</td>" in html
    assert "high card (does not qualify)" in html and "royal flush" in html


def test_the_rounds_file_lists_the_progressive_wagers(progressive_round):
    query = round_history_query(Filters(table=progressive_round.table_id))
    from django.db import connection

    with connection.cursor() as cursor, cursor.cursor.copy(query.copy_sql(), query.params) as copy:
        text = b"".join(bytes(chunk) for chunk in copy).decode()
    (row,) = csv.DictReader(io.StringIO(text))
    assert row["progressive"] == "2:100"
    assert "2:bad_beat:100" in row["wagers"] and "progressive" not in row["wagers"]

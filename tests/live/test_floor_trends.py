"""The floor tiles' trend (tables/trends.py): rounds settled and net fees per hour of the
current shift, for every table, from one grouped query, read with the floor page and on
its slow refresh, never on the command path. The expected series are bucketed here from
the rounds and collection lines themselves."""

import json
import re
from collections import defaultdict
from datetime import timedelta
from unittest import mock

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from cardroom.gaming_day import calendar
from collections_fees.models import CollectionEntry
from rounds.models import Round
from tables.lifecycle import table_retire
from tables.trends import floor_trends
from tests.compliance.ledger import Clock
from tests.counts.play import DEALER, deal
from tests.playing import new_table, run
from tests.engine.helpers import FEES, seated_with_pd

pytestmark = pytest.mark.django_db

@pytest.fixture
def clock():
    clock = Clock()
    with mock.patch("django.utils.timezone.now", clock):
        yield clock


def _shift_start(clock):
    from datetime import date, time
    day = date(2026, 4, 6)
    clock.set(day, time(15, 0))  # the swing shift: the half hour before it is the same gaming day
    cal = calendar()
    start, _ = cal.shift_bounds(cal.gaming_day(clock.now), cal.shift(clock.now))
    return start


def _table(name):
    table = new_table(name, fee_schedule=FEES, boxes=False)
    run(table, *seated_with_pd([1, 2, 3, 4], pd=1), actor=DEALER)
    return table


def _at(clock, moment):
    clock.now = moment.astimezone(clock.now.tzinfo)


def _expected(start, now):
    hours = int((now - start).total_seconds() // 3600) + 1
    rounds, fees = defaultdict(lambda: [0] * hours), defaultdict(lambda: [0] * hours)
    for r in Round.objects.filter(status="settled", closed_at__gte=start, closed_at__lt=now):
        rounds[r.table_id][int((r.closed_at - start).total_seconds() // 3600)] += 1
    for line in CollectionEntry.objects.filter(created_at__gte=start, created_at__lt=now):
        fees[line.table_id][int((line.created_at - start).total_seconds() // 3600)] += (
            line.amount if line.kind == "fee" else -line.amount)
    return hours, rounds, fees


def _void_a_round(table):
    table.refresh_from_db()
    rotation = table.state["rotation"]
    if rotation["offer_seat"] is not None:
        run(table, {"type": "accept_bank", "seat": rotation["offer_seat"]}, actor=DEALER)
        table.refresh_from_db()
    players = [s for s in (1, 2, 3, 4) if s != table.state["rotation"]["pd_seat"]]
    run(table, {"type": "open_round", "bank": 20000},
        {"type": "wager", "seat": players[0], "ante": 500},
        {"type": "wager", "seat": players[1], "ante": 500},
        {"type": "no_more_bets"},
        {"type": "void_round", "reason": "misdeal", "approved_by": "sup-sam"}, actor=DEALER)


@pytest.fixture
def shift_played(clock):
    start = _shift_start(clock)
    _at(clock, start - timedelta(minutes=30))  # seated before the shift: not in its trend
    a, b, c = _table("Trend A"), _table("Trend B"), _table("Trend C")
    deal(a, ante=1000)  # before the shift
    _at(clock, start + timedelta(minutes=5))
    deal(a, ante=1000)
    _at(clock, start + timedelta(hours=1, minutes=20))
    deal(b, ante=2500)
    _void_a_round(b)  # its fees refunded in the same hour: nets to nothing
    _at(clock, start + timedelta(hours=2, minutes=10))
    deal(a, ante=1500)
    deal(a, ante=500)
    _at(clock, start + timedelta(hours=2, minutes=40))
    return start, (a, b, c)


def test_each_table_gets_its_rounds_and_fees_per_hour_of_the_shift(shift_played, clock):
    start, (a, b, c) = shift_played
    now = clock.now
    trends = floor_trends(now=now)
    hours, rounds, fees = _expected(start, now)
    assert hours == 3
    assert set(trends) == {a.pk, b.pk, c.pk}
    assert [trends[t.pk]["rounds"] for t in (a, b, c)] == [[1, 0, 2], [0, 1, 0], [0, 0, 0]]
    for t in (a, b, c):
        assert trends[t.pk]["rounds"] == rounds[t.pk]
        assert trends[t.pk]["fees"] == fees[t.pk]
        assert trends[t.pk]["hours"] == [calendar().local(start + timedelta(hours=n)).strftime("%H:%M") for n in range(3)]
    assert fees[a.pk][0] > 0 and fees[a.pk][1] == 0 and fees[a.pk][2] > fees[a.pk][0]
    assert CollectionEntry.objects.filter(table=b, kind="refund").exists() and fees[b.pk][1] > 0
    # The chart reads its numbers: fees in dollars, rounds as counts.
    label = re.search(r'aria-label="([^"]*)"', trends[a.pk]["fees_svg"]).group(1)
    first = trends[a.pk]["hours"][0]
    assert f"{first}: ${fees[a.pk][0] / 100:,.2f}" in label
    assert f"{first}: 1; " in re.search(r'aria-label="([^"]*)"', trends[a.pk]["rounds_svg"]).group(1)


def test_the_trend_is_one_query_for_any_number_of_tables(shift_played, clock, django_assert_num_queries):
    now = clock.now
    with django_assert_num_queries(1):
        few = floor_trends(now=now)
    for n in range(4):
        deal(_table(f"More {n}"), ante=1000)
    with django_assert_num_queries(1):
        many = floor_trends(now=clock.now)
    assert len(many) == len(few) + 4


def test_a_retired_table_leaves_the_trend(shift_played, clock):
    from cardroom.access import Actor

    _, (a, b, c) = shift_played
    table_retire(table_id=c.pk, actor=Actor.system("test"), reason="test")
    assert set(floor_trends(now=clock.now)) == {a.pk, b.pk}


def test_the_floor_page_carries_the_trend_and_refreshes_it_apart(shift_played, clock):
    _, (a, b, c) = shift_played
    user, _ = User.objects.get_or_create(username="sup-trend")
    user.groups.add(Group.objects.get_or_create(name="supervisor")[0])
    client = Client()
    client.force_login(user)
    page = client.get("/floor/").content.decode()
    carried = json.loads(re.search(r'<script id="floor-trends" type="application/json">(.*?)</script>', page, re.S).group(1))
    now = clock.now
    assert {int(k): v["rounds"] for k, v in carried["tables"].items()} == {
        t.pk: floor_trends(now=now)[t.pk]["rounds"] for t in (a, b, c)}
    assert carried["refresh_seconds"] > 0
    fresh = client.get("/floor/trends/").json()
    assert {int(k): v["fees"] for k, v in fresh["tables"].items()} == {
        t.pk: v["fees"] for t, v in zip((a, b, c), (floor_trends(now=now)[t.pk] for t in (a, b, c)))}

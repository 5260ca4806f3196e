"""What the screens are told: the tablet's next step and the floor's rows, to the cent."""

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from django.utils import timezone

from cardroom.access import Actor
from tables.models import DealerAssignment, Table
from tables.floor import floor_rows
from tables.selectors import table_snapshot
from tables.lifecycle import table_open_close
from rounds.visibility import TABLET
from tests.engine.helpers import FEES, dealt_round, example_b
from tests.hypothesis_profiles import examples

from .conftest import assign_dealer, make_table, run

pytestmark = pytest.mark.django_db


def view(table):
    table.refresh_from_db()
    return table_snapshot(table, TABLET)["view"]


def row(table, **kwargs):
    (only,) = floor_rows([table.pk], **kwargs)
    return only


def kinds(r):
    return [a["kind"] for a in r["alerts"]]


def worked_example_b(table):
    """game-rules section 11, example B up to the showdown, dealt from a shuffler sequence."""
    run(table.pk, *example_b(dealt=True))


def test_the_tablet_is_told_one_next_step_at_a_time():
    table = make_table(seats=4)
    assert view(table)["next"]["step"] == "choose_player_dealer"
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)], {"type": "offer_bank", "seat": 1})
    assert view(table)["next"] == {
        "step": "offer", "seat": 1, "walk": [1, 2],
        "commands": [{"type": "accept_bank", "seat": 1}, {"type": "decline_bank", "seat": 1}],
        "everyone_declines": {"type": "decline_bank", "seats": [1, 2]},
    }
    run(table.pk, {"type": "decline_bank", "seat": 1}, {"type": "decline_bank", "seat": 2})
    v = view(table)
    assert v["next"]["step"] == "stopped" and v["eligible_to_bank"] == [1, 2]
    run(table.pk, {"type": "offer_bank", "seat": 2}, {"type": "accept_bank", "seat": 2},
        {"type": "open_round", "bank": 10000}, {"type": "wager", "seat": 1, "ante": 1000})
    v = view(table)
    assert v["next"]["step"] == "no_more_bets"
    assert v["seats"][0]["actions"] == [{"type": "wager"}, {"type": "withdraw"}]
    assert v["seats"][1]["role"] == "player_dealer" and v["seats"][1]["actions"] == []
    run(table.pk, {"type": "no_more_bets"})
    assert view(table)["next"] == {"step": "deal", "commands": [{"type": "deal"}, {"type": "deal_by_hand"}], "pending": [1], "cards": 9}
    run(table.pk, {"type": "check", "seat": 1})  # dealt by hand: cards entered as revealed
    v = view(table)
    assert v["next"] == {"step": "flop", "commands": [{"type": "flop"}]}
    assert v["picker"] == {"command": "flop", "count": 3}
    run(table.pk, {"type": "flop", "cards": ["2c", "7d", "9h"]})
    v = view(table)
    assert v["seats"][0]["actions"] == [{"type": "check"}, {"type": "play", "multiple": 2}]
    assert v["used_cards"] == ["2c", "7d", "9h"] and v["picker"] is None
    run(table.pk, {"type": "check", "seat": 1}, {"type": "turn_river", "cards": ["Js", "3s"]},
        {"type": "fold", "seat": 1})
    assert view(table)["picker"] == {"command": "showdown", "hands": ["player_dealer"]}  # folded, no Trips


def test_the_settlement_preview_is_the_settlement_and_the_floor_follows_to_the_cent():
    table = make_table(seats=4, fee_schedule=FEES)
    worked_example_b(table)
    preview = view(table)["settlement_preview"]
    assert view(table)["next"]["step"] == "settle" and view(table)["bank_left"] == 0
    (settled,) = run(table.pk, {"type": "settle"})
    assert {k: preview[k] for k in ("lines", "seats", "balance", "pd_net", "exhausted", "fee_refunds")} == {
        k: settled.result[k] for k in ("lines", "seats", "balance", "pd_net", "exhausted", "fee_refunds")
    }
    assert [(line["seat"], line["wager"], line["result"], line["amount"], line["uncovered"]) for line in preview["lines"]][:5] == [
        (2, "ante", "win", 500, 0), (2, "play", "win", 2000, 0), (2, "blind", "win", 750, 0),
        (3, "ante", "win", 500, 0), (3, "play", "win", 250, 750),
    ]
    r = row(table)
    # fees: 3 players x 100 + the player-dealer 3 x 50 = 450; seat 4's fee refunded: 350.
    assert r["fees_today"] == 350
    assert r["rounds_per_hour"] == 1 and r["street"] == "between_rounds" and r["bank_left"] is None
    assert "bank_exhausted" in kinds(r)
    assert r["player_dealer"] == {"seat": 1, "player": "P-1", "consecutive_banks": 1,
                                  "bank_run": {"bank": 2, "of": 2, "text": "2nd of 2"}}


def test_the_floor_flags_stops_offers_voids_and_idle_tables():
    table = make_table(seats=3, fee_schedule=FEES)
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)], {"type": "offer_bank", "seat": 1})
    assert "offer_pending" in kinds(row(table))
    run(table.pk, {"type": "decline_bank", "seat": 1}, {"type": "decline_bank", "seat": 2})
    assert "stopped" in kinds(row(table))
    run(table.pk, {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 10000}, {"type": "wager", "seat": 2, "ante": 1000}, {"type": "no_more_bets"},
        {"type": "void_round", "reason": "misdeal", "approved_by": "sup-1"})
    r = row(table)
    assert [a["text"] for a in r["alerts"] if a["kind"] == "void"] == ["1 void(s) today, last: misdeal"]
    assert r["fees_today"] == 0  # a void refunds every fee
    assert "idle" not in kinds(r)
    assert "idle" in kinds(row(table, now=timezone.now() + timedelta(minutes=11)))
    empty = make_table()
    table_open_close(table_id=empty.pk, open=False, actor=Actor.system("test"), reason="test")  # a supervisor closed it
    assert row(empty)["open"] is False and kinds(row(empty)) == []  # a closed table raises no alert
    assert [r["table"] for r in floor_rows()] == sorted(Table.objects.values_list("pk", flat=True))


def test_the_floor_costs_the_same_queries_for_one_table_or_many():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries():
        with CaptureQueriesContext(connection) as captured:
            floor_rows()
        return len(captured)

    worked_example_b(make_table(seats=4, fee_schedule=FEES))
    one = queries()
    for _ in range(4):
        worked_example_b(make_table(seats=4, fee_schedule=FEES))
    assert queries() == one


def test_decisions_are_offered_only_once_the_cards_are_out_and_everyone_may_check_in_one_tap():
    table = make_table(seats=4)
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2, 3)],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, {"type": "open_round", "bank": 100000},
        {"type": "wager", "seat": 2, "ante": 1000}, {"type": "wager", "seat": 3, "ante": 1000}, {"type": "no_more_bets"})
    seats = view(table)["seats"]
    # Owed, but not before the deal: the dealer first says how the cards were dealt.
    assert [(s["owes"], s["owes_now"]) for s in seats[1:3]] == [(True, False), (True, False)]
    run(table.pk, {"type": "deal"})
    v = view(table)
    assert [s["owes_now"] for s in v["seats"][1:3]] == [True, True]
    assert v["next"]["check_all"] == [{"type": "check", "seat": 2}, {"type": "check", "seat": 3}]
    run(table.pk, *v["next"]["check_all"], {"type": "flop"})
    assert view(table)["next"]["check_all"] == [{"type": "check", "seat": 2}, {"type": "check", "seat": 3}]
    run(table.pk, {"type": "check", "seat": 2}, {"type": "check", "seat": 3}, {"type": "turn_river"})
    river = view(table)["next"]
    assert river["step"] == "decisions" and "check_all" not in river  # no check on the river


def test_the_posted_rules_are_the_tables_configuration_in_full():
    from rounds.engine.view import posted_rules

    posted = posted_rules(make_table(limits={"ante_min": 500, "ante_max": 5000}, fee_schedule=FEES).state["config"])
    assert posted["limits"] == {"ante_min": 500, "ante_max": 5000, "trips_min": None, "trips_max": None}
    assert posted["ante_presets"] == [500, 1000, 2500, 5000]  # multiples of the minimum, within the maximum
    assert {"hand": "royal_flush", "pays": "500 to 1"} in posted["paytable"]["blind"]
    assert posted["paytable"]["name"] == "UTH-01" and {"hand": "three_of_a_kind", "pays": "3 to 1"} in posted["paytable"]["trips"]
    assert posted["fees"]["rates"] == FEES["rates"]


def tablet_came_and_went(table):
    """The table's tablet connected this shift, then dropped."""
    from tables import presence

    presence.tablet_seen(table.pk, "tablet-socket")
    presence.tablet_gone(table.pk, "tablet-socket")


def test_a_missing_tablet_is_an_alert_only_where_a_game_is_on_and_a_dealer_is_assigned_now():
    quiet = make_table()
    assign_dealer(quiet)
    tablet_came_and_went(quiet)
    assert "tablet_disconnected" not in kinds(row(quiet))  # open, nobody seated
    run(quiet.pk, {"type": "sit", "seat": 1, "player": "P-1"})
    assert "tablet_disconnected" in kinds(row(quiet))
    unstaffed = make_table()
    tablet_came_and_went(unstaffed)
    run(unstaffed.pk, {"type": "sit", "seat": 1, "player": "P-1"})
    assert "tablet_disconnected" not in kinds(row(unstaffed))  # no dealer is to drive it now
    assignment = assign_dealer(unstaffed, "ben")
    assert "tablet_disconnected" in kinds(row(unstaffed))
    DealerAssignment.objects.filter(pk=assignment.pk).update(ended_at=timezone.now())  # relieved, nobody after
    assert "tablet_disconnected" not in kinds(row(unstaffed))


def test_a_fresh_floor_misses_no_tablet_and_a_tablet_that_connected_then_dropped_is_missed():
    """Issue 35: tables set up, dealers assigned, players seated, but no tablet has
    connected this shift: nothing is disconnected. Once the tablet has been there and is
    gone, the floor says so; while it is there, nothing."""
    from tables import presence

    tables = [make_table() for _ in range(3)]
    for index, table in enumerate(tables):
        assign_dealer(table, f"dealer-{index}")
        run(table.pk, {"type": "sit", "seat": 1, "player": f"P-{index}"})
    assert [t for t in tables if "tablet_disconnected" in kinds(row(t))] == []
    presence.tablet_seen(tables[0].pk, "tablet-socket")
    assert "tablet_disconnected" not in kinds(row(tables[0]))  # connected now
    presence.tablet_gone(tables[0].pk, "tablet-socket")
    assert "tablet_disconnected" in kinds(row(tables[0]))  # it was here this shift and is gone
    assert [t for t in tables[1:] if "tablet_disconnected" in kinds(row(t))] == []


def test_a_tablet_seen_in_an_earlier_shift_is_not_missed_in_this_one(monkeypatch):
    from tables import presence

    table = make_table()
    assign_dealer(table)
    run(table.pk, {"type": "sit", "seat": 1, "player": "P-1"})
    monkeypatch.setattr(presence, "_shift_now", lambda: "2020-01-01/day")  # the tablet of a past shift
    tablet_came_and_went(table)
    monkeypatch.undo()
    assert "tablet_disconnected" not in kinds(row(table))


def test_a_floor_alert_acknowledged_stays_marked_until_a_new_occurrence(django_user_model):
    from rounds.engine.errors import CommandError
    from tables.alerts import alert_acknowledge

    sup = django_user_model.objects.create_user("sam")
    table = make_table(seats=3)
    assign_dealer(table)
    tablet_came_and_went(table)
    run(table.pk, {"type": "sit", "seat": 1, "player": "P-1"})
    (missing,) = [a for a in row(table)["alerts"] if a["kind"] == "tablet_disconnected"]
    assert missing["ack"] is None
    alert_acknowledge(table_id=table.pk, kind=missing["kind"], ref=missing["ref"], actor=Actor.of(sup))
    (seen,) = [a for a in row(table)["alerts"] if a["kind"] == "tablet_disconnected"]
    assert seen["ack"]["by"] == "sam"
    run(table.pk, {"type": "sit", "seat": 2, "player": "P-2"})  # still no tablet, later: a new occurrence
    (again,) = [a for a in row(table)["alerts"] if a["kind"] == "tablet_disconnected"]
    assert again["ack"] is None
    with pytest.raises(CommandError) as gone:
        alert_acknowledge(table_id=table.pk, kind="stopped", ref="whatever", actor=Actor.of(sup))
    assert gone.value.code == "wrong_state"


def test_the_floor_names_each_tables_state():
    table = make_table(seats=3)
    assert row(table)["state"] == "no_player_dealer"
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)], {"type": "offer_bank", "seat": 1},
        {"type": "decline_bank", "seat": 1}, {"type": "decline_bank", "seat": 2})
    assert row(table)["state"] == "stopped"
    run(table.pk, {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    assert row(table)["state"] == "waiting"
    run(table.pk, {"type": "open_round", "bank": 10000})
    assert row(table)["state"] == "dealing"
    run(table.pk, {"type": "void_round", "reason": "test", "approved_by": "sup-1"})
    table_open_close(table_id=table.pk, open=False, actor=Actor.system("test"), reason="test")
    assert row(table)["state"] == "closed"


@given(low=st.integers(1, 10**6), spread=st.integers(0, 10**6), has_min=st.booleans(), has_max=st.booleans())
@settings(max_examples=examples(80), deadline=None)
def test_ante_presets_are_always_within_the_tables_limits(low, spread, has_min, has_max):
    from rounds.engine.view import posted_rules

    limits = {**({"ante_min": low} if has_min else {}), **({"ante_max": low + spread} if has_max else {})}
    presets = posted_rules({"seats": 6, "limits": limits})["ante_presets"]
    assert presets and presets == sorted(set(presets))
    if has_min:
        assert presets[0] == low
    if has_max:
        assert presets[-1] <= low + spread


def test_the_bank_in_a_row_is_counted_from_the_round_being_banked():
    """During the player-dealer's second straight bank the tablet and the floor say "2nd of
    2" (the settled-round streak alone says 1 then)."""
    table = make_table(seats=3, fee_schedule=FEES)
    run(table.pk, *[{"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)],
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    assert view(table)["bank_run"]["text"] == "1st of 2"  # the next round is their first
    run(table.pk, {"type": "open_round", "bank": 100000})
    assert view(table)["bank_run"] == {"bank": 1, "of": 2, "text": "1st of 2"}
    run(table.pk, *dealt_round([2])[1:])
    run(table.pk, {"type": "open_round", "bank": 100000})
    v = view(table)
    assert v["consecutive_banks"] == 1 and v["bank_run"] == {"bank": 2, "of": 2, "text": "2nd of 2"}
    assert row(table)["player_dealer"]["bank_run"]["text"] == "2nd of 2"


@pytest.mark.parametrize("trips", [True, False])
def test_add_a_backline_is_offered_behind_a_wager_while_betting_up_to_the_tables_most(trips):
    """game-rules 12 as the tablet's hint: where the table offers backline, a seat with a
    wager offers a backline (with Trips as the table allows) until it carries the most."""
    from rounds.engine.view import table_view
    from tests.engine.helpers import new_game

    def offered(game, seat):
        return [a for a in table_view(game.to_dict())["seats"][seat - 1]["actions"] if a["type"] == "backline_wager"]

    plain = new_game(6)
    game = new_game(6, backline={"max_per_seat": 2, "trips": trips})
    for command in [
        {"type": "sit", "seat": 1, "player": "P-1"}, {"type": "sit", "seat": 2, "player": "P-2"},
        {"type": "sit", "seat": 3, "player": "P-3"},
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, {"type": "open_round", "bank": 10000},
        {"type": "wager", "seat": 2, "ante": 1000},
    ]:
        game, _, _ = game.apply(command)
        plain, _, _ = plain.apply(command)
    assert offered(plain, 2) == []  # a table without backline
    assert offered(game, 3) == []  # no wager at seat 3
    assert offered(game, 1) == []  # the player-dealer
    assert offered(game, 2) == [{"type": "backline_wager", "trips": trips}]
    game, _, _ = game.apply({"type": "backline_wager", "seat": 2, "bettor": "B-1", "ante": 500})
    assert offered(game, 2) == [{"type": "backline_wager", "trips": trips}]
    game, _, _ = game.apply({"type": "backline_wager", "seat": 2, "bettor": "B-2", "ante": 500})
    assert offered(game, 2) == []  # two behind: the most
    game, _, _ = game.apply({"type": "no_more_bets"})
    assert offered(game, 2) == []

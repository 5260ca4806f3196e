"""A settled or voided round played again for surveillance (issue 38 item 3): from the state
recorded at its open_round (RoundStart), each accepted command is applied again with the
cards its deal drew, and gives the answer and the records the event chain holds, and the
screens the dealer's tablet showed after it."""

from random import Random

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError

from cardroom.access import Actor
from rounds import rebuild
from rounds.engine.cards import DECK
from rounds.models import Round, RoundCard
from rounds.visibility import TABLET
from tables import surveillance
from tables.models import RoundStart, Table
from tables.selectors import table_snapshot
from tests.engine.helpers import FEES, dealt_round, seated_with_pd
from tests.engine.test_sidebets import PROGRESSIVE
from tests.playing import new_table, run

pytestmark = pytest.mark.django_db


def shuffled_round(players):
    """`dealt_round` with the software shuffling: its deal sends no cards."""
    return [{"type": "deal"} if c["type"] == "deal" else c for c in dealt_round(players)]


def play_watching_the_tablet(table, commands, *, rng=None, actor="dealer-1"):
    """Each command in turn, with what the dealer's tablet was shown after it (the engine's
    part of its snapshot: the state and the screen hints)."""
    shown = []
    for command in commands:
        run(table, command, rng=rng, actor=actor)
        snapshot = table_snapshot(Table.objects.get(pk=table.pk), TABLET)
        shown.append(rebuild.plain({"game": snapshot["game"], "view": snapshot["view"]}))
    return shown


def test_a_shuffled_round_replays_every_screen_the_tablet_showed_with_the_cards_drawn():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2, 3, 4], pd=1))
    commands = shuffled_round([2, 3, 4])
    shown = play_watching_the_tablet(table, commands, rng=Random(38))
    rnd = Round.objects.get(table=table, number=1)

    replayed = surveillance.round_replay(rnd)

    assert replayed.problems == []
    assert [s.event.command_type for s in replayed.steps] == [c["type"] for c in commands]
    assert [s.tablet for s in replayed.steps] == shown
    # The deck order the software drew at the deal, recovered from the chained record.
    (deal,) = [s for s in replayed.steps if s.event.command_type == "deal"]
    assert deal.deck == Random(38).sample(DECK, 2 * 3 + 2 + 5)
    assert set(RoundCard.objects.filter(round=rnd).values_list("source", flat=True)) == {"shuffled"}
    assert all(s.deck is None for s in replayed.steps if s is not deal)


def test_a_progressive_round_with_a_supervisors_confirmation_replays_with_the_fund_as_it_stood():
    table = new_table(name="R", side_bets={"progressive": PROGRESSIVE})
    run(table, *({"type": "sit", "seat": s, "player": f"P-{s}"} for s in (1, 2)),
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    shown = play_watching_the_tablet(table, [
        {"type": "open_round", "bank": 1000}, {"type": "wager", "seat": 2, "ante": 100, "progressive": True},
        {"type": "no_more_bets"}, {"type": "check", "seat": 2}, {"type": "flop", "cards": ["Qs", "Js", "Ts"]},
        {"type": "check", "seat": 2}, {"type": "turn_river", "cards": ["2c", "3d"]}, {"type": "play", "seat": 2, "multiple": 1},
        {"type": "showdown", "player_dealer": ["4c", "5d"], "hands": {"2": ["As", "Ks"]}},
    ])
    shown += play_watching_the_tablet(table, [{"type": "confirm_award", "seat": 2}],
                                      actor=Actor(name="sup", role="supervisor", user_id=None))
    shown += play_watching_the_tablet(table, [{"type": "settle"}])

    replayed = surveillance.round_replay(Round.objects.get(table=table, number=1))

    assert replayed.problems == []
    assert [s.tablet for s in replayed.steps] == shown
    settle = replayed.steps[-1]
    assert settle.event.command_type == "settle" and settle.fund == {"meter": 1000080, "reserve": 600020}


def test_a_start_not_what_was_played_is_named_step_by_step():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *shuffled_round([2]), rng=Random(5))
    rnd = Round.objects.get(table=table, number=1)
    start = RoundStart.objects.get(table=table, round_number=1)
    events = surveillance.round_events(rnd, start)
    steps = [{"command": surveillance.engine_command(e), "deck": rebuild.drawn_deck(e.records, "shuffler"), "fund": None}
             for e in events]
    true_run = rebuild.replay(start.state, steps)
    assert all(not rebuild.differences(done, e.result, e.records) for done, e in zip(true_run, events))

    doctored = {**start.state, "occupants": {**start.state["occupants"], "2": "P-someone-else"}}
    found = [rebuild.differences(done, e.result, e.records) for done, e in zip(rebuild.replay(doctored, steps), events)]
    # From the bets' close on, the records name the seat's player; the settlement pays them.
    assert [e.command_type for e in events][2] == "no_more_bets" and found[2] == ["its records differ"]
    assert found[-1] == ["its answer differs", "its records differ"]


def test_another_deck_is_a_mismatch_not_a_replay():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *shuffled_round([2]), rng=Random(5))
    rnd = Round.objects.get(table=table, number=1)
    start = RoundStart.objects.get(table=table, round_number=1)
    events = surveillance.round_events(rnd, start)
    steps = [{"command": surveillance.engine_command(e), "deck": rebuild.drawn_deck(e.records, "shuffler"), "fund": None}
             for e in events]
    deal = next(i for i, e in enumerate(events) if e.command_type == "deal")
    steps[deal] = {**steps[deal], "deck": list(reversed(steps[deal]["deck"]))}
    done = rebuild.replay(start.state, steps)
    assert rebuild.differences(done[deal], events[deal].result, events[deal].records) == ["its answer differs", "its records differ"]
    steps[deal] = {**steps[deal], "deck": None}
    with pytest.raises(rebuild.ReplayMismatch):
        rebuild.replay(start.state, steps)


def test_a_round_in_progress_has_no_replay_and_its_start_holds_no_card():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *shuffled_round([2])[:4], rng=Random(1))
    rnd = Round.objects.get(table=table)
    with pytest.raises(surveillance.SurveillanceError) as refused:
        surveillance.round_replay(rnd)
    assert refused.value.code == "wrong_state"
    start = RoundStart.objects.get(table=table, round_number=1)
    assert start.state["round"] is None and start.seq == Round.objects.get(pk=rnd.pk).table.events.get(
        command_type="open_round").seq


def test_the_recorded_start_cannot_be_rewritten_or_removed_by_the_app():
    table = new_table(fee_schedule=FEES)
    run(table, *seated_with_pd([1, 2], pd=1), *shuffled_round([2]), rng=Random(2))
    start = RoundStart.objects.get(table=table)
    for statement in ("UPDATE tables_roundstart SET state = '{}' WHERE id = %s", "DELETE FROM tables_roundstart WHERE id = %s"):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, [start.pk])
    assert RoundStart.objects.get(pk=start.pk).state == start.state

"""Property tests over random command streams through the real service on PostgreSQL.

Whatever a dealer (or a confused tablet) sends: a refused command changes nothing, not
the state and not the event log; chips are conserved in every settled round; the
player-dealer never wins or loses more than the bank; settlement lines come in the
regulatory order; nobody banks more consecutive rounds than the table's limit.
"""

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rounds.engine.cards import DECK
from rounds.engine.settlement import WAGER_ORDER, settlement_order
from rounds.engine.table import TableGame
from rounds.models import SettlementLine
from tables.models import TableEvent
from tables.services import command_execute

from tests.engine.helpers import FEES
from tests.hypothesis_profiles import examples
from tests.playing import new_table

SEATS = 6


def next_command(data, game: TableGame) -> dict:
    """A plausible next command for the game, sometimes a wrong or malformed one."""
    draw = data.draw
    if draw(st.integers(0, 9)) == 0:
        return draw(junk_commands)
    occupied = sorted(game.occupants)
    empty = [s for s in range(1, SEATS + 1) if s not in game.occupants]
    rot, rnd = game.rotation, game.round
    if rnd is None:
        options = []
        if empty:
            seat = draw(st.sampled_from(empty))
            options.append({"type": "sit", "seat": seat, "player": f"P-{draw(st.integers(1, 9))}"})
        if occupied:
            options.append({"type": "leave", "seat": draw(st.sampled_from(occupied))})
        if rot.offer_seat:
            options += [{"type": "accept_bank", "seat": rot.offer_seat}] * 3
            options.append({"type": "decline_bank", "seat": rot.offer_seat})
        elif rot.pd_seat is None and occupied:
            options += [{"type": "offer_bank", "seat": draw(st.sampled_from(occupied))}] * 3
        if rot.pd_seat:
            options += [{"type": "open_round", "bank": draw(st.integers(1, 30000))}] * 6
            options.append({"type": "pass_bank"})
        return draw(st.sampled_from(options)) if options else {"type": "sit", "seat": 1, "player": "P-1"}
    if draw(st.integers(0, 40)) == 0:
        return {"type": "void_round", "reason": "misdeal", "approved_by": "sup-1"}
    players = [s for s in occupied if s != rnd.pd_seat]
    if rnd.phase == "betting":
        if players and (not rnd.seats or draw(st.booleans())):
            ante = draw(st.sampled_from([100, 500, 1000, 2500, 7300]))
            trips = draw(st.sampled_from([0, 0, 100, 500]))
            wager = {"type": "wager", "seat": draw(st.sampled_from(players)), "ante": ante}
            return {**wager, "trips": trips} if trips else wager
        return {"type": "no_more_bets"}
    if rnd.phase == "preflop" and not rnd.dealt and not rnd.decisions_made:
        cards = draw(st.permutations(DECK))[: 2 * len(rnd.seats) + 7]
        return {"type": "deal", "cards": list(cards)}
    pending = [s for s in sorted(rnd.seats) if rnd.seats[s].owes_decision(rnd.phase)]
    if pending:
        seat = draw(st.sampled_from(pending))
        if rnd.phase == "river":
            return draw(st.sampled_from([{"type": "play", "seat": seat, "multiple": 1}, {"type": "fold", "seat": seat}]))
        multiples = {"preflop": [3, 4], "flop": [2]}[rnd.phase]
        return draw(
            st.sampled_from(
                [{"type": "check", "seat": seat}] * 2 + [{"type": "play", "seat": seat, "multiple": m} for m in multiples]
            )
        )
    return {"preflop": {"type": "flop"}, "flop": {"type": "turn_river"}, "river": {"type": "showdown"}}.get(
        rnd.phase, {"type": "settle"}
    )


junk_commands = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["sit", "wager", "play", "flop", "settle", "accept_bank", "open_round", "zap"]),
            "seat": st.one_of(st.integers(-1, 9), st.text(max_size=2), st.none()),
            "ante": st.one_of(st.integers(-100, 100), st.floats(allow_nan=False), st.booleans()),
            "multiple": st.integers(0, 5),
            "bank": st.one_of(st.integers(-5, 5), st.text(max_size=3)),
            "player": st.text(max_size=4),
            "cards": st.lists(st.sampled_from(["As", "As", "10h", "1x", "kd"]), max_size=4),
        }
    ),
    st.just({}),
    st.just({"type": None}),
)


def observe(table):
    table.refresh_from_db()
    return table.version, table.state, TableEvent.objects.filter(table=table).count()


@pytest.mark.django_db
@settings(
    max_examples=examples(25),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), limit=st.sampled_from([1, 2]))
def test_random_command_streams_keep_every_invariant(data, limit):
    table = new_table("P", seats=SEATS, max_consecutive_banks=limit, fee_schedule=FEES, boxes=False)
    streak_player, streak = None, 0
    after = observe(table)
    for _ in range(120):
        before = after  # nothing but this loop writes to the table: what the last command left
        command = next_command(data, TableGame.from_dict(before[1]))
        result = command_execute(table_id=table.pk, command=command, actor="prop").result
        after = observe(table)
        if not result["ok"]:
            assert after == before, command
            continue
        assert after[0] == before[0] + 1 and after[2] == before[2] + 1
        event(f"accepted {command['type']}")
        if command["type"] != "settle":
            continue
        # Chips conserved; the bank bounds the player-dealer's result both ways.
        assert sum(s["net"] for s in result["seats"]) + result["pd_net"] == 0
        assert -result["bank"] <= result["pd_net"] <= result["bank"]
        assert 0 <= result["balance"] <= 2 * result["bank"]
        # Lines in regulatory order: clockwise from the PD's left, then Ante, Play, Blind, Trips.
        pd_seat = result["player_dealer"]["seat"]
        seats = [line["seat"] for line in result["lines"]]
        expected_seats = settlement_order(pd_seat, SEATS, set(seats))
        assert [s for i, s in enumerate(seats) if i == 0 or seats[i - 1] != s] == expected_seats
        for seat in expected_seats:
            kinds = [line["wager"] for line in result["lines"] if line["seat"] == seat]
            assert kinds == sorted(kinds, key=WAGER_ORDER.index)
        # The ledger holds exactly what the dealer was shown.
        stored = list(
            SettlementLine.objects.filter(round__table=table, round__number=result["round"]).values(
                "seat", "wager", "stake", "result", "amount", "uncovered"
            )
        )
        assert stored == result["lines"]
        # Consecutive banks per person, from settled rounds only (voids do not count).
        pd_player = result["player_dealer"]["player"]
        streak = streak + 1 if pd_player == streak_player else 1
        streak_player = pd_player
        assert streak <= limit

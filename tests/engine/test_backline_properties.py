"""Property tests for backline wagers (game-rules section 12): random rounds with bettors
behind random seats, random decisions, cards, banks and fee schedules, with random
backline commands (valid or not) sent while betting. Checked:

* a refused backline command changes nothing; an accepted one round-trips through JSON;
* chips are conserved: seats' nets + bettors' nets + the PD's net = 0, and each net is the
  sum of its own lines;
* the PD's net lies in [-B, +B];
* a bettor's lines follow its seat's decisions: Play k x the bettor's own Ante when the seat
  played k x, none when it folded (then Ante and Blind lost); the lines come at the seat's
  turn after its own, bettors in the order their wagers were first placed;
* the fees: one `backline` fee per bettor (when players pay), refunded exactly when every
  line of that bettor was returned for want of bank.

Deterministic: derandomize=True and no example database.
"""

import json
import random

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from rounds.engine.errors import CommandError
from rounds.engine.settlement import settlement_order
from rounds.engine.table import TableGame
from tests.engine.helpers import drive, new_game, seat_all, make_pd, snapshot
from tests.engine.test_properties import FEE_SCHEDULES, PROFILE
from tests.hypothesis_profiles import examples

BETTORS = ["B-1", "B-2", "B-3", "B-4", "B-5", "P-1", "P-2"]  # P-n: sometimes a seated person


def backline_command(data, game):
    """Mostly a valid backline command (behind a wagering seat, within the limits), else
    anything: any seat, any amount, a seated person, a withdrawal of nobody."""
    wagering = sorted(game.round.seats)
    seat = data.draw(st.sampled_from(wagering) if data.draw(st.integers(0, 3)) else st.integers(0, game.config.seats + 1))
    bettor = data.draw(st.sampled_from(BETTORS))
    kind = data.draw(st.sampled_from(["backline_wager", "backline_wager", "backline_wager", "backline_withdraw"]))
    command = {"type": kind, "seat": seat, "bettor": bettor}
    if kind == "backline_wager":
        valid = data.draw(st.integers(0, 3))
        command["ante"] = data.draw(st.sampled_from([100, 500, 1000, 2500] if valid else [0, 50, 9000]))
        if data.draw(st.booleans()):
            command["trips"] = data.draw(st.sampled_from([100, 500] if valid else [0, 3000]))
    return command


PLACED: list[int] = []  # backline wagers at no more bets, per example (the generator is not vacuous)


@settings(PROFILE, max_examples=examples(60), phases=[Phase.explicit, Phase.generate])  # shrinking a 30-draw round takes minutes
@given(st.data())
def test_random_rounds_with_backlines(data):
    seats = data.draw(st.integers(2, 8))
    occupied = sorted(data.draw(st.sets(st.integers(1, seats), min_size=2, max_size=seats)))
    pd = data.draw(st.sampled_from(occupied))
    table = {
        "backline": {"max_per_seat": data.draw(st.integers(1, 3)), "trips": data.draw(st.booleans())},
        "limits": {"ante_min": 100, "ante_max": 5000, "trips_min": 100, "trips_max": 1000},
        "dealing": "shuffler",
    }
    fees = data.draw(st.sampled_from(FEE_SCHEDULES))
    if fees is not None:
        table["fee_schedule"] = fees
    game = new_game(seats, **table)
    bank = data.draw(st.sampled_from([500, 2000, 10000, 100000]))
    game, _ = drive(game, seat_all(occupied) + make_pd(pd) + [{"type": "open_round", "bank": bank}])
    players = [s for s in occupied if s != pd]
    wagering = sorted(data.draw(st.sets(st.sampled_from(players), min_size=1)))
    for s in wagering:
        trips = data.draw(st.sampled_from([None, 100, 500]))
        command = {"type": "wager", "seat": s, "ante": data.draw(st.sampled_from([100, 1000, 5000]))}
        if trips:
            command["trips"] = trips
        game, _ = drive(game, [command])
    # Backline commands, valid or not: a refusal changes nothing.
    for _ in range(data.draw(st.integers(2, 16))):
        command = backline_command(data, game)
        before = snapshot(game)
        try:
            game, _result, _ = game.apply(command)
        except CommandError:
            assert snapshot(game) == before, f"refused {command!r} changed the game"
            continue
        assert TableGame.from_dict(json.loads(json.dumps(game.to_dict()))).to_dict() == game.to_dict()
    placed = [(b.seat, b.bettor, b.ante, b.trips) for b in game.round.backlines]
    PLACED.append(len(placed))
    game, results = drive(game, [{"type": "no_more_bets"}])
    fee_lines = results[-1]["fees"]
    rng = random.Random(data.draw(st.integers(0, 10**6)))
    game, _ = drive(game, [{"type": "deal"}], seed=rng.randrange(10**6))
    # Random decisions on every street.
    decided = {}
    for street, options in (("preflop", [("check",), ("play", 3), ("play", 4)]), ("flop", [("check",), ("play", 2)]),
                            ("river", [("fold",), ("play", 1)])):
        for s in wagering:
            if game.round.seats[s].owes_decision(street):
                choice = data.draw(st.sampled_from(options))
                command = {"type": choice[0], "seat": s, **({"multiple": choice[1]} if len(choice) > 1 else {})}
                game, _ = drive(game, [command])
                decided[s] = choice
        if street != "river":
            game, _ = drive(game, [{"type": "flop" if street == "preflop" else "turn_river"}])
    game, results = drive(game, [{"type": "showdown"}, {"type": "settle"}])
    s = results[-1]

    # Conservation and the bank's bounds.
    seat_nets = {r["seat"]: r["net"] for r in s["seats"]}
    bettor_nets = {(b["seat"], b["bettor"]): b["net"] for b in s["backline"]}
    assert sum(seat_nets.values()) + sum(bettor_nets.values()) + s["pd_net"] == 0
    assert -bank <= s["pd_net"] <= bank

    def line_net(line):
        return {"win": line["amount"], "lose": -line["amount"]}.get(line["result"], 0)

    for seat, net in seat_nets.items():
        assert net == sum(line_net(l) for l in s["lines"] if l["seat"] == seat and "bettor" not in l)
    for (seat, bettor), net in bettor_nets.items():
        assert net == sum(line_net(l) for l in s["lines"] if l["seat"] == seat and l.get("bettor") == bettor)

    # Order: the seats from the PD's left, each seat's own lines then its bettors in placing order.
    expected_owners = []
    for seat in settlement_order(pd, seats, wagering):
        expected_owners.append((seat, None))
        expected_owners += [(seat, b) for (bs, b, _, _) in placed if bs == seat]
    owners = []
    for line in s["lines"]:
        owner = (line["seat"], line.get("bettor"))
        if not owners or owners[-1] != owner:
            owners.append(owner)
    assert owners == expected_owners, (owners, expected_owners, s["lines"])
    # The bettors' nets in settlement order: seat by seat, each seat's in placing order.
    assert [(b["seat"], b["bettor"]) for b in s["backline"]] == [o for o in expected_owners if o[1] is not None]

    # Each bettor's lines follow its seat's decisions.
    for seat, bettor, ante, trips in placed:
        mine = {l["wager"]: l for l in s["lines"] if l["seat"] == seat and l.get("bettor") == bettor}
        choice = decided[seat]
        if choice[0] == "fold":
            assert set(mine) == {"ante", "blind"} | ({"trips"} if trips else set())
            assert all(mine[w]["result"] in ("lose", "no_action") for w in ("ante", "blind"))
        else:
            assert mine["play"]["stake"] == choice[1] * ante
        assert mine["ante"]["stake"] == mine["blind"]["stake"] == ante

    # Fees: a bettor pays as a player, refunded exactly when the bank never acted on it.
    backline_fees = [(f["seat"], f["bettor"]) for f in fee_lines if f["payer"] == "backline"]
    if fees is not None and fees["payers"] != "pd_only":
        # In seat order, a seat's bettors in the order first placed (docs/commands.md, `fees`).
        paying = sorted(((bs, b) for (bs, b, ante, trips) in placed), key=lambda o: o[0])
        assert backline_fees == [o for o in paying if any(f["seat"] == o[0] and f.get("bettor") == o[1] for f in fee_lines)]
    else:
        assert backline_fees == []
    dead = {
        (seat, bettor)
        for (seat, bettor) in bettor_nets
        if all(
            l["result"] == "no_action" or (l["result"] == "lose" and l["amount"] == 0)
            for l in s["lines"]
            if l["seat"] == seat and l.get("bettor") == bettor
        )
    }
    refunded = {(r["seat"], r["bettor"]) for r in s["fee_refunds"] if "bettor" in r}
    assert refunded == dead & set(backline_fees), PLACED


def test_the_rounds_carry_backlines():
    """Run after the property (file order): most of its rounds had bettors, some several."""
    if not PLACED:
        test_random_rounds_with_backlines()
    assert sum(1 for n in PLACED if n) >= len(PLACED) // 4
    assert max(PLACED) >= 3

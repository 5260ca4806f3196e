"""Property tests: random command streams played against the engine.

The strategy looks at the current state and picks a mostly-valid next command (sit,
leave, the bank offers, open_round, wagers, no_more_bets, deal, decisions, reveals,
showdown, settle, void), plus some random junk. After every command it checks:

* a refused command leaves to_dict() identical; an accepted one round-trips through JSON
  (TableGame.from_dict(json(to_dict())) == game);
* after every settle: seat nets + pd_net == 0, pd_net in [-bank, bank], 0 <= balance <= 2*bank,
  lines in regulatory order, lines equal to an independent re-computation of sections 6-7,
  fee refunds exactly for the seats whose every wager was returned for want of bank;
* no person banks more than max_consecutive_banks consecutive settled rounds (tracked
  here from the settle results; voided rounds ignored); decks alternate A/B.

Deterministic: derandomize=True and no example database.
"""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rounds.engine.cards import DECK
from rounds.engine.errors import CommandError
from rounds.engine.hands import evaluate
from rounds.engine.records import RoundSettled
from rounds.engine.config import TableConfig
from rounds.engine.handlers import COMMAND_TYPES
from rounds.engine.table import TableGame
from tests.engine.helpers import ONE_RATE_FEES, snapshot
from tests.hypothesis_profiles import examples

WAGER_ORDER = ("ante", "play", "blind", "trips")
PLAYERS = [f"P-{i}" for i in range(12)]

FEE_SCHEDULES = [
    None,
    ONE_RATE_FEES,
    {
        "payers": "players_not_pd",
        "player_basis": "initial_total",
        "pd_basis": "total_table_action",
        "rates": [
            {"min": 100, "max": 999, "player_fee": 25, "pd_fee": 10},
            {"min": 1000, "max": 4999, "player_fee": 50, "pd_fee": 20},
            {"min": 5000, "max": 50000, "player_fee": 100, "pd_fee": 40},
        ],
    },
    {
        "payers": "pd_only",
        "player_basis": "ante",
        "pd_basis": "total_table_action",
        "rates": [{"min": 500, "max": 2000, "player_fee": 0, "pd_fee": 75}],
    },
]
PAYTABLES = ["UTH-01", "UTH-02", "UTH-03", "UTH-04", {"trips": {"flush": [5, 2], "straight": [7, 3]}, "blind": {"straight": [5, 4]}}]

PROFILE = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=examples(70),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# --- an independent reading of sections 6 and 7 -----------------------------------------------


def _pay(odds, stake):
    if odds is None:
        return None
    x, y = odds
    return stake * x // y


def reference_settlement(game: TableGame):
    """(lines, seat nets, balance, exhausted) for the round at showdown."""
    rnd, cfg = game.round, game.config
    community = list(rnd.community)
    pd = evaluate(list(rnd.pd_hole) + community)
    pd_qualifies = pd.category != "high_card"
    order = sorted(rnd.seats, key=lambda s: (s - rnd.pd_seat) % cfg.seats)
    bank = rnd.bank
    balance, exhausted = bank, False
    lines, nets = [], {}
    for seat in order:
        p = rnd.seats[seat]
        hand = evaluate(list(p.hole) + community) if p.hole else None
        outcomes = []  # (wager, stake, result, payout)
        if p.folded:
            outcomes += [("ante", p.ante, "lose", 0), ("blind", p.blind, "lose", 0)]
        else:
            cmp = (hand.strength > pd.strength) - (hand.strength < pd.strength)
            by_cmp = {1: "win", 0: "push", -1: "lose"}[cmp]
            outcomes.append(("ante", p.ante, by_cmp if pd_qualifies else "push", p.ante))
            outcomes.append(("play", p.play, by_cmp, p.play))
            if cmp > 0:
                pay = _pay(cfg.paytable.blind.get(hand.category), p.blind)
                outcomes.append(("blind", p.blind, "push" if pay is None else "win", pay or 0))
            else:
                outcomes.append(("blind", p.blind, by_cmp, 0))
        if p.trips:
            pay = _pay(cfg.paytable.trips.get(hand.category), p.trips) if hand else None
            outcomes.append(("trips", p.trips, "lose" if pay is None else "win", pay or 0))
        net = 0
        for wager, stake, result, payout in outcomes:
            if exhausted:
                line = (seat, wager, stake, "no_action", 0, 0)
            elif result == "push":
                line = (seat, wager, stake, "push", 0, 0)
            elif result == "win":
                paid = min(payout, balance)
                balance -= paid
                if paid < payout or balance == 0:
                    exhausted = True
                line = (seat, wager, stake, "win", paid, payout - paid)
                net += paid
            else:
                collected = min(stake, 2 * bank - balance)
                balance += collected
                line = (seat, wager, stake, "lose", collected, stake - collected)
                net -= collected
            lines.append(line)
        nets[seat] = net
    return lines, nets, balance, exhausted


# --- choosing commands ----------------------------------------------------------------------


def _cards_for_round(game: TableGame, seed: int) -> list[str]:
    """A shuffled deck for this round, less the cards already known."""
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    known = game.round.known_cards() if game.round else set()
    return [c for c in deck if c not in known]


def junk_command(data) -> dict:
    kind = data.draw(st.sampled_from([*COMMAND_TYPES, "bogus", None, 3]))
    command = {"type": kind}
    value = st.one_of(
        st.integers(-2, 10),
        st.sampled_from([0, -100, 1.5, "10", True, None, 10**9, 333]),
    )
    card = st.one_of(st.sampled_from(DECK), st.sampled_from(["Xx", "1h", "10s", "", 7]))
    for name in ("seat", "ante", "blind", "trips", "bank", "multiple"):
        if data.draw(st.booleans()):
            command[name] = data.draw(value)
    if data.draw(st.booleans()):
        command["player"] = data.draw(st.sampled_from([*PLAYERS[:4], "", 5]))
    if data.draw(st.booleans()):
        command["cards"] = data.draw(st.lists(card, max_size=6))
    if data.draw(st.booleans()):
        command["player_dealer"] = data.draw(st.lists(card, max_size=3))
    if data.draw(st.booleans()):
        command["hands"] = {str(data.draw(st.integers(1, 8))): data.draw(st.lists(card, max_size=3))}
    if data.draw(st.booleans()):
        command["approved_by"] = data.draw(st.sampled_from(["", "SUP", None]))
        command["reason"] = data.draw(st.sampled_from(["", "jam", None]))
    return command


def valid_command(data, game: TableGame, seed: int) -> dict:
    cfg, rot, rnd = game.config, game.rotation, game.round
    occupied = sorted(game.occupants)
    empty = [s for s in range(1, cfg.seats + 1) if s not in game.occupants]
    free_players = [p for p in PLAYERS if p not in game.occupants.values()]
    options: list[tuple[int, object]] = []  # (weight, thunk)

    def add(weight, make):
        options.append((weight, make))

    if empty and free_players:
        add(2 if rnd is None and len(occupied) < 3 else 1, lambda: {
            "type": "sit", "seat": data.draw(st.sampled_from(empty)), "player": data.draw(st.sampled_from(free_players)),
        })  # fmt: skip
    if occupied and len(occupied) > 2:
        add(1, lambda: {"type": "leave", "seat": data.draw(st.sampled_from(occupied))})

    if rnd is None:
        if rot.offer_seat is not None:
            add(6, lambda: {"type": "accept_bank", "seat": rot.offer_seat})
            add(3, lambda: {"type": "decline_bank", "seat": rot.offer_seat})
        elif rot.pd_seat is None and occupied:
            add(6, lambda: {"type": "offer_bank", "seat": data.draw(st.sampled_from(occupied))})
        elif rot.pd_seat is not None:
            bank = st.one_of(st.sampled_from([1, 100, 500, 1000, 2500, 5000, 100000]), st.integers(1, 20000))
            add(10, lambda: {"type": "open_round", "bank": data.draw(bank)})
            add(1, lambda: {"type": "pass_bank"})
        return _pick(data, options)

    players = [s for s in occupied if s != rnd.pd_seat]
    add(1, lambda: {"type": "void_round", "reason": "test", "approved_by": "SUP-1"})
    if rnd.phase == "betting":
        if players:
            ante = st.sampled_from([1, 5, 100, 333, 500, 1000, 2500])
            trips = st.sampled_from([None, None, 0, 1, 100, 333, 1000])

            def make_wager():
                cmd = {"type": "wager", "seat": data.draw(st.sampled_from(players)), "ante": data.draw(ante)}
                t = data.draw(trips)
                if t is not None:
                    cmd["trips"] = t
                return cmd

            add(8, make_wager)
        if rnd.seats:
            add(1, lambda: {"type": "withdraw", "seat": data.draw(st.sampled_from(sorted(rnd.seats)))})
            add(6, lambda: {"type": "no_more_bets"})
        return _pick(data, options)

    owing = [s.seat for s in sorted(rnd.seats.values(), key=lambda s: s.seat) if s.owes_decision(rnd.phase)]
    if rnd.phase == "preflop" and not rnd.dealt and not rnd.decisions_made:

        def make_deal():
            if data.draw(st.booleans()):
                return {"type": "deal"}
            needed = 2 * len(rnd.seats) + 7
            return {"type": "deal", "cards": _cards_for_round(game, seed)[:needed]}

        add(8, make_deal)
    if rnd.phase in ("preflop", "flop", "river") and owing:
        multiples = {"preflop": ["check", 3, 4], "flop": ["check", 2], "river": [1, 1, "fold"]}[rnd.phase]

        def make_decision():
            seat = data.draw(st.sampled_from(owing))
            choice = data.draw(st.sampled_from(multiples))
            if choice in ("check", "fold"):
                return {"type": choice, "seat": seat}
            return {"type": "play", "seat": seat, "multiple": choice}

        add(12, make_decision)
    if rnd.phase in ("preflop", "flop") and not owing:
        count = 3 if rnd.phase == "preflop" else 2
        kind = "flop" if rnd.phase == "preflop" else "turn_river"

        def make_reveal():
            cmd = {"type": kind}
            if not rnd.dealt:
                cmd["cards"] = _cards_for_round(game, seed)[:count]
            elif data.draw(st.booleans()):
                cmd["cards"] = list(rnd.pending_community[:count])
            return cmd

        add(12, make_reveal)
    if rnd.phase == "river" and not owing:

        def make_showdown():
            if rnd.dealt:
                return {"type": "showdown"}
            fresh = _cards_for_round(game, seed)
            cmd = {"type": "showdown", "player_dealer": fresh[:2], "hands": {}}
            i = 2
            for s in sorted(rnd.seats.values(), key=lambda s: s.seat):
                if not s.folded or s.trips or data.draw(st.booleans()):
                    cmd["hands"][str(s.seat)] = fresh[i:i + 2]
                    i += 2
            return cmd

        add(12, make_showdown)
    if rnd.phase == "showdown":
        add(15, lambda: {"type": "settle"})
    return _pick(data, options)


def _pick(data, options):
    weights = [w for w, _ in options]
    point = data.draw(st.integers(0, sum(weights) - 1))
    for weight, make in options:
        if point < weight:
            return make()
        point -= weight
    raise AssertionError("unreachable")


# --- the property -----------------------------------------------------------------------------


class Checker:
    """Invariants over one command stream."""

    def __init__(self, config: TableConfig):
        self.limit = config.max_consecutive_banks
        self.banker, self.streak = None, 0
        self.last_deck = None
        self.fees = []
        self.settled = 0

    def at_limit(self, person) -> bool:
        return person == self.banker and self.streak >= self.limit

    def accepted(self, before: TableGame, command: dict, after: TableGame, result: dict, records: list):
        assert result["ok"] is True
        # the state is plain data that survives JSON
        assert TableGame.from_dict(json.loads(json.dumps(after.to_dict()))) == after
        kind = command.get("type")
        if kind == "accept_bank":
            assert not self.at_limit(before.occupants[command["seat"]]), "a person at the limit accepted"
        if kind == "no_more_bets":
            assert result["deck"] in ("A", "B")
            assert result["deck"] == ("B" if self.last_deck == "A" else "A")
            self.last_deck = result["deck"]
            self.fees = result["fees"]
            assert [f["seat"] for f in self.fees] == sorted(f["seat"] for f in self.fees)
        elif kind == "void_round":
            assert result["refunds"] == (self.fees if before.round.phase != "betting" else [])
            self.fees = []
        elif kind == "settle":
            self.check_settlement(before, result)
            self.fees = []
            # the run recorded with the round (the rotation log shows it) is the one counted here
            (settled,) = [r for r in records if isinstance(r, RoundSettled)]
            assert settled.consecutive_banks == self.streak
        # the person at the limit is never offered the bank (checked after settle's own update)
        for key in ("offer", "next_offer"):
            if result.get(key) is not None:
                assert not self.at_limit(after.occupants[result[key]]), f"{key} to a person at the limit"

    def check_settlement(self, before: TableGame, s: dict):
        self.settled += 1
        rnd = before.round
        bank, balance, pd_net = s["bank"], s["balance"], s["pd_net"]
        nets = {x["seat"]: x["net"] for x in s["seats"]}
        assert bank == rnd.bank
        assert sum(nets.values()) + pd_net == 0
        assert -bank <= pd_net <= bank
        assert 0 <= balance <= 2 * bank
        assert pd_net == balance - bank
        # regulatory order: seats clockwise from the PD's left; ante, play, blind, trips
        n, pd_seat = before.config.seats, s["player_dealer"]["seat"]
        assert pd_seat == rnd.pd_seat
        seat_order = [x["seat"] for x in s["seats"]]
        assert seat_order == sorted(rnd.seats, key=lambda seat: (seat - pd_seat) % n)
        keys = [(seat_order.index(line["seat"]), WAGER_ORDER.index(line["wager"])) for line in s["lines"]]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        # every line equals an independent computation
        lines, ref_nets, ref_balance, ref_exhausted = reference_settlement(before)
        got = [(x["seat"], x["wager"], x["stake"], x["result"], x["amount"], x["uncovered"]) for x in s["lines"]]
        assert got == lines
        assert nets == ref_nets
        assert (balance, s["exhausted"]) == (ref_balance, ref_exhausted)
        # fee refunds: the player fee of every seat whose wagers were all returned for want of bank
        dead = {
            seat
            for seat in seat_order
            if all(
                line["result"] == "no_action" or (line["result"] == "lose" and line["amount"] == 0)
                for line in s["lines"]
                if line["seat"] == seat
            )
        }
        expected = [{"seat": f["seat"], "amount": f["amount"]} for f in self.fees if f["payer"] == "player" and f["seat"] in dead]
        assert sorted(s["fee_refunds"], key=lambda r: r["seat"]) == sorted(expected, key=lambda r: r["seat"])
        # rotation: nobody banks more than the limit of consecutive settled rounds
        person = s["player_dealer"]["player"]
        self.streak = self.streak + 1 if person == self.banker else 1
        self.banker = person
        assert self.streak <= self.limit, f"{person} banked {self.streak} consecutive settled rounds"
        if self.streak == self.limit:
            assert s["player_dealer_next"] is None
        else:
            assert s["player_dealer_next"] == pd_seat and s["next_offer"] is None


@st.composite
def table_configs(draw):
    config = {
        "seats": draw(st.integers(2, 8)),
        "dealing": draw(st.sampled_from(["shoe", "shuffler", "community_first"])),
        "max_consecutive_banks": draw(st.sampled_from([1, 2])),
        "paytable": draw(st.sampled_from(PAYTABLES)),
    }
    fees = draw(st.sampled_from(FEE_SCHEDULES))
    if fees is not None:
        config["fee_schedule"] = fees
    return config


def run_stream(data, steps: int, junk_weight: int):
    config = TableConfig.from_config(data.draw(table_configs()))
    game = TableGame.new(config)
    checker = Checker(config)
    for step in range(steps):
        seed = (game.rounds_opened * 7919) ^ data.draw(st.integers(0, 3))
        if data.draw(st.integers(0, 99)) < junk_weight:
            command = junk_command(data)
        else:
            command = valid_command(data, game, seed)
        before = snapshot(game)
        try:
            new, result, records = game.apply(command, rng=random.Random(step))
        except CommandError:
            assert snapshot(game) == before, f"refused {command!r} changed the game"
            continue
        checker.accepted(game, command, new, result, records)
        assert snapshot(game) == before, "apply changed the original game"
        game = new
    return checker


@PROFILE
@given(st.data())
def test_random_command_streams(data):
    run_stream(data, steps=90, junk_weight=8)


@settings(PROFILE, max_examples=examples(40))
@given(st.data())
def test_random_command_streams_mostly_junk(data):
    run_stream(data, steps=40, junk_weight=60)


def test_streams_reach_settlements():
    """The generator is not vacuous: a fixed set of streams settles plenty of rounds."""
    total = []

    @settings(PROFILE, max_examples=12)  # a fixed count under every profile: the threshold below needs it
    @given(st.data())
    def count(data):
        total.append(run_stream(data, steps=90, junk_weight=8).settled)

    count()
    assert sum(total) >= 25, total

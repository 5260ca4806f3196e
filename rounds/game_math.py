"""The house edge each shipped pay table implies, and what a table's configuration costs
the player-dealer and each player per round (`manage.py game_math`, the supervisors'
"Expected results" page). Pure Python, no Django: the figures are exact arithmetic
(fractions of a cent) on the rules and on two committed inputs.

* Pairs: exact, over the 1,326 two-card hands (and, for a row that looks at the
  player-dealer's hole cards, over the player-dealer's 1,225 hands from the other 50 cards).
* Trips: exact, from the number of seven-card hands in each category.
* Bad Beat: exact, from the losing-hand distribution over all 2,781,381,002,400 ordered
  deals (every hand to showdown) that tools/compute_bad_beat_distribution.py enumerated
  once, offline, committed in game_math_data.json with its provenance (command, commit,
  machine, wall time). Any Bad Beat pay table's edge is a sum over that distribution. A
  seeded simulation with the engine's own evaluator can check it (`--hands`).
* The base game (Ante, Blind and Play): the published house edge under the standard
  optimal strategy, 2.185 % of the Ante, committed in the same file with its source. It is
  not recomputed here, so it holds for the standard Blind pay table only.
* A table: each player's expected loss to the player-dealer's bank is the sum of each wager
  times its edge; the player-dealer wins what the players lose (the house takes no share of
  any wager) and pays its collection fees, which the engine's own fee code assesses for the
  round (rounds/engine/fees.py), so any fee schedule's effect is exact.
"""

import json
import math
import random
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from pathlib import Path

from rounds.engine.cards import DECK
from rounds.engine.hands import evaluate
from rounds.engine.fees import PlayerWager, assess_fees
from rounds.engine.money import dollars
from rounds.engine.paytables import STANDARD_BLIND, STANDARD_TRIPS, Odds
from rounds.engine.sidebets import BAD_BEAT_TABLES, PAIRS_TABLES, bad_beat_payout, pairs_payout

# Seven-card hands (of C(52, 7) = 133,784,560) by the category of their best five cards:
# the standard enumeration (e.g. Wikipedia, "Poker probability", 7-card poker hands).
SEVEN_CARD_COUNTS = {
    "royal_flush": 4_324,
    "straight_flush": 37_260,
    "four_of_a_kind": 224_848,
    "full_house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three_of_a_kind": 6_461_620,
    "two_pair": 31_433_400,
    "one_pair": 58_627_800,
    "high_card": 23_294_460,
}
SEVEN_CARD_HANDS = math.comb(52, 7)
assert sum(SEVEN_CARD_COUNTS.values()) == SEVEN_CARD_HANDS

# The player's two, the player-dealer's two, the board's five.
ALL_DEALS = math.comb(52, 2) * math.comb(50, 2) * math.comb(48, 5)
DATA_FILE = Path(__file__).with_name("game_math_data.json")


def trips_edge(paytable: str | dict[str, Odds], stake: int | None = None) -> Fraction:
    """The house edge of a Trips pay table (a name or its odds): minus the expected return
    of the wager, as a share of it. With `stake` (cents), each pay is rounded down to the
    cent as the engine pays it (an X to Y pay on an odd stake)."""
    odds = STANDARD_TRIPS[paytable] if isinstance(paytable, str) else paytable
    expected = Fraction(0)
    for category, count in SEVEN_CARD_COUNTS.items():
        pay = odds.get(category)
        if pay is None:
            expected -= count
        elif stake is None:
            expected += count * Fraction(pay[0], pay[1])
        else:
            expected += count * Fraction(stake * pay[0] // pay[1], stake)
    return -expected / SEVEN_CARD_HANDS


def pairs_edge(paytable: str) -> Fraction:
    """The house edge of a Pairs pay table, exactly over every two-card hand."""
    return _pairs_edge(paytable)


@cache
def _pairs_edge(paytable: str) -> Fraction:
    expected = Fraction(0)
    for hole in combinations(DECK, 2):
        if hole[0][0] == hole[1][0] == "A":
            # The only row that looks at the player-dealer's cards: average over them.
            rest = [c for c in DECK if c not in hole]
            pays = [pairs_payout(paytable, 1, hole, pd) for pd in combinations(rest, 2)]
            expected += Fraction(sum(-1 if p is None else p for p in pays), len(pays))
        else:
            pay = pairs_payout(paytable, 1, hole, None)
            expected += -1 if pay is None else pay
    return -expected / math.comb(52, 2)


# --- the committed inputs --------------------------------------------------------------------


@cache
def game_math_data() -> dict:
    """game_math_data.json: the Bad Beat distribution (with the offline run's provenance)
    and the base game's published edge (with its source)."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    bad_beat = data["bad_beat"]
    assert "partial" not in bad_beat["provenance"], "a timing run's counts, not the distribution"
    assert bad_beat["deals"] == ALL_DEALS
    assert sum(bad_beat["losing_hand"].values()) + bad_beat["ties"] == ALL_DEALS
    assert sum(bad_beat["ties_by_hand"].values()) == bad_beat["ties"]
    return data


def bad_beat_distribution() -> dict:
    """The committed losing-hand distribution: ordered deals by the category of the losing
    hand (`losing_hand`), and the tied deals (`ties`), every hand played to showdown."""
    return game_math_data()["bad_beat"]


def bad_beat_edge(paytable: str | dict[str, int]) -> Fraction:
    """A Bad Beat pay table's exact house edge (a name or its X-to-1 pays by losing hand):
    the bet wins X to 1 when the losing hand is one the table pays, and loses otherwise,
    a tie included (game-rules 10.1), every hand to showdown."""
    table = BAD_BEAT_TABLES[paytable] if isinstance(paytable, str) else paytable
    data = bad_beat_distribution()
    expected = -data["ties"]
    for category, count in data["losing_hand"].items():
        expected += count * table[category] if category in table else -count
    return Fraction(-expected, data["deals"])


def bad_beat_hit_frequency(paytable: str = "BBB-01") -> Fraction:
    """The share of deals on which a Bad Beat pay table pays (every shipped one pays from a
    losing three of a kind up, so they share it)."""
    data = bad_beat_distribution()
    paid = BAD_BEAT_TABLES[paytable]
    return Fraction(sum(n for c, n in data["losing_hand"].items() if c in paid), data["deals"])


def base_game_edge() -> Fraction:
    """The base game's house edge (Ante, Blind and Play together), as a share of the Ante,
    under the standard optimal strategy and the standard Blind pay table: the published
    figure, committed with its source (game_math_data.json "base_game")."""
    return Fraction(game_math_data()["base_game"]["house_edge_of_ante"])


# The exact figures, as the simulation check and older callers name them: computed from
# the committed distribution, never typed in.
EXACT_BAD_BEAT_EDGES = {name: float(bad_beat_edge(name)) for name in sorted(BAD_BEAT_TABLES)}
EXACT_BAD_BEAT_HIT_FREQUENCY = float(bad_beat_hit_frequency())


# --- a simulated check of the Bad Beat figures ------------------------------------------------


@dataclass(frozen=True)
class Simulated:
    edge: float  # house edge, as a fraction
    half_width: float  # of its 95% confidence interval
    hit_frequency: float  # share of hands the bet wins


def bad_beat_edges(hands: int, seed: int) -> dict[str, Simulated]:
    """Every Bad Beat pay table's edge on the same `hands` seeded random deals, every hand
    to showdown (the player never folds)."""
    rng = random.Random(seed)
    names = sorted(BAD_BEAT_TABLES)
    total = dict.fromkeys(names, 0)
    squares = dict.fromkeys(names, 0)
    hits = 0
    deck = list(DECK)
    for _ in range(hands):
        cards = rng.sample(deck, 9)
        board = tuple(cards[4:])
        player, pd = evaluate(tuple(cards[:2]) + board), evaluate(tuple(cards[2:4]) + board)
        beats, loses = player > pd, player < pd
        won = False
        for name in names:
            pay = bad_beat_payout(name, 1, player.category, pd.category, beats, loses)
            net = -1 if pay is None else pay
            won = won or pay is not None
            total[name] += net
            squares[name] += net * net
        hits += won
    out = {}
    for name in names:
        mean = total[name] / hands
        variance = squares[name] / hands - mean * mean
        out[name] = Simulated(-mean, 1.96 * math.sqrt(variance / hands), hits / hands)
    return out


# --- how figures are written ------------------------------------------------------------------


def percent(value) -> str:
    return f"{float(value) * 100:.2f}%"


def percent3(value) -> str:
    """An edge to three decimals, as the published figures are given (2.185%)."""
    return f"{float(value) * 100:.3f}%"


def to_cent(value: Fraction) -> int:
    """An exact amount rounded to the nearest cent, halves away from zero."""
    whole = math.floor(abs(value) + Fraction(1, 2))
    return whole if value >= 0 else -whole


def money(value: Fraction) -> str:
    """An expected amount in dollars, to the cent (the exact fraction stays behind it)."""
    return dollars(to_cent(value))


def report(hands: int = 0, seed: int = 2026) -> list[str]:
    """The pay tables' lines `manage.py game_math` prints; `hands` > 0 adds the Bad Beat
    simulation check."""
    base = game_math_data()["base_game"]
    out = [
        "Base game (Ante, Blind and Play, standard optimal strategy, standard Blind pay table):",
        f"  house edge {percent3(base_game_edge())} of the Ante (published: {base['source']})",
        "Trips (exact, from the seven-card category counts):",
    ]
    out += [f"  {name}: house edge {percent(trips_edge(name))}" for name in sorted(STANDARD_TRIPS)]
    out.append("Ultimate Pairs Bonus (exact, over the 1,326 two-card hands):")
    out += [f"  {name}: house edge {percent(pairs_edge(name))}" for name in sorted(PAIRS_TABLES)]
    prov = bad_beat_distribution()["provenance"]
    out.append(
        f"Bad Beat Bonus (exact, every hand to showdown, from the committed losing-hand distribution of all "
        f"{ALL_DEALS:,} deals: {prov['script']}, {prov['wall_seconds']:,} s on {prov['machine']}):"
    )
    out += [f"  {name}: house edge {percent3(bad_beat_edge(name))}" for name in sorted(BAD_BEAT_TABLES)]
    out.append(f"  hit frequency {float(bad_beat_hit_frequency()) * 100:.5f}%")
    if hands > 0:
        out.append(f"Bad Beat Bonus (simulated check: {hands:,} hands to showdown, seed {seed}; 95% confidence interval):")
        for name, sim in bad_beat_edges(hands, seed).items():
            low, high = sim.edge - sim.half_width, sim.edge + sim.half_width
            out.append(
                f"  {name}: house edge {percent(sim.edge)} ({percent(low)} to {percent(high)}; exact "
                f"{EXACT_BAD_BEAT_EDGES[name] * 100:.3f}%), hit frequency {percent(sim.hit_frequency)} "
                f"(exact {EXACT_BAD_BEAT_HIT_FREQUENCY * 100:.5f}%)"
            )
    return out


# --- what a table's configuration costs, per round --------------------------------------------

DEFAULT_ANTE = 500  # a table with no posted minimum: figures for a $5 Ante (as its presets)


class WagerError(ValueError):
    """Wagers a table would refuse (the message is a sentence for a person)."""


@dataclass(frozen=True)
class Wagers:
    """What each player bets a round, in cents: the Ante (and an equal Blind), Trips, and
    the side bets the player-dealer banks. The progressive is left out: it is never the
    player-dealer's, and what it returns depends on its meter."""

    ante: int
    trips: int = 0
    bad_beat: int = 0
    pairs: int = 0


def wagers_for(config, ante: int | None = None, trips: int = 0, bad_beat: int = 0, pairs: int = 0) -> Wagers:
    """The wagers asked, checked against the table's configuration (rounds.engine.config.
    TableConfig); the Ante defaults to the table's minimum."""
    limits, side = config.limits, config.side_bets
    ante = (limits.ante_min or DEFAULT_ANTE) if ante is None else ante
    if any(type(x) is not int or x < 0 for x in (ante, trips, bad_beat, pairs)) or ante == 0:
        raise WagerError("Amounts are whole cents, and the Ante is more than zero.")
    if (limits.ante_min and ante < limits.ante_min) or (limits.ante_max and ante > limits.ante_max):
        raise WagerError("That Ante is outside the table's limits.")
    if trips and ((limits.trips_min and trips < limits.trips_min) or (limits.trips_max and trips > limits.trips_max)):
        raise WagerError("That Trips wager is outside the table's limits.")
    for amount, banked, name in ((bad_beat, side.bad_beat, "Bad Beat"), (pairs, side.pairs, "Pairs")):
        if not amount:
            continue
        if banked is None:
            raise WagerError(f"This table does not offer {name}.")
        if (banked.min and amount < banked.min) or (banked.max and amount > banked.max):
            raise WagerError(f"That {name} wager is outside the table's limits.")
    if bad_beat and not trips:
        raise WagerError("A Bad Beat wager needs a Trips wager at the same seat.")
    return Wagers(ante, trips, bad_beat, pairs)


@dataclass(frozen=True)
class Edges:
    """The house edge of each wager at a table, as a share of the wager (None: not known,
    for the base game under a custom Blind pay table)."""

    base: Fraction | None
    trips: Fraction
    bad_beat: Fraction | None
    pairs: Fraction | None
    trips_table: str
    bad_beat_table: str | None
    pairs_table: str | None


def table_edges(config, wagers: Wagers | None = None) -> Edges:
    paytable, side = config.paytable, config.side_bets
    trips_stake = wagers.trips if wagers and wagers.trips else None
    return Edges(
        base=base_game_edge() if paytable.blind == STANDARD_BLIND else None,
        trips=trips_edge(paytable.trips, trips_stake),
        bad_beat=bad_beat_edge(side.bad_beat.paytable) if side.bad_beat else None,
        pairs=pairs_edge(side.pairs.paytable) if side.pairs else None,
        trips_table=paytable.name,
        bad_beat_table=side.bad_beat.paytable if side.bad_beat else None,
        pairs_table=side.pairs.paytable if side.pairs else None,
    )


@dataclass(frozen=True)
class RoundFigures:
    """Expected amounts per round, in cents (exact fractions), with `players` players each
    betting the same wagers against the player-dealer."""

    players: int
    player_to_bank: Fraction  # one player's expected loss to the player-dealer's bank
    player_fee: int  # one player's collection fee
    pd_fee: int  # the player-dealer's collection fee

    @property
    def player_cost(self) -> Fraction:
        return self.player_to_bank + self.player_fee

    @property
    def pd_from_players(self) -> Fraction:
        """What the player-dealer's bank expects to win: every player's expected loss."""
        return self.players * self.player_to_bank

    @property
    def pd_result(self) -> Fraction:
        return self.pd_from_players - self.pd_fee


@dataclass(frozen=True)
class TableMath:
    wagers: Wagers
    edges: Edges
    rows: tuple[RoundFigures, ...]  # 1 player, 2 players, ... every seat but the player-dealer's


def player_expected_loss(edges: Edges, wagers: Wagers) -> Fraction:
    """One player's expected loss to the player-dealer's bank in a round (cents)."""
    if edges.base is None:
        raise WagerError("The base game's edge is known for the standard Blind pay table only.")
    loss = wagers.ante * edges.base + wagers.trips * edges.trips
    if wagers.bad_beat:
        loss += wagers.bad_beat * edges.bad_beat
    if wagers.pairs:
        loss += wagers.pairs * edges.pairs
    return loss


def round_fees(config, wagers: Wagers, players: int) -> tuple[int, int]:
    """(one player's fee, the player-dealer's fee) for a round of `players` players with
    these wagers, as the engine assesses it at "no more bets"."""
    bets = [PlayerWager(seat, f"P-{seat}", wagers.ante, wagers.ante, wagers.trips, wagers.bad_beat, wagers.pairs)
            for seat in range(2, players + 2)]
    lines = assess_fees(config.fee_schedule, pd_seat=1, pd_player="PD", wagers=bets)
    player = next((line.amount for line in lines if line.payer == "player"), 0)
    return player, sum(line.amount for line in lines if line.payer == "player_dealer")


def table_math(config, wagers: Wagers) -> TableMath:
    """A table's configuration (rounds.engine.config.TableConfig) against 1 to seats - 1
    players who each bet `wagers` and play the standard optimal strategy; the bank covers
    every wager (no exhaustion, so no dead-hand fee refund)."""
    edges = table_edges(config, wagers)
    loss = player_expected_loss(edges, wagers)
    rows = []
    for players in range(1, config.seats):
        player_fee, pd_fee = round_fees(config, wagers, players)
        rows.append(RoundFigures(players, loss, player_fee, pd_fee))
    return TableMath(wagers, edges, tuple(rows))


def wagers_text(wagers: Wagers) -> str:
    parts = [f"Ante {dollars(wagers.ante)} and Blind {dollars(wagers.ante)}"]
    parts += [f"{name} {dollars(amount)}" for name, amount in
              (("Trips", wagers.trips), ("Bad Beat", wagers.bad_beat), ("Pairs", wagers.pairs)) if amount]
    return ", ".join(parts)


def edges_text(edges: Edges, wagers: Wagers) -> list[str]:
    lines = [f"base game {percent3(edges.base)} of the Ante" if edges.base is not None
             else "base game: not known (a custom Blind pay table; the published figure is for the standard one)"]
    if wagers.trips:
        lines.append(f"Trips ({edges.trips_table}) {percent3(edges.trips)}")
    if wagers.bad_beat:
        lines.append(f"Bad Beat ({edges.bad_beat_table}) {percent3(edges.bad_beat)}, every hand to showdown")
    if wagers.pairs:
        lines.append(f"Pairs ({edges.pairs_table}) {percent3(edges.pairs)}")
    return lines


def table_report(name: str, config, wagers: Wagers) -> list[str]:
    """The lines `manage.py game_math --table` prints for one table."""
    figures = table_math(config, wagers)
    out = [
        f"{name}: {config.seats} seats, pay table {config.paytable.name}; each player bets {wagers_text(wagers)}",
        "  house edge: " + "; ".join(edges_text(figures.edges, wagers)),
        "  expected per round, amounts rounded to the cent (+ the player-dealer wins, - loses):",
    ]
    for row in figures.rows:
        out.append(
            f"  {row.players} player{'s' if row.players > 1 else ' '}: player-dealer {money(row.pd_result):>8} "
            f"(wins {money(row.pd_from_players)} from the players, pays {dollars(row.pd_fee)} in fees); "
            f"each player's cost {money(row.player_cost)} "
            f"({money(row.player_to_bank)} to the bank, {dollars(row.player_fee)} in fees)"
        )
    return out


def pd_results_line(name: str, config, wagers: Wagers) -> str:
    """One line: the player-dealer's expected result per round against 1, 2, ... players."""
    figures = table_math(config, wagers)
    results = ", ".join(f"{money(row.pd_result)} ({row.players})" for row in figures.rows)
    return f"  {name}, {wagers_text(wagers)}: {results}"


def minimum_side_wagers(config, ante: int | None = None) -> Wagers | None:
    """Trips and every side bet the player-dealer banks at the table's minimum (Trips $1
    where none is posted), or None when the table offers neither Bad Beat nor Pairs."""
    side = config.side_bets
    if side.bad_beat is None and side.pairs is None:
        return None
    trips = config.limits.trips_min or 100
    return wagers_for(config, ante, trips=trips,
                      bad_beat=(side.bad_beat.min or trips) if side.bad_beat else 0,
                      pairs=(side.pairs.min or 100) if side.pairs else 0)

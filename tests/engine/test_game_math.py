"""`manage.py game_math`: the house edges of the shipped pay tables, from the engine's own
tables, against the figures reference 002 and game-rules sections 6 and 10 publish; the
Bad Beat figures from the committed distribution (tools/compute_bad_beat_distribution.py);
what a table's configuration costs the player-dealer and each player per round."""

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

from rounds import game_math
from rounds.engine.config import TableConfig
from tables.management.commands.seed_demo import DEMO_TABLES

# Published house edges (game-rules 10.2 for Pairs; the Trips tables' standard figures).
PAIRS = {"UPB-1": "8.90%", "UPB-2": "8.54%", "UPB-3": "4.52%", "UPB-4": "4.68%", "UPB-5": "4.90%", "UPB-6": "6.79%"}
TRIPS = {"UTH-01": "0.90%", "UTH-02": "1.90%", "UTH-03": "3.50%", "UTH-04": "6.18%"}
BAD_BEAT = {"BBB-01": 0.202, "BBB-02": 0.146, "BBB-03": 0.165}  # game-rules 10.1, reference 002
BAD_BEAT_HIT_FREQUENCY = 0.039


@pytest.mark.parametrize("paytable,published", sorted(PAIRS.items()))
def test_pairs_edges_are_exactly_the_published_ones(paytable, published):
    assert game_math.percent(game_math.pairs_edge(paytable)) == published


def test_pairs_edge_is_exact_arithmetic():
    # UPB-1 by hand: the winning two-card hands return 1082 units, the 1,200 others lose.
    assert game_math.pairs_edge("UPB-1") == game_math.Fraction(118, 1326)


@pytest.mark.parametrize("paytable,published", sorted(TRIPS.items()))
def test_trips_edges_are_exactly_the_published_ones(paytable, published):
    assert game_math.percent(game_math.trips_edge(paytable)) == published


HANDS = 400_000


def test_bad_beat_simulation_agrees_with_the_exact_figures():
    """The engine's Bad Beat pay tables, simulated, against the exact enumeration
    (game_math.EXACT_*): each edge within its 95 % interval, and the hit frequency within
    a proportion's. The sample is large enough that losing straight flushes (the 10,000
    to 1 pay, which dominates the variance) appear: without one, BBB-02 and BBB-03 would
    come out the same."""
    simulated = game_math.bad_beat_edges(HANDS, seed=7)
    for name, exact in game_math.EXACT_BAD_BEAT_EDGES.items():
        sim = simulated[name]
        assert abs(sim.edge - exact) <= sim.half_width, (name, sim, exact)
        assert 0 < sim.half_width < 0.06  # the interval says something
    assert simulated["BBB-02"].edge != simulated["BBB-03"].edge
    p = game_math.EXACT_BAD_BEAT_HIT_FREQUENCY
    hit = simulated["BBB-01"].hit_frequency
    assert abs(hit - p) <= 1.96 * math.sqrt(p * (1 - p) / HANDS), hit  # about +-0.06 points


def test_the_published_bad_beat_figures_against_the_exact_ones():
    """What the docs say of reference 002's figures: its 3.9 % is the exact hit frequency
    cut to one decimal, and its edges sit 0.14 to 0.19 points below the exact ones."""
    assert math.floor(game_math.EXACT_BAD_BEAT_HIT_FREQUENCY * 1000) / 1000 == BAD_BEAT_HIT_FREQUENCY
    for name, published in BAD_BEAT.items():
        assert 0.0013 <= game_math.EXACT_BAD_BEAT_EDGES[name] - published <= 0.0019, name


# --- the committed inputs ----------------------------------------------------------------------

# The Bad Beat pays (X to 1) by losing hand, typed from game-rules 10.1 (not read from the engine).
BBB_PAYS = {
    "BBB-01": {"straight_flush": 10_000, "four_of_a_kind": 500, "full_house": 40, "flush": 25, "straight": 20, "three_of_a_kind": 9},
    "BBB-02": {"straight_flush": 7_500, "four_of_a_kind": 500, "full_house": 50, "flush": 30, "straight": 20, "three_of_a_kind": 9},
    "BBB-03": {"straight_flush": 2_500, "four_of_a_kind": 500, "full_house": 50, "flush": 30, "straight": 20, "three_of_a_kind": 9},
}
# An independent exact enumeration of the same 2,781,381,002,400 deals, published with its
# BBB-02 edge of 14.7868 % (S. How, "Bad Beat Bonus @ Ultimate Texas Hold'Em",
# discountgambling.net, 8 June 2012): deals by the losing hand, and the ties ("push").
PUBLISHED_LOSING_HANDS = {
    "straight_flush": 10_300_592, "four_of_a_kind": 471_040_512, "full_house": 8_435_225_376,
    "flush": 19_434_208_592, "straight": 18_271_076_976, "three_of_a_kind": 64_049_759_448,
    "two_pair": 399_099_149_640, "one_pair": 1_366_512_556_968, "high_card": 791_967_420_480,
}
PUBLISHED_TIES = 113_130_263_816


def test_the_base_game_is_the_published_2_185_percent_of_the_ante_with_its_source():
    assert game_math.base_game_edge() == Fraction(2185, 100_000)
    assert game_math.percent3(game_math.base_game_edge()) == "2.185%"
    assert "wizardofodds.com" in game_math.game_math_data()["base_game"]["source"]


@pytest.mark.parametrize("paytable,edge", [("BBB-01", "20.387%"), ("BBB-02", "14.787%"), ("BBB-03", "16.639%")])
def test_the_bad_beat_edges_are_computed_exactly_from_the_committed_distribution(paytable, edge):
    data = game_math.bad_beat_distribution()
    pays = BBB_PAYS[paytable]
    returned = sum(n * pays.get(hand, -1) for hand, n in data["losing_hand"].items()) - data["ties"]
    assert game_math.bad_beat_edge(paytable) == Fraction(-returned, 2_781_381_002_400)
    assert game_math.percent3(game_math.bad_beat_edge(paytable)) == edge
    assert f"{game_math.EXACT_BAD_BEAT_EDGES[paytable] * 100:.3f}%" == edge


def test_the_committed_distribution_is_every_deal_and_agrees_with_an_independent_enumeration():
    data = game_math.bad_beat_distribution()
    assert data["deals"] == math.comb(52, 2) * math.comb(50, 2) * math.comb(48, 5) == 2_781_381_002_400
    assert data["losing_hand"] == PUBLISHED_LOSING_HANDS
    assert data["ties"] == PUBLISHED_TIES
    assert f"{float(game_math.bad_beat_hit_frequency()) * 100:.5f}%" == "3.97902%"
    # Each hand's own category over all deals is the standard seven-card count (21 ways to
    # split seven cards into hole cards and a board).
    for hand, n in data["own_hand"].items():
        count = game_math.SEVEN_CARD_COUNTS[hand] + (game_math.SEVEN_CARD_COUNTS["royal_flush"] if hand == "straight_flush" else 0)
        assert n == 21 * count, hand


def test_the_committed_distribution_and_the_scripts_header_say_how_long_it_ran_and_on_what():
    provenance = game_math.bad_beat_distribution()["provenance"]
    assert provenance["script"] == "tools/compute_bad_beat_distribution.py"
    assert re.fullmatch(r"[0-9a-f]{40}", provenance["commit"])
    assert provenance["command"].startswith("python tools/compute_bad_beat_distribution.py")
    assert provenance["board_classes"] == 134_459 and "partial" not in provenance
    header = (Path(__file__).resolve().parents[2] / provenance["script"]).read_text().split('"""')[1]
    assert f"{provenance['wall_seconds']} s of wall time" in header
    assert provenance["commit"][:7] in header and "two-CPU x86_64 Linux" in header


# --- a table's expected results --------------------------------------------------------------


def _demo(name: str) -> TableConfig:
    return TableConfig.from_config(DEMO_TABLES[name][0])


def test_a_demo_tables_player_dealer_expects_what_a_hand_calculation_gives():
    # Demo UTH-1: $5 Ante and Blind (its minimum); $1 a player and $1 a betting square to the
    # player-dealer (the rate from $5 to $25). A player loses 2.185 % of $5 to the bank.
    config = _demo("Demo UTH-1")
    figures = game_math.table_math(config, game_math.wagers_for(config))
    assert [row.players for row in figures.rows] == [1, 2, 3, 4, 5]
    for row in figures.rows:
        n = row.players
        assert row.pd_result == n * Fraction(500 * 2185, 100_000) - n * 100  # -89.075 cents a player
        assert row.player_cost == Fraction(500 * 2185, 100_000) + 100
    assert game_math.money(figures.rows[4].pd_result) == "-$4.45"


def test_a_demo_table_with_side_bets_adds_each_wagers_exact_edge():
    # Demo UTH-2 with Trips, Bad Beat and Pairs at $1 each: Trips UTH-02 from the seven-card
    # counts, Bad Beat BBB-01 from the distribution, Pairs UPB-1 118/1326 (the test above).
    config = _demo("Demo UTH-2")
    wagers = game_math.wagers_for(config, trips=100, bad_beat=100, pairs=100)
    counts = game_math.SEVEN_CARD_COUNTS
    uth02 = {"royal_flush": 50, "straight_flush": 40, "four_of_a_kind": 30, "full_house": 8, "flush": 6,
             "straight": 5, "three_of_a_kind": 3}
    trips = -Fraction(sum(n * uth02.get(hand, -1) for hand, n in counts.items()), math.comb(52, 7))
    data = game_math.bad_beat_distribution()
    bad_beat = -Fraction(sum(n * BBB_PAYS["BBB-01"].get(h, -1) for h, n in data["losing_hand"].items()) - data["ties"],
                         data["deals"])
    loss = Fraction(500 * 2185, 100_000) + 100 * trips + 100 * bad_beat + 100 * Fraction(118, 1326)
    figures = game_math.table_math(config, wagers)
    assert [row.pd_result for row in figures.rows] == [n * loss - n * 100 for n in range(1, 6)]
    assert figures.rows[0].player_fee == 100  # the fee is on the Ante alone at the demo tables


def test_a_fee_on_the_total_table_action_paid_by_the_player_dealer_only():
    config = TableConfig.from_config({"seats": 5, "paytable": "UTH-01", "fee_schedule": {
        "payers": "pd_only", "pd_basis": "total_table_action",
        "rates": [{"min": 0, "max": 1000, "player_fee": 100, "pd_fee": 100},
                  {"min": 1001, "max": 5000, "player_fee": 100, "pd_fee": 300}]}})
    rows = game_math.table_math(config, game_math.wagers_for(config, ante=500)).rows
    assert [row.pd_fee for row in rows] == [100, 100, 300, 300]  # $5, $10, $15, $20 of Antes
    assert [row.player_fee for row in rows] == [0, 0, 0, 0]
    assert rows[2].pd_result == 3 * Fraction(500 * 2185, 100_000) - 300


@pytest.mark.parametrize("asked,refusal", [
    ({"bad_beat": 100}, "A Bad Beat wager needs a Trips wager at the same seat."),
    ({"ante": 100}, "That Ante is outside the table's limits."),
    ({"trips": 50}, "That Trips wager is outside the table's limits."),
])
def test_wagers_a_table_would_refuse_are_refused_in_words(asked, refusal):
    with pytest.raises(game_math.WagerError, match=re.escape(refusal)):
        game_math.wagers_for(_demo("Demo UTH-2"), **asked)
    with pytest.raises(game_math.WagerError, match="does not offer Pairs"):
        game_math.wagers_for(_demo("Demo UTH-1"), trips=100, pairs=100)


def test_a_custom_blind_pay_table_has_no_published_base_game_edge():
    config = TableConfig.from_config({"seats": 3, "paytable": {"blind": {"royal_flush": [100, 1]}}})
    with pytest.raises(game_math.WagerError, match="standard Blind pay table only"):
        game_math.table_math(config, game_math.wagers_for(config))


def test_the_command_prints_every_shipped_pay_table_and_each_demo_tables_player_dealer(capsys):
    from django.core.management import call_command

    call_command("game_math", "--hands", "2000", "--seed", "1")
    out = capsys.readouterr().out
    for name, figure in {**PAIRS, **TRIPS}.items():
        assert f"{name}: house edge {figure}" in out
    assert "house edge 2.185% of the Ante" in out
    for name, edge in (("BBB-01", "20.387%"), ("BBB-02", "14.787%"), ("BBB-03", "16.639%")):
        assert f"{name}: house edge {edge}" in out
    assert "hit frequency 3.97902%" in out
    assert "simulated check: 2,000 hands" in out
    for name in DEMO_TABLES:
        assert f"  {name}, Ante $5.00 and Blind $5.00: -$0.89 (1), -$1.78 (2)" in out
    assert "Demo UTH-2, Ante $5.00 and Blind $5.00, Trips $1.00, Bad Beat $1.00, Pairs $1.00: -$0.58 (1)" in out

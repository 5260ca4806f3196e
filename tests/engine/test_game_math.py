"""`manage.py game_math`: the house edges of the shipped pay tables, from the engine's own
tables, against the figures reference 002 and game-rules sections 6 and 10 publish."""

import math

import pytest

from rounds import game_math

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


def test_the_command_prints_every_shipped_pay_table(capsys):
    from django.core.management import call_command

    call_command("game_math", "--hands", "2000", "--seed", "1")
    out = capsys.readouterr().out
    for name, figure in {**PAIRS, **TRIPS}.items():
        assert f"{name}: house edge {figure}" in out
    assert all(f"{name}: house edge" in out for name in BAD_BEAT)

"""`manage.py game_math`: the house edges of the shipped pay tables, from the engine's own
tables, against the figures reference 002 and game-rules sections 6 and 10 publish."""

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


def test_bad_beat_published_edges_lie_in_the_simulations_confidence_interval():
    simulated = game_math.bad_beat_edges(400_000, seed=7)
    for name, published in BAD_BEAT.items():
        sim = simulated[name]
        assert abs(sim.edge - published) <= sim.half_width, (name, sim, published)
        assert 0 < sim.half_width < 0.06  # the interval says something
    # The hit frequency is a plain proportion with a tight interval (about +-0.06 points
    # here; 4.0003% on 2,000,000 hands). Reference 002 prints 3.9%: a tenth of a point
    # below ours, a gap we have not explained (the note of issue 10 says so). The bound
    # holds the simulated figure to within 0.15 points above the published one, so a
    # change to the Bad Beat rule that moves the hit frequency fails here.
    hit = simulated["BBB-01"].hit_frequency
    assert BAD_BEAT_HIT_FREQUENCY <= hit < BAD_BEAT_HIT_FREQUENCY + 0.0015


def test_the_command_prints_every_shipped_pay_table(capsys):
    from django.core.management import call_command

    call_command("game_math", "--hands", "2000", "--seed", "1")
    out = capsys.readouterr().out
    for name, figure in {**PAIRS, **TRIPS}.items():
        assert f"{name}: house edge {figure}" in out
    assert all(f"{name}: house edge" in out for name in BAD_BEAT)

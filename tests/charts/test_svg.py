"""The inline SVG bar chart (cardroom/charts.py): heights in proportion to the values,
negatives below the zero line, zeros as no bar, an empty series as an empty frame, and
the numbers spelled out in dollars for screen readers."""

import re

import pytest
from hypothesis import given, strategies as st

from cardroom.charts import HEIGHT, bar_chart, bar_geometry, dollars

cents = st.integers(min_value=-10**9, max_value=10**9)


@given(st.lists(cents, min_size=1, max_size=30))
def test_bar_heights_are_proportional_to_the_values(values):
    zero_y, bars = bar_geometry(values)
    assert len(bars) == len(values)
    peak = max(abs(v) for v in values)
    tallest = max(bar["height"] for bar in bars)
    for bar, value in zip(bars, values):
        # Every bar uses the same units per cent: height / |value| is one constant.
        if peak:
            assert bar["height"] * peak == pytest.approx(tallest * abs(value), rel=1e-9, abs=1e-6)
        if value == 0:
            assert bar["height"] == 0
        elif value > 0:
            assert bar["y"] + bar["height"] == pytest.approx(zero_y)  # stands on the zero line
        else:
            assert bar["y"] == pytest.approx(zero_y)  # hangs from it
        assert -1e-6 <= bar["y"] and bar["y"] + bar["height"] <= HEIGHT + 1e-6


@given(st.lists(cents, min_size=1, max_size=30))
def test_the_chart_fills_its_height_between_the_largest_rise_and_fall(values):
    zero_y, bars = bar_geometry(values)
    if any(values):
        top = min(bar["y"] for bar in bars)
        bottom = max(bar["y"] + bar["height"] for bar in bars)
        assert top == pytest.approx(0, abs=1e-6) or bottom == pytest.approx(HEIGHT)
        assert bottom - top == pytest.approx(HEIGHT)


def test_negative_values_hang_below_and_positive_stand_above():
    zero_y, bars = bar_geometry([300, -100], height=40)
    assert zero_y == 30  # 3/4 of the height for the rise, 1/4 for the fall
    assert (bars[0]["y"], bars[0]["height"]) == (0, 30)
    assert (bars[1]["y"], bars[1]["height"]) == (30, 10)
    svg = bar_chart([300, -100], ["Mon", "Tue"], title="Variance")
    assert svg.count('class="neg"') == 1 and svg.count('class="pos"') == 1


def test_all_zero_series_draws_no_bar_height():
    zero_y, bars = bar_geometry([0, 0, 0])
    assert zero_y == HEIGHT and [bar["height"] for bar in bars] == [0, 0, 0]
    svg = bar_chart([0, 5, 0], ["a", "b", "c"], title="Rounds", money=False)
    assert svg.count('<rect class="zero"') == 2 and svg.count('<rect class="pos"') == 1


def test_empty_series_is_an_empty_frame_that_says_so():
    assert bar_geometry([]) == (HEIGHT, [])
    svg = bar_chart([], [], title="Fees")
    assert "<rect" not in svg
    assert 'aria-label="Fees. no data"' in svg


def test_the_numbers_are_spelled_out_in_dollars():
    svg = bar_chart([123456, -250, 0], ["11-01", "11-02", "11-03"], title="Fees <UTH-1>")
    label = re.search(r'aria-label="([^"]*)"', svg).group(1)
    assert label == "Fees &lt;UTH-1&gt;. 11-01: $1,234.56; 11-02: -$2.50; 11-03: $0.00"
    assert f"<title>{label}</title>" in svg
    assert "<title>11-02: -$2.50</title>" in svg
    assert 'role="img"' in svg


def test_counts_are_not_money():
    svg = bar_chart([12, 7], ["14:00", "15:00"], title="Rounds per hour", money=False)
    assert "14:00: 12; 15:00: 7" in svg


def test_a_label_per_value_is_required():
    with pytest.raises(ValueError):
        bar_chart([1, 2], ["one"], title="x")


def test_dollars():
    assert (dollars(0), dollars(5), dollars(-123456789)) == ("$0.00", "$0.05", "-$1,234,567.89")

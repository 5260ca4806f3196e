"""Properties of the count's arithmetic and thresholds, for any input (no database)."""

import pytest
from django.conf import settings
from django.test import override_settings
from hypothesis import example, given
from hypothesis import strategies as st

from collections_fees.counts import CountError, counted_total, variance_requires

DENOMINATIONS = settings.CARDROOM_COUNT_DENOMINATIONS


@given(st.dictionaries(st.sampled_from(DENOMINATIONS), st.integers(min_value=0, max_value=10**6)))
def test_the_total_is_the_sum_of_pieces_times_denomination(pieces):
    clean, total = counted_total({str(d): n for d, n in pieces.items()})
    assert total == sum(d * n for d, n in pieces.items())
    assert clean == {str(d): n for d, n in pieces.items() if n}


@given(st.integers(min_value=1, max_value=10**9).filter(lambda c: c not in DENOMINATIONS), st.integers(0, 10))
def test_an_unknown_denomination_is_refused(cents, pieces):
    with pytest.raises(CountError) as refused:
        counted_total({str(cents): pieces})
    assert refused.value.code == "invalid_input"


@given(st.one_of(st.integers(max_value=-1), st.floats(allow_nan=True), st.text(max_size=3), st.booleans()))
def test_pieces_are_whole_non_negative_numbers(pieces):
    with pytest.raises(CountError):
        counted_total({"100": pieces})


# Random integers almost never land on a threshold, where "above" and "at or above"
# differ: each threshold and a cent either side are always tried (and each threshold the
# other way), under thresholds pinned here so that the examples sit on them whatever the
# environment configures.
@given(st.integers(min_value=-10**7, max_value=10**7))
@example(2499)
@example(2500)
@example(-2500)
@example(2501)
@example(9999)
@example(10000)
@example(-10000)
@example(10001)
@override_settings(CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS=2500, CARDROOM_COUNT_ESCALATE_ABOVE_CENTS=10000)
def test_a_variance_is_judged_by_its_size_either_way_and_escalation_implies_explanation(variance):
    explain, escalate = variance_requires(variance)
    assert (explain, escalate) == variance_requires(-variance)
    assert explain == (abs(variance) > settings.CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS or escalate)
    assert escalate == (abs(variance) > settings.CARDROOM_COUNT_ESCALATE_ABOVE_CENTS)
    assert not escalate or explain

"""Card parsing and hand evaluation (docs/game-rules.md section 5 and the card notation).

`evaluate` is checked three ways: exhaustively over every five-card hand (category counts
and the 7,462 distinct hand values), against a slow independent evaluator written here
(no eval7), and on hand-written cases the rules name explicitly.
"""

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rounds.engine.cards import DECK, RANKS, SUITS, parse_card, parse_cards
from rounds.engine.errors import CommandError
from rounds.engine.hands import CATEGORIES, HandValue, category_index, evaluate, qualifies
from tests.hypothesis_profiles import examples


def hand(text: str) -> list[str]:
    return text.split()


def sign(x) -> int:
    return (x > 0) - (x < 0)


# --- independent reference evaluator ---------------------------------------------------------
# Deliberately naive and written from the rules, not from eval7: a hand's key is
# (category index in CATEGORIES, tiebreak ranks), and Python tuple order compares keys.


def ref_five(cards) -> tuple[int, tuple[int, ...]]:
    ranks = sorted((RANKS.index(c[0]) for c in cards), reverse=True)
    counts = Counter(ranks)
    # Rank groups, biggest group first, then higher rank first: (K,K,K,4,4) -> (K, 4).
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [n for _, n in groups]
    by_group = tuple(r for r, _ in groups)
    flush = len({c[1] for c in cards}) == 1
    straight_high = None
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_high = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:  # the wheel: the ace plays low, five-high
            straight_high = 3
    if straight_high is not None and flush:
        return (9 if straight_high == 12 else 8, (straight_high,))
    if shape == [4, 1]:
        return (7, by_group)
    if shape == [3, 2]:
        return (6, by_group)
    if flush:
        return (5, tuple(ranks))
    if straight_high is not None:
        return (4, (straight_high,))
    if shape == [3, 1, 1]:
        return (3, by_group)
    if shape == [2, 2, 1]:
        return (2, by_group)
    if shape == [2, 1, 1, 1]:
        return (1, by_group)
    return (0, tuple(ranks))


def ref_best(cards) -> tuple[int, tuple[int, ...]]:
    return max(ref_five(five) for five in itertools.combinations(cards, 5))


# --- exhaustive five-card checks ---------------------------------------------------------------

EXPECTED_COUNTS = {
    "royal_flush": 4,
    "straight_flush": 36,
    "four_of_a_kind": 624,
    "full_house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three_of_a_kind": 54_912,
    "two_pair": 123_552,
    "one_pair": 1_098_240,
    "high_card": 1_302_540,
}

# Distinct hand values per category (equal hands must tie, whatever the suits).
EXPECTED_DISTINCT = {
    "royal_flush": 1,
    "straight_flush": 9,
    "four_of_a_kind": 156,
    "full_house": 156,
    "flush": 1_277,
    "straight": 10,
    "three_of_a_kind": 858,
    "two_pair": 858,
    "one_pair": 2_860,
    "high_card": 1_277,
}


def test_every_five_card_hand_category_count():
    # HandValue hashes by strength, so the Counter holds one key per distinct hand value.
    values = Counter(map(evaluate, itertools.combinations(DECK, 5)))
    counts, distinct = Counter(), Counter()
    for value, n in values.items():
        counts[value.category] += n
        distinct[value.category] += 1
    assert sum(counts.values()) == 2_598_960
    assert dict(counts) == EXPECTED_COUNTS
    assert dict(distinct) == EXPECTED_DISTINCT
    assert len(values) == 7_462


def one_hand_per_value() -> list[list[str]]:
    """One five-card hand for each of the 7,462 distinct five-card hand values."""
    hands = []
    for ranks in itertools.combinations_with_replacement(RANKS, 5):
        if max(Counter(ranks).values()) > 4:
            continue
        # Cycling the suits gives equal ranks different suits and never makes a flush.
        hands.append([rank + SUITS[i % 4] for i, rank in enumerate(ranks)])
        if len(set(ranks)) == 5:
            hands.append([rank + "h" for rank in ranks])
    return hands


def test_order_of_all_distinct_five_card_values_matches_reference():
    hands = one_hand_per_value()
    assert len(hands) == 7_462
    assert len({tuple(ref_five(h)) for h in hands}) == 7_462
    assert len({evaluate(h) for h in hands}) == 7_462
    by_reference = sorted(hands, key=ref_five)
    by_evaluate = sorted(hands, key=evaluate)
    assert by_evaluate == by_reference
    for h in hands:
        assert evaluate(h).category == CATEGORIES[ref_five(h)[0]]


# --- seven-card agreement with the reference -------------------------------------------------


def assert_agree_pairwise(hands, values, keys):
    for i in range(len(hands) - 1):
        got = sign(values[i].strength - values[i + 1].strength)
        want = (keys[i] > keys[i + 1]) - (keys[i] < keys[i + 1])
        assert got == want, (hands[i], hands[i + 1])
        assert (values[i] < values[i + 1]) == (want < 0)
        assert (values[i] == values[i + 1]) == (want == 0)


def test_random_seven_card_hands_agree_with_reference():
    rng = random.Random(20240607)
    hands = [rng.sample(DECK, 7) for _ in range(30_000)]
    values = [evaluate(h) for h in hands]
    keys = [ref_best(h) for h in hands]
    for h, value, key in zip(hands, values, keys):
        assert value.category == CATEGORIES[key[0]], h
    # Consecutive pairs in deal order...
    assert_agree_pairwise(hands, values, keys)
    # ...and in reference order, which (both being total orders) covers every pair.
    order = sorted(range(len(hands)), key=keys.__getitem__)
    assert_agree_pairwise(
        [hands[i] for i in order], [values[i] for i in order], [keys[i] for i in order]
    )
    # The sample reaches every category but royal flush (about 1 in 32,000 seven-card deals).
    assert {v.category for v in values} >= set(CATEGORIES) - {"royal_flush"}


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.sampled_from(DECK), min_size=9, max_size=9, unique=True),
    st.integers(min_value=5, max_value=7),
)
def test_showdown_agrees_with_reference(cards, size):
    """Two hands sharing a board, as at the table; also 5- and 6-card hands."""
    board, first, second = cards[:5], cards[5:7], cards[7:9]
    a, b = (board + first)[:size], (board + second)[:size]
    va, vb = evaluate(a), evaluate(b)
    ka, kb = ref_best(a), ref_best(b)
    assert va.category == CATEGORIES[ka[0]]
    assert vb.category == CATEGORIES[kb[0]]
    assert sign(va.strength - vb.strength) == (ka > kb) - (ka < kb)


# --- cases the rules name --------------------------------------------------------------------


def test_wheel_is_the_lowest_straight():
    wheel = evaluate(hand("As 2d 3c 4h 5s"))
    assert wheel.category == "straight"
    assert wheel > evaluate(hand("Ac Ad Ah Ks Qd"))  # best three of a kind
    assert wheel > evaluate(hand("As Kd Qc Jh 9s"))  # ace high, no straight
    assert wheel < evaluate(hand("2s 3d 4c 5h 6s"))
    assert evaluate(hand("As 2d 3c 4h 5s 6d Kc")) == evaluate(hand("2s 3d 4c 5h 6s"))
    assert evaluate(hand("Ts Jd Qc Kh As")) > evaluate(hand("9s Td Jc Qh Ks"))
    assert evaluate(hand("Qs Kd Ac 2h 3s")).category == "high_card"  # no wrap-around


def test_steel_wheel_is_a_straight_flush_not_royal():
    steel = evaluate(hand("As 2s 3s 4s 5s"))
    assert steel.category == "straight_flush"
    assert steel < evaluate(hand("2h 3h 4h 5h 6h"))
    assert steel > evaluate(hand("Ac Ad Ah As Ks"))


def test_royal_flush():
    royals = [evaluate([r + s for r in "TJQKA"]) for s in SUITS]
    assert {r.category for r in royals} == {"royal_flush"}
    assert len(set(royals)) == 1
    assert royals[0] > evaluate(hand("9s Ts Js Qs Ks"))
    assert evaluate(hand("Kd Ah Th 9h Jh Qh Kh")).category == "royal_flush"
    assert evaluate(hand("Kh Qh Jh Th 9h 8h 7h")).category == "straight_flush"


def test_kicker_decides():
    assert evaluate(hand("Ah Ad Kc Qs 9h")) > evaluate(hand("As Ac Kd Qh 8s"))
    assert evaluate(hand("Kh Kd 8c 8s 5h")) > evaluate(hand("Ks Kc 8d 8h 4s"))
    # Only five cards play: the sixth and seventh never count as kickers.
    assert evaluate(hand("Ah Ad Kc Qs 9h 4c 3d")) == evaluate(hand("As Ac Kd Qh 9s 7c 6d"))


def test_equal_straights_in_different_suits_tie():
    a = evaluate(hand("5h 6h 7d 8c 9s"))
    b = evaluate(hand("5s 6d 7c 8h 9d"))
    assert a == b and not a < b and not b < a
    assert hash(a) == hash(b)


def test_board_plays_and_both_players_tie():
    board = hand("Ts Jd Qc Kh Ah")
    pd, player = evaluate(board + hand("2c 3d")), evaluate(board + hand("4s 5s"))
    assert pd.category == "straight"
    assert pd == player


def test_suits_never_break_ties():
    assert evaluate(hand("As Ks Qs Js 9s")) == evaluate(hand("Ac Kc Qc Jc 9c"))
    assert evaluate(hand("7s 7h 2c 3d 4h")) == evaluate(hand("7c 7d 2s 3h 4d"))


def test_qualifies():
    assert qualifies(evaluate(hand("As Kd Qc Jh 9s 3d 2c"))) is False
    assert qualifies(evaluate(hand("2s 2d 4c 5h 7s 9d Jc"))) is True
    assert qualifies(evaluate(hand("As 2d 3c 4h 5s"))) is True


def test_categories_and_hand_value():
    assert CATEGORIES[0] == "high_card" and CATEGORIES[-1] == "royal_flush"
    assert len(CATEGORIES) == 10
    assert category_index("one_pair") == 1
    assert category_index("royal_flush") == 9
    with pytest.raises(ValueError):
        category_index("five_of_a_kind")
    # Category takes no part in comparison: strength alone orders hands.
    assert HandValue(5, "high_card") == HandValue(5, "one_pair")
    assert HandValue(4, "one_pair") < HandValue(5, "high_card")


@pytest.mark.parametrize(
    "cards",
    [
        hand("As Kd Qc Jh"),  # too few
        hand("As Kd Qc Jh 9s 8d 7c 6h"),  # too many
        hand("As Kd Qc Jh As"),  # duplicate
        hand("as Kd Qc Jh 9s"),  # not canonical: evaluate takes parsed cards only
        hand("Xs Kd Qc Jh 9s"),
    ],
)
def test_evaluate_rejects_bad_input(cards):
    with pytest.raises(ValueError):
        evaluate(cards)


# --- parsing ---------------------------------------------------------------------------------


def test_deck():
    assert len(DECK) == 52 == len(set(DECK))
    assert all(parse_card(card) == card for card in DECK)


@pytest.mark.parametrize(
    "given, expected",
    [
        ("As", "As"),
        ("Td", "Td"),
        ("9c", "9c"),
        ("10h", "Th"),
        ("10H", "Th"),
        ("as", "As"),
        ("AS", "As"),
        ("aS", "As"),
        ("tc", "Tc"),
        ("kH", "Kh"),
        ("  qd\n", "Qd"),
        (" 10s ", "Ts"),
    ],
)
def test_parse_card_canonical(given, expected):
    assert parse_card(given) == expected


@pytest.mark.parametrize(
    "bad",
    ["1h", "Xs", "A", "Ahh", "", "  ", "10", "100h", "1 0h", "A s", "Ax", "0h", "11h", "\u212as", None, 14, ["As"], b"As"],
)
def test_parse_card_rejects(bad):
    with pytest.raises(CommandError) as info:
        parse_card(bad)
    assert info.value.code == "invalid_card"
    assert repr(bad) in info.value.message


def test_parse_cards_canonical():
    assert parse_cards(["as", "10h", " Kd "]) == ["As", "Th", "Kd"]
    assert parse_cards(["2c", "3c"], count=2, field="hole") == ["2c", "3c"]
    assert parse_cards([]) == []


@pytest.mark.parametrize("values", [("As", "Kd"), "As Kd", None, {"As"}, 3])
def test_parse_cards_needs_a_list(values):
    with pytest.raises(CommandError) as info:
        parse_cards(values, count=2)
    assert info.value.code == "invalid_command"


def test_parse_cards_wrong_count():
    with pytest.raises(CommandError) as info:
        parse_cards(["As", "Kd", "Qc"], count=2, field="hole")
    assert info.value.code == "wrong_card_count"
    assert "hole expects 2 cards, got 3" in info.value.message


def test_parse_cards_invalid_card_names_it():
    with pytest.raises(CommandError) as info:
        parse_cards(["As", "Xs"], count=2, field="hole")
    assert info.value.code == "invalid_card"
    assert "'Xs'" in info.value.message and "hole" in info.value.message


def test_parse_cards_duplicate_names_the_card():
    with pytest.raises(CommandError) as info:
        parse_cards(["As", "Kd", "as"])
    assert info.value.code == "duplicate_card"
    assert "As" in info.value.message


def test_parse_cards_check_order():
    # Type before count before validity before duplicates.
    with pytest.raises(CommandError) as info:
        parse_cards(("Xs", "Xs", "Xs"), count=2)
    assert info.value.code == "invalid_command"
    with pytest.raises(CommandError) as info:
        parse_cards(["Xs", "As", "As"], count=2)
    assert info.value.code == "wrong_card_count"
    with pytest.raises(CommandError) as info:
        parse_cards(["As", "As", "Xs"], count=3)
    assert info.value.code == "invalid_card"

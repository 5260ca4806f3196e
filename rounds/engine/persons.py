"""Who a person is (game-rules section 2: the rotation limit follows the person).

A player id is what the dealer types, or a badge or club-card number. It is kept as
printed, tidied only of what a keyboard or scanner varies: Unicode compatibility forms
folded (NFKC: a full-width "Ａ" is "A"), runs of white space made one space, the ends
trimmed. Two ids name the same person when they are equal ignoring case
(str.casefold): "ann lee" is "Ann  Lee". The decision is written in
docs/rules-decisions.md.
"""

import unicodedata


def printed(player: str) -> str:
    """The id as kept and shown: "  Ann \u3000Lee " -> "Ann Lee"."""
    return " ".join(unicodedata.normalize("NFKC", player).split())


def person_key(player: str) -> str:
    """What two ids are compared by: equal keys are one person."""
    return printed(player).casefold()

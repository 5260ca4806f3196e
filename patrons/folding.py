"""Names and numbers compared as people write them, for matching patrons only.

The rotation rules keep their own comparison (rounds/engine/persons.py: case and
look-alike letters, so "P-2" and "P 2" are two players to the engine). Matching a
patron, for the self-exclusion lists, lookups, duplicate records and a patron's
history, must also see through what a dealer, a clerk or a scanner varies:

* case, accents and compatibility forms: "JÓHN" is "john";
* look-alike letters (the UTS #39 skeleton, as persons.py uses): a Cyrillic "р" is "p";
* punctuation and spacing: "P 1001", "P_1001" and "P1001" are "P-1001" (a number folds
  to its letters and digits alone); "Pete Listed." is "Pete Listed";
* the order of family and given names: "Smith, John" is "John Smith" (a name folds to
  its words in sorted order);
* the spellings of a suffix: "Jr.", "Jr" and "Junior" are one word.

Two texts whose folds are equal name the same person: an exact match, refused or
joined as the exact spelling would be. A *near* name (`near_name`) only holds a
seating for a person to look at: an initial for a given name ("J. Smith"), a suffix
more or less ("John Smith Jr"), one letter off ("Jon Smith"). Numbers are never near:
P-1001 and P-1002 are different people.
"""

from __future__ import annotations

import unicodedata

from impersonation_detector.skeleton import skeleton

from rounds.engine.persons import printed

# Spellings of one suffix, folded to one word. A suffix is kept in the fold (a father
# and son share the rest of the name), so "John Smith Jr" is near "John Smith", not equal.
SUFFIXES = {"jr": "jr", "junior": "jr", "sr": "sr", "senior": "sr", "ii": "ii", "iii": "iii", "iv": "iv", "2nd": "ii", "3rd": "iii"}
# A one-letter difference counts as near only in names at least this long (letters,
# without spaces): "Al Li" and "Al Le" are not worth holding a seat for.
NEAR_MIN_LETTERS = 6


def _plain(text: str) -> str:
    """Case, accents and compatibility forms folded; look-alike letters to one form."""
    decomposed = unicodedata.normalize("NFKD", printed(text).casefold())
    unaccented = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return skeleton(unicodedata.normalize("NFC", unaccented)).casefold()


def _words(text: str) -> list[str]:
    plain = _plain(text)
    words = "".join(ch if ch.isalnum() else " " for ch in plain).split()
    return [SUFFIXES.get(word, word) for word in words]


def fold_name(text: str) -> str:
    """The folded form of a person's name: "Smith, Jóhn" -> "john smith"."""
    return " ".join(sorted(_words(text)))


def fold_number(text: str) -> str:
    """The folded form of a patron number, card or ID number: "P_1001" -> "p1001"."""
    return "".join(_words(text))


def near_name(a: str, b: str) -> bool:
    """Whether two names that do not fold alike may still be one person's, so a person
    should look: an initial for a word, a suffix more or less, or one letter off."""
    words_a, words_b = _words(a), _words(b)
    if not words_a or not words_b or sorted(words_a) == sorted(words_b):
        return False
    bare_a = [w for w in words_a if w not in SUFFIXES.values()]
    bare_b = [w for w in words_b if w not in SUFFIXES.values()]
    if bare_a and sorted(bare_a) == sorted(bare_b):
        return True
    if _initials_match(bare_a, bare_b) or _initials_match(bare_b, bare_a):
        return True
    joined_a, joined_b = " ".join(sorted(bare_a)), " ".join(sorted(bare_b))
    letters = min(len(joined_a.replace(" ", "")), len(joined_b.replace(" ", "")))
    return letters >= NEAR_MIN_LETTERS and _one_edit_apart(joined_a, joined_b)


def _initials_match(short: list[str], full: list[str]) -> bool:
    """`short` is `full` with at least one word cut to its initial ("j smith", "john
    smith"), and at least one whole word the same (an initial alone matches too much)."""
    if len(short) != len(full) or len(short) < 2:
        return False
    rest = list(full)
    initials = []
    for word in short:
        if word in rest:
            rest.remove(word)
        elif len(word) == 1:
            initials.append(word)
        else:
            return False
    if not initials or len(rest) != len(initials) or len(rest) == len(full):
        return False
    return sorted(initials) == sorted(word[0] for word in rest)


def _one_edit_apart(a: str, b: str) -> bool:
    """One letter inserted, dropped, changed, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        if len(diffs) == 1:
            return True
        return len(diffs) == 2 and diffs[1] == diffs[0] + 1 and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]]
    shorter, longer = (a, b) if len(a) < len(b) else (b, a)
    i = next((i for i, (x, y) in enumerate(zip(shorter, longer)) if x != y), len(shorter))
    return shorter[i:] == longer[i + 1:]

"""Offline: the exact Bad Beat losing-hand distribution, by enumeration of every deal.

Run once, by hand, from the repository's root; it writes the "bad_beat" part of
rounds/game_math_data.json (the rest of the file is kept) with its provenance:

    nice -n 19 python tools/compute_bad_beat_distribution.py --workers 1 --out rounds/game_math_data.json

Measured run (the figures committed): 2,781,381,002,400 deals over 134,459 board classes
in 373 s of wall time (6 min 13 s), one worker at nice 19, on a shared two-CPU x86_64 Linux
VM (`uname -a`: Linux 6.18.44-fc-v595 x86_64; Python 3.11.7, eval7 0.1.11), started
2026-11-29 04:16 UTC at commit f7aa36a; "provenance" in the output says the same. `--limit N` stops after N board classes (a timing run: it writes nothing
unless --out is given, and then only a file that says it is partial).

What it counts. A deal is the player's two hole cards, the player-dealer's two and the five
community cards: C(52,2) * C(50,2) * C(48,5) = 2,781,381,002,400 ordered deals (the
player's hand and the player-dealer's are told apart). Each deal's two seven-card hands are
scored by eval7, the evaluator the engine uses (rounds/engine/hands.py: equal scores are
equal five-card hands, suits never break a tie). When one hand loses, the deal is counted
under the category of the *losing* hand, what the Bad Beat Bonus pays on (game rules
10.1), whichever of the two it is; hands of the same category but different ranks are
not ties (a lower full house loses to a higher one). Equal scores are a tie, counted
apart (by their category too). A royal flush never loses, so no deal is counted under
it; a losing straight flush is a lower one.

How it stays fast enough for pure Python:
* Boards up to a relabelling of the suits. Scores do not depend on which suit is which,
  so two boards with the same multiset of per-suit rank sets give the same counts; each
  of the 2,598,960 boards is replaced by one representative of its class (134,459
  classes), weighted by the number of boards in the class.
* On one board, the C(47,2) = 1,081 hole pairs of the unseen cards are scored once each
  and sorted by score. For a pair {a, b}, the hole pairs that beat it and share no card
  with it number (pairs stronger) - (stronger pairs holding a) - (stronger pairs holding
  b): no stronger pair holds both a and b, as that pair is {a, b} itself. Each such
  unordered {weaker, stronger} is two ordered deals (either hand may be the player's),
  both counted under the weaker hand's category. Ties, within a group of equal scores:
  (group size) - (group pairs holding a) - (group pairs holding b) + 1 ({a, b} itself
  holds both), summed over the group's pairs, is already ordered.
* Checks the run makes: every board once (the class weights add up to 2,598,960), every
  deal once (the counts add up to the total), and each hand's own category, over all
  deals, is the standard seven-card count times 21 * 990 (the 21 ways to split seven
  cards into two hole cards and a board, the 990 hole pairs of the other hand).

tests/engine/test_bad_beat_distribution.py checks the same functions on reduced decks
and on sampled boards against a plain deal-by-deal count.
"""

import argparse
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time
import warnings
from collections import Counter
from importlib import metadata
from itertools import combinations
from pathlib import Path

with warnings.catch_warnings():  # eval7 0.1.11 builds pyparsing grammars pyparsing 3.3 deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = tuple(r + s for r in RANKS for s in SUITS)
CATEGORIES = (
    "high_card", "one_pair", "two_pair", "three_of_a_kind", "straight",
    "flush", "full_house", "four_of_a_kind", "straight_flush",
)  # eval7's hand types 0..8 (its straight flush includes the royal: rounds/engine/hands.py)
TYPE_SHIFT = 24
TOTAL_DEALS = math.comb(52, 2) * math.comb(50, 2) * math.comb(48, 5)
# Seven-card hands by category, the standard enumeration (rounds/game_math.py), the royal
# flush inside the straight flush as eval7 counts it.
SEVEN_CARD_COUNTS = {
    "high_card": 23_294_460, "one_pair": 58_627_800, "two_pair": 31_433_400,
    "three_of_a_kind": 6_461_620, "straight": 6_180_020, "flush": 4_047_644,
    "full_house": 3_473_184, "four_of_a_kind": 224_848, "straight_flush": 37_260 + 4_324,
}
_CARD = {}


def card(name: str):
    c = _CARD.get(name)
    if c is None:
        c = _CARD[name] = eval7.Card(name)
    return c


def score(cards) -> int:
    """eval7's score of five to seven cards (the engine's HandValue.strength)."""
    return eval7.evaluate([card(c) for c in cards])


def board_classes(deck=DECK) -> list[tuple[tuple[str, ...], int]]:
    """[(a representative board, the number of boards in its class)], one per class of
    five-card boards under a relabelling of the suits. `deck` must hold the same ranks in
    every suit, or relabelling would not map a board of it onto another."""
    suits = sorted({c[1] for c in deck})
    ranks_of = {s: sorted(c[0] for c in deck if c[1] == s) for s in suits}
    assert all(r == ranks_of[suits[0]] for r in ranks_of.values()), "every suit has the same ranks"
    classes: dict[tuple, list] = {}
    for board in combinations(deck, 5):
        per_suit = dict.fromkeys(suits, "")
        for c in board:
            per_suit[c[1]] += c[0]
        key = tuple(sorted("".join(sorted(ranks)) for ranks in per_suit.values()))
        entry = classes.get(key)
        if entry is None:
            classes[key] = [board, 1]
        else:
            entry[1] += 1
    return [(board, weight) for board, weight in classes.values()]


def count_board(board, deck=DECK) -> tuple[list[int], list[int], list[int]]:
    """The ordered (player, player-dealer) deals on one board, each hole pair from the
    cards of `deck` not on the board: (deals by the losing hand's category, tied deals by
    category, hole pairs by their own hand's category)."""
    on_board = set(board)
    unseen = [c for c in deck if c not in on_board]
    seven = [card(c) for c in board] + [None, None]
    evaluate = eval7.evaluate
    hands = []
    for a, b in combinations(range(len(unseen)), 2):
        seven[5], seven[6] = card(unseen[a]), card(unseen[b])
        hands.append((evaluate(seven), a, b))
    hands.sort(reverse=True)
    losing = [0] * len(CATEGORIES)
    tied = [0] * len(CATEGORIES)
    own = [0] * len(CATEGORIES)
    holding = [0] * len(unseen)  # stronger pairs so far holding each unseen card
    stronger = 0
    i, n = 0, len(hands)
    while i < n:
        value = hands[i][0]
        j = i + 1
        while j < n and hands[j][0] == value:
            j += 1
        category = value >> TYPE_SHIFT
        size = j - i
        in_group = Counter()
        beaten = 0
        for k in range(i, j):
            _, a, b = hands[k]
            beaten += stronger - holding[a] - holding[b]
            in_group[a] += 1
            in_group[b] += 1
        ties = 0
        for k in range(i, j):
            _, a, b = hands[k]
            ties += size - in_group[a] - in_group[b] + 1
        for c, times in in_group.items():
            holding[c] += times
        losing[category] += 2 * beaten  # either hand may be the player's
        tied[category] += ties  # already ordered: each pair counted from both sides
        own[category] += size
        stronger += size
        i = j
    return losing, tied, own


def _count_weighted(item):
    board, weight, deck = item
    losing, tied, own = count_board(board, deck)
    return [x * weight for x in losing], [x * weight for x in tied], [x * weight for x in own]


def distribution(deck=DECK, workers: int = 1, limit: int | None = None, progress=None) -> dict:
    """The counts over every deal from `deck` (or the first `limit` board classes)."""
    classes = board_classes(deck)
    assert sum(w for _, w in classes) == math.comb(len(deck), 5), "every board once"
    if limit:
        classes = classes[:limit]
    losing = [0] * len(CATEGORIES)
    tied = [0] * len(CATEGORIES)
    own = [0] * len(CATEGORIES)
    items = [(board, weight, deck) for board, weight in classes]
    if workers > 1:
        from multiprocessing import Pool

        pool = Pool(workers)
        results = pool.imap_unordered(_count_weighted, items, chunksize=100)
    else:
        pool, results = None, map(_count_weighted, items)
    try:
        for done, (part_losing, part_tied, part_own) in enumerate(results, 1):
            for k in range(len(CATEGORIES)):
                losing[k] += part_losing[k]
                tied[k] += part_tied[k]
                own[k] += part_own[k]
            if progress and done % 2000 == 0:
                progress(done, len(items))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return {
        "deals": sum(losing) + sum(tied),
        "losing_hand": dict(zip(CATEGORIES, losing)),
        "ties": sum(tied),
        "ties_by_hand": dict(zip(CATEGORIES, tied)),
        # Hole pairs by their own hand's category, summed over the boards (weighted): each is
        # in as many deals as the other hand has hole pairs.
        "own_hand": dict(zip(CATEGORIES, own)),
        "board_classes": len(classes),
    }


def check_full(result: dict) -> None:
    """The checks a full run must pass before anything is written."""
    assert result["deals"] == TOTAL_DEALS, result["deals"]
    for name, count in result["own_hand"].items():
        # Each seven-card hand is 21 (board, hole pair) splits of its cards.
        assert count == SEVEN_CARD_COUNTS[name] * math.comb(7, 2), name


def _git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "tools"], capture_output=True, text=True).stdout
        return head + (" (tools/ modified)" if dirty.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def provenance(started: float, wall: float, workers: int, classes: int) -> dict:
    uname = platform.uname()
    return {
        "script": "tools/compute_bad_beat_distribution.py",
        "command": " ".join(shlex.quote(a) for a in ["python", *sys.argv]),
        "commit": _git_commit(),
        "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(started)),
        "wall_seconds": round(wall),
        "workers": workers,
        "board_classes": classes,
        "machine": f"{uname.system} {uname.release} {uname.machine}, {os.cpu_count()} CPUs (nproc), "
                   f"Python {platform.python_version()}, eval7 {metadata.version('eval7')}",
        "uname": " ".join(platform.uname()[:5]),
        "nice": os.nice(0),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N board classes (a timing run)")
    parser.add_argument("--out", default=None, help="the JSON file whose 'bad_beat' part is written")
    opts = parser.parse_args(argv)
    started = time.time()

    def progress(done, total):
        elapsed = time.time() - started
        print(f"{done:,}/{total:,} board classes, {elapsed:,.0f} s, about {elapsed / done * (total - done):,.0f} s to go",
              file=sys.stderr, flush=True)

    result = distribution(workers=opts.workers, limit=opts.limit, progress=progress)
    if not opts.limit:
        check_full(result)
    result["provenance"] = provenance(started, time.time() - started, opts.workers, result.pop("board_classes"))
    if opts.limit:
        result["provenance"]["partial"] = f"only the first {opts.limit} board classes: not the distribution"
    text = json.dumps(result, indent=2)
    print(text)
    if opts.out:
        path = Path(opts.out)
        data = json.loads(path.read_text()) if path.exists() else {}
        data["bad_beat"] = result
        path.write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    main()

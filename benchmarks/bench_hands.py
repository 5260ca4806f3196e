"""Seven-card evaluations per second: rounds.engine.hands.evaluate against raw eval7.

Run with `python -m benchmarks.bench_hands [hands] [repeats]`. Prints figures; asserts nothing
beyond both paths agreeing on the hands timed.
"""

import random
import sys
import time

from rounds.engine.cards import DECK
from rounds.engine.hands import evaluate

import eval7  # noqa: E402  (after hands, which imports it with its import-time warnings muted)


def best_rate(function, items, repeats: int) -> float:
    """Best of `repeats` runs, in calls per second (the best run has the least noise)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for item in items:
            function(item)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else 200_000
    repeats = int(argv[1]) if len(argv) > 1 else 5
    rng = random.Random(7)
    hands = [rng.sample(DECK, 7) for _ in range(count)]
    card_lists = [[eval7.Card(card) for card in hand] for hand in hands]

    assert [evaluate(h).strength for h in hands[:1000]] == [
        eval7.evaluate(c) for c in card_lists[:1000]
    ]

    ours = best_rate(evaluate, hands, repeats)
    raw = best_rate(eval7.evaluate, card_lists, repeats)
    print(f"7-card hands: {count:,}, best of {repeats} runs")
    print(f"evaluate (card strings -> HandValue): {ours:>12,.0f} /s  {1e6 / ours:6.2f} us each")
    print(f"eval7.evaluate (pre-built Cards):     {raw:>12,.0f} /s  {1e6 / raw:6.2f} us each")
    print(f"ratio raw / evaluate: {raw / ours:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])

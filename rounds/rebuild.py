"""A finished round played again, command by command, from the state it began in: what a
surveillance replay shows and what an exported replay is checked with offline.

Pure: the engine, the recorded cards and the recorded fund, no database. Each step is a
command as the engine received it (with the server's `at`), the cards its deal drew when
the software shuffled (`deck`, recovered from the deal's record by
rounds.engine.dealing.drawn), and the progressive's fund as it stood (`fund`), for the
commands that move it. A step whose result or records differ from what the event chain
holds is a mismatch: the start state, a command or a card is not what was played.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from rounds.engine import dealing
from rounds.engine.errors import CodedError
from rounds.engine.sidebets import Fund
from rounds.engine.table import TableGame
from rounds.engine.view import table_view
from rounds.visibility import TABLET, snapshot_for


class ReplayMismatch(CodedError):
    codes = frozenset({"replay_mismatch"})


class RecordedDraw:
    """The software shuffle's draw dealt again: `sample` gives the cards the deal drew, in
    their order (the engine asks for exactly as many as it needs). For a command that drew
    no cards, any draw is a mismatch."""

    def __init__(self, cards: list[str] | None):
        self.cards = list(cards) if cards is not None else None

    def sample(self, population, k: int) -> list[str]:
        if self.cards is None or len(self.cards) != k:
            raise ReplayMismatch("replay_mismatch", f"the replay drew {k} cards where the record holds {self.cards and len(self.cards)}")
        return list(self.cards)


def drawn_deck(records: list[dict], procedure: str) -> list[str] | None:
    """The cards a software shuffle drew at this event's deal, in the order drawn (None:
    the event dealt no shuffled cards)."""
    for record in records:
        if record.get("kind") == "CardsDealt" and record.get("source") == "shuffled":
            return dealing.drawn(procedure, dealing.deal_of(record["cards"]))
    return None


def plain(value):
    """As JSON gives it back: tuples are lists, keys are strings."""
    return json.loads(json.dumps(value))


@dataclass(frozen=True)
class Replayed:
    result: dict
    records: list[dict]
    state: dict  # the engine state after the command
    tablet: dict  # what the dealer's tablet was shown after it: the state and the engine's screen hints


def tablet_screen(state: dict, fund: Fund | None = None, withheld: list[int] | tuple = ()) -> dict:
    """The engine's part of the tablet's snapshot (tables.selectors.server_snapshot) for
    `state`, cut for the tablet (rounds.visibility)."""
    return plain(snapshot_for({"game": state, "view": table_view(state, fund=fund, withheld=withheld)}, TABLET))


def replay(start: dict, steps: list[dict]) -> list[Replayed]:
    """Apply `steps` ({"command", "deck", "fund"}) to the engine state `start`, in order.
    Raises ReplayMismatch where the engine refuses a command it once accepted."""
    return list(replaying(start, steps))


def replaying(start: dict, steps: list[dict]) -> Iterator[Replayed]:
    """`replay`, one step at a time: what each command gave, up to the first one the engine
    refuses (ReplayMismatch is raised there, after the steps before it)."""
    game = TableGame.from_dict(start)
    # The seats whose progressive award the lists withhold: the command service states
    # them on the command that previews or pays the awards, and the tablet's preview
    # showed them from then on.
    withheld: list[int] = []
    for step in steps:
        withheld = step["command"].get("withheld", withheld)
        fund = Fund(**step["fund"]) if step.get("fund") else None
        try:
            game, result, records = game.apply(step["command"], rng=RecordedDraw(step.get("deck")), fund=fund)
        except CodedError as exc:
            raise ReplayMismatch("replay_mismatch", f"{step['command'].get('type')} was refused on replay: {exc}") from exc
        state = game.to_dict()
        yield Replayed(plain(result), plain([r.as_dict() for r in records]), plain(state),
                       tablet_screen(state, fund, withheld))


def differences(replayed: Replayed, result: dict, records: list[dict]) -> list[str]:
    """What of the chain's result and records the replay did not give again."""
    found = []
    if replayed.result != plain(result):
        found.append("its answer differs")
    if replayed.records != plain(records):
        found.append("its records differ")
    return found

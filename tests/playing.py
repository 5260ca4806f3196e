"""Tables made and rounds played the way every test needs them: one home for what used to
be a dozen private `run`/`play` helpers.

- `new_table` creates a table through the lifecycle service (as the setup page does) and,
  unless told otherwise, places its drop boxes for the shift running now: a person's
  `open_round` is refused `box_missing` without them.
- `run` sends commands through the one command service, in order, as the tablet does, and
  asserts each was accepted (`run_ok` returns their answers); `results` sends them and
  returns what came back, accepted or not, for the tests that check a refusal.
- `clocked` gives a `play(table, minute, *commands)` that runs commands at a fixed clock
  (`minute` minutes after a start), as a replay's `at` times do: the rotation policy's
  window and the rotation log's times follow it.
- `run_as` sends commands as a person (a User) and returns the answers: who may drive the
  table is decided by that person's role and assignment.

The rounds themselves are built by `tests.engine.helpers` (`seated_with_pd`,
`dealt_round`), which the engine's tests share.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from cardroom.access import Actor
from tables.lifecycle import table_create
from tables.services import command_execute
from tests.boxes import place_boxes

DEALER = "dealer-1"


def new_table(name: str = "T", *, seats: int = 6, boxes: bool = True, created_by: str = "test", **config):
    """A table of `seats` seats under `config`, its boxes placed unless `boxes=False`."""
    table = table_create(name=name, config={"seats": seats, **config}, created_by=created_by)
    if boxes:
        place_boxes(table)
    return table


def outcomes(table, *commands, actor=DEALER, rng=None, at=None) -> list:
    """Execute `commands` in order on `table` (a Table or its id) as `actor`; the service's
    outcomes, accepted or not. `rng` is the shuffle's random source for a server deal; `at`
    the time the commands are taken to arrive (a replay's clock), now when None."""
    table_id = getattr(table, "pk", table)
    return [command_execute(table_id=table_id, command=c, actor=actor, rng=rng, at=at) for c in commands]


def results(table, *commands, actor=DEALER, rng=None, at=None) -> list[dict]:
    """The answers (`result` dicts) to `commands`, accepted or not."""
    return [outcome.result for outcome in outcomes(table, *commands, actor=actor, rng=rng, at=at)]


def run(table, *commands, actor=DEALER, rng=None, at=None) -> list:
    """Execute `commands` in order; each must be accepted. Returns the outcomes."""
    done = outcomes(table, *commands, actor=actor, rng=rng, at=at)
    for command, outcome in zip(commands, done):
        assert outcome.ok, (command, outcome.result)
    return done


def run_ok(table, *commands, actor=DEALER, rng=None, at=None) -> list[dict]:
    """`run`, returning the answers (`result` dicts)."""
    return [outcome.result for outcome in run(table, *commands, actor=actor, rng=rng, at=at)]


def clocked(start: datetime, *, actor=DEALER):
    """A `play(table, minute, *commands)`: `run` as `actor` with the clock at `minute`
    minutes after `start` (before it when negative); returns `run_ok`'s answers."""

    def play(table, minute, *commands) -> list[dict]:
        return run_ok(table, *commands, actor=actor, at=start + timedelta(minutes=minute))

    return play


def run_as(user, table, *commands) -> list[dict]:
    """The answers to `commands` sent by the person `user` (a User), accepted or not."""
    return results(table, *commands, actor=Actor.of(user))

"""The waitlist: one list per game and limit, kept by the floor (supervisors).

A supervisor adds a player by id or name, calls the next one when a seat opens and seats
them. Seating is the engine's `sit` command sent through the command service as that
supervisor, so the table's rules decide (one TPPP per table, game-rules 2A's licence
check) and a refusal comes back with the engine's code; nothing is recorded on the list
then. Every step is a new WaitlistEvent row (append-only): where an entry stands is its
last event.

The lobby board (`lobby_board`) is public: it counts, and names nobody.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from cardroom.access import Actor
from rounds.engine.errors import ERROR_CODES, CodedError, CommandError
from rounds.engine.policy import tppp_from_command
from rounds.engine.table import TableGame

from .models import Table, WaitlistEvent
from .services import command_execute


class WaitlistError(CodedError):
    """A refused waitlist step; nothing was recorded. A refused seating carries the
    engine's code (`tppp_limit`, `seat_taken`, ...), so the engine's codes are ours too."""

    codes = ERROR_CODES | {"already_waiting", "not_waiting", "nobody_waiting"}


WAITING = ("added", "called")  # the entry's last event while it is still on the list
PLAYER_MAX = 64
REASON_MAX = 200


def _dollars(cents: int) -> str:
    return f"${cents // 100}" if cents % 100 == 0 else f"${cents / 100:.2f}"


def _ante_limits(config: dict, between: str) -> str | None:
    """The Ante limits in dollars ("any" for an open end), or None for a table with none."""
    limits = config.get("limits") or {}
    low, high = limits.get("ante_min"), limits.get("ante_max")
    if low is None and high is None:
        return None
    return f"{_dollars(low) if low else 'any'}{between}{_dollars(high) if high else 'any'}"


def game_of(config: dict) -> str:
    """The list a table's players wait on: its pay table and Ante limits, e.g.
    "UTH-02 · Ante $5–$100". Tables with the same rules and limits share one list."""
    paytable = config.get("paytable")
    name = paytable if isinstance(paytable, str) else "custom pay table"
    limits = _ante_limits(config, "–")
    return f"{name} · Ante {limits}" if limits else f"{name} · no Ante limit"


def game_title(config: dict) -> str:
    """The game as a lobby board names it for players: in words, the stakes in dollars
    (the pay table's code is the floor's, not the player's)."""
    limits = _ante_limits(config, " to ")
    return f"Ultimate Texas Hold'em, {limits} Ante" if limits else "Ultimate Texas Hold'em, any Ante"


def props_only(state: dict) -> bool:
    """The engine's rule (TableGame.props_only): such a table is no game a player can join
    as "going" (issue 26: the floor's complaint about lists that show it so)."""
    return TableGame.from_dict(state).props_only


def _tables():
    return Table.objects.filter(retired=False).order_by("name", "pk").only("pk", "name", "state", "is_open")


def games() -> list[str]:
    """Every game a table on the floor deals, each once."""
    return sorted({game_of(t.state["config"]) for t in _tables()})


@dataclass(frozen=True)
class Entry:
    id: int
    game: str
    player: str
    tppp: dict | None
    status: str  # "added" (waiting) or "called"
    added_at: object
    called_to: int | None  # the table they were called to


def waiting(game: str | None = None) -> list[Entry]:
    """The entries still on the list (of `game`, or of every game), first added first."""
    added = WaitlistEvent.objects.filter(kind="added")
    if game is not None:
        added = added.filter(game=game)
    added = list(added.order_by("at", "id"))
    last = {}
    for step in WaitlistEvent.objects.filter(entry__in=added).order_by("at", "id"):
        last[step.entry_id] = step
    entries = []
    for a in added:
        step = last.get(a.pk)
        if step is not None and step.kind not in WAITING:
            continue
        entries.append(Entry(a.pk, a.game, a.player, a.tppp, step.kind if step else "added", a.at,
                             step.table_id if step else None))
    return entries


def _lock(game: str) -> None:
    """One change at a time per list. An advisory lock, not SELECT FOR UPDATE: the
    served role may only read and insert on this append-only table."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", ["waitlist:" + game])


def _record(actor: Actor, **fields) -> WaitlistEvent:
    return WaitlistEvent.objects.create(by=actor.name, by_user_id=actor.user_id, at=timezone.now(), **fields)


def _entry(entry_id) -> tuple[WaitlistEvent, str]:
    """The entry's `added` event and where it stands; an entry no longer on the list is refused."""
    try:
        added = WaitlistEvent.objects.get(pk=int(entry_id), kind="added")
    except (WaitlistEvent.DoesNotExist, TypeError, ValueError):
        raise WaitlistError("invalid_command", "no such waitlist entry") from None
    _lock(added.game)
    last = WaitlistEvent.objects.filter(entry=added).order_by("-at", "-id").first()
    status = last.kind if last else "added"
    if status not in WAITING:
        raise WaitlistError("not_waiting", f"entry {added.pk} is no longer waiting: {status}")
    return added, status


def _table_of_game(table_id, game: str) -> Table:
    try:
        table = Table.objects.get(pk=int(table_id), retired=False)
    except (Table.DoesNotExist, TypeError, ValueError):
        raise WaitlistError("invalid_command", "no such table") from None
    if game_of(table.state["config"]) != game:
        raise WaitlistError("invalid_command", f"{table.name} deals {game_of(table.state['config'])}, not {game}")
    return table


def waitlist_add(*, game: str, player, actor: Actor, tppp: dict | None = None) -> WaitlistEvent:
    if game not in games():
        raise WaitlistError("invalid_command", f"no table deals {game!r}")
    player = player.strip() if isinstance(player, str) else ""
    if not 1 <= len(player) <= PLAYER_MAX:
        raise WaitlistError("invalid_command", f"the player is an id or a name of 1 to {PLAYER_MAX} characters")
    if tppp is not None:
        # The engine's own check of a licence, now rather than at the seat: a badge typed
        # wrong or expired is said while the player is at the desk. Seating checks again
        # (the licence may expire while they wait) with the table's TPPP.
        try:
            tppp_from_command(tppp, seat=0, player=player, at=timezone.localtime(), seated=None)
        except CommandError as err:
            raise WaitlistError(err.code, err.message) from None
    with transaction.atomic():
        _lock(game)
        if any(e.player.casefold() == player.casefold() for e in waiting(game)):
            raise WaitlistError("already_waiting", f"{player} is already on the {game} list")
        return _record(actor, game=game, kind="added", player=player, tppp=tppp or None)


def waitlist_call_next(*, game: str, table_id, actor: Actor) -> WaitlistEvent:
    """A seat opened at `table_id`: the first player still waiting (not yet called) is called to it."""
    with transaction.atomic():
        table = _table_of_game(table_id, game)
        _lock(game)
        first = next((e for e in waiting(game) if e.status == "added"), None)
        if first is None:
            raise WaitlistError("nobody_waiting", f"nobody is waiting for {game}")
        return _record(actor, game=game, kind="called", entry_id=first.id, table=table)


def waitlist_seat(*, entry_id, table_id, seat, actor: Actor) -> WaitlistEvent:
    """Seat the entry's player with the engine's `sit`, as the supervisor: the table's
    rules apply, and a refusal is raised with the engine's code (nothing recorded here;
    the command service keeps the refused command)."""
    with transaction.atomic():
        added, _ = _entry(entry_id)
        table = _table_of_game(table_id, added.game)
        command = {"type": "sit", "seat": seat, "player": added.player}
        if added.tppp:
            command["tppp"] = added.tppp
        outcome = command_execute(table_id=table.pk, command=command, actor=actor)
        if outcome.ok:
            return _record(actor, game=added.game, kind="seated", entry=added, table=table, seat=seat)
    # Raised once the transaction is committed: the command service's record of the
    # refused command stays.
    error = outcome.result["error"]
    raise WaitlistError(error["code"], error["message"])


def waitlist_remove(*, entry_id, reason, actor: Actor) -> WaitlistEvent:
    reason = reason.strip() if isinstance(reason, str) else ""
    if not 1 <= len(reason) <= REASON_MAX:
        raise WaitlistError("invalid_command", f"a removal needs a reason of 1 to {REASON_MAX} characters")
    with transaction.atomic():
        added, _ = _entry(entry_id)
        return _record(actor, game=added.game, kind="removed", entry=added, reason=reason)


def lobby_board() -> list[dict]:
    """Per game: tables running, open seats and how many wait; props-only tables counted
    apart and not as an open game. Counts only: no table's players, no entry's name."""
    board = {}
    for table in _tables():
        game = game_of(table.state["config"])
        row = board.setdefault(game, {"game": game, "title": game_title(table.state["config"]), "running": 0,
                                      "open_seats": 0, "props_only": 0, "waiting": 0})
        if not table.is_open:
            continue
        if props_only(table.state):
            row["props_only"] += 1
            continue
        seated = len(table.state.get("occupants") or {})
        if seated:
            row["running"] += 1
            row["open_seats"] += max(0, table.state["config"]["seats"] - seated)
    for entry in waiting():
        if entry.game in board:
            board[entry.game]["waiting"] += 1
    return [board[g] for g in sorted(board)]

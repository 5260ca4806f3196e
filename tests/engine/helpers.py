"""Small helpers to drive the pure rules engine (rounds.engine.table.TableGame) in tests.

`drive` applies a list of command dicts and returns the new game and the results;
`refuse` applies one command that must be refused and checks that nothing changed.
The builders return lists of command dicts, so a test reads as the command stream
the dealer tablet (or a replay file) would send.
"""

import json
import random

import pytest

from rounds.engine.cards import DECK
from rounds.engine.errors import CommandError
from rounds.engine.records import JackpotMoved
from rounds.engine.sidebets import Fund
from rounds.engine.config import TableConfig
from rounds.engine.table import TableGame

# One collection rate covering every amount: each player pays 100, the PD 50 per square.
ONE_RATE_FEES = {
    "payers": "all_players",
    "player_basis": "ante",
    "pd_basis": "per_betting_square",
    "rates": [{"min": 1, "max": 10**9, "player_fee": 100, "pd_fee": 50}],
}

# The fee schedule of the service and live tests' tables: each player pays 100, the PD 50
# per square, for amounts up to 100000.
FEES = {
    "payers": "all_players",
    "player_basis": "ante",
    "pd_basis": "per_betting_square",
    "rates": [{"min": 0, "max": 100000, "player_fee": 100, "pd_fee": 50}],
}


def new_game(seats: int = 6, **table) -> TableGame:
    """A fresh table from a replay-style `table` object (without `name`)."""
    return TableGame.new(TableConfig.from_config({"seats": seats, **table}))


def snapshot(game: TableGame) -> str:
    """A deep, order-stable picture of the game state (to_dict shares lists with the game)."""
    return json.dumps(game.to_dict(), sort_keys=True)


class Meter:
    """A progressive's meter as the command service keeps it: the fund handed to the engine
    with each command that needs it, and updated from the engine's JackpotMoved records."""

    def __init__(self, fund: Fund):
        self.fund = fund

    @classmethod
    def of(cls, game: TableGame) -> "Meter":
        """A meter at the starting amounts the table's configuration gives."""
        prog = game.config.side_bets.progressive
        return cls(Fund(prog.start_meter, prog.start_reserve) if prog else Fund(0, 0))

    def apply(self, game: TableGame, command, rng):
        fund = self.fund if game.needs_fund(command) else None
        game, result, recs = game.apply(command, rng=rng, fund=fund)
        for rec in recs:
            if isinstance(rec, JackpotMoved):
                self.fund = rec.fund_after
        return game, result, recs


def drive(game: TableGame, commands, *, ok: bool = True, seed: int = 0, records: list | None = None, meter: Meter | None = None):
    """Apply commands in order; returns (game, results).

    With ok=True (the default) every command must succeed. With ok=False a refused command
    is reported as its error result ({"ok": False, "error": {...}}) and the game goes on
    unchanged, the way a replay file is run. A table with a progressive uses `meter`
    (by default a fresh one at the configuration's starting amounts).
    """
    rng = random.Random(seed)
    meter = meter or Meter.of(game)
    results = []
    for command in commands:
        try:
            game, result, recs = meter.apply(game, command, rng)
        except CommandError as exc:
            if ok:
                raise AssertionError(f"command {command!r} refused: {exc}") from exc
            results.append(exc.as_result())
            continue
        if records is not None:
            records.extend(recs)
        results.append(result)
    return game, results


def do(game: TableGame, command: dict, **kwargs):
    """Apply one command that must succeed: (game, result)."""
    game, results = drive(game, [command], **kwargs)
    return game, results[0]


def refuse(game: TableGame, command, code: str) -> CommandError:
    """The command is refused with `code`, and the game's state is exactly as before."""
    before = snapshot(game)
    with pytest.raises(CommandError) as info:
        Meter.of(game).apply(game, command, random.Random(0))
    assert info.value.code == code, f"expected {code}, got {info.value.code}: {info.value.message}"
    assert snapshot(game) == before, f"refused {command!r} changed the game"
    return info.value


# --- builders: lists of commands ------------------------------------------------------


def sit(players: dict[int, str]) -> list[dict]:
    return [{"type": "sit", "seat": seat, "player": player} for seat, player in players.items()]


def seat_all(seats, prefix: str = "P-") -> list[dict]:
    """Sit `P-<seat>` in each of the given seats."""
    return sit({s: f"{prefix}{s}" for s in seats})


def make_pd(seat: int) -> list[dict]:
    """The house offers the bank to `seat`, which accepts."""
    return [{"type": "offer_bank", "seat": seat}, {"type": "accept_bank", "seat": seat}]


def wager(seat: int, ante: int, trips: int | None = None, **extra) -> dict:
    command = {"type": "wager", "seat": seat, "ante": ante, **extra}
    if trips:  # no Trips wager: the field is left out (trips 0 is invalid_amount)
        command["trips"] = trips
    return command


def open_round(bank: int, wagers: list[dict]) -> list[dict]:
    """open_round, the wagers, no_more_bets."""
    return [{"type": "open_round", "bank": bank}, *wagers, {"type": "no_more_bets"}]


def decide(seat: int, action: str, multiple: int | None = None) -> dict:
    command = {"type": action, "seat": seat}
    if multiple is not None:
        command["multiple"] = multiple
    return command


def table_with_pd(pd_seat: int, player_seats, seats: int = 6, **table) -> TableGame:
    """A table with `P-<seat>` seated in pd_seat and player_seats and pd_seat as the PD."""
    game = new_game(seats, **table)
    game, _ = drive(game, seat_all(sorted({pd_seat, *player_seats})) + make_pd(pd_seat))
    return game


# A fixed hand used to play rounds quickly: the PD (Kc Kd) beats the player (2c 3d).
QUICK_BOARD = ["Ah", "9s", "7d", "5c", "Jh"]
QUICK_PD = ["Kc", "Kd"]
QUICK_PLAYER = ["2c", "3d"]


def quick_round(player_seat: int, bank: int = 10_000, ante: int = 100) -> list[dict]:
    """A complete round for one player (plays 4x pre-flop, loses), ending with settle."""
    return [
        *open_round(bank, [wager(player_seat, ante)]),
        decide(player_seat, "play", 4),
        {"type": "flop", "cards": QUICK_BOARD[:3]},
        {"type": "turn_river", "cards": QUICK_BOARD[3:]},
        {"type": "showdown", "player_dealer": QUICK_PD, "hands": {str(player_seat): QUICK_PLAYER}},
        {"type": "settle"},
    ]


def seated_with_pd(players, pd: int, prefix: str = "P-") -> list[dict]:
    """Sit `<prefix><seat>` in each of `players` (in that order) and make `pd` the PD."""
    return seat_all(players, prefix) + make_pd(pd)


def dealt_round(players, cards=None, *, bank: int = 100_000, ante: int = 1000, trips: int = 0) -> list[dict]:
    """A whole round dealt by the shuffler procedure from `cards` (players in seat order,
    then the PD, then the board; by default the first cards of the unshuffled DECK);
    every player checks to the river and plays 1x. No Trips wager unless `trips`."""
    if cards is None:
        cards = list(DECK[: 2 * len(players) + 2 + 5])
    commands = [{"type": "open_round", "bank": bank}]
    commands += [{"type": "wager", "seat": s, "ante": ante, **({"trips": trips} if trips else {})} for s in players]
    commands += [{"type": "no_more_bets"}, {"type": "deal", "cards": cards}]
    commands += [{"type": "check", "seat": s} for s in players] + [{"type": "flop"}]
    commands += [{"type": "check", "seat": s} for s in players] + [{"type": "turn_river"}]
    commands += [{"type": "play", "seat": s, "multiple": 1} for s in players]
    commands += [{"type": "showdown"}, {"type": "settle"}]
    return commands


EXAMPLE_B_BOARD = ["Ah", "Kh", "7h", "7c", "2d"]
EXAMPLE_B_PD = ["Ks", "Qd"]
EXAMPLE_B_HOLES = {2: ["Qh", "Jh"], 3: ["As", "Ad"], 4: ["3c", "4c"]}


def example_b(*, dealt: bool) -> list[dict]:
    """Worked example B of game-rules section 11 (the bank runs out) up to the showdown:
    P-1 banks 4000 in seat 1 against seats 2-4. The cards are dealt from a shuffler
    sequence (`dealt`), or else typed in by the dealer as they are revealed."""
    board, holes = EXAMPLE_B_BOARD, EXAMPLE_B_HOLES
    commands = seated_with_pd([1, 2, 3, 4], pd=1) + open_round(
        4000, [wager(2, 500), wager(3, 500, trips=300), wager(4, 500)]
    )
    if dealt:
        commands.append({"type": "deal", "cards": deal_sequence("shuffler", holes, EXAMPLE_B_PD, board)})
    flop, turn_river = ({}, {}) if dealt else ({"cards": board[:3]}, {"cards": board[3:]})
    showdown = {} if dealt else {"player_dealer": EXAMPLE_B_PD, "hands": {str(s): h for s, h in holes.items()}}
    return commands + [
        decide(2, "play", 4),
        decide(3, "check"),
        decide(4, "check"),
        {"type": "flop", **flop},
        decide(3, "play", 2),
        decide(4, "check"),
        {"type": "turn_river", **turn_river},
        decide(4, "play", 1),
        {"type": "showdown", **showdown},
    ]


def void(reason: str = "misdeal", approved_by: str = "SUP-1") -> dict:
    return {"type": "void_round", "reason": reason, "approved_by": approved_by}


def deal_sequence(procedure: str, holes: dict[int, list[str]], pd: list[str], board: list[str]) -> list[str]:
    """The card sequence a `deal` command takes for the wanted hands (game-rules section 4).

    Written from the spec text, independently of rounds.engine.dealing.
    """
    seats = sorted(holes)
    if procedure == "shoe":
        return [holes[s][0] for s in seats] + [pd[0]] + [holes[s][1] for s in seats] + [pd[1]] + board
    if procedure == "shuffler":
        return [c for s in seats for c in holes[s]] + pd + board
    if procedure == "community_first":
        return board + [c for s in seats for c in holes[s]] + pd
    raise ValueError(procedure)

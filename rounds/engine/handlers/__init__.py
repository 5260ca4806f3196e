"""The engine's commands (docs/commands.md): each type's handler, by phase of the game
(seating, bank, betting, streets, settling, corrections), and the fields each takes.
`TableGame.apply` (rounds/engine/table.py) checks the envelope and runs the handler on a
copy of the game.
"""

from . import bank, betting, corrections, seating, settling, streets

_BY_PHASE = {
    **seating.HANDLERS,
    **bank.HANDLERS,
    **betting.HANDLERS,
    **streets.HANDLERS,
    **settling.HANDLERS,
    **corrections.HANDLERS,
}

# The commands that move a progressive's fund or show it (the settlement preview).
FUND_COMMANDS = {"no_more_bets", "showdown", "settle", "void_round", "confirm_award"}
# The commands a table without backline refuses before anything else (docs/commands.md).
BACKLINE_COMMANDS = {"backline_wager", "backline_withdraw"}
# The fields each command takes (docs/commands.md); any other is refused as invalid_command.
COMMAND_FIELDS = {
    "sit": {"seat", "player", "tppp"},
    "leave": {"seat"},
    "offer_bank": {"seat"},
    "accept_bank": {"seat"},
    "decline_bank": {"seat", "seats"},
    "pass_bank": set(),
    "open_round": {"bank"},
    "wager": {"seat", "ante", "blind", "trips", "bad_beat", "pairs", "progressive"},
    "withdraw": {"seat"},
    "backline_wager": {"seat", "bettor", "ante", "trips"},
    "backline_withdraw": {"seat", "bettor"},
    "no_more_bets": set(),
    "deal": {"cards"},
    "deal_by_hand": set(),
    "check": {"seat"},
    "play": {"seat", "multiple"},
    "fold": {"seat"},
    "flop": {"cards"},
    "turn_river": {"cards"},
    "showdown": {"player_dealer", "hands", "withheld"},
    "settle": {"withheld"},
    "void_round": {"reason", "approved_by"},
    "confirm_award": {"seat", "approved_by", "withheld"},
    "start_game": {"approved_by"},
}
# Every command's `type`, the client's command id and seen version (HTTP, websocket), and
# when it happened (`at`: stamped by the command service, or the replay file's).
ENVELOPE_FIELDS = {"type", "id", "version", "at"}
assert set(COMMAND_FIELDS) == set(_BY_PHASE)
# Each command type's handler, listed in docs/commands.md's order (COMMAND_FIELDS'): the
# order COMMAND_TYPES gives the property tests and the socket tests.
HANDLERS = {kind: _BY_PHASE[kind] for kind in COMMAND_FIELDS}
COMMAND_TYPES = tuple(HANDLERS)

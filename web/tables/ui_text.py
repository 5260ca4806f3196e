"""What the dealer reads when a command is refused: one plain sentence per error code of
docs/commands.md (the service's own message, with the details, is shown beneath it)."""

# What the tablet says for a refusal about a listed or alerted patron (self-exclusion, a
# near match held for a person to check): no reason, since the patron can read the screen.
DISCREET_TEXT = "Call a supervisor before going on."
# The codes said so: the patron panel (static/patrons_tablet.js) shows neither the code nor
# the server's message for them, only DISCREET_TEXT.
DISCREET_CODES = ("self_excluded", "check_required")

ERROR_TEXT = {
    "invalid_command": "That command was not understood. Check the fields and try again.",
    "wrong_state": "That is not allowed at this point of the round.",
    "unknown_seat": "There is no such seat at this table.",
    "seat_taken": "That seat is already taken.",
    "seat_empty": "Nobody is sitting in that seat.",
    "player_already_seated": "That player is already seated at this table.",
    "box_missing": "No round before this table's drop boxes are placed for this shift: call a supervisor to place them.",
    "reason_required": "Say why the void is refused: the dealer who asked reads it.",
    "config_not_approved": "This table's first configuration needs a second supervisor's approval before it opens.",
    "mixed_script_id": "That id mixes letters of different alphabets: type it in one alphabet.",
    "seat_is_player_dealer": "That seat is the player-dealer: it banks, it does not bet.",
    "not_in_round": "That seat has no wager in this round.",
    "no_player_dealer": "There is no player-dealer: offer the bank first.",
    "no_players": "A round needs at least one player with a wager.",
    "invalid_amount": "Amounts must be whole, positive numbers of dollars and cents.",
    "below_table_min": "That wager is below the table minimum.",
    "above_table_max": "That wager is above the table maximum.",
    "blind_must_equal_ante": "The Blind must equal the Ante.",
    "invalid_play_multiple": "That Play amount is not allowed on this street.",
    "already_decided": "That seat has already decided on this street.",
    "decisions_pending": "Some players still have to decide before the next cards.",
    "invalid_card": "That is not a card.",
    "duplicate_card": "That card is already in play this round.",
    "wrong_card_count": "Wrong number of cards for this step.",
    "missing_cards": "Some cards are missing: enter every card asked for.",
    "card_mismatch": "Those cards differ from the ones dealt.",
    "rotation_limit": "That person has banked the limit of consecutive rounds and may not bank now.",
    "not_offered": "The bank has not been offered to that seat.",
    # Discreet: the patron may read the tablet; the floor has the alert and the reason.
    # A refusal about a listed or alerted patron says only this, whatever its code.
    "self_excluded": DISCREET_TEXT,
    "check_required": DISCREET_TEXT,
    "offer_pending": "The bank is offered to a seat that has not answered yet.",
    "approval_required": "This needs a supervisor: a void their approval, a new game their own tap or credentials.",
    "not_authorized": "You are not allowed to do that.",
    "stale_version": "The table changed before this tap arrived. Check the screen and tap again.",
    "tppp_limit": "This table already has a third-party proposition player.",
    "badge_expired": "That TPPP licence has expired: the person cannot sit as a TPPP.",
    "tppp_mismatch": "That badge or company is not the one on this patron's record: call a supervisor.",
    "tppp_one_round": "The TPPP banked the last round: someone else must bank this one.",
    "tppp_barred": "No TPPP banks under the rules in force: pass the bank to a player.",
    "game_ended": "The game has ended under the rotation rule: a supervisor must start a new game.",
    "rate_limited": "Too many refused taps in a short time. Wait a minute, then try again.",
    "side_bet_not_offered": "This table does not offer that side bet.",
    "bad_beat_needs_trips": "A Bad Beat wager needs a Trips wager at the same seat.",
    "invalid_progressive_wager": "The progressive wager is the table's fixed amount.",
    "award_unconfirmed": "A progressive award must be confirmed by a supervisor before the round settles.",
}

# For a code this version does not know yet (a newer server): still a sentence.
UNKNOWN_ERROR_TEXT = "The server refused that tap. Check the screen and try again."

# The collection schedule's terms (rounds/engine/fees.py) as the posted rules say them.
POSTED_TEXT = {
    "all_players": "every player and the player-dealer",
    "players_not_pd": "the players (not the player-dealer)",
    "pd_only": "the player-dealer only",
    "ante": "the Ante",
    "initial_total": "the Ante, Blind, Trips and the side bets the player-dealer banks (Bad Beat, Pairs) together",
    "per_betting_square": "per betting square in action",
    "total_table_action": "on the total action at the table",
}

# The floor's table states (tables.floor.floor_state), as the legend and tiles say them.
FLOOR_STATES = [
    ("dealing", "Dealing"),
    ("waiting", "Waiting for a round"),
    ("no_player_dealer", "No player-dealer"),
    ("stopped", "Stopped"),
    ("closed", "Closed"),
]

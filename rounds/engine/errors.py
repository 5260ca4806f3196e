"""The one error type of the engine: a stable code (docs/commands.md) and a human message."""

ERROR_CODES = frozenset(
    """
    invalid_command wrong_state unknown_seat seat_taken seat_empty player_already_seated
    seat_is_player_dealer not_in_round no_player_dealer no_players invalid_amount
    below_table_min above_table_max blind_must_equal_ante invalid_play_multiple
    already_decided decisions_pending invalid_card duplicate_card wrong_card_count
    missing_cards card_mismatch rotation_limit not_offered offer_pending approval_required
    not_authorized stale_version
    side_bet_not_offered bad_beat_needs_trips invalid_progressive_wager award_unconfirmed
    """.split()
    # With the rotation policy (game-rules 2A): TPPP seating and banking, the window rule.
    + ["tppp_limit", "badge_expired", "tppp_one_round", "game_ended"]
    # A rule set's no-TPPP mode (issue 38): the TPPP sits but never banks.
    + ["tppp_barred"]
    # The service's, not the rules': a person sending refused commands too fast.
    + ["rate_limited"]
    # A player id mixing scripts (rounds/engine/persons.py): a look-alike of someone else.
    + ["mixed_script_id"]
    # The service's: a table whose first configuration no second supervisor approved yet.
    + ["config_not_approved"]
    # The service's: a patron on the state's or the house's self-exclusion list (patrons/).
    + ["self_excluded"]
    # The service's: a near match to a listed patron, held until a supervisor looks (patrons/).
    + ["check_required"]
    # The service's: a TPPP seated under a badge or company their patron record does not name.
    + ["tppp_mismatch"]
    # The service's: a person's open_round at a table without its boxes for this shift.
    + ["box_missing"]
    # The service's: a supervisor refusing a void says why (the requester reads it).
    + ["reason_required"]
)


class CodedError(Exception):
    """A refusal: a stable code, one of the subclass's `codes`, and a human message. The
    engine's and the service's commands refuse with CommandError; other services (the drop
    count, collections_fees.counts.CountError) with their own codes."""

    codes: frozenset[str] = frozenset()

    def __init__(self, code: str, message: str):
        if code not in self.codes:
            raise ValueError(f"unknown {type(self).__name__} code {code!r}")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def as_result(self) -> dict:
        return {"ok": False, "error": {"code": self.code, "message": self.message}}


class CommandError(CodedError):
    """A command was refused. Nothing it touched may have changed."""

    codes = ERROR_CODES

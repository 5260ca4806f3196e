"""The no-TPPP mode (issue 38 item 2, TableConfig.no_tppp): a TPPP may sit but never banks.
Offers pass over their seat, each pass recorded; they may not take or keep the bank; the
game stops when no player takes it (game-rules section 2); a TPPP banking when the mode
comes in finishes that round and the next offer skips them. A table without the mode
stores its state exactly as before."""

from rounds.engine.records import RotationEntry, RoundOpened
from tests.engine.helpers import drive, new_game, quick_round, refuse

TPPP = {"badge": "B-123", "company": "Acme TPPS", "expires": "2027-01-31"}
AT = "2026-11-29T20:00:00+00:00"


def seated(no_tppp=True):
    """T-1 (the TPPP) in seat 1, players in seats 2 and 3."""
    game = new_game(6, **({"no_tppp": True} if no_tppp else {}))
    game, _ = drive(game, [
        {"type": "sit", "seat": 1, "player": "T-1", "tppp": TPPP, "at": AT},
        {"type": "sit", "seat": 2, "player": "P-2"},
        {"type": "sit", "seat": 3, "player": "P-3"},
    ])
    return game


def rotation(records):
    return [(r.action, r.seat) for r in records if isinstance(r, RotationEntry)]


def test_the_tppp_may_sit_but_is_never_offered_and_cannot_take_the_bank():
    game = seated()
    assert game.tppp is not None and game.occupants[1] == "T-1"
    refuse(game, {"type": "offer_bank", "seat": 1}, "tppp_barred")
    records = []
    game, _ = drive(game, [{"type": "offer_bank", "seat": 3}, {"type": "accept_bank", "seat": 3}, *quick_round(2),
                           {"type": "pass_bank"}], records=records)
    # Passed on, the offer goes clockwise from seat 3: seat 1 (the TPPP) is passed over,
    # recorded as such, and seat 2 is offered.
    assert rotation(records)[-3:] == [("pass", 3), ("skipped", 1), ("offer", 2)]
    skipped = [r for r in records if isinstance(r, RotationEntry) and r.action == "skipped"]
    assert skipped[0].player == "T-1" and "TPPP" in skipped[0].reason


def test_the_game_stops_when_no_player_takes_the_bank():
    game = seated()
    records = []
    game, results = drive(game, [{"type": "offer_bank", "seat": 2}, {"type": "decline_bank", "seats": [2, 3]}],
                          records=records)
    assert results[-1]["offer"] is None
    assert rotation(records)[-3:] == [("decline", 3), ("skipped", 1), ("stopped", None)]
    assert all(not isinstance(r, RoundOpened) for r in records)


def test_a_tppp_banking_when_the_mode_comes_in_finishes_the_round_and_the_next_offer_skips_them():
    game = seated(no_tppp=False)
    game, _ = drive(game, [{"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2)])
    assert game.rotation.pd_player == "T-1"
    game = game.with_config(type(game.config).from_config({**game.config.to_config(), "no_tppp": True}))
    refuse(game, {"type": "open_round", "bank": 10_000}, "tppp_barred")
    records = []
    game, results = drive(game, [{"type": "pass_bank"}], records=records)
    assert results[0]["offer"] == 2 and rotation(records) == [("pass", 1), ("offer", 2)]
    # Seat 2 declines and seat 3 too: the TPPP who passed is not offered it back.
    records = []
    game, results = drive(game, [{"type": "decline_bank", "seats": [2, 3]}], records=records)
    assert results[0]["offer"] is None and ("offer", 1) not in rotation(records)


def test_a_table_without_the_mode_stores_its_state_as_before():
    game = seated(no_tppp=False)
    state = game.to_dict()
    assert "barred" not in state["rotation"] and "no_tppp" not in state["config"]
    on = seated().to_dict()
    assert on["rotation"]["barred"] == "T-1" and on["config"]["no_tppp"] is True
    assert type(game).from_dict(on).rotation.barred == "T-1"


def test_no_tppp_is_true_or_false():
    from rounds.engine.config import TableConfig
    from rounds.engine.errors import CommandError

    for bad in ("yes", 1, None):
        try:
            TableConfig.from_config({"seats": 6, "no_tppp": bad})
        except CommandError as refused:
            assert refused.code == "invalid_command"
        else:
            raise AssertionError(f"no_tppp {bad!r} accepted")

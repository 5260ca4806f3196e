"""The offer-every-round rotation policy (game-rules section 2A), driven through
TableGame commands with `at` times, the way a replay file gives them.

Players are `P-<seat>`; rounds are helpers.quick_round (one player, settled).
"""

import random
from datetime import datetime, timedelta, timezone

import pytest

from rounds.engine.errors import CommandError
from rounds.engine.policy import DEFAULT_NOTICE
from rounds.engine.records import RotationEntry, RoundOpened, Seated
from rounds.engine.config import TableConfig
from rounds.engine.table import TableGame
from tests.engine.helpers import new_game, quick_round, refuse, snapshot, void, wager

START = datetime(2026, 5, 1, 20, 0, tzinfo=timezone.utc)
POLICY = {"offer_every_round": True, "window_minutes": 40, "window_players": 2, "tppp_one_round": True}
TPPP = {"badge": "B-123", "company": "Acme TPPS", "expires": "2027-01-31"}


def at(minutes: float) -> str:
    return (START + timedelta(minutes=minutes)).isoformat()


class Table:
    """A table under the policy with a clock: every command carries the current `at`."""

    def __init__(self, seats=6, policy=POLICY, **config):
        self.game = new_game(seats, rotation_policy=policy, **config)
        self.minutes = 0.0
        self.records = []

    def do(self, *commands, ok=True):
        results = []
        for command in commands:
            command = {**command, "at": at(self.minutes)}
            try:
                self.game, result, records = self.game.apply(command, rng=random.Random(0))
            except CommandError as exc:
                if ok:
                    raise AssertionError(f"{command!r} refused: {exc}") from exc
                results.append(exc.as_result())
                continue
            self.records += records
            results.append(result)
        return results

    def refuse(self, command, code):
        return refuse(self.game, {**command, "at": at(self.minutes)}, code)

    def rotation(self):
        return [(r.action, r.seat) for r in self.records if isinstance(r, RotationEntry)]

    def play_round(self, player_seat):
        return self.do(*quick_round(player_seat))[-1]

    def take_bank(self, seat):
        """Every seat before `seat` in the pending offer's walk declines; `seat` accepts."""
        walk = self.game.rotation.walk(self.game.occupants, self.game.config.seats)
        before = walk[: walk.index(seat)]
        if before:
            self.do({"type": "decline_bank", "seats": before})
        self.do({"type": "accept_bank", "seat": seat})


def seated(seats, policy=POLICY, **config) -> Table:
    t = Table(policy=policy, **config)
    t.do(*({"type": "sit", "seat": s, "player": f"P-{s}"} for s in seats))
    return t


# --- 2A.1 offer before every round ------------------------------------------------------


def test_after_every_settled_round_the_bank_is_offered_clockwise_and_to_the_pd_last():
    t = seated([1, 2, 4])
    t.do({"type": "offer_bank", "seat": 2}, {"type": "accept_bank", "seat": 2})
    settle = t.play_round(4)
    # P-2 has banked one round of two: under section 2 alone it would simply keep the bank.
    assert settle["next_offer"] == 4 and settle["player_dealer_next"] is None
    assert t.game.rotation.walk(t.game.occupants, 6) == [4, 1, 2]
    t.refuse({"type": "open_round", "bank": 10_000}, "offer_pending")
    results = t.do({"type": "decline_bank", "seats": [4, 1]}, {"type": "accept_bank", "seat": 2})
    assert results == [{"ok": True, "offer": 2}, {"ok": True, "player_dealer": 2}]
    # one row per answer, each offer and answer in the walk's order
    assert t.rotation()[-6:] == [("offer", 4), ("decline", 4), ("offer", 1), ("decline", 1), ("offer", 2), ("accept", 2)]


def test_the_pd_at_the_limit_is_not_offered_and_everyone_declining_stops_the_game():
    t = seated([1, 2, 3])
    t.do({"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    t.play_round(2)
    t.take_bank(1)  # P-1 keeps it: the last in the walk
    settle = t.play_round(2)
    assert settle["next_offer"] == 2
    assert t.game.rotation.walk(t.game.occupants, 6) == [2, 3]  # P-1 banked two: not offered
    assert t.do({"type": "decline_bank", "seats": [2, 3]}) == [{"ok": True, "offer": None}]
    assert t.game.rotation.stopped
    t.refuse({"type": "open_round", "bank": 10_000}, "no_player_dealer")


def test_a_voided_round_is_followed_by_an_offer_cycle_and_does_not_count():
    t = seated([1, 2, 3])
    t.do({"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    t.do({"type": "open_round", "bank": 10_000}, wager(2, 100), {"type": "no_more_bets"})
    result = t.do(void())[0]
    assert result["next_offer"] == 2
    assert t.game.rotation.streak == 0


def test_decline_bank_seats_must_follow_the_walk_and_is_all_or_nothing():
    t = seated([1, 2, 3, 4])
    t.do({"type": "offer_bank", "seat": 1})
    t.refuse({"type": "decline_bank", "seats": [1, 3]}, "not_offered")
    t.refuse({"type": "decline_bank", "seats": []}, "invalid_command")
    t.refuse({"type": "decline_bank", "seat": 1, "seats": [1]}, "invalid_command")


# --- 2A.2 TPPP ---------------------------------------------------------------------------


def test_a_tppp_is_seated_with_badge_and_recorded_with_or_without_the_policy():
    for config in ({}, {"rotation_policy": POLICY}):
        game = new_game(6, **config)
        game, _, records = game.apply({"type": "sit", "seat": 3, "player": "T-1", "tppp": TPPP, "at": at(0)})
        assert records == [Seated(3, "T-1", {"seat": 3, "player": "T-1", **TPPP})]
        refuse(game, {"type": "sit", "seat": 4, "player": "T-2", "tppp": TPPP, "at": at(0)}, "tppp_limit")


def test_an_expired_licence_cannot_sit_as_tppp_on_the_cardroom_date():
    game = new_game(6)
    expiring = {**TPPP, "expires": "2026-05-01"}
    # 2026-05-02 03:00 UTC is still 1 May in Los Angeles: the licence is valid that day.
    local_evening = "2026-05-01T20:00:00-07:00"
    game.apply({"type": "sit", "seat": 1, "player": "T-1", "tppp": expiring, "at": local_evening})
    refuse(game, {"type": "sit", "seat": 1, "player": "T-1", "tppp": expiring, "at": "2026-05-02T00:00:01-07:00"}, "badge_expired")
    refuse(game, {"type": "sit", "seat": 1, "player": "T-1", "tppp": {**TPPP, "expires": "May 1"}, "at": at(0)}, "invalid_command")
    refuse(game, {"type": "sit", "seat": 1, "player": "T-1", "tppp": TPPP}, "invalid_command")  # no time to check against


def test_a_tppp_seat_needs_the_whole_licence_badge_company_and_expiry():
    """2A.2: a TPPP is seated with badge, company and expiry, each recorded; a licence
    missing one of them, or with a field the record does not keep, is refused."""
    game = new_game(6)
    for licence in (
        {"badge": TPPP["badge"], "expires": TPPP["expires"]},
        {"badge": TPPP["badge"], "company": TPPP["company"]},
        {"company": TPPP["company"], "expires": TPPP["expires"]},
        {**TPPP, "licence_note": "pending renewal"},
        {**TPPP, "company": "   "},
    ):
        refuse(game, {"type": "sit", "seat": 1, "player": "T-1", "tppp": licence, "at": at(0)}, "invalid_command")


def test_a_tppp_banks_one_round_at_a_time_and_carries_the_badge():
    t = seated([1, 2])
    t.do({"type": "sit", "seat": 3, "player": "T-3", "tppp": TPPP})
    t.do({"type": "offer_bank", "seat": 3}, {"type": "accept_bank", "seat": 3})
    t.play_round(1)
    assert t.game.rotation.walk(t.game.occupants, 6) == [1, 2]  # the TPPP is not offered again
    t.refuse({"type": "offer_bank", "seat": 3}, "offer_pending")
    t.do({"type": "decline_bank", "seats": [1, 2]})
    t.refuse({"type": "offer_bank", "seat": 3}, "tppp_one_round")
    opened = [r for r in t.records if isinstance(r, RoundOpened)]
    assert opened[0].pd_badge == "B-123"
    # The TPPP banks with their company's chips; the others with their own (issue 27).
    assert (opened[0].bank_source, opened[0].pd_company) == ("tppp", TPPP["company"])
    assert {(r.bank_source, r.pd_company) for r in opened[1:]} <= {("own", None)}
    assert {r.badge for r in t.records if isinstance(r, RotationEntry) and r.player == "T-3"} == {"B-123"}


def test_under_the_policy_with_tppp_one_round_false_the_tppp_keeps_the_bank_to_the_limit():
    """tppp_one_round: false leaves the TPPP under section 2's limit alone: offered last
    after their round, they may keep the bank, and only a third round is refused."""
    t = seated([1, 2], policy={**POLICY, "tppp_one_round": False})
    t.do({"type": "sit", "seat": 3, "player": "T-3", "tppp": TPPP})
    t.do({"type": "offer_bank", "seat": 3}, {"type": "accept_bank", "seat": 3})
    t.play_round(1)
    assert t.game.rotation.walk(t.game.occupants, 6) == [1, 2, 3]  # the TPPP last, as a PD who may keep it
    t.take_bank(3)
    assert t.game.rotation.pd_seat == 3
    t.play_round(1)
    assert t.game.rotation.walk(t.game.occupants, 6) == [1, 2]  # two in a row: the table's limit
    assert t.game.rotation.streak == 2


def test_without_the_policy_a_tppp_may_bank_two_rounds():
    game = new_game(6)
    game, *_ = game.apply({"type": "sit", "seat": 1, "player": "T-1", "tppp": TPPP, "at": at(0)})
    for command in ({"type": "sit", "seat": 2, "player": "P-2"}, {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2), *quick_round(2)):
        game, *_ = game.apply(command, rng=random.Random(0))
    assert game.rotation.streak == 2


# --- 2A.3 the window --------------------------------------------------------------------


def test_one_banker_for_the_whole_window_ends_the_game_and_start_game_begins_a_new_one():
    t = seated([1, 2])
    t.do({"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    t.play_round(2)  # P-1 banks at 0
    t.take_bank(2)
    t.minutes = 20
    t.play_round(1)  # P-2 banks at 20
    t.take_bank(1)
    t.minutes = 59.9  # P-2's round (20) is still in (19.9, 59.9]
    t.play_round(2)
    t.take_bank(1)  # P-2 declines; P-1 keeps it
    t.minutes = 60  # (20, 60] holds only P-1's rounds: the game ends
    result = t.do({"type": "open_round", "bank": 10_000})[0]
    assert result == {"ok": True, "round": None, "game_ended": "rotation_window"}
    assert t.game.round is None and t.game.rotation.pd_seat is None and t.game.rotation.offer_seat is None
    ended = [r for r in t.records if isinstance(r, RotationEntry) and r.action == "game_ended"]
    assert ended and ended[0].reason == "rotation_window"
    t.refuse({"type": "open_round", "bank": 10_000}, "game_ended")
    t.refuse({"type": "offer_bank", "seat": 2}, "game_ended")
    t.refuse({"type": "start_game"}, "approval_required")
    t.do({"type": "start_game", "approved_by": "SUP-1"})
    t.refuse({"type": "start_game", "approved_by": "SUP-1"}, "wrong_state")
    t.do({"type": "offer_bank", "seat": 2}, {"type": "accept_bank", "seat": 1}, ok=False)
    assert t.game.rotation.pd_seat is None  # seat 1 had no offer: seat 2 holds it
    t.do({"type": "accept_bank", "seat": 2})
    assert t.do({"type": "open_round", "bank": 10_000})[0]["round"] == 4  # a new clock


def test_the_window_applies_from_window_minutes_after_the_first_round_opened():
    t = seated([1, 2])
    t.do({"type": "sit", "seat": 3, "player": "T-3", "tppp": TPPP})
    t.do({"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    # P-1 and the TPPP alternate: one person who counts, for 40 minutes.
    for minute, next_banker in ((0, 3), (10, 1), (20, 3), (30, 1)):
        t.minutes = minute
        t.play_round(2)
        t.take_bank(next_banker)
    t.minutes = 39.99  # the game is not yet 40 minutes old
    assert t.play_round(2)["round"] == 5
    t.take_bank(3)
    t.play_round(2)  # the TPPP at 39.99
    t.take_bank(1)
    t.minutes = 40  # (0, 40]: P-1 alone counts
    assert t.do({"type": "open_round", "bank": 10_000})[0]["game_ended"] == "rotation_window"


def test_the_tppp_does_not_count_and_voided_rounds_do_not_count():
    t = seated([1, 2])
    t.do({"type": "sit", "seat": 3, "player": "T-3", "tppp": TPPP})
    t.do({"type": "offer_bank", "seat": 2}, {"type": "accept_bank", "seat": 2})
    t.do({"type": "open_round", "bank": 10_000}, wager(1, 100), {"type": "no_more_bets"}, void())
    t.take_bank(1)
    t.play_round(2)  # P-1 at 0
    t.take_bank(3)
    t.minutes = 30
    t.play_round(2)  # the TPPP at 30: does not count
    t.take_bank(1)
    t.minutes = 45  # (5, 45]: P-1 now, the TPPP: one person; P-2's round was voided
    assert t.do({"type": "open_round", "bank": 10_000})[0]["game_ended"] == "rotation_window"


@pytest.mark.parametrize("voided", [True, False])
def test_a_voided_round_in_the_window_does_not_count_for_its_banker(voided):
    """P-1 banks at 0, P-2 at 10, P-1 again at 45: (5, 45] holds P-2's round, which keeps
    the game going if it was played, but not if it was voided (2A.3)."""
    t = seated([1, 2])
    t.do({"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    t.play_round(2)  # P-1 at 0
    t.take_bank(2)
    t.minutes = 10
    if voided:
        t.do({"type": "open_round", "bank": 10_000}, wager(1, 100), {"type": "no_more_bets"}, void())
    else:
        t.play_round(1)
    t.take_bank(1)
    t.minutes = 45
    opened = t.do({"type": "open_round", "bank": 10_000})[0]
    if voided:
        assert opened["game_ended"] == "rotation_window"
    else:
        assert opened["round"] == 3 and "game_ended" not in opened


def test_the_deadline_is_when_the_last_other_banker_leaves_the_window():
    t = seated([1, 2])
    t.do({"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    t.play_round(2)  # P-1 at 0
    t.take_bank(2)
    t.minutes = 10
    t.play_round(1)  # P-2 at 10
    policy = t.game.policy
    assert t.game.clock.deadline(policy, "P-2") == START + timedelta(minutes=40)  # P-1's round leaves at 40
    assert t.game.clock.deadline(policy, "P-1") == START + timedelta(minutes=50)


# --- configuration ---------------------------------------------------------------------


def test_the_policy_and_notice_are_configuration_checked_like_every_key():
    assert TableConfig.from_config({"seats": 6}).rotation_policy is None
    assert TableConfig.from_config({"seats": 6}).notice == DEFAULT_NOTICE
    config = TableConfig.from_config({"seats": 6, "rotation_policy": {}})
    assert config.rotation_policy.to_config() == POLICY
    assert TableConfig.from_config(config.to_config()) == config
    for bad in ({"window_minute": 40}, {"window_minutes": 0}, {"window_players": "2"}, {"tppp_one_round": 1}, []):
        with pytest.raises(CommandError) as refused:
            TableConfig.from_config({"seats": 6, "rotation_policy": bad})
        assert refused.value.code == "invalid_command"
    with pytest.raises(CommandError):
        TableConfig.from_config({"seats": 6, "notice": ""})


def test_switching_the_policy_on_between_rounds_begins_with_the_house_offer():
    game = new_game(6)
    for command in ({"type": "sit", "seat": 1, "player": "P-1"}, {"type": "sit", "seat": 2, "player": "P-2"}, {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2)):
        game, *_ = game.apply(command, rng=random.Random(0))
    assert game.rotation.pd_seat == 1  # section 2: P-1 keeps the bank
    on = game.with_config(TableConfig.from_config({"seats": 6, "rotation_policy": POLICY}))
    assert on.rotation.pd_seat is None and on.rotation.offer_seat is None
    refuse(on, {"type": "open_round", "bank": 10_000, "at": at(0)}, "no_player_dealer")
    off = on.with_config(TableConfig.from_config({"seats": 6}))
    assert off.policy is None and TableGame.from_dict(off.to_dict()) == off


def test_a_live_state_stored_before_the_policy_still_loads():
    game = new_game(6)
    data = game.to_dict()
    del data["tppp"], data["clock"]
    data["config"] = {k: v for k, v in data["config"].items() if k not in ("rotation_policy", "notice")}
    assert TableGame.from_dict(data) == game


def test_a_refused_policy_command_changes_nothing():
    t = seated([1, 2])
    before = snapshot(t.game)
    t.do({"type": "open_round", "bank": 10_000}, ok=False)
    assert snapshot(t.game) == before


def test_one_person_under_two_spellings_counts_once_in_the_window():
    """2A.3 counts persons, not spellings: P-1 banks, leaves, comes back as "Р-1" (a
    Cyrillic Р) and later as "P-1" again; with a TPPP between, the window still holds one
    person who counts, and the game ends as it would under one spelling."""
    t = seated([1, 2])
    t.do({"type": "sit", "seat": 4, "player": "T-4", "tppp": TPPP})
    t.do({"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1})
    t.play_round(2)  # P-1 at 0
    t.do({"type": "leave", "seat": 1}, {"type": "sit", "seat": 3, "player": "\u0420-1"})
    t.take_bank(3)
    t.minutes = 10
    t.play_round(2)  # "Р-1" at 10
    t.take_bank(4)
    t.minutes = 20
    t.play_round(2)  # the TPPP at 20: does not count
    t.do({"type": "leave", "seat": 3}, {"type": "sit", "seat": 1, "player": "p-1"})
    t.take_bank(1)
    t.minutes = 45  # (5, 45]: "Р-1" at 10 and "p-1" now are one person
    assert t.do({"type": "open_round", "bank": 10_000})[0]["game_ended"] == "rotation_window"

"""The rotation policy (game-rules 2A) through the command service and `manage.py replay`:
commands' times (`at` in a replay file, the server's clock live), the rotation log's rows,
the policy recorded with every round, and switching the policy by an approved
configuration change between rounds."""

from datetime import datetime, timezone

import pytest

from cardroom.access import Actor
from rounds.models import Round
from tables.approvals import approval_decide, approval_request
from tables.models import RotationLogEntry, SeatOccupancy, TableEvent
from tables.services import command_execute
from tests.engine.helpers import quick_round, wager

from tests.playing import clocked, results as run, run_ok
from .test_access import assign, person
from .test_replay import replay

pytestmark = pytest.mark.django_db

POLICY = {"offer_every_round": True, "window_minutes": 40, "window_players": 2, "tppp_one_round": True}
TPPP = {"badge": "B-77", "company": "Acme TPPS", "expires": "2027-06-30"}


def at(minute: int, second: int = 0) -> str:
    return f"2026-05-01T20:{minute:02d}:{second:02d}Z"


def timed(minute: int, commands: list[dict]) -> list[dict]:
    """The commands, the first stamped at `minute` (the others happen at the same time)."""
    return [{**commands[0], "at": at(minute)}, *commands[1:]]


SESSION = {
    "table": {"name": "UTH-2A", "seats": 6, "rotation_policy": POLICY},
    "commands": [
        {"type": "sit", "seat": 1, "player": "Ann", "at": at(0)},
        {"type": "sit", "seat": 2, "player": "Bob"},
        {"type": "sit", "seat": 4, "player": "Tess", "tppp": TPPP},
        {"type": "sit", "seat": 5, "player": "Tom", "tppp": {**TPPP, "badge": "B-78"}},  # a second TPPP
        {"type": "offer_bank", "seat": 1},
        {"type": "accept_bank", "seat": 1},
        *timed(1, quick_round(2)),  # Ann banks at 20:01
        {"type": "open_round", "bank": 10_000},  # refused: the offer cycle runs
        {"type": "decline_bank", "seats": [2]},
        {"type": "accept_bank", "seat": 4},  # Tess (TPPP) accepts
        *timed(10, quick_round(2)),  # Tess banks at 20:10
        {"type": "offer_bank", "seat": 4},  # refused: an offer is pending
        {"type": "decline_bank", "seats": [1, 2]},  # Tess is not offered again: nobody is left
        {"type": "offer_bank", "seat": 4, "at": at(11)},  # the TPPP, the round after their own
        {"type": "offer_bank", "seat": 1},
        {"type": "accept_bank", "seat": 1},
        *timed(20, quick_round(2)),  # Ann at 20:20
        {"type": "decline_bank", "seats": [2, 4]},
        {"type": "accept_bank", "seat": 1},
        {"type": "open_round", "bank": 10_000, "at": at(41, 1)},  # (20:01:01, 20:41:01]: Ann, Ann
        {"type": "open_round", "bank": 10_000},
        {"type": "start_game", "approved_by": "SUP-1"},
        {"type": "offer_bank", "seat": 2},
        {"type": "accept_bank", "seat": 2},
        {"type": "open_round", "bank": 10_000, "at": at(30)},  # earlier than the previous at
        {"type": "open_round", "bank": 10_000, "at": "2026-05-01T13:45:00-07:00"},  # not UTC
        {"type": "open_round", "bank": 10_000, "at": at(45)},
    ],
}


def codes(results):
    return [r["error"]["code"] if not r["ok"] else None for r in results]


def test_replay_reproduces_section_2a_with_at_times(monkeypatch):
    results = replay(SESSION, monkeypatch)["results"]
    commands = SESSION["commands"]
    by_command = list(zip(commands, results))

    def answer(index):
        return results[index]

    assert answer(3)["error"]["code"] == "tppp_limit"
    first_settle = next(i for i, c in enumerate(commands) if c["type"] == "settle")
    assert answer(first_settle)["next_offer"] == 2 and answer(first_settle)["player_dealer_next"] is None
    assert answer(first_settle + 1)["error"]["code"] == "offer_pending"
    assert [r["error"]["code"] for c, r in by_command if c.get("at") == at(11)] == ["tppp_one_round"]
    ended = next(r for c, r in by_command if c.get("at") == at(41, 1))
    assert ended == {"ok": True, "round": None, "game_ended": "rotation_window"}
    assert codes(results[-7:]) == [
        "game_ended", None, None, None, "invalid_command", "invalid_command", None
    ]
    assert results[-1] == {"ok": True, "round": 4}  # a new game: a new clock
    assert all(r["ok"] or r["error"]["code"] in {
        "tppp_limit", "offer_pending", "tppp_one_round", "game_ended", "invalid_command"
    } for r in results), results


def test_a_live_command_carrying_at_is_refused_and_changes_nothing(make_table):
    table = make_table(rotation_policy=POLICY)
    [result] = run(table, {"type": "sit", "seat": 1, "player": "Ann", "at": at(0)})
    assert result["error"]["code"] == "invalid_command"
    table.refresh_from_db()
    assert table.version == 0 and not SeatOccupancy.objects.exists()


def _play_to_game_end(table):
    """Tess (TPPP) banks at 20:00, Bob at 20:01, Ann at 20:30; Ann again at 20:59 would
    leave Ann alone in (20:19, 20:59]: the game ends."""
    play = clocked(datetime(2026, 5, 1, 20, 0, tzinfo=timezone.utc), actor="replay")
    play(table, 0, {"type": "sit", "seat": 1, "player": "Ann"}, {"type": "sit", "seat": 2, "player": "Bob"})
    play(table, 0, {"type": "sit", "seat": 3, "player": "Tess", "tppp": TPPP})
    play(table, 0, {"type": "offer_bank", "seat": 3}, {"type": "accept_bank", "seat": 3}, *quick_round(1))
    play(table, 1, {"type": "decline_bank", "seats": [1]}, {"type": "accept_bank", "seat": 2}, *quick_round(1))
    play(table, 30, {"type": "decline_bank", "seats": [3]}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    play(table, 59, {"type": "decline_bank", "seats": [2, 3]}, {"type": "accept_bank", "seat": 1})
    return play(table, 59, {"type": "open_round", "bank": 10_000})[0]


def test_the_rotation_log_records_game_end_tppp_badges_and_each_rounds_policy(make_table):
    table = make_table(rotation_policy=POLICY)
    assert _play_to_game_end(table)["game_ended"] == "rotation_window"
    ended = RotationLogEntry.objects.get(action="game_ended")
    assert (ended.player, ended.reason) == ("Ann", "rotation_window")
    assert ended.created_at == datetime(2026, 5, 1, 20, 59, tzinfo=timezone.utc)  # the command's time
    tess = RotationLogEntry.objects.filter(player="Tess")
    assert tess.exists() and {e.badge for e in tess} == {"B-77"}
    assert not RotationLogEntry.objects.exclude(player="Tess").exclude(badge="").exists()
    rounds = list(Round.objects.filter(table=table).order_by("number"))
    assert [(r.pd_player, r.pd_badge) for r in rounds] == [("Tess", "B-77"), ("Bob", ""), ("Ann", "")]
    # Each round records its bank's source: the TPPP company's chips, or the PD's own.
    assert [(r.bank_source, r.pd_company) for r in rounds] == [("tppp", "Acme TPPS"), ("own", ""), ("own", "")]
    assert all(r.config.rotation_policy == POLICY for r in rounds)
    seat = SeatOccupancy.objects.get(player="Tess")
    assert (seat.tppp_badge, seat.tppp_company, str(seat.tppp_expires)) == ("B-77", "Acme TPPS", "2027-06-30")


def _person(name, role):
    return Actor.of(person(name, role))


def test_only_a_supervisor_starts_a_new_game_and_is_recorded_as_approving(make_table):
    table = make_table(rotation_policy=POLICY)
    _play_to_game_end(table)
    dealer, supervisor = person("dan", "dealer"), person("sam", "supervisor")
    assign(dealer, table, supervisor)  # the dealer may drive the table, but not restart its game
    refused = command_execute(table_id=table.pk, command={"type": "start_game", "approved_by": "sam"}, actor=Actor.of(dealer))
    assert refused.code == "approval_required"
    assert run(table, {"type": "open_round", "bank": 10_000})[0]["error"]["code"] == "game_ended"
    started = command_execute(table_id=table.pk, command={"type": "start_game", "approved_by": "someone"}, actor=Actor.of(supervisor))
    assert started.ok
    assert RotationLogEntry.objects.get(action="game_started").reason == "new game approved by sam"


def test_an_approved_configuration_change_switches_the_policy_between_rounds(make_table):
    table = make_table()
    run_ok(table, {"type": "sit", "seat": 1, "player": "Ann"}, {"type": "sit", "seat": 2, "player": "Bob"},
           {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, *quick_round(2))
    requester, approver = _person("sam", "supervisor"), _person("sue", "supervisor")
    approval = approval_request(actor=requester, table_id=table.pk, kind="config",
                                payload={"reason": "2A back in force", "config": {"rotation_policy": POLICY}})
    _, version = approval_decide(approval_id=approval.pk, decider=approver, approve=True, via="device")
    assert version.version == 2 and version.rotation_policy == POLICY
    assert "player-dealer position" in version.notice
    # Ann kept the bank under section 2; under the policy the house offers it first.
    assert run(table, {"type": "open_round", "bank": 10_000})[0]["error"]["code"] == "no_player_dealer"
    run_ok(table, {"type": "offer_bank", "seat": 2}, {"type": "accept_bank", "seat": 2}, *quick_round(1))
    rounds = list(Round.objects.filter(table=table).order_by("number").select_related("config"))
    assert [(r.config.version, r.config.rotation_policy) for r in rounds] == [(1, None), (2, POLICY)]
    assert TableEvent.objects.filter(table=table, command_type="settle").last().result["next_offer"] == 1


def test_a_void_under_the_policy_answers_the_next_offer(make_table):
    table = make_table(rotation_policy=POLICY)
    run_ok(table, {"type": "sit", "seat": 1, "player": "Ann"}, {"type": "sit", "seat": 2, "player": "Bob"},
           {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1},
           {"type": "open_round", "bank": 10_000}, wager(2, 100))
    [voided] = run_ok(table, {"type": "void_round", "reason": "misdeal", "approved_by": "SUP-1"})
    assert voided["next_offer"] == 2

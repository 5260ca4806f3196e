"""`manage.py replay`: results on stdout, nothing left behind, exit codes of docs/commands.md."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from rounds.models import Round
from tables.models import Table, TableEvent

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE_C = {
    "table": {"name": "UTH-1", "seats": 6, "fee_schedule": {
        "payers": "all_players", "player_basis": "ante", "pd_basis": "per_betting_square",
        "rates": [{"min": 500, "max": 2500, "player_fee": 100, "pd_fee": 100}],
    }},
    "commands": [
        {"type": "sit", "seat": 5, "player": "PD"},
        {"type": "sit", "seat": 6, "player": "P6"},
        {"type": "sit", "seat": 1, "player": "P1"},
        {"type": "sit", "seat": 2, "player": "P2"},
        {"type": "offer_bank", "seat": 5},
        {"type": "accept_bank", "seat": 5},
        {"type": "open_round", "bank": 5000},
        {"type": "wager", "seat": 6, "ante": 1000},
        {"type": "wager", "seat": 1, "ante": 1000},
        {"type": "wager", "seat": 2, "ante": 1000, "trips": 100},
        {"type": "no_more_bets"},
        {"type": "play", "seat": 6, "multiple": 4},
        {"type": "play", "seat": 1, "multiple": 3},
        {"type": "check", "seat": 2},
        {"type": "flop", "cards": ["Ts", "9d", "4c"]},
        {"type": "play", "seat": 2, "multiple": 2},
        {"type": "turn_river", "cards": ["4h", "2s"]},
        {"type": "showdown", "player_dealer": ["Kc", "Kd"],
         "hands": {"6": ["5h", "6h"], "1": ["3d", "7c"], "2": ["8s", "Jc"]}},
        {"type": "settle"},
        {"type": "settle"},
    ],
}


def replay(document, monkeypatch):
    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO(json.dumps(document)))
        call_command("replay", "-", stdout=out, stderr=err)
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_replay_prints_every_result_and_leaves_nothing_behind(monkeypatch):
    document = replay(EXAMPLE_C, monkeypatch)
    results = document["results"]
    assert len(results) == len(EXAMPLE_C["commands"])
    settled = results[-2]
    assert settled["pd_net"] == 5000 and settled["balance"] == 10000 and settled["exhausted"] is False
    assert [(l["seat"], l["wager"], l["result"], l["amount"], l["uncovered"]) for l in settled["lines"][:3]] == [
        (6, "ante", "lose", 1000, 0),
        (6, "play", "lose", 4000, 0),
        (6, "blind", "lose", 0, 1000),
    ]
    assert settled["fee_refunds"] == [{"seat": 1, "amount": 100}, {"seat": 2, "amount": 100}]
    assert results[-1] == {"ok": False, "error": {"code": "wrong_state", "message": results[-1]["error"]["message"]}}
    assert not Table.objects.exists() and not TableEvent.objects.exists() and not Round.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw, reason",
    [
        ("{not json", "not JSON"),
        ('{"table": {"name": "T", "seats": 6}}', "'commands' must be a list"),
        ('{"commands": []}', "'table' must be an object"),
        ('{"table": {"name": "T", "seats": 9}, "commands": []}', "seats must be"),
        ('{"table": {"name": "T", "seats": 6, "max_consecutive_banks": 3}, "commands": []}', "max_consecutive_banks"),
        ('{"table": {"name": "T", "seats": 6, "paytable": "UTH-09"}, "commands": []}', "pay table"),
        # A custom table may not pay below the rules' threshold (game-rules section 6).
        ('{"table": {"name": "T", "seats": 6, "paytable": {"blind": {"three_of_a_kind": [1, 1]}}}, "commands": []}',
         "Blind wager pays only on straight or better"),
        ('{"table": {"name": "T", "seats": 6, "paytable": {"trips": {"two_pair": [1, 1]}}}, "commands": []}',
         "Trips wager pays only on three of a kind or better"),
        (json.dumps({"table": {"name": "T", "seats": 6, "fee_schedule": {"rates": [
            {"min": i * 10, "max": i * 10 + 9, "player_fee": 1, "pd_fee": 1} for i in range(6)]}}, "commands": []}),
         "1 to 5 collection rates"),
    ],
)
def test_a_malformed_file_exits_2_with_the_reason_on_stderr(raw, reason, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(raw))
    with pytest.raises(SystemExit) as exit_info:
        call_command("replay", "-", stdout=io.StringIO(), stderr=err)
    assert exit_info.value.code == 2
    assert reason in err.getvalue()
    assert not Table.objects.exists()


@pytest.mark.django_db
@pytest.mark.slow
def test_replay_runs_on_the_embedded_default_database_after_migrate(tmp_path, localdb_dir, monkeypatch):
    """The way a user runs it: no DATABASE_URL, so the app's own PostgreSQL (started in
    a temp folder, then stopped by the last command using it), a fresh `migrate`, the
    file on stdin; the results are the same as on the suite's database."""
    drop = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "CARDROOM_APP_DB_PASSWORD", "CARDROOM_APP_DB_ROLE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["CARDROOM_LOCALDB_DIR"] = str(localdb_dir)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run(manage + ["migrate", "-v0"], env=env, check=True, cwd=tmp_path)
    done = subprocess.run(
        manage + ["replay", "-"], env=env, cwd=tmp_path, input=json.dumps(EXAMPLE_C), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert results == replay(EXAMPLE_C, monkeypatch)["results"]
    missing = subprocess.run(manage + ["replay", str(tmp_path / "nope.json")], env=env, capture_output=True, text=True)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    # Each command stopped the database it started: nothing is left running on its files.
    assert (localdb_dir / "postgres" / "PG_VERSION").exists()
    assert not (localdb_dir / "postgres" / "postmaster.pid").exists()


def _returns_as(spelling: str) -> dict:
    """Issue 21's sequence: P-101 banks two rounds at seat 1, leaves, sits again at seat 4
    as `spelling`; the others decline the bank and seat 4 accepts it."""
    from tests.engine.helpers import quick_round

    return {
        "table": {"name": "UTH-LOOK", "seats": 6},
        "commands": [
            {"type": "sit", "seat": 1, "player": "P-101"},
            {"type": "sit", "seat": 2, "player": "P-2"},
            {"type": "sit", "seat": 3, "player": "P-3"},
            {"type": "offer_bank", "seat": 1},
            {"type": "accept_bank", "seat": 1},
            *quick_round(2),
            *quick_round(2),
            {"type": "leave", "seat": 1},
            {"type": "sit", "seat": 4, "player": spelling},
            {"type": "decline_bank", "seat": 2},
            {"type": "decline_bank", "seat": 3},
            {"type": "accept_bank", "seat": 4},
        ],
    }


@pytest.mark.django_db
@pytest.mark.parametrize("spelling", ["p-101", "\u0420-101", "\u0440-101"])  # Latin p, Cyrillic Р and р
def test_a_look_alike_of_the_player_dealer_is_refused_a_third_round(spelling, monkeypatch):
    results = replay(_returns_as(spelling), monkeypatch)["results"]
    assert all(r["ok"] for r in results[:-1]), results
    assert results[-1]["error"]["code"] == "not_offered"


@pytest.mark.django_db
def test_someone_else_returning_to_the_seat_may_take_the_bank(monkeypatch):
    """The same sequence with another person: accepted, so the refusal above is the person's."""
    results = replay(_returns_as("Q-101"), monkeypatch)["results"]
    assert all(r["ok"] for r in results), results


@pytest.mark.django_db
def test_a_mixed_script_id_is_refused_in_a_replay(monkeypatch):
    document = {"table": {"name": "T", "seats": 6}, "commands": [
        {"type": "sit", "seat": 1, "player": "P\u0430ul"},  # Cyrillic а inside a Latin name
        {"type": "sit", "seat": 1, "player": "Paul"},  # the seat stayed empty
    ]}
    results = replay(document, monkeypatch)["results"]
    assert results[0]["error"]["code"] == "mixed_script_id" and results[1] == {"ok": True}


DEARER = {"payers": "all_players", "player_basis": "ante", "pd_basis": "per_betting_square",
          "rates": [{"min": 500, "max": 2500, "player_fee": 200, "pd_fee": 150}]}
INLINED = {"name": "California 2026", "version": 3, "rules": {"fee_schedule": DEARER, "notice": "Rules as of 1 Dec"}}


@pytest.mark.django_db
def test_a_replay_file_may_inline_a_rule_set_the_table_plays_under_and_a_file_without_one_plays_as_before(monkeypatch):
    from tables.management.commands import replay as replay_module

    named = []
    real_execute = replay_module.command_execute

    def execute_and_look(**kwargs):
        outcome = real_execute(**kwargs)
        config = Table.objects.select_related("config__rule_set_change__rule_set").get(pk=kwargs["table_id"]).config
        change = config.rule_set_change
        named.append((change.rule_set.name, change.version, config.notice) if change else None)
        return outcome

    monkeypatch.setattr(replay_module, "command_execute", execute_and_look)
    under = replay({**EXAMPLE_C, "rule_set": INLINED}, monkeypatch)["results"]
    # Every command, the seating before the first round included, plays under version 3.
    assert set(named) == {("California 2026", 3, "Rules as of 1 Dec")}
    assert under[-2]["fee_refunds"] == [{"seat": 1, "amount": 200}, {"seat": 2, "amount": 200}]
    named.clear()
    before = replay(EXAMPLE_C, monkeypatch)["results"]  # today's file: the table's own rules
    assert set(named) == {None}
    assert before[-2]["fee_refunds"] == [{"seat": 1, "amount": 100}, {"seat": 2, "amount": 100}]
    assert [r["ok"] for r in under] == [r["ok"] for r in before]
    from tables.models import RuleSet, RuleSetChange
    assert not RuleSet.objects.exists() and not RuleSetChange.objects.exists()  # rolled back with the rest


@pytest.mark.django_db
@pytest.mark.parametrize("rule_set, reason", [
    ("California 2026", "'rule_set' must be an object with 'name', 'version' and 'rules'"),
    ({"name": "C", "version": 1}, "'rule_set' must be an object with 'name', 'version' and 'rules'"),
    ({"name": "C", "version": "1", "rules": {"notice": "x"}}, "bad rule set: the rule set's version is a whole number"),
    ({"name": "", "version": 1, "rules": {"notice": "x"}}, "bad rule set: the rule set's name"),
    ({"name": "C", "version": 1, "rules": {"seats": 8}}, "bad rule set: a rule set does not name seats"),
    ({"name": "C", "version": 1, "rules": {"max_consecutive_banks": 3}}, "bad rule set: UTH-1 cannot play under these rules"),
    ({"name": "C", "version": 1, "rules": {"side_bet_paytables": {"pairs": "BBB-01"}}}, "bad rule set: side_bet_paytables"),
])
def test_a_bad_inlined_rule_set_exits_2_with_the_reason_and_runs_nothing(rule_set, reason, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({**EXAMPLE_C, "rule_set": rule_set})))
    with pytest.raises(SystemExit) as exit_info:
        call_command("replay", "-", stdout=io.StringIO(), stderr=err)
    assert exit_info.value.code == 2
    assert reason in err.getvalue(), err.getvalue()
    assert not Table.objects.exists()

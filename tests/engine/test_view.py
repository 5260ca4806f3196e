"""The tablet's screen hints (rounds.engine.view), asked of the pure engine: no database,
no Django. The service and live tests check the same hints through the snapshot."""

import subprocess
import sys

from rounds.engine.money import dollars
from rounds.engine.sidebets import Fund
from rounds.engine.view import bank_now, posted_rules, table_view
from tests.engine.helpers import (
    EXAMPLE_B_BOARD,
    EXAMPLE_B_HOLES,
    EXAMPLE_B_PD,
    decide,
    drive,
    example_b,
    new_game,
    open_round,
    snapshot,
    table_with_pd,
    wager,
)
from tests.engine.test_sidebets import D_BOARD, D_HOLES, D_PD, D_WAGERS, SIDE_BETS, side_table


def test_the_engine_and_its_view_import_no_django_and_no_database():
    # A fresh interpreter: this test process has Django loaded by the pytest plugin. Every
    # module of the engine package is imported, the handlers and the view included.
    code = (
        "import importlib, pkgutil, sys, rounds.engine as e;"
        "[importlib.import_module(m.name) for m in pkgutil.walk_packages(e.__path__, 'rounds.engine.')];"
        "assert 'rounds.engine.view' in sys.modules and 'rounds.engine.handlers.settling' in sys.modules;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'psycopg', 'tables', 'collections_fees'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, f"the engine's view pulls in {done.stdout.strip()} {done.stderr[-500:]}"


def test_the_steps_of_a_round_come_from_the_engine_state_alone():
    game = new_game(4)
    assert table_view(game.to_dict())["next"]["step"] == "choose_player_dealer"
    game = table_with_pd(1, [2, 3], seats=4)
    view = table_view(game.to_dict())
    assert view["next"] == {"step": "open_round", "commands": [{"type": "open_round"}, {"type": "pass_bank"}]}
    assert view["bank_run"] == {"bank": 1, "of": 2, "text": "1st of 2"} and view["bank_left"] is None
    betting, _ = drive(game, open_round(10000, [wager(2, 500)])[:-1])
    view = table_view(betting.to_dict())
    # While bets are taken nobody owes a decision: the seats are offered wagers.
    assert view["pending"] == [] and view["next"]["step"] == "no_more_bets"
    assert [a["type"] for a in view["seats"][1]["actions"]] == ["wager", "withdraw"]
    game, _ = drive(game, open_round(10000, [wager(2, 500), wager(3, 500)]))
    view = table_view(game.to_dict())
    assert view["next"]["step"] == "deal" and view["pending"] == [2, 3] and view["bank_left"] == 10000
    game, _ = drive(game, [decide(2, "play", 4), decide(3, "check")])
    view = table_view(game.to_dict())
    # The engine's reveal and its card count; Play offered at 3x and 4x the Ante pre-flop.
    assert view["next"] == {"step": "flop", "commands": [{"type": "flop"}]}
    assert view["picker"] == {"command": "flop", "count": 3}
    game, _ = drive(game, [{"type": "flop", "cards": ["2c", "7d", "9h"]}])
    view = table_view(game.to_dict())
    assert view["next"]["check_all"] == [{"type": "check", "seat": 3}]
    assert view["seats"][2]["actions"] == [{"type": "check"}, {"type": "play", "multiple": 2}]
    assert view["seats"][2]["play_amounts"] == {"2": 1000}
    assert view["seats"][1]["owes"] is False and view["seats"][1]["actions"] == []  # played pre-flop
    game, _ = drive(game, [decide(3, "check"), {"type": "turn_river", "cards": ["Js", "3s"]}])
    view = table_view(game.to_dict())
    # On the river no check is allowed: no one-tap "check everyone".
    assert view["next"]["step"] == "decisions" and "check_all" not in view["next"]
    assert view["seats"][2]["actions"] == [{"type": "play", "multiple": 1}, {"type": "fold"}]
    game, _ = drive(game, [decide(3, "fold")])
    view = table_view(game.to_dict())
    assert view["next"] == {"step": "showdown", "commands": [{"type": "showdown"}]}
    assert view["picker"] == {"command": "showdown", "hands": ["player_dealer", 2]}


def test_the_showdown_preview_is_the_engines_settlement_and_changes_nothing():
    game, _ = drive(new_game(6), example_b(dealt=False))
    before = snapshot(game)
    view = table_view(game.to_dict())
    assert snapshot(game) == before
    _, (settled,) = drive(game, [{"type": "settle"}])
    preview = view["settlement_preview"]
    assert preview["lines"] == settled["lines"] and preview["balance"] == settled["balance"]
    assert view["bank_left"] == settled["balance"]
    assert view["next"] == {"step": "settle", "commands": [{"type": "settle"}]}
    # Before the showdown there is no preview, and the bank left is the bank opened with.
    # (Dealt from a shuffler sequence, the cards for a showdown are known on the river already.)
    for dealt in (False, True):
        early, _ = drive(new_game(6), example_b(dealt=dealt)[:-1])
        assert bank_now(early) == (None, 4000)
    assert {*EXAMPLE_B_BOARD, *EXAMPLE_B_PD, *EXAMPLE_B_HOLES[2]} <= set(view["used_cards"])


def test_a_progressive_showdown_is_previewed_only_with_the_meters_fund():
    game = side_table()
    commands = open_round(100000, D_WAGERS) + [
        {"type": "check", "seat": 2}, {"type": "check", "seat": 3},
        {"type": "flop", "cards": D_BOARD[:3]}, {"type": "check", "seat": 2}, {"type": "check", "seat": 3},
        {"type": "turn_river", "cards": D_BOARD[3:]}, decide(2, "play", 1), decide(3, "play", 1),
        {"type": "showdown", "player_dealer": D_PD, "hands": {str(s): h for s, h in D_HOLES.items()}},
    ]
    game, _ = drive(game, commands)
    assert table_view(game.to_dict())["settlement_preview"] is None  # no meter given: no guess
    view = table_view(game.to_dict(), fund=Fund(1000160, 600040))
    awards = view["settlement_preview"]["progressive"]
    assert [(a["seat"], a["hand"]) for a in awards] == [(2, "full_house")]
    assert SIDE_BETS["progressive"]["paytable"] == posted_rules(game.config.to_config())["side_bets"]["progressive"]["paytable"]


def test_posted_rules_offer_ante_presets_within_the_limits():
    posted = posted_rules({"seats": 6, "limits": {"ante_min": 500, "ante_max": 5000}})
    assert posted["ante_presets"] == [500, 1000, 2500, 5000]
    assert posted_rules({"seats": 6, "limits": {"ante_max": 300}})["ante_presets"] == [300]


def test_money_reads_in_dollars_with_two_decimals():
    assert [dollars(c) for c in (12345, -500, 0, 7, 100000000)] == ["$123.45", "-$5.00", "$0.00", "$0.07", "$1,000,000.00"]
    assert dollars(None) == "" and dollars("") == ""


def test_a_tppp_under_the_one_round_rule_banks_the_1st_of_1_and_a_player_the_tables_limit():
    from tests.engine.test_rotation_policy import TPPP, seated

    t = seated([1, 2])
    t.do({"type": "sit", "seat": 3, "player": "T-3", "tppp": TPPP})
    t.do({"type": "offer_bank", "seat": 3}, {"type": "accept_bank", "seat": 3})
    assert table_view(t.game.to_dict())["bank_run"] == {"bank": 1, "of": 1, "text": "1st of 1"}
    t.play_round(1)
    t.take_bank(1)
    assert table_view(t.game.to_dict())["bank_run"]["of"] == 2

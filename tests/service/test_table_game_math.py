"""What a table's configuration costs per round, beside its setup (issue 38 item 4): the
supervisors' page and `manage.py game_math --table`, from the configuration in force, with
the fees the engine would assess; nobody else sees the page (tests/test_permissions.py)."""

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tables.management.commands.seed_demo import DEMO_TABLES

from .test_access import person

pytestmark = pytest.mark.django_db

DEMO = DEMO_TABLES["Demo UTH-2"][0]  # $5 to $1,000 Antes; $1 a player and $1 a square to the player-dealer


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def test_a_supervisor_sees_the_player_dealers_result_and_each_players_cost_per_number_of_players(make_table):
    table = make_table(**{k: v for k, v in DEMO.items() if k != "seats"})
    page = logged_in(person("sam", "supervisor")).get(f"/staff/tables/{table.pk}/expected")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Each player bets Ante $5.00 and Blind $5.00." in html
    # 2.185 % of $5 is 10.925 cents a player; the player-dealer pays $1 a square.
    assert '<tr data-players="1"><td>1</td>\n    <td class="error"><strong>-$0.89</strong></td><td>$0.11</td><td>$1.00</td>' in html
    assert '<tr data-players="5"><td>5</td>\n    <td class="error"><strong>-$4.45</strong></td><td>$0.55</td><td>$5.00</td>' in html
    assert "<td><strong>$1.11</strong></td><td>$0.11</td><td>$1.00</td>" in html
    assert "paid by every player and the player-dealer" in html
    # The setup page leads to it.
    setup = logged_in(person("sue", "supervisor")).get(f"/staff/tables/{table.pk}/").content.decode()
    assert f'href="/staff/tables/{table.pk}/expected"' in setup


def test_the_wagers_asked_change_the_figures_and_a_refusal_is_a_sentence_not_a_code(make_table):
    table = make_table(**{k: v for k, v in DEMO.items() if k != "seats"})
    client = logged_in(person("sam", "supervisor"))
    html = client.get(f"/staff/tables/{table.pk}/expected", {"ante": "30", "trips": "1", "bad_beat": "1",
                                                             "pairs": ""}).content.decode()
    assert "Each player bets Ante $30.00 and Blind $30.00, Trips $1.00, Bad Beat $1.00." in html
    assert "Bad Beat (BBB-01) 20.387%, every hand to showdown" in html
    assert "<td>$2.00</td>" in html  # a $30 Ante is in the $25.01 and up rate: the player pays $2
    refused = client.get(f"/staff/tables/{table.pk}/expected", {"ante": "5", "bad_beat": "1"}).content.decode()
    assert "A Bad Beat wager needs a Trips wager at the same seat." in refused
    assert "bad_beat_needs_trips" not in refused and 'id="expected-results"' not in refused


def test_a_table_without_fees_or_limits_shows_the_game_alone(make_table):
    table = make_table()
    html = logged_in(person("sam", "supervisor")).get(f"/staff/tables/{table.pk}/expected").content.decode()
    assert "this table charges none" in html
    assert '<td class=""><strong>$0.11</strong></td>' in html  # $5 Ante: the player-dealer wins 10.925 cents


@pytest.mark.parametrize("role", ["dealer", "compliance", "manager", "count_team"])
def test_only_supervisors_see_it(make_table, role):
    table = make_table()
    assert logged_in(person("x", role)).get(f"/staff/tables/{table.pk}/expected").status_code == 403


def test_the_command_prints_a_tables_figures_by_its_name_or_its_id(make_table, capsys):
    table = make_table(**{k: v for k, v in DEMO.items() if k != "seats"})
    call_command("game_math", "--table", "T", "--trips", "500")
    by_name = capsys.readouterr().out
    call_command("game_math", "--table", str(table.pk), "--trips", "500")
    assert capsys.readouterr().out == by_name
    assert by_name.startswith(f"T (table {table.pk}): 6 seats, pay table UTH-02; each player bets Ante $5.00 and Blind $5.00, Trips $5.00")
    # 10.925 cents of the base game and 1.90 % of the $5 Trips (UTH-02): about 20 cents a player.
    assert "  1 player : player-dealer   -$0.80 (wins $0.20 from the players, pays $1.00 in fees)" in by_name
    with pytest.raises(CommandError, match="no table 'nowhere'"):
        call_command("game_math", "--table", "nowhere")
    with pytest.raises(CommandError, match=r"T \(table \d+\): A Bad Beat wager needs a Trips wager at the same seat\."):
        call_command("game_math", "--table", "T", "--bad-beat", "100")

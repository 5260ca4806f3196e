"""The rule set in the records (issue 38 item 1, tables/rule_sets.py): the rotation log (page and
CSV) and the round history (page and CSV) name, for each entry, the rule set and version the
table played under; every export's manifest names the rule set versions in force over its
gaming days."""

import csv
import io
from datetime import datetime, time, timedelta

import pytest
from django.db import connection
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from cardroom.sql import Filters
from collections_fees.models import ExportManifest
from collections_fees.round_selectors import round_history_query, rotation_log_query
from collections_fees.services import rule_sets_in_force
from tables import rule_sets
from tests.engine.helpers import FEES, dealt_round, seated_with_pd
from tests.patron_aml.conftest import person
from tests.playing import new_table, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def played():
    """Table R1 in rule set "California 2026": version 1 (one bank in a row) from today,
    version 2 (back to two) from tomorrow, each filed by Ann and approved by Bob; a round
    today and one at 06:10 tomorrow. Table Own plays today outside any rule set."""
    filer, approver = Actor.of(person("sup-ann", "supervisor")), Actor.of(person("sup-bob", "supervisor"))
    today = calendar().gaming_day(timezone.now())
    tomorrow = today + timedelta(days=1)
    rule_set = rule_sets.rule_set_create(actor=filer, name="California 2026")
    table, own = new_table("R1", fee_schedule=FEES), new_table("Own", fee_schedule=FEES)
    rule_sets.rule_set_join(actor="seed", table_id=table.pk, rule_set_id=rule_set.pk)
    for day, banks in ((today, 1), (tomorrow, 2)):
        change = rule_sets.rule_set_file(actor=filer, rule_set_id=rule_set.pk, effective_day=day,
                                         rules={"max_consecutive_banks": banks})
        rule_sets.rule_set_decide(actor=approver, change_id=change.pk, approve=True)
    run(table, *seated_with_pd([1, 2, 3], pd=1), *dealt_round([2, 3]))
    run(own, *seated_with_pd([1, 2, 3], pd=1), *dealt_round([2, 3]))
    early_tomorrow = timezone.make_aware(datetime.combine(tomorrow, time(6, 10)))
    run(table, {"type": "accept_bank", "seat": 2}, actor="replay", at=early_tomorrow - timedelta(minutes=1))
    run(table, *dealt_round([1, 3]), actor="replay", at=early_tomorrow)
    return table, own, today, tomorrow


def _copied(query) -> list[dict]:
    """A query's CSV, as its export writes it (its COPY), on this connection."""
    out = io.BytesIO()
    with connection.cursor() as cursor:
        with cursor.cursor.copy(query.copy_sql(), query.params) as copy:
            for chunk in copy:
                out.write(chunk)
    return list(csv.DictReader(io.StringIO(out.getvalue().decode())))


def test_the_rotation_csv_names_the_rule_set_version_each_entry_was_played_under(played):
    table, own, today, tomorrow = played
    rows = _copied(rotation_log_query(Filters(day_from=today, day_to=tomorrow, table=table.pk)))
    banked = [(r["round_number"], r["rule_set"], r["rule_set_version"], r["bank_limit"]) for r in rows if r["entry"] == "banked"]
    assert banked == [("1", "California 2026", "1", "1"), ("2", "California 2026", "2", "2")]
    # The offer before the first round was made under the table's own configuration (the rule set's
    # version comes in with the round); the offer made when the limit was reached and the acceptance before tomorrow's first round
    # under version 1, still in force until that round opened.
    answers = [(r["action"], r["round_number"], r["rule_set"], r["rule_set_version"]) for r in rows if r["entry"] == "rotation"]
    assert answers[0][0] == "offer" and answers[0][2:] == ("", "")
    assert answers[-1][0] == "accept" and answers[-1][2:] == ("California 2026", "1")
    own_rows = _copied(rotation_log_query(Filters(day_from=today, day_to=tomorrow, table=own.pk)))
    assert own_rows and {(r["rule_set"], r["rule_set_version"]) for r in own_rows} == {("", "")}


def test_the_rotation_and_round_history_pages_name_the_rule_set_version(played, officer_client):
    table, _, today, tomorrow = played
    span = {"from": today, "to": tomorrow, "table": table.pk}
    rotation = officer_client.get("/compliance/rotation/", span).content.decode()
    assert "California 2026 version 1" in rotation and "California 2026 version 2" in rotation
    history = officer_client.get("/compliance/rounds/", span).content.decode()
    assert "California 2026 version 1" in history and "California 2026 version 2" in history


def test_the_round_history_csv_names_each_rounds_rule_set_version(played):
    table, own, today, tomorrow = played
    rows = _copied(round_history_query(Filters(day_from=today, day_to=tomorrow)))
    named = {(r["table_name"], r["round_number"]): (r["rule_set"], r["rule_set_version"]) for r in rows}
    assert named == {("R1", "1"): ("California 2026", "1"), ("R1", "2"): ("California 2026", "2"), ("Own", "1"): ("", "")}


def test_an_exports_manifest_names_the_rule_set_versions_in_force_over_its_days(played, officer_client):
    table, own, today, tomorrow = played
    response = officer_client.get("/compliance/collections/summary.xlsx", {"from": today, "to": today, "table": table.pk})
    assert response.status_code == 200
    manifest = officer_client.get(f"/compliance/exports/{response['X-Export-Id']}/manifest.json").json()
    assert [(r["rule_set"], r["version"], r["effective_day"], r["until"], r["rules"], r["filed_by"], r["approved_by"], r["tables"])
            for r in manifest["rule_sets"]] == [
        ("California 2026", 1, today.isoformat(), today.isoformat(), {"max_consecutive_banks": 1}, "sup-ann", "sup-bob", ["R1"]),
    ]
    # The seal covers them: a manifest whose rule sets were changed no longer verifies.
    stored = ExportManifest.objects.get(pk=response["X-Export-Id"])
    assert stored.seal_valid()
    stored.rule_sets = []
    assert not stored.seal_valid()
    # Both days: both versions; tomorrow alone: version 2 alone; a table outside the set: none.
    both = rule_sets_in_force({"day_from": today.isoformat(), "day_to": tomorrow.isoformat()})
    assert [(r["version"], r["until"]) for r in both] == [(1, today.isoformat()), (2, None)]
    assert [r["version"] for r in rule_sets_in_force({"gaming_day": tomorrow.isoformat(), "table": table.pk})] == [2]
    assert rule_sets_in_force({"day_from": today.isoformat(), "day_to": tomorrow.isoformat(), "table": own.pk}) == []

"""A rule set version is decided once, and the database holds it so (tables/migrations/
0032_rule_set_change_decided_once.py), as it holds every other approval's decision: as the
served database role, a second decision, another decider or a rewritten version written by
raw SQL is refused, and the decision taken stands."""

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from tables import rule_sets
from tables.models import RuleSetChange
from tests.patron_aml.conftest import person

pytestmark = pytest.mark.django_db

NOTICE = "Rules of 11 CCR 2076 as brought back"


@pytest.fixture
def people(db):
    return {name: Actor.of(person(name, "supervisor")) for name in ("sup-ann", "sup-bob", "sup-cy")}


def filed(people):
    rule_set = rule_sets.rule_set_create(actor=people["sup-ann"], name="California 2026")
    return rule_sets.rule_set_file(actor=people["sup-ann"], rule_set_id=rule_set.pk, rules={"notice": NOTICE},
                                   effective_day=calendar().gaming_day(timezone.now()))


def refused(statement, params):
    """`statement` as the served role, raw: refused by the database, nothing changed."""
    with pytest.raises(DatabaseError) as error, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement, params)
    # The append-only trigger, or for a DELETE the role's grants before it.
    assert "append-only" in str(error.value) or "permission denied" in str(error.value)


@pytest.mark.parametrize("statement", [
    # A second decision: the approval rewritten as a refusal.
    "UPDATE tables_rulesetchange SET decision = 'declined' WHERE id = %s",
    # Another decider put in the first one's place.
    "UPDATE tables_rulesetchange SET decided_by = 'sup-cy', decided_by_user_id = %s WHERE id = %s",
    # The approved rules themselves, or their day, rewritten after the approval.
    "UPDATE tables_rulesetchange SET rules = '{\"notice\": \"x\"}', effective_day = effective_day - 1 WHERE id = %s",
    "DELETE FROM tables_rulesetchange WHERE id = %s",
])
def test_a_decided_version_is_not_decided_again_or_rewritten_by_raw_sql(people, statement):
    change = filed(people)
    rule_sets.rule_set_decide(actor=people["sup-bob"], change_id=change.pk, approve=True)
    params = [people["sup-cy"].user_id, change.pk] if "decided_by_user_id" in statement else [change.pk]
    refused(statement, params)
    kept = RuleSetChange.objects.get(pk=change.pk)
    assert (kept.decision, kept.decided_by, kept.decided_by_user_id, kept.rules) == (
        "approved", "sup-bob", people["sup-bob"].user_id, {"notice": NOTICE})


def test_a_pending_version_is_decided_once_and_its_filed_half_is_never_rewritten(people):
    change = filed(people)
    # The filer's half of a version still pending is not rewritten either.
    refused("UPDATE tables_rulesetchange SET rules = '{\"notice\": \"x\"}' WHERE id = %s", [change.pk])
    refused("UPDATE tables_rulesetchange SET reason = 'x' WHERE id = %s", [change.pk])
    # Deciding it (the one UPDATE the row takes) goes through; a second one does not.
    rule_sets.rule_set_decide(actor=people["sup-bob"], change_id=change.pk, approve=False)
    refused("UPDATE tables_rulesetchange SET decision = 'approved', decided_by = 'sup-cy' WHERE id = %s", [change.pk])
    assert RuleSetChange.objects.get(pk=change.pk).decision == "declined"

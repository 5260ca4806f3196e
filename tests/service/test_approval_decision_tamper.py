"""Approval decisions are held against the audit trail's record of each decision and,
for a void, against the chained event that voided the round under it
(tables/record_checks.py `approval_decision_problems`): a refusal rewritten as an
approval, or an approval forged for a request nobody decided, is named by `verify_logs`."""

import pytest

from cardroom.access import Actor
from rounds.models import Round
from tables.approvals import approval_decide, approval_request
from tests.compliance.test_tamper import sql, tamper as tamper_written, verify_logs

from .test_access import staff  # noqa: F401 (a fixture)
from .test_approvals_travel import open_round

pytestmark = pytest.mark.django_db


def tamper(table, statement, params=()):
    """test_tamper.tamper, after the test's own writes' deferred checks have run (a table
    with pending trigger events cannot be altered)."""
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    tamper_written(table, statement, params)

VOID = {"reason": "card exposed"}


def void_requested(staff):  # noqa: F811
    table = staff["table"]
    open_round(table)
    return approval_request(actor=Actor.of(staff["dealer"]), table_id=table.pk, kind="void", payload=VOID)


def test_decisions_as_taken_verify(staff):  # noqa: F811
    refused = void_requested(staff)
    approval_decide(approval_id=refused.pk, decider=Actor.of(staff["sup"]), approve=False, via="device", reason="seen on camera")
    approved = approval_request(actor=Actor.of(staff["dealer"]), table_id=staff["table"].pk, kind="void", payload=VOID)
    approval_decide(approval_id=approved.pk, decider=Actor.of(staff["sup2"]), approve=True, via="device")
    assert Round.objects.get(table=staff["table"]).status == "voided"
    code, out = verify_logs("--table", str(staff["table"].pk))
    assert code == 0, out


def test_a_refusal_rewritten_as_an_approval_is_named(staff):  # noqa: F811
    approval = void_requested(staff)
    approval_decide(approval_id=approval.pk, decider=Actor.of(staff["sup"]), approve=False, via="device", reason="seen on camera")
    tamper("tables_approvaldecision", "UPDATE tables_approvaldecision SET approved = true WHERE approval_id = %s", [approval.pk])
    table = staff["table"]
    code, out = verify_logs("--table", str(table.pk))
    assert code == 1
    name = f"BROKEN approval {approval.pk} (void at table {table.pk})"
    assert f"{name}: its decision reads approved by sam, the audit trail recorded refused by sam: altered" in out, out
    assert (
        f"{name}: its decision reads approved by sam, but no event in the table's chain voided round 1 on sam's approval"
    ) in out


def test_an_approval_forged_for_an_undecided_request_is_named(staff):  # noqa: F811
    approval = void_requested(staff)
    tamper(
        "tables_approvaldecision",
        "INSERT INTO tables_approvaldecision (approval_id, approved, decided_by_id, via, session, address, decided_at) "
        "VALUES (%s, true, %s, 'device', '', '', now())",
        [approval.pk, staff["sup2"].pk],
    )
    table = staff["table"]
    code, out = verify_logs("--table", str(table.pk))
    assert code == 1
    assert (
        f"BROKEN approval {approval.pk} (void at table {table.pk}): its decision reads approved by sue, "
        "the audit trail records no decision: forged"
    ) in out, out


def test_a_deleted_decision_is_named(staff):  # noqa: F811
    approval = void_requested(staff)
    approval_decide(approval_id=approval.pk, decider=Actor.of(staff["sup"]), approve=True, via="device")
    tamper("tables_approvaldecision", "DELETE FROM tables_approvaldecision WHERE approval_id = %s", [approval.pk])
    table = staff["table"]
    code, out = verify_logs("--table", str(table.pk))
    assert code == 1
    assert (
        f"BROKEN approval {approval.pk} (void at table {table.pk}): the audit trail records it approved by sam, "
        "the database holds no decision: deleted"
    ) in out, out

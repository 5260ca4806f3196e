"""The audit rows of a table's accepted commands are a keyed hash chain per table, its
head on the table row every command locks (cardroom/audit.py `audit_chained`): an owner
who edits, deletes or re-hashes one is named by `verify_logs`
(tables/record_checks.py `audit_chain_problems`)."""

import pytest

from cardroom import hashchain
from cardroom.models import AuditEntry
from tables.models import Table

from .test_tamper import tamper, verify_logs

pytestmark = pytest.mark.django_db


def chained(table):
    return AuditEntry.objects.filter(table_id=table.pk, seq__isnull=False).order_by("seq")


def test_every_accepted_command_of_a_table_has_its_audit_row_in_the_tables_chain(ledger):
    a = Table.objects.get(pk=ledger.table_a.pk)
    rows = list(chained(a))
    assert [r.seq for r in rows] == list(range(1, a.version + 1))  # one per accepted command
    assert {r.action for r in rows} == {"command"} and rows[-1].row_hash == a.audit_head
    code, out = verify_logs("--table", str(a.pk))
    assert code == 0, out


def test_an_edited_audit_row_is_named(ledger):
    a = ledger.table_a
    target = chained(a)[3]
    tamper("cardroom_auditentry", "UPDATE cardroom_auditentry SET username = 'someone-else' WHERE id = %s", [target.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} audit seq {target.seq}: content altered since it was written" in out, out


def test_a_deleted_audit_row_is_named(ledger):
    a = ledger.table_a
    target = chained(a)[5]
    tamper("cardroom_auditentry", "DELETE FROM cardroom_auditentry WHERE id = %s", [target.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} audit seq {target.seq}: row missing (next stored row is seq {target.seq + 1})" in out, out


def test_the_last_audit_row_deleted_is_named(ledger):
    a = Table.objects.get(pk=ledger.table_a.pk)
    last = chained(a).last()
    tamper("cardroom_auditentry", "DELETE FROM cardroom_auditentry WHERE id = %s", [last.pk])
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} audit end of chain: chain ends at seq {last.seq - 1}, the table recorded {last.seq}" in out


def test_an_audit_row_rehashed_without_the_key_is_named(ledger):
    a = ledger.table_a
    target = chained(a)[2]
    target.summary = "nothing happened"
    forged = hashchain.link(target.prev_hash, target.chain_content(), hashchain.LEGACY)
    tamper(
        "cardroom_auditentry",
        "UPDATE cardroom_auditentry SET summary = %s, row_hash = %s WHERE id = %s",
        [target.summary, forged, target.pk],
    )
    code, out = verify_logs("--table", str(a.pk))
    assert code == 1
    assert f"BROKEN table {a.pk} audit seq {target.seq}: re-hashed without the ledger key" in out, out

"""Every audit row that is not a table's accepted command (refusals, approvals, logins and
failed logins, counts, patron work, setup) is in one keyed hash chain for the house, its
head on the one AuditHouseHead row (cardroom/audit.py `audit_record`): an owner who edits,
deletes or re-hashes one, or cuts the last, is named by `verify_logs`
(tables/record_checks.py `house_audit_problems`)."""

import pytest
from django.db import connection
from django.test import Client

from cardroom import hashchain
from cardroom.models import AuditEntry, AuditHouseHead

from .test_tamper import tamper, verify_logs

pytestmark = pytest.mark.django_db


@pytest.fixture
def house_rows(db):
    """Five failed logins, each by a different name (no lockout): five house audit rows."""
    client = Client()
    for n in range(5):
        client.post("/accounts/login/", {"username": f"guess-{n}", "password": "wrong"})
    with connection.cursor() as cursor:
        # The rows' deferred foreign-key checks, run now: PostgreSQL will not alter a table
        # (tamper's trigger switch) with such checks pending in the transaction.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    rows = list(AuditEntry.objects.filter(house_seq__isnull=False).order_by("house_seq"))
    assert [r.action for r in rows] == ["login_failed"] * 5
    return rows


def test_the_house_rows_are_one_chain_that_verifies(house_rows):
    head = AuditHouseHead.objects.get()
    assert [r.house_seq for r in house_rows] == list(range(head.seq - 4, head.seq + 1))
    assert house_rows[-1].row_hash == head.head and house_rows[-1].hash_key == hashchain.current_key_id()
    assert all(r.seq is None for r in house_rows)  # in no table's chain
    code, out = verify_logs()
    assert code == 0, out


def test_an_edited_house_audit_row_is_named(house_rows):
    target = house_rows[1]
    tamper("cardroom_auditentry", "UPDATE cardroom_auditentry SET username = 'someone-else' WHERE id = %s", [target.pk])
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN house audit chain seq {target.house_seq}: content altered since it was written" in out, out


def test_a_deleted_house_audit_row_is_named(house_rows):
    target = house_rows[2]
    tamper("cardroom_auditentry", "DELETE FROM cardroom_auditentry WHERE id = %s", [target.pk])
    code, out = verify_logs()
    assert code == 1
    expected = f"BROKEN house audit chain seq {target.house_seq}: row missing (next stored row is seq {target.house_seq + 1})"
    assert expected in out, out


def test_the_last_house_audit_row_deleted_is_named(house_rows):
    last = house_rows[-1]
    tamper("cardroom_auditentry", "DELETE FROM cardroom_auditentry WHERE id = %s", [last.pk])
    code, out = verify_logs()
    assert code == 1
    expected = (
        f"BROKEN house audit chain end of chain: chain ends at seq {last.house_seq - 1}, "
        f"the house audit head recorded {last.house_seq}"
    )
    assert expected in out, out


def test_a_house_audit_row_rehashed_without_the_key_is_named(house_rows):
    target = house_rows[0]
    target.summary = "nothing happened"
    forged = hashchain.link(target.prev_hash, target.chain_content(), hashchain.LEGACY)
    tamper(
        "cardroom_auditentry",
        "UPDATE cardroom_auditentry SET summary = %s, row_hash = %s, hash_key = '' WHERE id = %s",
        [target.summary, forged, target.pk],
    )
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN house audit chain seq {target.house_seq}: hashed without the ledger key" in out, out


def test_the_app_role_cannot_delete_the_house_head(house_rows):
    from django.db import DatabaseError, transaction

    with pytest.raises(DatabaseError), transaction.atomic():
        AuditHouseHead.objects.all().delete()

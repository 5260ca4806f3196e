"""Every audit row that is not a table's accepted command (refusals, approvals, logins and
failed logins, counts, patron work, setup) joins one keyed hash chain for the house just
after its own transaction commits: an AuditHouseLink per row, the head on the one
AuditHouseHead row (cardroom/audit.py `audit_record`, `link_pending`). Auditing locks
nothing in the caller's transaction, so no request waits on the chain. An owner who edits
an audit row or a link, deletes one, re-hashes one without the key or cuts the last is
named by `verify_logs` (tables/record_checks.py `house_audit_problems`), and so is an
audit row left in no chain past the grace period."""

import pytest
from django.db import connection, connections
from django.test import Client

from cardroom import hashchain
from cardroom.access import Actor
from cardroom.audit import audit_record, link_pending
from cardroom.models import AuditEntry, AuditHouseHead, AuditHouseLink

from .test_tamper import tamper, verify_logs

pytestmark = pytest.mark.django_db


def immediate_constraints():
    with connection.cursor() as cursor:
        # The rows' deferred foreign-key checks, run now: PostgreSQL will not alter a table
        # (tamper's trigger switch) with such checks pending in the transaction.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.fixture
def house_links(db, django_capture_on_commit_callbacks):
    """Five failed logins, each by a different name (no lockout), each linked after its
    request's commit: five links of the house chain."""
    client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(5):
            client.post("/accounts/login/", {"username": f"guess-{n}", "password": "wrong"})
    immediate_constraints()
    links = list(AuditHouseLink.objects.select_related("entry").order_by("seq"))
    assert [link.entry.action for link in links] == ["login_failed"] * 5
    return links


def test_the_house_rows_are_one_chain_that_verifies(house_links):
    head = AuditHouseHead.objects.get()
    assert [link.seq for link in house_links] == list(range(head.seq - 4, head.seq + 1))
    assert house_links[-1].row_hash == head.head and house_links[-1].hash_key == hashchain.current_key_id()
    assert all(link.entry.seq is None for link in house_links)  # in no table's chain
    code, out = verify_logs()
    assert code == 0, out


def test_auditing_takes_no_lock_in_the_callers_transaction(db):
    """A request that audits and then locks a table must never wait on the house chain
    while a command at that table, refused and auditing, waits on it: so auditing holds
    nothing. Another connection locks the head (NOWAIT) while the auditing transaction is
    still open."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("INSERT INTO cardroom_audithousehead (id, seq, head, starts_after) "
                           "VALUES (1, 0, %s, 0) ON CONFLICT (id) DO NOTHING", [hashchain.GENESIS])
        other.set_autocommit(False)
        entry = audit_record(actor=Actor.system("test"), action="admin", summary="in an open transaction")
        assert AuditEntry.objects.filter(pk=entry.pk).exists()
        with other.cursor() as cursor:
            cursor.execute("SELECT id FROM cardroom_audithousehead WHERE id = 1 FOR UPDATE NOWAIT")
            assert cursor.fetchall() == [(1,)]
        other.rollback()
    finally:
        other.close()


def test_a_row_whose_process_stopped_before_linking_is_linked_by_the_next(db, django_capture_on_commit_callbacks):
    # The first row commits but its after-commit linking never runs (the process died).
    stranded = audit_record(actor=Actor.system("test"), action="admin", summary="committed, never linked")
    connection.run_on_commit.clear()  # its after-commit step is lost with the process
    assert not AuditHouseLink.objects.filter(entry=stranded).exists()
    with django_capture_on_commit_callbacks(execute=True):
        following = audit_record(actor=Actor.system("test"), action="admin", summary="the next audit row")
    links = list(AuditHouseLink.objects.filter(entry__in=[stranded, following]).order_by("seq"))
    assert [link.entry_id for link in links] == [stranded.pk, following.pk]
    code, out = verify_logs()
    assert code == 0, out


def test_verify_logs_links_a_stranded_row_before_checking(db):
    """A row committed by a process that stopped before linking it is linked by verify_logs
    itself, as the next audit row would link it: nothing is named."""
    stranded = audit_record(actor=Actor.system("test"), action="admin", summary="never linked")
    connection.run_on_commit.clear()  # its after-commit step is lost with the process
    code, out = verify_logs()
    assert code == 0, out
    assert AuditHouseLink.objects.filter(entry=stranded).exists()


def test_an_audit_row_in_no_chain_past_the_grace_period_is_named(db, settings, monkeypatch):
    """Linking fails (the head cannot be locked, say): the row stays in no chain, and once
    the grace period has passed verify_logs names it."""
    import cardroom.audit

    def refuse():
        raise RuntimeError("the house head cannot be locked")

    monkeypatch.setattr(cardroom.audit, "_link_pending", refuse)
    stranded = audit_record(actor=Actor.system("test"), action="admin", summary="never linked")
    code, out = verify_logs()
    assert code == 0, out  # within the grace period: its link may still be on its way
    settings.CARDROOM_AUDIT_LINK_GRACE_SECONDS = 0
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN audit row {stranded.pk} is in no chain: its link was deleted or never written" in out, out


def test_an_edited_house_audit_row_is_named(house_links):
    target = house_links[1]
    tamper("cardroom_auditentry", "UPDATE cardroom_auditentry SET username = 'someone-else' WHERE id = %s", [target.entry_id])
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN house audit chain seq {target.seq}: content altered since it was written" in out, out


def test_an_edited_link_is_named(house_links):
    """A link moved to another audit row is named: its hash covers the row's id."""
    first, second = house_links[0], house_links[1]
    tamper("cardroom_audithouselink", "DELETE FROM cardroom_audithouselink WHERE id = %s", [second.pk])
    tamper("cardroom_audithouselink", "UPDATE cardroom_audithouselink SET entry_id = %s WHERE id = %s",
           [second.entry_id, first.pk])
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN house audit chain seq {first.seq}: content altered since it was written" in out, out


def test_a_deleted_link_is_named(house_links, settings):
    target = house_links[2]
    tamper("cardroom_audithouselink", "DELETE FROM cardroom_audithouselink WHERE id = %s", [target.pk])
    settings.CARDROOM_AUDIT_LINK_GRACE_SECONDS = 0
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN house audit chain seq {target.seq}: row missing (next stored row is seq {target.seq + 1})" in out, out
    # Its row was linked again, past the end: the gap it left stays named on every run.
    assert AuditHouseLink.objects.get(entry_id=target.entry_id).seq > house_links[-1].seq
    code, again = verify_logs()
    assert code == 1 and f"seq {target.seq}: row missing" in again, again


def test_a_deleted_house_audit_row_is_named(house_links):
    target = house_links[2]
    tamper("cardroom_auditentry", "DELETE FROM cardroom_auditentry WHERE id = %s", [target.entry_id])
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN house audit chain seq {target.seq}: its audit row {target.entry_id} is gone: deleted" in out, out


def test_the_last_link_deleted_is_named(house_links):
    last = house_links[-1]
    tamper("cardroom_audithouselink", "DELETE FROM cardroom_audithouselink WHERE id = %s", [last.pk])
    code, out = verify_logs()
    assert code == 1
    # Its row is linked again past the head (seq + 1): the cut link's seq stays a gap.
    expected = f"BROKEN house audit chain seq {last.seq}: row missing (next stored row is seq {last.seq + 1})"
    assert expected in out, out


def test_a_house_audit_row_rehashed_without_the_key_is_named(house_links):
    target = house_links[0]
    entry = target.entry
    entry.summary = "nothing happened"
    forged = hashchain.link(target.prev_hash, AuditHouseLink.content(entry, target.seq), hashchain.LEGACY)
    tamper("cardroom_auditentry", "UPDATE cardroom_auditentry SET summary = %s WHERE id = %s", [entry.summary, entry.pk])
    tamper("cardroom_audithouselink", "UPDATE cardroom_audithouselink SET row_hash = %s, hash_key = '' WHERE id = %s",
           [forged, target.pk])
    code, out = verify_logs()
    assert code == 1
    assert f"BROKEN house audit chain seq {target.seq}: hashed without the ledger key" in out, out


def test_the_app_role_cannot_change_a_link_or_delete_the_head(house_links):
    from django.db import DatabaseError, transaction

    with pytest.raises(DatabaseError), transaction.atomic():
        AuditHouseHead.objects.all().delete()
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditHouseLink.objects.filter(pk=house_links[0].pk).update(hash_key="")
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditHouseLink.objects.filter(pk=house_links[0].pk).delete()


def test_an_emptied_database_starts_its_house_chain_again_and_a_used_one_never_does(house_links):
    """After `migrate` or a flush (a test runner's, a new database), a database holding no
    audit row and no link starts its house chain again from seq 0, so a head left from
    before the emptying does not name every later chain as cut. With any row left the head
    is never reset: an owner who cuts links and runs migrate still leaves a cut chain."""
    from django.apps import apps

    from cardroom.audit import restart_emptied_house_chain

    head = AuditHouseHead.objects.get()
    tamper("cardroom_audithouselink", "DELETE FROM cardroom_audithouselink WHERE id = %s", [house_links[-1].pk])
    restart_emptied_house_chain(apps.get_app_config("cardroom"))  # rows left: untouched
    assert (AuditHouseHead.objects.get().seq, AuditHouseHead.objects.get().head) == (head.seq, head.head)
    tamper("cardroom_audithouselink", "DELETE FROM cardroom_audithouselink")
    tamper("cardroom_auditentry", "DELETE FROM cardroom_auditentry")
    restart_emptied_house_chain(apps.get_app_config("cardroom"))
    assert AuditHouseHead.objects.get().seq == 0
    audit_record(actor=Actor.system("test"), action="admin", summary="the first row of the new chain")
    link_pending()  # as after its commit
    assert list(AuditHouseLink.objects.values_list("seq", flat=True)) == [1]
    # The chain in the database is whole again. (The witness, if its timer wrote the old
    # head meanwhile, rightly names the emptying as a cut tail: not this test's subject.)
    from tables.record_checks import house_audit_problems

    assert house_audit_problems() == []


def test_the_last_rows_cut_with_their_links_and_the_head_rewound_are_named_by_the_witness(house_links):
    """An owner deletes the last two audit rows, their links, and moves the head back to
    the link before them: the chain inside the database is whole, but the head the witness
    holds (written after the links' commit, outside the database) names the cut."""
    from cardroom import witness

    witness.flush()
    code, out = verify_logs()
    assert code == 0, out
    kept, cut = house_links[-3], house_links[-2:]
    for link in cut:
        tamper("cardroom_audithouselink", "DELETE FROM cardroom_audithouselink WHERE id = %s", [link.pk])
        tamper("cardroom_auditentry", "DELETE FROM cardroom_auditentry WHERE id = %s", [link.entry_id])
    tamper("cardroom_audithousehead", "UPDATE cardroom_audithousehead SET seq = %s, head = %s WHERE id = 1",
           [kept.seq, kept.row_hash])
    code, out = verify_logs()
    assert code == 1
    assert (
        f"BROKEN house audit chain: cut tail: the chain ends at seq {kept.seq}, but seq {cut[-1].seq} was witnessed"
    ) in out, out
    assert f"BROKEN house audit chain: rewound head: the head is at seq {kept.seq}" in out, out

"""Writing the audit trail. Every entry point records through `audit_record`, or, for
the command service, which sends the row with the command's other writes, through
`audit_entry`."""

from django.db import transaction
from django.utils import timezone

from . import hashchain, locks
from .access import Actor
from .models import AuditEntry, AuditHouseHead

HOUSE_HEAD_ROW = 1  # the pk of the one AuditHouseHead row


def audit_entry(*, actor: Actor, action: str, summary: str, table_id: int | None = None, detail: dict | None = None) -> AuditEntry:
    """The audit row, not yet saved: the one definition of what an entry holds."""
    return AuditEntry(
        at=timezone.now(),
        user_id=actor.user_id,
        username=actor.name,
        role=actor.role,
        session=actor.recorded_session,  # the tag: the key is a login
        address=actor.address[:64],
        action=action,
        table_id=table_id,
        summary=summary[:200],
        detail=detail or {},
    )


def audit_chained(entry: AuditEntry, owner) -> AuditEntry:
    """Link `entry` into the audit chain whose head `owner` holds (`audit_seq`,
    `audit_head`: the table row the caller has locked and writes back with the entry), in
    memory: no query. Keyed as the ledgers are (cardroom/hashchain.py): an audit row
    altered, deleted or inserted is named by verify_logs (tables/record_checks.py)."""
    owner.audit_seq += 1
    entry.seq = owner.audit_seq
    entry.prev_hash, entry.hash_key = owner.audit_head, hashchain.current_key_id()
    entry.row_hash = owner.audit_head = hashchain.link(entry.prev_hash, entry.chain_content(), entry.hash_key)
    return entry


def audit_record(*, actor: Actor, action: str, summary: str, table_id: int | None = None, detail: dict | None = None):
    """Write an audit row into the house chain: every audit row but a table's accepted
    commands' (those are chained per table, `audit_chained`). One chain for the house, so
    its appends are serialised by the head row's lock: these rows are human-paced (logins,
    refusals, approvals, counts, setup), never the command path's. The head is the last
    lock of every order (cardroom/locks.py): any caller, holding a table, meter or the cash
    lock, may take it."""
    entry = audit_entry(actor=actor, action=action, summary=summary, table_id=table_id, detail=detail)
    with transaction.atomic():
        return _append_to_house_chain(entry)


def _append_to_house_chain(entry: AuditEntry) -> AuditEntry:
    head = locks.house_audit_head(HOUSE_HEAD_ROW)
    if head is None:
        # A new (or emptied) database: the chain starts. A chain with rows and no head is
        # not restarted: the unique house_seq refuses seq 1 again, and verify_logs names
        # the missing head.
        head = AuditHouseHead.objects.create(pk=HOUSE_HEAD_ROW)
    head.seq += 1
    entry.house_seq = head.seq
    entry.prev_hash, entry.hash_key = head.head, hashchain.current_key_id()
    entry.row_hash = head.head = hashchain.link(entry.prev_hash, entry.chain_content(), entry.hash_key)
    entry.save(force_insert=True)
    head.save(update_fields=["seq", "head"])
    return entry

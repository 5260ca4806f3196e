"""Writing the audit trail. Every entry point records through `audit_record`, or, for
the command service, which sends the row with the command's other writes, through
`audit_entry`."""

import logging

from django.db import transaction
from django.utils import timezone

from . import hashchain, witness
from .access import Actor
from .models import AuditEntry, AuditHouseHead, AuditHouseLink

logger = logging.getLogger(__name__)

HOUSE_HEAD_ROW = 1  # the pk of the one AuditHouseHead row
HOUSE_LOG = "house"  # the house audit chain's name in witness lines


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
    """Write an audit row that is not a table's accepted command's (those are chained per
    table, `audit_chained`): a refusal, approval, login, count, patron work, setup. The
    row is inserted in the caller's transaction and locks nothing; it joins the house
    chain after that transaction commits (`link_pending`), so no caller ever waits on the
    house chain's head, whatever it holds or locks after auditing."""
    entry = audit_entry(actor=actor, action=action, summary=summary, table_id=table_id, detail=detail)
    entry.save(force_insert=True)
    _link_after_commit()
    return entry


def _link_after_commit() -> None:
    """`link_pending` once per transaction (in autocommit mode: now)."""
    connection = transaction.get_connection()
    if connection.in_atomic_block and any(item[1] is link_pending for item in connection.run_on_commit):
        return
    transaction.on_commit(link_pending, robust=True)


def link_pending() -> int:
    """Link every committed audit row that is in no chain yet into the house chain, in id
    order, in a short transaction of its own that locks the head row and nothing else;
    rows whose own process stopped before linking them are linked here too. Returns how
    many were linked. Never raises: the audit rows have committed and stay; a row left
    unlinked is named by verify_logs once CARDROOM_AUDIT_LINK_GRACE_SECONDS have passed."""
    try:
        with transaction.atomic():
            return _link_pending()
    except Exception:
        logger.exception("house audit chain: linking the committed audit rows failed; verify_logs will name them")
        return 0


def _link_pending() -> int:
    head = AuditHouseHead.objects.select_for_update().filter(pk=HOUSE_HEAD_ROW).first()
    if head is None:
        # A new (or emptied) database: the chain starts. A chain with links and no head is
        # not restarted: the unique link seq refuses seq 1 again, and verify_logs names
        # the missing head.
        head = AuditHouseHead.objects.create(pk=HOUSE_HEAD_ROW)
    pending = AuditEntry.objects.filter(seq__isnull=True, house_link__isnull=True, id__gt=head.starts_after).order_by("id")
    links = []
    key = hashchain.current_key_id()
    for entry in pending:
        head.seq += 1
        row_hash = hashchain.link(head.head, AuditHouseLink.content(entry, head.seq), key)
        links.append(AuditHouseLink(seq=head.seq, entry=entry, prev_hash=head.head, row_hash=row_hash, hash_key=key))
        head.head = row_hash
    if links:
        AuditHouseLink.objects.bulk_create(links)
        head.save(update_fields=["seq", "head"])
        # Where the chain stands, witnessed outside the database once this commits: a head
        # rewound together with its last links is then named (tables/integrity.py).
        witness.committed_on_commit([(HOUSE_LOG, HOUSE_HEAD_ROW, head.seq, head.head)])
    return len(links)


def restart_emptied_house_chain(sender, using: str = "default", **kwargs) -> None:
    """post_migrate receiver (cardroom/apps.py): a database with no audit row and no link
    (new, or emptied by a test runner's flush) starts its house chain again from seq 0, so
    a head left from before the emptying does not name every later chain as cut. A head
    with any audit row or link left is never touched: there, a chain cut short is named."""
    if sender.label != "cardroom":
        return
    if AuditEntry.objects.using(using).exists() or AuditHouseLink.objects.using(using).exists():
        return
    AuditHouseHead.objects.using(using).filter(pk=HOUSE_HEAD_ROW).update(seq=0, head=hashchain.GENESIS, starts_after=0)

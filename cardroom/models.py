"""The audit trail: every command, approval, login, configuration and admin change.

Append-only (a database trigger refuses UPDATE and DELETE). Times are stored in UTC and
shown in the cardroom's zone.
"""

from datetime import UTC

from django.conf import settings
from django.db import models
from django.utils import timezone

from . import hashchain


class AuditEntry(models.Model):
    ACTIONS = [
        (a, a)
        for a in (
            "command",
            "command_refused",
            "approval_requested",
            "approval_decided",
            "login",
            "login_failed",
            "logout",
            "configuration",
            "assignment",
            "admin",
            "count",  # drop boxes, counts, signatures, shift closes (collections_fees/counts.py)
        )
    ]

    at = models.DateTimeField(db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    username = models.CharField(max_length=150, db_index=True)
    role = models.CharField(max_length=16)
    # The session by its tag (cardroom.access.session_tag), never the key: whoever reads the
    # trail (compliance, a database reader) must not be handed a login.
    session = models.CharField(max_length=64, blank=True, help_text="the session's tag (access.session_tag)")
    address = models.CharField(max_length=64, blank=True, help_text="client IP address")
    action = models.CharField(max_length=24, choices=ACTIONS, db_index=True)
    table_id = models.PositiveBigIntegerField(null=True, blank=True, db_index=True)
    summary = models.CharField(max_length=200)
    detail = models.JSONField(default=dict)
    # The table's audit chain (cardroom/audit.py `audit_chained`): the rows a table's
    # accepted commands write are keyed hash-chained per table, their head on the table
    # row every command locks (tables.Table.audit_seq, audit_head), so the link costs no
    # query and no table waits on another's. NULL seq: a row in no chain.
    seq = models.PositiveBigIntegerField(null=True, blank=True)
    prev_hash = models.CharField(max_length=64, blank=True, default="")
    row_hash = models.CharField(max_length=64, blank=True, default="")
    hash_key = models.CharField(max_length=32, blank=True, default="")
    # Every other audit row (NULL seq: refusals, approvals, logins, counts, patron work,
    # setup) is chained after its commit by an AuditHouseLink (cardroom/audit.py
    # `link_pending`): this row is never written twice.

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table_id", "seq"], condition=models.Q(seq__isnull=False), name="audit_table_seq_unique"
            ),
        ]

    # An audit row is no gaming day's: the chain's checkpoints, which count a day's rows,
    # are the event and collection chains' (tables/integrity.py reads this).
    gaming_day = None

    def chain_content(self) -> dict:
        return {
            "table": self.table_id,
            "seq": self.seq,
            "at": self.at.astimezone(UTC).isoformat(),
            "user": self.user_id,
            "username": self.username,
            "role": self.role,
            "session": self.session,
            "address": self.address,
            "action": self.action,
            "summary": self.summary,
            "detail": self.detail,
        }


class AuditHouseHead(models.Model):
    """The house audit chain's head: its last link's seq and row hash. One row (pk 1),
    moved by `link_pending` (cardroom/audit.py) in a short transaction of its own, after
    the audit rows it links have committed; never deleted (the app's role holds no DELETE
    on it, cardroom/db_roles.py). Audit rows up to `starts_after` (an AuditEntry id) were
    written before the house chain existed and are in no chain."""

    seq = models.PositiveBigIntegerField(default=0)
    head = models.CharField(max_length=64, default=hashchain.GENESIS)
    starts_after = models.PositiveBigIntegerField(default=0)


class ChainedRow(models.Model):
    """A link of a keyed hash chain (cardroom/hashchain.py): the hash of the row before it,
    its own hash over its content and that one, and the id of the ledger key that signed
    it. Each chain's rows declare their content and their place (a seq per owner) and
    `verify_logs` walks them; the three columns are declared here once.

    Abstract. The chains written before the ledger key existed (a table's events and
    collection lines) keep `hash_key` "" for their unkeyed rows: those models declare it
    with that default (LEGACY_HASH_KEY)."""

    prev_hash = models.CharField(max_length=64)
    row_hash = models.CharField(max_length=64)
    hash_key = models.CharField(max_length=32)

    class Meta:
        abstract = True


# A chain older than its ledger key: "" for a row hashed before the chains were keyed.
def legacy_hash_key() -> models.CharField:
    return models.CharField(max_length=32, default="", blank=True)


class AuditHouseLink(ChainedRow):
    """One audit row's place in the house chain, written after that row committed
    (append-only: cardroom_refuse_change triggers). Its hash covers the audit row's own
    content, the row's id and this link's seq, so an edited audit row or link is named.
    No foreign-key constraint: an audit row deleted by an owner leaves its link behind,
    and verify_logs names the link whose row is gone."""

    seq = models.PositiveBigIntegerField(unique=True)
    entry = models.OneToOneField(
        AuditEntry, on_delete=models.DO_NOTHING, db_constraint=False, related_name="house_link"
    )
    created_at = models.DateTimeField(default=timezone.now)

    gaming_day = None  # read as a chain's row by cardroom.checkpoints.first_break

    @staticmethod
    def content(entry: AuditEntry, seq: int) -> dict:
        return {"entry": entry.pk, "link_seq": seq} | entry.chain_content()

    def chain_content(self) -> dict:
        """The hashed content, from the audit row as stored now."""
        return self.content(self.entry, self.seq)


class SignedCheckpoint(models.Model):
    """A signed statement of where one hash chain stood: its last seq and head hash, and
    how many of its rows up to there belong to `gaming_day`.

    A chain's head is kept on its owner's row (a table's event and collection chains, a
    jackpot meter's fund chain), which the app must be able to update; whoever can update
    it could rewind the head. These rows anchor it: append-only (a database trigger
    refuses UPDATE and DELETE, and the app's database role holds INSERT and SELECT only),
    signed with the ledger key (not in the database), and copied into the exports'
    manifests so that a chain can be checked offline (cardroom/checkpoints.py, which
    writes, signs and checks every kind).

    Abstract: each concrete model keeps its own app, table and migrations
    (tables.ChainCheckpoint, collections_fees.JackpotCheckpoint) and names its chain
    (`chain_identity`); the fields below are theirs as they were, so this base changes no
    column.
    """

    gaming_day = models.DateField()
    last_seq = models.PositiveBigIntegerField()
    head = models.CharField(max_length=64)
    rows = models.PositiveBigIntegerField(help_text="rows of gaming_day in the chain with seq <= last_seq")
    key_id = models.CharField(max_length=32)
    signature = models.CharField(max_length=64)
    created_at = models.DateTimeField()

    class Meta:
        abstract = True

    @classmethod
    def for_chain(cls, owner, *, log: str, kind: str) -> "SignedCheckpoint":
        """An unsigned checkpoint of `owner`'s chain `log` (the rest is filled by
        cardroom.checkpoints)."""
        raise NotImplementedError

    def chain_identity(self) -> dict:
        """The signed fields that name the chain (its owner, its log, ...)."""
        raise NotImplementedError

    def signed_content(self) -> dict:
        return {
            **self.chain_identity(),
            "gaming_day": self.gaming_day.isoformat(),
            "last_seq": self.last_seq,
            "head": self.head,
            "rows": self.rows,
        }


class DatabaseIdentity(models.Model):
    """The database's name for itself: a random UUID made with the schema (the migration
    that created this table, or `migrate`/`flush` on a database that has none), one row.

    Every witness line names the database it witnesses (cardroom/witness.py), so that
    two databases used from one checkout, or writing into one folder, never read each
    other's lines as forged ones. `created_at` is when this database's witness began:
    from then on every chain row is expected in a witness line (tables/integrity.py
    `verify_witness_coverage`). Append-only (a trigger refuses UPDATE and DELETE) and
    read-only to the app's database role (cardroom/db_roles.py)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    uuid = models.UUIDField(unique=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="cardroom_database_identity_one_row")]


class SealedRow(models.Model):
    """A record that is not a link of a chain but must not change unseen: an export's
    manifest, a state list's import, a self-exclusion hit. At insert it carries the
    HMAC-SHA256 of its content under the ledger key (`seal`), which the key's holder
    alone can compute; `verify_logs` recomputes it (tables/record_checks.py), so a row
    altered, or forged and inserted, by someone who can write the table but does not hold
    the key is named. A row sealed with no key (`key_id` "") predates the seal.

    Abstract: each concrete model names its content (`sealed_content`)."""

    key_id = models.CharField(max_length=32, blank=True, default="", help_text="the ledger key that sealed the row")
    signature = models.CharField(max_length=64, blank=True, default="", help_text="HMAC-SHA256 of sealed_content")

    class Meta:
        abstract = True

    def sealed_content(self) -> dict:
        raise NotImplementedError

    def seal(self) -> None:
        """Sign the row's content with the current ledger key (before it is inserted)."""
        self.key_id = hashchain.current_key_id()
        self.signature = hashchain.sign(self.sealed_content(), self.key_id)

    def seal_valid(self) -> bool:
        return bool(self.key_id) and hashchain.signature_valid(self.sealed_content(), self.key_id, self.signature)

"""The records that are not hash chains of their own, each held against what is: run by
`verify_logs` after the chains (tables/integrity.py), each check a function that returns
its problems as the lines `verify_logs` prints (docs/compliance-exports.md lists them).

- The rotation log against the event chain: every entry is a record of its event
  (`RotationEntry` in the event's `records`), so an entry altered, deleted or added is
  named by the chained event it no longer matches.
- Approval decisions against the audit trail's `approval_decided` row, and an approved
  void against the chained event that voided the round under it (a correction against
  its reversing entry).
- The self-exclusion lists in force against their imports' sealed row counts and digests
  (every import in force: removals wait for a second person); the removals from a list and
  their decisions against their seals and the audit rows that recorded them; the
  imports and the house's entries against the audit rows that recorded them; each hit's
  seal, and the seats' and awards' hits against the refusals and audit rows they came with.
- Each export manifest's seal.

Sealed rows (cardroom.models.SealedRow) carry an HMAC under the ledger key. A row with no
seal (`key_id` "") written before the first sealed row of its kind predates the seal and
is not named; one written after it had its seal removed.
"""

from collections import Counter, defaultdict
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from cardroom import checkpoints as cp
from cardroom.audit import HOUSE_HEAD_ROW
from cardroom.models import AuditEntry, AuditHouseHead, AuditHouseLink
from collections_fees.models import ExportManifest
from patrons.identity import state_imports_in_force
from patrons.models import (
    ExclusionEntry,
    ExclusionHit,
    ExclusionImport,
    ExclusionRemoval,
    ExclusionRemovalDecision,
    entries_digest,
)

from .integrity import _first_break
from .models import Approval, RejectedCommand, RotationLogEntry, RoundCorrection, TableEvent

# --- The rotation log against the event chain ------------------------------------------


def _rotation_text(action, seat, player, round_number, badge, reason) -> str:
    text = f"{action} seat {seat} player {player!r}"
    if round_number is not None:
        text += f" round {round_number}"
    if badge:
        text += f" badge {badge!r}"
    if reason:
        text += f" ({reason})"
    return text


def rotation_log_problems(tables) -> list[str]:
    """Each table's rotation log against the RotationEntry records of its chained events."""
    problems = []
    for table in tables:
        expected: dict[int, Counter] = defaultdict(Counter)
        seq_of: dict[int, int] = {}
        stamps: dict[int, tuple] = {}
        recorded = TableEvent.objects.filter(table=table, records__contains=[{"kind": "RotationEntry"}])
        for event_id, seq, records, at, day in recorded.values_list("pk", "seq", "records", "created_at", "gaming_day"):
            seq_of[event_id], stamps[event_id] = seq, (at, day)
            for rec in records:
                if rec.get("kind") == "RotationEntry":
                    expected[event_id][(
                        rec["action"], rec.get("seat"), rec.get("player"), rec.get("round"), rec.get("badge") or "",
                        rec.get("reason") or "",
                    )] += 1
        stored: dict[int, list] = defaultdict(list)
        entries = RotationLogEntry.objects.filter(Q(table=table) | Q(event__table=table)).values_list(
            "pk", "event_id", "event__seq", "event__table_id", "table_id", "action", "seat", "player", "round_number",
            "badge", "reason", "created_at", "gaming_day",
        )
        for pk, event_id, seq, event_table, entry_table, *content, at, day in entries.order_by("pk"):
            seq_of.setdefault(event_id, seq)
            if entry_table != event_table:
                problems.append(
                    f"table {table.pk} rotation log entry {pk}: filed under table {entry_table}, its event seq {seq} "
                    f"is table {event_table}'s: altered"
                )
                continue
            if event_id in stamps and stamps[event_id] != (at, day):
                problems.append(
                    f"table {table.pk} rotation log entry {pk} (event seq {seq}): its time or gaming day is not its "
                    f"event's: altered"
                )
            stored[event_id].append((pk, tuple(content)))
        for event_id in sorted(set(expected) | set(stored), key=lambda e: seq_of.get(e, 0)):
            seq = seq_of[event_id]
            held = Counter(content for _, content in stored.get(event_id, []))
            missing = list((expected[event_id] - held).elements())
            surplus, unmatched = held - expected[event_id], []  # the stored entries no record accounts for
            for pk, content in stored.get(event_id, []):
                if surplus[content] > 0:
                    surplus[content] -= 1
                    unmatched.append((pk, content))
            for (pk, content), wanted in zip(unmatched, missing):
                problems.append(
                    f"table {table.pk} rotation log entry {pk} (event seq {seq}) reads {_rotation_text(*content)}, "
                    f"its event recorded {_rotation_text(*wanted)}: altered"
                )
            for wanted in missing[len(unmatched):]:
                problems.append(
                    f"table {table.pk} rotation log: event seq {seq} recorded {_rotation_text(*wanted)}, "
                    "the log has no such entry: deleted"
                )
            for pk, content in unmatched[len(missing):]:
                problems.append(
                    f"table {table.pk} rotation log entry {pk} (event seq {seq}) reads {_rotation_text(*content)}, "
                    "which its event did not record: inserted"
                )
    return problems


# --- Approval decisions against the audit trail and the chained events -----------------


def _audited_verdict(entry: AuditEntry) -> bool:
    """Whether an approval_decided audit row recorded an approval."""
    if isinstance(entry.detail.get("approved"), bool):
        return entry.detail["approved"]
    return " approved " in f" {entry.summary} "


def approval_decision_problems(tables) -> list[str]:
    """Each decision of the tables' requests against its approval_decided audit row (who
    decided, and whether approved), an approved void against the chained event that voided
    the round under it, an approved correction against its reversing entry; and each
    audited decision against the decision rows (one deleted)."""
    ids = [t.pk for t in tables]
    problems = []
    audited: dict[int, AuditEntry] = {}
    for entry in AuditEntry.objects.filter(action="approval_decided", table_id__in=ids).order_by("id"):
        approval_id = entry.detail.get("approval")
        if isinstance(approval_id, int):
            audited.setdefault(approval_id, entry)
    # The chained voids: (table, round) -> the supervisor the event names as approving it.
    voids: dict[tuple, list] = defaultdict(list)
    for table_id, records in TableEvent.objects.filter(table_id__in=ids, command_type="void_round").values_list(
        "table_id", "records"
    ):
        for rec in records:
            if rec.get("kind") == "RoundVoided":
                voids[(table_id, rec.get("round"))].append(rec.get("approved_by"))
    corrected = set(RoundCorrection.objects.filter(table_id__in=ids).values_list("approval_id", flat=True))
    approvals = Approval.objects.filter(table_id__in=ids).select_related("decision__decided_by").order_by("pk")
    for approval in approvals:
        name = f"approval {approval.pk} ({approval.kind} at table {approval.table_id})"
        decision = getattr(approval, "decision", None)
        audit = audited.get(approval.pk)
        if decision is None:
            if audit is not None:
                problems.append(
                    f"{name}: the audit trail records it {'approved' if _audited_verdict(audit) else 'refused'} by "
                    f"{audit.username}, the database holds no decision: deleted"
                )
            continue
        verdict = "approved" if decision.approved else "refused"
        decider = decision.decided_by.get_username()
        if audit is None:
            problems.append(
                f"{name}: its decision reads {verdict} by {decider}, the audit trail records no decision: forged"
            )
        elif _audited_verdict(audit) != decision.approved or audit.user_id != decision.decided_by_id:
            problems.append(
                f"{name}: its decision reads {verdict} by {decider}, the audit trail recorded "
                f"{'approved' if _audited_verdict(audit) else 'refused'} by {audit.username}: altered"
            )
        if approval.kind == "void":
            if decision.approved and decider not in voids.get((approval.table_id, approval.round_number), []):
                problems.append(
                    f"{name}: its decision reads approved by {decider}, but no event in the table's chain voided "
                    f"round {approval.round_number} on {decider}'s approval"
                )
        elif approval.kind == "correction" and decision.approved != (approval.pk in corrected):
            problems.append(
                f"{name}: its decision reads {verdict}, but round {approval.round_number} "
                + ("has no reversing entry" if decision.approved else "was reversed under it")
            )
    return problems


# --- Sealed rows -------------------------------------------------------------------------


def _seal_problems(rows, describe) -> list[str]:
    """Each row (in the order written) whose seal does not verify, or that lost it."""
    problems, sealed_seen = [], False
    for row in rows:
        if not row.key_id:
            if sealed_seen:
                problems.append(f"{describe(row)}: written after the rows were sealed, but carries no seal: its seal removed")
            continue
        sealed_seen = True
        if not row.seal_valid():
            problems.append(
                f"{describe(row)}: not what was written (its seal under key {row.key_id!r} does not match): "
                "altered or forged"
            )
    return problems


def export_manifest_problems() -> list[str]:
    """Every stored export manifest's seal: a SHA-256, size or row count changed is named."""
    return _seal_problems(
        ExportManifest.objects.order_by("finished_at", "id").iterator(),
        lambda m: f"export manifest {m.pk} ({m.kind}, {m.filename}, sha256 {m.sha256[:12]}…)",
    )


def self_exclusion_problems(tables) -> list[str]:
    """The state list in force against its import's sealed count and digest, every audited
    import and house entry against the rows, every hit's seal, and a table's seat and
    backline hits against its refused commands, its award hits against their audit rows."""
    problems = _seal_problems(
        ExclusionImport.objects.order_by("imported_at", "id").iterator(),
        lambda i: f"self-exclusion import {i.pk} ({i.filename})",
    )
    # Every import in force: the latest in force on its own and the later ones whose
    # removals wait for a second person (patrons.identity.state_imports_in_force).
    for latest in ExclusionImport.objects.filter(pk__in=state_imports_in_force()).order_by("imported_at", "id"):
        entries = list(ExclusionEntry.objects.filter(source="state", list_import=latest).order_by("id"))
        if len(entries) != latest.rows:
            problems.append(
                f"self-exclusion list in force (import {latest.pk}, {latest.filename}): {len(entries)} entries, "
                f"the import listed {latest.rows}: entries deleted or added"
            )
        elif latest.entries_sha256 and entries_digest(entries) != latest.entries_sha256:
            problems.append(
                f"self-exclusion list in force (import {latest.pk}, {latest.filename}): its entries are not the ones "
                "imported (their SHA-256 differs from the import's): altered"
            )
    # A removal from a list and its second person's decision: sealed, and each decision the
    # audit trail records is held (a decision deleted would undo a decline or a removal).
    problems += _seal_problems(
        ExclusionRemoval.objects.order_by("requested_at", "id").iterator(),
        lambda r: f"self-exclusion removal {r.pk} (asked by {r.requested_by})",
    )
    problems += _seal_problems(
        ExclusionRemovalDecision.objects.order_by("decided_at", "id").iterator(),
        lambda d: f"self-exclusion removal {d.removal_id}'s decision ({d.outcome} by {d.decided_by})",
    )
    decisions = dict(ExclusionRemovalDecision.objects.values_list("pk", "outcome"))
    for at, detail in AuditEntry.objects.filter(action="list_removal", detail__has_key="decision").values_list("at", "detail"):
        if decisions.get(detail["decision"]) != detail.get("outcome"):
            problems.append(
                f"self-exclusion removal {detail.get('removal')}: the audit trail records it {detail.get('outcome')} at "
                f"{at.isoformat()}, the database " + ("does not hold the decision: deleted" if detail["decision"] not in decisions
                                                     else "holds another outcome: altered")
            )
    imports = dict(ExclusionImport.objects.values_list("pk", "sha256"))
    house = set(ExclusionEntry.objects.filter(source="house").values_list("pk", flat=True))
    for at, detail in AuditEntry.objects.filter(action="self_exclusion").order_by("id").values_list("at", "detail"):
        if "import" in detail and imports.get(detail["import"]) != detail.get("sha256"):
            problems.append(
                f"self-exclusion import {detail['import']}: the audit trail records it imported at {at.isoformat()} "
                f"(sha256 {str(detail.get('sha256'))[:12]}…), the database "
                + ("does not hold it: deleted" if detail["import"] not in imports else "holds another file: altered")
            )
        elif "entry" in detail and "round" not in detail and detail["entry"] not in house:
            problems.append(
                f"self-exclusion house list entry {detail['entry']}: the audit trail records it added at "
                f"{at.isoformat()}, the database does not hold it: deleted"
            )
    problems += _seal_problems(
        ExclusionHit.objects.order_by("created_at", "id").iterator(),
        lambda h: f"self-exclusion hit {h.pk} ({h.action} at table {h.table_id}, player {h.player!r})",
    )
    ids = [t.pk for t in tables]
    hits = Counter(
        (table_id, "refusal" if action in ("seat", "backline") else "award")
        for table_id, action in ExclusionHit.objects.filter(table_id__in=ids, action__in=("seat", "backline", "award"))
        .values_list("table_id", "action")
    )
    refusals = Counter(
        (table_id, "refusal")
        for table_id in RejectedCommand.objects.filter(table_id__in=ids, code="self_excluded").values_list("table_id", flat=True)
    )
    refusals += Counter(
        (table_id, "award")
        for table_id in AuditEntry.objects.filter(
            action="self_exclusion", table_id__in=ids, detail__has_key="round"
        ).values_list("table_id", flat=True)
    )
    for table_id, kind in sorted(set(hits) | set(refusals)):
        if hits[(table_id, kind)] != refusals[(table_id, kind)]:
            what = "seats and backline wagers refused self_excluded" if kind == "refusal" else "awards withheld (audit rows)"
            problems.append(
                f"table {table_id}: {refusals[(table_id, kind)]} {what}, {hits[(table_id, kind)]} self-exclusion hits "
                "of them: hits deleted or added"
            )
    return problems


# --- The audit trail's chains -----------------------------------------------------------


def audit_chain_problems(tables) -> list[str]:
    """Each table's audit chain (the audit rows of its accepted commands, cardroom/audit.py
    `audit_chained`) against its head on the table row: a row altered, deleted, inserted,
    re-hashed without the key, or the last rows cut."""
    problems = []
    for table in tables:
        rows = AuditEntry.objects.filter(table_id=table.pk, seq__isnull=False).order_by("seq").iterator(chunk_size=5000)
        broken = _first_break(table.pk, "audit", rows, table.audit_seq, table.audit_head, [])
        if broken is not None:
            problems.append(str(broken))
    return problems


def house_audit_problems() -> list[str]:
    """The house audit chain (every audit row but the tables' command rows, linked after
    its commit by cardroom/audit.py `link_pending`) against its head row: a link or its
    audit row altered, a link deleted or inserted, re-hashed without the key, the last links
    cut; a link whose audit row is gone; an audit row older than the grace period that is
    in no chain. The chain was keyed from its first link."""
    head = AuditHouseHead.objects.filter(pk=HOUSE_HEAD_ROW).first()
    links = AuditHouseLink.objects.order_by("seq")
    problems = []
    if head is None:
        return ["house audit chain: its head row is missing"] if links.exists() else []
    entry_ids = set(AuditEntry.objects.filter(seq__isnull=True).values_list("id", flat=True))
    for seq, entry_id in links.values_list("seq", "entry_id"):
        if entry_id not in entry_ids:
            problems.append(f"house audit chain seq {seq}: its audit row {entry_id} is gone: deleted")
    found = cp.first_break(
        (link for link in links.select_related("entry").iterator(chunk_size=5000) if link.entry_id in entry_ids),
        head.seq, head.head, [], holder="the house audit head", unkeyed_ever=False,
    )
    if found is not None:
        seq, problem = found
        problems.append(f"house audit chain {'end of chain' if seq is None else f'seq {seq}'}: {problem}")
    settled = timezone.now() - timedelta(seconds=settings.CARDROOM_AUDIT_LINK_GRACE_SECONDS)
    unlinked = AuditEntry.objects.filter(
        seq__isnull=True, house_link__isnull=True, id__gt=head.starts_after, at__lt=settled,
    ).order_by("id").values_list("id", flat=True)
    problems += [f"audit row {pk} is in no chain: its link was deleted or never written" for pk in unlinked]
    return problems

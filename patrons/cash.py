"""Cash at the tables (31 CFR 1021.311-313): the log, the MTL, the day's totals and the
alerts the floor and compliance get.

One hash chain for the house (cardroom/hashchain.py), because a patron's cash adds up
across tables: every write takes one transaction-scoped advisory lock, reads the last
row's hash and seq, and appends. The same lock serializes the totals, so two purchases
at two tables at once cannot both miss the line they cross together.
"""

from __future__ import annotations

from datetime import date, datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, Sum
from django.utils import timezone

from cardroom import hashchain
from cardroom.access import Actor, can_drive
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar

from .identity import IDENTIFICATION_ROLES, PatronError, exclusion_check, patron_of_player
from .models import CashAlert, CashTransaction, Patron, PatronLink, UnidentifiedPatron

LOCK_KEY = "cardroom-cash-chain"


def lock() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [LOCK_KEY])


def thresholds() -> tuple[int, int, int]:
    """(MTL, warning, CTR) in cents."""
    return (
        settings.CARDROOM_MTL_THRESHOLD_CENTS,
        settings.CARDROOM_CASH_WARNING_CENTS,
        settings.CARDROOM_CTR_THRESHOLD_CENTS,
    )


def subject_of(patron: Patron | None, unidentified: UnidentifiedPatron | None) -> str:
    return f"patron:{patron.pk}" if patron is not None else f"unidentified:{unidentified.pk}"


def _subject_filter(subject: str) -> Q:
    """A subject's transactions: a patron's own and those of every unidentified patron
    linked to them; an unidentified patron's own (until linked)."""
    kind, pk = subject.split(":")
    if kind == "patron":
        return Q(patron_id=int(pk)) | Q(unidentified__link__patron_id=int(pk))
    return Q(unidentified_id=int(pk))


def day_total(subject: str, gaming_day: date, direction: str) -> int:
    rows = CashTransaction.objects.filter(_subject_filter(subject), gaming_day=gaming_day, direction=direction)
    return rows.aggregate(total=Sum("amount"))["total"] or 0


def cash_record(*, table_id: int, kind: str, amount, player: str, actor: Actor, note: str = "",
                at: datetime | None = None) -> CashTransaction:
    """Record a chip purchase for cash or a cash payout at a table, by its dealer or a
    supervisor. `player` is the seat's id: a patron number or card, or "U-<id>". A listed
    patron is refused (`self_excluded`, recorded as a hit). `at` is a system process's only.
    Bad input raises PatronError and writes nothing."""
    if kind not in CashTransaction.DIRECTIONS:
        raise PatronError("invalid_command", "kind is chip_purchase or cash_payout")
    most = settings.CARDROOM_CASH_MAX_CENTS
    if type(amount) is not int or not 0 < amount <= most:
        raise PatronError("invalid_amount", f"the amount is a whole number of cents from 1 to {most}")
    if not isinstance(player, str) or not player.strip():
        raise PatronError("unknown_patron", "name the patron (number, card or U-id)")
    if at is not None and not actor.is_system:
        raise PatronError("not_authorized", "only a system process states when a transaction happened")
    if not can_drive(actor, table_id):
        raise PatronError("not_authorized", "the table's dealer or a supervisor records its cash")
    patron, unidentified = patron_of_player(player)
    mtl_at, _, _ = thresholds()
    now = at or timezone.now()
    refused = None
    with transaction.atomic():
        lock()
        try:
            exclusion_check(player=player, table_id=table_id, action=kind, actor=actor, amount=amount)
        except PatronError as refusal:
            # Raised after the block: the hit the check wrote is committed, nothing else.
            refused = refusal
        # After the list: a listed person named by a name the house has no record of is
        # still a hit for the floor, not only an unknown patron.
        if refused is None and patron is None and unidentified is None:
            refused = PatronError("unknown_patron", f"no patron or unidentified patron {player!r}")
        if refused is None:
            row = _append(kind=kind, amount=amount, patron=patron, unidentified=unidentified, table_id=table_id,
                          actor=actor, note=note, now=now, mtl_at=mtl_at)
    if refused is not None:
        raise refused
    return row


def _append(*, kind, amount, patron, unidentified, table_id, actor, note, now, mtl_at) -> CashTransaction:
    cal = calendar()
    last = CashTransaction.objects.order_by("-seq").values("seq", "row_hash").first()
    row = CashTransaction(
        seq=(last["seq"] + 1) if last else 1,
        kind=kind,
        direction=CashTransaction.DIRECTIONS[kind],
        amount=amount,
        patron=None if unidentified is not None else patron,
        unidentified=unidentified,
        player=(unidentified.player_id if unidentified else patron.number),
        table_id=table_id,
        employee=actor.name,
        employee_role=actor.role,
        note=str(note or "")[:200],
        mtl=amount >= mtl_at,
        created_at=now,
        gaming_day=cal.gaming_day(now),
        shift=cal.shift(now),
        prev_hash=last["row_hash"] if last else hashchain.GENESIS,
        hash_key=hashchain.current_key_id(),
    )
    row.row_hash = hashchain.link(row.prev_hash, row.chain_content(), row.hash_key)
    row.save(force_insert=True)
    # The total is the subject's as it stands now: a linked U-id counts for its patron.
    subject = subject_of(patron, unidentified)
    _alerts_for(subject, patron, row.gaming_day, row.direction, crossing=row, before_extra=row.amount)
    audit_record(
        actor=actor, action="cash", table_id=table_id,
        summary=f"{kind} {amount} cents for {row.player} (cash seq {row.seq})", detail={"cash": row.seq},
    )
    return row


def _alerts_for(subject: str, patron: Patron | None, gaming_day: date, direction: str, *, crossing: CashTransaction,
                before_extra: int, link: PatronLink | None = None) -> list[CashAlert]:
    """Alerts for the lines the subject's day total crossed by the last `before_extra`
    cents: at the warning (reached) and above the CTR threshold (exceeded)."""
    _, warn_at, ctr_above = thresholds()
    total = day_total(subject, gaming_day, direction)
    before = total - before_extra
    made = []
    for kind, crossed in (("warning", before < warn_at <= total), ("ctr_required", before <= ctr_above < total)):
        if crossed:
            made.append(CashAlert.objects.create(
                kind=kind, subject=subject, patron=patron, direction=direction, gaming_day=gaming_day, total=total,
                transaction=crossing, link=link, table_id=crossing.table_id, created_at=timezone.now(),
            ))
    return made


def alerts_after_link(link: PatronLink) -> None:
    """After an unidentified patron is linked (under the cash lock): each gaming day and
    direction of theirs now counts toward the patron's, and may cross a line."""
    subject = f"patron:{link.patron_id}"
    groups = (
        CashTransaction.objects.filter(unidentified=link.unidentified)
        .values("gaming_day", "direction").annotate(moved=Sum("amount"))
    )
    for group in groups:
        last = CashTransaction.objects.filter(
            _subject_filter(subject), gaming_day=group["gaming_day"], direction=group["direction"]
        ).order_by("-seq").first()
        _alerts_for(subject, link.patron, group["gaming_day"], group["direction"], crossing=last,
                    before_extra=group["moved"], link=link)


def ctr_candidates(gaming_day: date) -> list[dict]:
    """The gaming day's totals above the CTR threshold, per patron (or unidentified
    patron) and direction, with the transactions that make them up."""
    _, _, ctr_above = thresholds()
    rows = list(
        CashTransaction.objects.filter(gaming_day=gaming_day)
        .select_related("patron", "unidentified__link__patron", "table").order_by("seq")
    )
    groups: dict[tuple[str, str], list[CashTransaction]] = {}
    for row in rows:
        linked = getattr(getattr(row.unidentified, "link", None), "patron", None) if row.unidentified_id else None
        owner = row.patron or linked
        subject = f"patron:{owner.pk}" if owner else f"unidentified:{row.unidentified_id}"
        groups.setdefault((subject, row.direction), []).append(row)
    found = []
    for (subject, direction), txs in groups.items():
        total = sum(t.amount for t in txs)
        if total > ctr_above:
            owner = txs[0].patron or getattr(getattr(txs[0].unidentified, "link", None), "patron", None)
            found.append({
                "subject": subject, "direction": direction, "total": total, "gaming_day": gaming_day,
                "patron": owner.public() if owner else None,
                "unidentified": None if owner else txs[0].unidentified.player_id,
                "transactions": txs,
            })
    return sorted(found, key=lambda c: (c["subject"], c["direction"]))


def verify_chain() -> list[str]:
    """The cash chain's breaks (`verify_logs`): each row's hash recomputed from its
    content and the row before, and the seqs without a gap."""
    problems, prev, expected = [], hashchain.GENESIS, 1
    for row in CashTransaction.objects.order_by("seq").iterator():
        if row.seq != expected:
            problems.append(f"cash chain: seq {expected} is missing (next is {row.seq})")
        try:
            computed = hashchain.link(prev, row.chain_content(), row.hash_key)
        except hashchain.UnknownKey:
            computed = None
        if row.prev_hash != prev or computed != row.row_hash:
            problems.append(f"cash chain: row seq {row.seq} does not verify (altered, or a row before it was)")
            return problems
        prev, expected = row.row_hash, row.seq + 1
    return problems


def patron_link(*, unidentified_id: int, patron_id: int, actor: Actor, reason: str = "") -> PatronLink:
    """Identify an unidentified patron (compliance or a supervisor): their transactions
    then count toward the patron's totals, and a total that crosses a line by the merge
    raises its alert (below)."""
    if actor.role not in IDENTIFICATION_ROLES and not actor.is_system:
        raise PatronError("not_authorized", "compliance or a supervisor identifies a patron")
    with transaction.atomic():
        lock()
        unidentified = UnidentifiedPatron.objects.filter(pk=unidentified_id).first()
        patron = Patron.objects.filter(pk=patron_id).first()
        if unidentified is None or patron is None:
            raise PatronError("unknown_patron", "no such unidentified patron or patron")
        if PatronLink.objects.filter(unidentified=unidentified).exists():
            raise PatronError("already_linked", f"{unidentified.player_id} is already identified")
        link = PatronLink.objects.create(
            unidentified=unidentified, patron=patron, linked_at=timezone.now(), linked_by=actor.name, reason=reason[:200]
        )
        alerts_after_link(link)
        audit_record(
            actor=actor, action="patron", summary=f"{unidentified.player_id} identified as patron {patron.number}",
            detail={"unidentified": unidentified.pk, "patron": patron.pk},
        )
    return link


# --- self-exclusion --------------------------------------------------------------------

"""Cash at the tables (31 CFR 1021.311-313): the log, the MTL, the day's totals and the
alerts the floor and compliance get.

One hash chain for the house (cardroom/hashchain.py), because a patron's cash adds up
across tables: every write takes one transaction-scoped advisory lock, reads the head
(the one CashLog row: the last seq and row hash), appends and moves the head. The same
lock serializes the totals, so two purchases at two tables at once cannot both miss the
line they cross together.

A ledger like the others (docs/compliance-exports.md): the head on its row, signed
checkpoints (`day_end` by the first transaction of a later gaming day, `on_demand` by
`verify_logs --checkpoint` and the cash export), the head witnessed outside the database
after commit (cardroom/witness.py), and `verify_logs` checking the chain against all
three (`verify_chain`) and the alerts against the log (`verify_alerts`).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import BigIntegerField, Case, F, Q, Sum, When
from django.utils import timezone

from cardroom import checkpoints, hashchain, witness
from cardroom.access import Actor, can_drive
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from rounds.models import Round
from tables.models import TableEvent

from .awards import award_paid, award_payable, award_unpaid
from .identity import (
    IDENTIFICATION_ROLES,
    PatronError,
    SeatIdentity,
    exclusion_check,
    person_of,
    refuse_unfit,
    survivors,
)
from .models import (
    CashAlert,
    CashCheckpoint,
    CashLog,
    CashReversalDecision,
    CashReversalRequest,
    CashTransaction,
    Patron,
    PatronLink,
    PatronMerge,
    PatronMergeRequest,
    UnidentifiedPatron,
)

LOCK_KEY = "cardroom-cash-chain"
LOG = "cash"  # the cash log's name among the chains (cardroom/checkpoints.py, the witness)
HEAD_ROW = 1  # the pk of the one CashLog row


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
    """Whose total a transaction counts toward: a patron's person (named by its surviving
    record, identity.person_of), or an unidentified patron not linked yet."""
    return person_of(patron.pk).subject if patron is not None else f"unidentified:{unidentified.pk}"


def _subject_filter(subject: str) -> Q:
    """A subject's transactions: those of every record of the patron's person and of
    every unidentified patron linked to one of them; an unidentified patron's own (until
    linked)."""
    kind, pk = subject.split(":")
    if kind == "patron":
        records = person_of(int(pk)).records
        return Q(patron_id__in=records) | Q(unidentified__link__patron_id__in=records)
    return Q(unidentified_id=int(pk))


# What a cash row counts for in a total: an original its amount, a reversal (a row that
# names the one it reverses) minus it. Every total, alert and CTR list counts through
# `counted_total` (or, in SQL, models.COUNTED_SQL), so originals less reversals is said once.
COUNTED_AMOUNT = Case(When(reverses__isnull=True, then=F("amount")), default=-F("amount"), output_field=BigIntegerField())


def counted(row: CashTransaction) -> int:
    return -row.amount if row.reverses_id is not None else row.amount


def counted_total(rows) -> int:
    """The total of a queryset of cash rows: originals less reversals."""
    return rows.aggregate(total=Sum(COUNTED_AMOUNT))["total"] or 0


def day_total(subject: str, gaming_day: date, direction: str) -> int:
    return counted_total(CashTransaction.objects.filter(_subject_filter(subject), gaming_day=gaming_day, direction=direction))


# A second entry of the same patron, kind and amount within this window is refused
# `possible_duplicate` unless sent again with `confirm: true` (a double tap, or a real
# second purchase the dealer confirms).
DUPLICATE_WINDOW = timedelta(minutes=2)
CLIENT_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def cash_record(*, table_id: int, kind: str, amount, player: str, actor: Actor, note: str = "",
                at: datetime | None = None, award_round: int | None = None,
                award_seat: int | None = None, client_id: str | None = None, confirm=False) -> CashTransaction:
    """Record a chip purchase for cash or a cash payout at a table, by its dealer or a
    supervisor. `player` is the seat's id: a patron number or card, or "U-<id>". A listed
    patron is refused (`self_excluded`, recorded as a hit), a name near a listed one held
    (`check_required`, a review for the floor). `at` is a system process's only.
    A payout of a progressive award names it (`award_round`, the round's id, and
    `award_seat`) and is recorded by someone other than the supervisor who confirmed the
    award (`second_person_required`). Bad input raises PatronError and writes nothing.

    `client_id` is the tablet's id of the entry: sent again at the same table, the first
    entry is answered (`row.replayed`) and nothing new is recorded. The same patron, kind
    and amount within DUPLICATE_WINDOW is refused `possible_duplicate` unless `confirm`."""
    if client_id is not None and (not isinstance(client_id, str) or not CLIENT_ID.fullmatch(client_id)):
        raise PatronError("invalid_command", "client_id is 1 to 64 letters, digits or - _ . :")
    if confirm not in (True, False):
        raise PatronError("invalid_command", "confirm is true or false")
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
    award = _award_paid(kind, table_id, award_round, award_seat, actor)
    mtl_at, _, _ = thresholds()
    refused = None
    with transaction.atomic():
        lock()
        if client_id:
            # Under the lock: two copies of one entry arriving at once find one row.
            first = CashTransaction.objects.filter(table_id=table_id, client_id=client_id).first()
            if first is not None:
                first.replayed = True
                return first
        # Under the lock: the link state a row's subject comes from, and its time, are in
        # the order the lock gives the log and the links (verify_alerts replays them so).
        seat = SeatIdentity(player)
        patron, unidentified = seat.patron, seat.unidentified
        now = at or timezone.now()
        try:
            exclusion_check(player=player, table_id=table_id, action=kind, actor=actor, amount=amount, seat=seat)
        except PatronError as refusal:
            # Raised after the block: the hit the check wrote is committed, nothing else.
            refused = refusal
        # After the list: a listed person named by a name the house has no record of is
        # still a hit for the floor, not only an unknown patron.
        if refused is None and patron is None and unidentified is None:
            refused = PatronError("unknown_patron", f"no patron or unidentified patron {player!r}")
        if refused is None and award is not None:
            refused = award_already_paid(*award) or award_payable(*award, amount, patron, unidentified)
        if refused is None and not confirm:
            refused = _possible_duplicate(patron, unidentified, kind, amount, now)
        if refused is None:
            row = _append(kind=kind, amount=amount, patron=patron, unidentified=unidentified, table_id=table_id,
                          actor=actor, note=note, now=now, mtl_at=mtl_at, award=award, client_id=client_id or "")
            row.replayed = False
    if refused is not None:
        raise refused
    return row


def _possible_duplicate(patron, unidentified, kind, amount, now) -> PatronError | None:
    """The same person (a patron with every U-id linked to them, or a U-id), kind and
    amount recorded within DUPLICATE_WINDOW, at any table, and not reversed since."""
    subject = subject_of(patron, unidentified)
    reversed_ids = CashTransaction.objects.filter(reverses__isnull=False).values("reverses_id")
    earlier = (
        CashTransaction.objects.filter(_subject_filter(subject), kind=kind, amount=amount, reverses__isnull=True,
                                       created_at__gte=now - DUPLICATE_WINDOW, created_at__lte=now)
        .exclude(pk__in=reversed_ids).order_by("-seq").first()
    )
    if earlier is None:
        return None
    return PatronError(
        "possible_duplicate",
        f"the same {kind} of this amount for this patron was recorded {int((now - earlier.created_at).total_seconds())} "
        f"seconds ago (cash #{earlier.seq}): if this is a second one, not a double tap, send it again with confirm",
    )


def _award_paid(kind, table_id, award_round, award_seat, actor: Actor) -> tuple[int, int] | None:
    """The award a payout names, (round id, seat), checked: both named or neither, a cash
    payout, a round of this table. When a supervisor confirmed the award (its
    `confirm_award` event in the table's chain, during the round), the payout is recorded
    by another person: two people, by user, for a progressive award's money."""
    if award_round is None and award_seat is None:
        return None
    if type(award_round) is not int or type(award_seat) is not int or award_seat < 1:
        raise PatronError("invalid_command", "an award is named by its round id and seat number, both")
    if kind != "cash_payout":
        raise PatronError("invalid_command", "only a cash payout pays an award")
    rnd = Round.objects.filter(pk=award_round, table_id=table_id).first()
    if rnd is None:
        raise PatronError("unknown_award", f"no round {award_round} at table {table_id}")
    confirmer = award_confirmer(rnd, award_seat)
    if confirmer is not None and confirmer == actor.name:
        raise PatronError(
            "second_person_required",
            f"{actor.name} confirmed this award: another person records its cash payout",
        )
    return award_round, award_seat


def award_already_paid(award_round: int, award_seat: int) -> PatronError | None:
    """An award is cashed out once (a double tap, a second person paying it again): its
    earlier payout row names it, read under the cash lock (and the database's trigger
    `cash_award_paid_once` behind it). A payout that was reversed (a correction two people
    agreed to) no longer pays it: the award is payable again, once."""
    reversed_ids = CashTransaction.objects.filter(reverses__isnull=False).values("reverses_id")
    paid = (CashTransaction.objects.filter(award_round_id=award_round, award_seat=award_seat, reverses__isnull=True)
            .exclude(pk__in=reversed_ids).first())
    if paid is None:
        return None
    return PatronError("award_paid", f"the award of round {award_round} seat {award_seat} was paid (cash seq {paid.seq})")


def award_confirmer(rnd: Round, seat: int) -> str | None:
    """Who confirmed the progressive award of `rnd` at `seat`: the supervisor of its
    `confirm_award` event (the event chain records it under their name), or None."""
    events = TableEvent.objects.filter(table_id=rnd.table_id, command_type="confirm_award", created_at__gte=rnd.opened_at)
    if rnd.closed_at is not None:
        events = events.filter(created_at__lte=rnd.closed_at)
    for actor, command, result in events.order_by("seq").values_list("actor", "command", "result"):
        command = command if isinstance(command, dict) else {}
        award = (result or {}).get("award") if isinstance(result, dict) else None
        if command.get("seat") == seat:
            return (award or {}).get("approved_by") or command.get("approved_by") or actor
    return None


def head_row(*, create: bool = False) -> CashLog | None:
    """The cash log's head row, locked (the caller holds the cash lock). Created at the
    first transaction of a log that has none (a new database); a log with rows and no
    head is not continued: `verify_logs` names it."""
    head = CashLog.objects.select_for_update().filter(pk=HEAD_ROW).first()
    if head is None and create:
        if CashTransaction.objects.exists():
            raise PatronError("wrong_state", "the cash log's head row is missing: run verify_logs")
        head = CashLog.objects.create(pk=HEAD_ROW)
    return head


def _append(*, kind, amount, patron, unidentified, table_id, actor, note, now, mtl_at, award=None, client_id="",
            reverses: CashTransaction | None = None) -> CashTransaction:
    cal = calendar()
    head = head_row(create=True)
    gaming_day = cal.gaming_day(now)
    # The first transaction of a later gaming day signs where the log stood at the end of
    # the earlier one, before its own row (as a table's first command of a day does).
    checkpoints.close_day_if_turned(head, gaming_day, logs=checkpoints.CASH_LOGS)
    row = CashTransaction(
        seq=head.seq + 1,
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
        # A reversal is on the MTL when its original is: both show there.
        mtl=reverses.mtl if reverses is not None else amount >= mtl_at,
        created_at=now,
        gaming_day=gaming_day,
        shift=cal.shift(now),
        prev_hash=head.head,
        hash_key=hashchain.current_key_id(),
        award_round_id=award[0] if award else None,
        award_seat=award[1] if award else None,
        reverses=reverses,
        client_id=client_id,
    )
    row.row_hash = hashchain.link(row.prev_hash, row.chain_content(), row.hash_key)
    row.save(force_insert=True)
    if award:
        award_paid(*award, row)
    head.seq, head.head = row.seq, row.row_hash
    head.save(update_fields=["seq", "head", "chain_day"])
    # After commit, outside the database: where the log stands, at once (cash is rare and
    # a payout cut out of the log must be caught the same day).
    witness.committed_on_commit([(LOG, head.pk, head.seq, head.head)], urgent=True)
    # The total is the subject's as it stands now: a linked U-id counts for its patron.
    subject = subject_of(patron, unidentified)
    _alerts_for(subject, row.gaming_day, row.direction, crossing=row, before_extra=counted(row))
    what = f"reversal of cash seq {reverses.seq}: " if reverses is not None else ""
    audit_record(
        actor=actor, action="cash", table_id=table_id,
        summary=f"{what}{kind} {amount} cents for {row.player} (cash seq {row.seq})", detail={"cash": row.seq},
    )
    return row


def _alerts_for(subject: str, gaming_day: date, direction: str, *, crossing: CashTransaction,
                before_extra: int, link: PatronLink | None = None, merge: PatronMerge | None = None) -> list[CashAlert]:
    """Alerts for the lines the subject's day total crossed by the last `before_extra`
    cents: at the warning (reached) and above the CTR threshold (exceeded). A line is
    alerted once a day: a total a reversal took back below it and that crosses it again
    keeps its first alert (which stays on record: it was true when raised). A patron's
    alert names the surviving record of their person."""
    _, warn_at, ctr_above = thresholds()
    patron_id = int(subject.split(":")[1]) if subject.startswith("patron:") else None
    total = day_total(subject, gaming_day, direction)
    before = total - before_extra
    made = []
    for kind, crossed in (("warning", before < warn_at <= total), ("ctr_required", before <= ctr_above < total)):
        if crossed and not CashAlert.objects.filter(kind=kind, subject=subject, direction=direction,
                                                    gaming_day=gaming_day).exists():
            made.append(CashAlert.objects.create(
                kind=kind, subject=subject, patron_id=patron_id, direction=direction, gaming_day=gaming_day,
                total=total, transaction=crossing, link=link, merge=merge, table_id=crossing.table_id,
                created_at=timezone.now(),
            ))
    return made


def alerts_after_link(link: PatronLink) -> None:
    """After an unidentified patron is linked (under the cash lock): each gaming day and
    direction of theirs now counts toward the patron's, and may cross a line."""
    _alerts_after_joining(person_of(link.patron_id).subject, Q(unidentified=link.unidentified), link=link)


def _alerts_after_joining(subject: str, joined: Q, *, link: PatronLink | None = None,
                          merge: PatronMerge | None = None) -> None:
    """The transactions `joined` now count toward `subject`'s totals: each of their gaming
    days and directions may cross a line, at the subject's last transaction of it."""
    groups = CashTransaction.objects.filter(joined).values("gaming_day", "direction").annotate(moved=Sum(COUNTED_AMOUNT))
    for group in groups:
        last = CashTransaction.objects.filter(
            _subject_filter(subject), gaming_day=group["gaming_day"], direction=group["direction"]
        ).order_by("-seq").first()
        _alerts_for(subject, group["gaming_day"], group["direction"], crossing=last, before_extra=group["moved"],
                    link=link, merge=merge)


def ctr_candidates(gaming_day: date) -> list[dict]:
    """The gaming day's totals above the CTR threshold, per patron (or unidentified
    patron) and direction, with the transactions that make them up."""
    _, _, ctr_above = thresholds()
    rows = list(
        CashTransaction.objects.filter(gaming_day=gaming_day)
        .select_related("patron", "unidentified__link__patron", "table").order_by("seq")
    )
    merged = survivors()
    groups: dict[tuple[str, str], list[CashTransaction]] = {}
    for row in rows:
        linked = getattr(getattr(row.unidentified, "link", None), "patron", None) if row.unidentified_id else None
        owner = row.patron or linked
        subject = person_of(owner.pk, merged).subject if owner else f"unidentified:{row.unidentified_id}"
        groups.setdefault((subject, row.direction), []).append(row)
    found = []
    for (subject, direction), txs in groups.items():
        total = sum(counted(t) for t in txs)
        if total > ctr_above:
            # The person is named by their surviving record, whichever record a row was under.
            owner = Patron.objects.get(pk=int(subject.split(":")[1])) if subject.startswith("patron:") else None
            found.append({
                "subject": subject, "direction": direction, "total": total, "gaming_day": gaming_day,
                "patron": owner.public() if owner else None,
                "unidentified": None if owner else txs[0].unidentified.player_id,
                "transactions": txs,
            })
    return sorted(found, key=lambda c: (c["subject"], c["direction"]))


def verify_chain() -> list[str]:
    """The cash log's breaks (`verify_logs`), as a table's chains are checked
    (cardroom/checkpoints.py `first_break`): each row re-hashed with the key it names (a
    row without the key, hash_key '', is refused: this log never had one), linked to the
    row before, the seqs without a gap, every signed checkpoint's row there and unchanged
    with its day's row count, and the chain ending at the head its row records. A cut
    tail, an emptied log and a re-hashed row are each named."""
    problems, signed = [], []
    for checkpoint in CashCheckpoint.objects.order_by("last_seq", "id"):
        if hashchain.signature_valid(checkpoint.signed_content(), checkpoint.key_id, checkpoint.signature):
            signed.append(checkpoint)
        else:
            problems.append(
                f"cash log: checkpoint {checkpoint.pk} ({checkpoint.kind}, gaming day {checkpoint.gaming_day}) does not "
                f"carry a valid signature of key {checkpoint.key_id!r}: forged or altered, not used"
            )
    head = CashLog.objects.filter(pk=HEAD_ROW).first()
    last = CashTransaction.objects.order_by("-seq").values_list("seq", "row_hash").first()
    if head is None:
        if last is not None or signed:
            problems.append("cash log: its head row is missing, but the log has rows or checkpoints: deleted")
        # The rows are still checked against each other and the checkpoints.
        last_seq, head_hash = last or (0, hashchain.GENESIS)
    else:
        last_seq, head_hash = head.seq, head.head
        if last is None and head.seq > 0:
            problems.append(f"cash log: emptied: it holds no row, but its head records seq {head.seq}")
            return problems
    rows = CashTransaction.objects.order_by("seq").iterator(chunk_size=5000)
    found = checkpoints.first_break(rows, last_seq, head_hash, signed, holder="the cash log's head", unkeyed_ever=False)
    if found is not None:
        seq, problem = found
        where = f"seq {seq}" if seq is not None else "end of chain"
        problems.append(f"cash log {where}: {problem}")
    return problems


def expected_alerts() -> dict[tuple, dict]:
    """The cash alerts the log calls for under the thresholds in force, replayed in the
    order the cash lock gave the transactions, the links and the merges (a link or a merge
    before a transaction when it was made before it): {(kind, subject, direction, gaming
    day): the alert's fields}. A line is alerted once per subject, direction and day (the
    first crossing: by a transaction, by a link that joins an unidentified patron's totals
    to a patron's, or by a merge that joins two records' persons); a reversal lowers the
    total (originals less reversals) and crosses nothing."""
    _, warn_at, ctr_above = thresholds()
    joins = sorted(
        [("link", l["linked_at"], l["pk"], l) for l in PatronLink.objects.values("pk", "unidentified_id", "patron_id", "linked_at")]
        + [("merge", m["approved_at"], m["pk"], m) for m in PatronMerge.objects.values("pk", "merged_id", "survivor_id", "approved_at")],
        key=lambda join: (join[1], join[0], join[2]),
    )
    rows = CashTransaction.objects.order_by("seq").values_list(
        "pk", "seq", "patron_id", "unidentified_id", "direction", "gaming_day", "amount", "created_at", "table_id",
        "reverses_id",
    )
    linked: dict[int, int] = {}  # unidentified id -> patron id, links made so far
    merged_into: dict[int, int] = {}  # merged record -> the record it was merged into, merges made so far
    totals: dict[tuple, int] = {}  # (subject, gaming day, direction) -> total so far
    last_row: dict[tuple, tuple] = {}  # the same key -> (seq, pk, table id) of its last transaction
    own: dict[int, dict] = {}  # unidentified id -> {(day, direction): its own total}
    expected: dict[tuple, dict] = {}

    def person(patron_id: int) -> str:
        while patron_id in merged_into:
            patron_id = merged_into[patron_id]
        return f"patron:{patron_id}"

    def cross(subject, day, direction, before, total, crossing, link_id, merge_id=None):
        patron = int(subject.split(":")[1]) if subject.startswith("patron:") else None
        for kind, crossed in (("warning", before < warn_at <= total), ("ctr_required", before <= ctr_above < total)):
            if crossed:
                expected.setdefault((kind, subject, direction, day), {
                    "total": total, "transaction": crossing[0], "table": crossing[1], "link": link_id,
                    "merge": merge_id, "patron": patron,
                })

    def join(into: str, moving: dict, source: str, link_id=None, merge_id=None):
        """`moving` ({(day, direction): total}, the totals of `source`) now count toward `into`."""
        for (day, direction), moved in sorted(moving.items()):
            key = (into, day, direction)
            totals[key] = totals.get(key, 0) + moved
            # The subject's last transaction of that day, the joined ones' included (by seq).
            last_row[key] = max(r for r in (last_row.get(key), last_row[(source, day, direction)]) if r)
            cross(into, day, direction, totals[key] - moved, totals[key], last_row[key][1:], link_id, merge_id)

    def apply(kind, join_row):
        if kind == "link":
            linked[join_row["unidentified_id"]] = join_row["patron_id"]
            source = f"unidentified:{join_row['unidentified_id']}"
            join(person(join_row["patron_id"]), own.get(join_row["unidentified_id"], {}), source, link_id=join_row["pk"])
        else:
            source, into = person(join_row["merged_id"]), person(join_row["survivor_id"])
            merged_into[join_row["merged_id"]] = join_row["survivor_id"]
            moving = {(day, direction): total for (subject, day, direction), total in totals.items() if subject == source}
            join(into, moving, source, merge_id=join_row["pk"])

    pending = list(joins)
    for pk, seq, patron_id, unidentified_id, direction, day, amount, created_at, table_id, reverses_id in rows.iterator(
        chunk_size=5000
    ):
        amount = -amount if reverses_id is not None else amount  # originals less reversals
        while pending and pending[0][1] <= created_at:
            kind, _, _, join_row = pending.pop(0)
            apply(kind, join_row)
        if patron_id is not None:
            subject = person(patron_id)
        elif unidentified_id in linked:
            subject = person(linked[unidentified_id])
        else:
            subject = f"unidentified:{unidentified_id}"
        if unidentified_id is not None:
            mine = own.setdefault(unidentified_id, {})
            mine[(day, direction)] = mine.get((day, direction), 0) + amount
            key_u = (f"unidentified:{unidentified_id}", day, direction)
            last_row[key_u] = (seq, pk, table_id)
        key = (subject, day, direction)
        before = totals.get(key, 0)
        totals[key] = before + amount
        last_row[key] = (seq, pk, table_id)
        cross(subject, day, direction, before, totals[key], (pk, table_id), None)
    for kind, _, _, join_row in pending:
        apply(kind, join_row)
    return expected


def verify_alerts() -> list[str]:
    """The cash alerts against the log (`verify_logs`): each alert the log calls for is
    there, with the total, the crossing transaction, the table, the patron and the link
    the log gives it; an alert the log does not call for (or a second one of a line) is
    forged or altered."""
    expected = expected_alerts()
    problems, seen = [], set()
    for alert in CashAlert.objects.order_by("id"):
        key = (alert.kind, alert.subject, alert.direction, alert.gaming_day)
        name = f"cash alert {alert.pk} ({alert.kind}, {alert.subject}, {alert.direction}, gaming day {alert.gaming_day})"
        want = expected.get(key)
        if want is None:
            problems.append(f"{name}: the cash log crosses no such line under the thresholds in force: forged or altered")
            continue
        if key in seen:
            problems.append(f"{name}: a second alert of the same line: forged")
            continue
        seen.add(key)
        held = {"total": alert.total, "transaction": alert.transaction_id, "table": alert.table_id,
                "link": alert.link_id, "merge": alert.merge_id, "patron": alert.patron_id}
        changed = [f"{field} {held[field]} (the log gives {want[field]})" for field in held if held[field] != want[field]]
        if changed:
            problems.append(f"{name}: altered: " + ", ".join(changed))
    for key, want in sorted(expected.items(), key=lambda item: (str(item[0][3]), item[0][1], item[0][0])):
        if key not in seen:
            kind, subject, direction, day = key
            problems.append(
                f"cash alert missing: {kind} for {subject}, {direction}, gaming day {day} (the log's total "
                f"{want['total']} crosses it at cash transaction {want['transaction']}): deleted or never written"
            )
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


# --- corrections: a reversal, asked by one person and approved by another -------------

REVERSAL_REQUESTERS = ("dealer", "supervisor", "compliance")
REVERSAL_APPROVERS = ("supervisor", "compliance")


def _reason(text) -> str:
    if not isinstance(text, str) or len(text.strip()) < 3:
        raise PatronError("reason_required", "say why the entry is reversed (3 to 200 characters)")
    if len(text) > 200:
        raise PatronError("reason_required", "the reason is at most 200 characters")
    return text.strip()


def cash_reversal_request(*, seq, reason, actor: Actor) -> CashReversalRequest:
    """Ask that cash row `seq` be reversed: the dealer of its table, a supervisor or
    compliance, with a reason. A reversal is never reversed, a row at most once, and one
    request is pending at a time. Nothing is written to the cash log until another person
    approves (cash_reversal_decide)."""
    if actor.user_id is None or actor.role not in REVERSAL_REQUESTERS:
        raise PatronError("not_authorized", "the table's dealer, a supervisor or compliance asks for a reversal")
    if type(seq) is not int or seq < 1:
        raise PatronError("invalid_command", "name the cash entry by its number (cash #)")
    reason = _reason(reason)
    with transaction.atomic():
        lock()
        original = CashTransaction.objects.filter(seq=seq).first()
        if original is None:
            raise PatronError("unknown_cash", f"no cash entry #{seq}")
        if actor.role == "dealer" and not can_drive(actor, original.table_id):
            raise PatronError("not_authorized", "a dealer asks for reversals of their own table's cash only")
        _reversible(original)
        pending = CashReversalRequest.objects.filter(original=original, decision__isnull=True).first()
        if pending is not None:
            raise PatronError("already_requested", f"a reversal of cash #{seq} is already waiting for approval (request {pending.pk})")
        request = CashReversalRequest.objects.create(
            original=original, reason=reason, requested_by_id=actor.user_id, requested_name=actor.name,
            requested_role=actor.role, requested_at=timezone.now(),
        )
        audit_record(
            actor=actor, action="cash", table_id=original.table_id,
            summary=f"reversal of cash #{seq} requested: {reason}", detail={"cash": seq, "reversal_request": request.pk},
        )
    return request


# --- one person, one record: merges under two compliance people ---------------------------


def _merge_refusal(survivor: Patron, merged: Patron) -> PatronError | None:
    """Why these two records cannot be merged now, if they cannot. A record is merged
    once, and never into a record that is merged itself (name that one's survivor
    instead); a survivor may itself be merged later, carrying its merged records along
    (identity.survivors follows the merges transitively)."""
    if survivor.pk == merged.pk:
        return PatronError("invalid_patron", "a record is not merged into itself")
    for record in (merged, survivor):
        into = PatronMerge.objects.select_related("survivor").filter(merged=record).first()
        if into is not None:
            return PatronError(
                "already_merged", f"patron {record.number} is already merged into patron {into.survivor.number}"
                + ("" if record is merged else f": merge into patron {into.survivor.number}"),
            )
    return None


def _compliance_person(actor: Actor, what: str) -> None:
    if actor.role != "compliance" or actor.user_id is None:
        raise PatronError("not_authorized", f"a compliance officer {what}")


def merge_request(*, survivor_id: int, merged_id: int, reason: str, actor: Actor) -> PatronMergeRequest:
    """A compliance officer asks that two records of one person be merged (`merged` into
    `survivor`), with the reason; nothing follows until another compliance officer
    approves (merge_approve)."""
    _compliance_person(actor, "asks for a merge of two records")
    reason = (reason or "").strip()
    if not reason:
        raise PatronError("invalid_patron", "say why the two records are one person")
    if type(survivor_id) is not int or type(merged_id) is not int:
        raise PatronError("unknown_patron", "name both records by their patron id")
    with transaction.atomic():
        survivor = Patron.objects.filter(pk=survivor_id).first()
        merged = Patron.objects.filter(pk=merged_id).first()
        if survivor is None or merged is None:
            raise PatronError("unknown_patron", "no such patron")
        refusal = _merge_refusal(survivor, merged)
        if refusal is not None:
            raise refusal
        request = PatronMergeRequest(
            survivor=survivor, merged=merged, reason=reason, requested_by=actor.name, requester_user_id=actor.user_id,
            requested_at=timezone.now(),
        )
        refuse_unfit(request, "invalid_patron")
        request.save(force_insert=True)
        audit_record(
            actor=actor, action="patron_merge",
            summary=f"merge of patron {merged.number} into patron {survivor.number} requested",
            detail={"request": request.pk, "survivor": survivor.pk, "merged": merged.pk},
        )
    return request


def _reversible(original: CashTransaction) -> None:
    if original.reverses_id is not None:
        raise PatronError("not_reversible", f"cash #{original.seq} is itself a reversal: it is not reversed")
    if CashTransaction.objects.filter(reverses=original).exists():
        raise PatronError("already_reversed", f"cash #{original.seq} is already reversed")


def cash_reversal_decide(*, request_id, approve, actor: Actor, note: str = "") -> CashReversalDecision:
    """A supervisor or compliance decides a reversal request. The approver is another
    person than the requester and than whoever recorded the original (by user: a second
    session or tablet of the same person is refused `second_person_required`). Approved,
    the reversal row is written once, under the cash lock, in the same transaction as the
    decision: a second approval answers the first decision (`already_decided`)."""
    if actor.user_id is None or actor.role not in REVERSAL_APPROVERS:
        raise PatronError("not_authorized", "a supervisor or compliance approves a reversal")
    if approve not in (True, False):
        raise PatronError("invalid_command", "approve is true or false")
    note = str(note or "")[:200]
    with transaction.atomic():
        lock()
        request = CashReversalRequest.objects.select_related("original").filter(pk=request_id).first()
        if request is None:
            raise PatronError("unknown_request", f"no reversal request {request_id}")
        decided = CashReversalDecision.objects.filter(request=request).first()
        if decided is not None:
            raise PatronError("already_decided", f"reversal request {request.pk} was decided by {decided.decided_name}")
        original = request.original
        if actor.user_id == request.requested_by_id:
            raise PatronError("second_person_required", "you asked for this reversal: another person approves it")
        if actor.name == original.employee:
            raise PatronError("second_person_required", f"you recorded cash #{original.seq}: another person approves its reversal")
        reversal = None
        if approve:
            _reversible(original)
            # The original's own patron or U-id: a reversal counts where its original did.
            mtl_at, _, _ = thresholds()
            reversal = _append(
                kind=original.kind, amount=original.amount, patron=original.patron, unidentified=original.unidentified,
                table_id=original.table_id, actor=actor, note=f"reverses cash #{original.seq}: {request.reason}",
                now=timezone.now(), mtl_at=mtl_at, reverses=original,
            )
            # A reversed award payout leaves the award unpaid: payable again, once, to its winner.
            award_unpaid(original)
        decision = CashReversalDecision.objects.create(
            request=request, approved=bool(approve), decided_by_id=actor.user_id, decided_name=actor.name,
            decided_role=actor.role, note=note, reversal=reversal, decided_at=timezone.now(),
        )
        audit_record(
            actor=actor, action="cash", table_id=original.table_id,
            summary=(f"reversal of cash #{original.seq} {'approved' if approve else 'declined'} "
                     f"(asked by {request.requested_name})" + (f": cash #{reversal.seq}" if reversal else "")),
            detail={"cash": original.seq, "reversal_request": request.pk, "reversal": reversal.seq if reversal else None,
                    **({"award_round": original.award_round_id, "award_seat": original.award_seat}
                       if reversal and original.award_round_id else {})},
        )
    return decision


def pending_reversals():
    return CashReversalRequest.objects.filter(decision__isnull=True).select_related("original__table", "original__patron")


def merge_approve(*, request_id: int, actor: Actor) -> PatronMerge:
    """A second compliance officer, by user id another person than the requester (a second
    session or tablet of the requester is the same person: `second_person_required`),
    approves a merge: the PatronMerge row, and from then on one person's totals (under the
    cash lock, so a total the merge makes cross a line raises its alert at once)."""
    _compliance_person(actor, "approves a merge of two records")
    with transaction.atomic():
        lock()
        request = PatronMergeRequest.objects.select_related("survivor", "merged").filter(pk=request_id).first()
        if request is None:
            raise PatronError("unknown_merge", "no such merge request")
        if PatronMerge.objects.filter(request=request).exists():
            raise PatronError("unknown_merge", "this merge request was approved already")
        if request.requester_user_id == actor.user_id:
            raise PatronError("second_person_required", f"{request.requested_by} asked for this merge: another "
                              "compliance officer approves it")
        refusal = _merge_refusal(request.survivor, request.merged)
        if refusal is not None:
            raise refusal
        # The merged record's person as it stands before the merge: its rows join the survivor's.
        joined = _subject_filter(person_of(request.merged_id).subject)
        merge = PatronMerge.objects.create(
            request=request, survivor=request.survivor, merged=request.merged, reason=request.reason,
            requested_by=request.requested_by, requester_user_id=request.requester_user_id,
            requested_at=request.requested_at, approved_by=actor.name, approver_user_id=actor.user_id,
            approved_at=timezone.now(),
        )
        _alerts_after_joining(person_of(request.survivor_id).subject, joined, merge=merge)
        audit_record(
            actor=actor, action="patron_merge",
            summary=f"patron {request.merged.number} merged into patron {request.survivor.number}",
            detail={"request": request.pk, "merge": merge.pk, "survivor": request.survivor_id,
                    "merged": request.merged_id, "requested_by": request.requested_by},
        )
    return merge


def merge_requests_waiting():
    return PatronMergeRequest.objects.filter(merge__isnull=True).select_related("survivor", "merged")


# --- self-exclusion --------------------------------------------------------------------

"""Checks that the logs are what was written: the per-table keyed hash chains of the event
log and the collection log (cardroom/hashchain.py), against the heads on the table row
and the signed checkpoints (cardroom/checkpoints.py)."""

from dataclasses import dataclass
from datetime import UTC, timedelta

from django.conf import settings
from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from cardroom import checkpoints as cp
from cardroom import hashchain, witness
from cardroom.audit import HOUSE_HEAD_ROW, HOUSE_LOG
from cardroom.models import AuditHouseHead, AuditHouseLink
from collections_fees.models import JackpotEntry, JackpotMeter
from patrons.models import CashLog, CashTransaction
from rounds.models import Round

from .models import ChainCheckpoint, Table, TableEvent


@dataclass(frozen=True)
class BrokenLink:
    table: int  # the table's id; for the jackpot log, the meter's
    log: str  # "events", "collections" or "jackpot"
    seq: int | None  # the first row that does not verify (None: the end of the chain)
    problem: str

    def __str__(self) -> str:
        where = f"seq {self.seq}" if self.seq is not None else "end of chain"
        owner = "meter" if self.log == "jackpot" else "table"
        return f"{owner} {self.table} {self.log} {where}: {self.problem}"


def verify_table(table: Table) -> list[BrokenLink]:
    """Each forged checkpoint, then the first broken link of each of the table's two
    chains (empty: everything verifies)."""
    broken = []
    for log in cp.TABLE_LOGS:
        last_seq, head = cp.chain_head(table, log)
        signed = []
        for checkpoint in ChainCheckpoint.objects.filter(table=table, log=log).order_by("last_seq", "id"):
            if hashchain.signature_valid(checkpoint.signed_content(), checkpoint.key_id, checkpoint.signature):
                signed.append(checkpoint)
            else:
                broken.append(BrokenLink(
                    table.pk, log, checkpoint.last_seq,
                    f"checkpoint {checkpoint.pk} ({checkpoint.kind}, gaming day {checkpoint.gaming_day}) "
                    f"does not carry a valid signature of key {checkpoint.key_id!r}: forged or altered, not used",
                ))
        rows = cp.chain_rows(table, log).order_by("seq").iterator(chunk_size=5000)
        problem = _first_break(table.pk, log, rows, last_seq, head, signed)
        if problem is not None:
            broken.append(problem)
    return broken


def verify_meter(meter: JackpotMeter) -> list[BrokenLink]:
    """The first broken link of a progressive meter's fund ledger, and whether the meter's
    amounts are what its rows add up to (empty: everything verifies)."""
    broken, signed = [], []
    for checkpoint in meter.checkpoints.order_by("last_seq", "id"):
        if hashchain.signature_valid(checkpoint.signed_content(), checkpoint.key_id, checkpoint.signature):
            signed.append(checkpoint)
        else:
            broken.append(BrokenLink(
                meter.pk, "jackpot", checkpoint.last_seq,
                f"checkpoint {checkpoint.pk} does not carry a valid signature of key {checkpoint.key_id!r}: forged or altered, not used",
            ))
    rows = meter.entries.order_by("seq").iterator(chunk_size=5000)
    problem = _first_break(meter.pk, "jackpot", rows, meter.entry_seq, meter.entry_head, signed)
    if problem is not None:
        return broken + [problem]
    if broken:
        return broken
    last = meter.entries.order_by("-seq").first()
    held = (last.meter_after, last.reserve_after) if last else (0, 0)
    if held != (meter.meter, meter.reserve):
        return [BrokenLink(meter.pk, "jackpot", None, (
            f"meter {meter.name!r} shows {meter.meter} and reserve {meter.reserve}, "
            f"its ledger adds up to {held[0]} and {held[1]}"
        ))]
    return []


def _first_break(table_id, log, rows, last_seq, head, checkpoints) -> BrokenLink | None:
    found = cp.first_break(rows, last_seq, head, checkpoints)
    return BrokenLink(table_id, log, *found) if found is not None else None


# --- The witness and the records against each other --------------------------------------


def verify_witness(tables, *, every: bool = True, reading: witness.Reading | None = None) -> list[str]:
    """The witness files (cardroom/witness.py) checked against themselves and the index,
    then every head they witnessed of `tables` (with `every`: of every table and jackpot
    meter, a witnessed one missing from the database included) against the chain at its seq: a chain that ends before a witnessed seq was cut, a
    table (or meter) whose head is behind one was rewound, a row whose hash is not the
    witnessed one was rewritten. A round witnessed as settled or voided must be so."""
    reading = reading or witness.read()
    problems = list(reading.problems)
    by_chain: dict[tuple[str, int], dict[int, list]] = {}
    for head in reading.heads:
        by_chain.setdefault((head.log, head.owner), {}).setdefault(head.seq, []).append(head)
    ids = {t.pk: t for t in tables}
    meter_rows = {m.pk: m for m in JackpotMeter.objects.all()} if every else {}
    for (log, owner), witnessed in sorted(by_chain.items()):
        if log == "cash":  # the house's cash log: its head row, its one chain
            if not every:
                continue
            owner_row = CashLog.objects.filter(pk=owner).first()
            name, rows = "cash log", CashTransaction.objects.all()
            head_seq = owner_row.seq if owner_row else None
        elif log == HOUSE_LOG:  # the house audit chain: its one head row, its links
            if not every:
                continue
            owner_row = AuditHouseHead.objects.filter(pk=owner).first()
            name, rows = "house audit chain", AuditHouseLink.objects.all()
            head_seq = owner_row.seq if owner_row else None
        elif log == "jackpot":
            if not every:
                continue
            owner_row = meter_rows.get(owner)
            name, rows = f"meter {owner} jackpot", (JackpotEntry.objects.filter(meter_id=owner) if owner_row else None)
            head_seq = owner_row.entry_seq if owner_row else None
        else:
            if owner not in ids and not every:
                continue  # a table not being checked (--table)
            owner_row = ids.get(owner)
            name = f"table {owner} {log}"
            rows = cp.chain_rows(owner_row, log) if owner_row else None
            head_seq = cp.chain_head(owner_row, log)[0] if owner_row else None
        top = max(witnessed)
        first = witnessed[top][0]
        if owner_row is None:
            problems.append(f"{name}: witnessed at seq {top} ({first.where}), but it is not in the database")
            continue
        stored = dict(rows.filter(seq__in=list(witnessed)).values_list("seq", "row_hash"))
        last_row = rows.order_by("-seq").values_list("seq", flat=True).first() or 0
        if last_row < top:
            problems.append(
                f"{name}: cut tail: the chain ends at seq {last_row}, but seq {top} was witnessed ({first.where}): "
                f"rows after seq {last_row} were deleted"
            )
        if head_seq < top:
            problems.append(
                f"{name}: rewound head: the head is at seq {head_seq}, behind the witness of seq {top} ({first.where})"
            )
        for seq in sorted(witnessed):
            for head in witnessed[seq]:
                if seq in stored and stored[seq] != head.head:
                    problems.append(f"{name} seq {seq}: not the row witnessed ({head.where}): rewritten after it")
                    break
    for table_id, number, status, where in reading.rounds:
        if table_id not in ids:
            continue
        held = Round.objects.filter(table_id=table_id, number=number).values_list("status", flat=True).first()
        if held != status:
            problems.append(
                f"table {table_id} round {number}: witnessed {status} ({where}), the database has it "
                + (f"{held}" if held else "missing")
            )
    return problems


# A chain row is in a witness line within CARDROOM_WITNESS_INTERVAL of its commit (the
# writer's timer); these seconds more allow for the commit itself and a busy machine.
WITNESS_SLACK_SECONDS = 15


def verify_witness_coverage(tables, reading: witness.Reading, *, every: bool = True) -> list[str]:
    """The witness files' deletion: the database's own rows against the witness. Every
    chain row written since the database's witness began (its identity's `created_at`)
    and more than the interval ago must be at or below a head a witness line of this
    database holds; rows beyond every witnessed head mean the lines (or the files, or the
    whole folder) that held them are gone. One aggregate over each chain's unwitnessed
    tail, by its (owner, seq) index."""
    identity = witness.database_identity()
    if identity is None:
        return [
            "the database has no identity (the row of cardroom_databaseidentity was removed): "
            "its witness lines cannot be told from another database's"
        ]
    until = timezone.now() - timedelta(seconds=settings.CARDROOM_WITNESS_INTERVAL + WITNESS_SLACK_SECONDS)
    if until <= identity.created_at:
        return []
    top: dict[tuple[str, int], int] = {}
    for head in reading.heads:
        top[(head.log, head.owner)] = max(top.get((head.log, head.owner), 0), head.seq)
    chains = [(f"table {t.pk} {log}", cp.chain_rows(t, log), top.get((log, t.pk), 0)) for t in tables for log in cp.TABLE_LOGS]
    if every:
        chains += [
            (f"meter {m.pk} jackpot", cp.chain_rows(m, "jackpot"), top.get(("jackpot", m.pk), 0))
            for m in JackpotMeter.objects.order_by("pk")
        ]
        chains.append(("house audit chain", AuditHouseLink.objects.all(), top.get((HOUSE_LOG, HOUSE_HEAD_ROW), 0)))
    problems = []
    for name, rows, witnessed in chains:
        tail = rows.filter(seq__gt=witnessed, created_at__gte=identity.created_at, created_at__lt=until).aggregate(
            count=Count("pk"), first=Min("seq"), last=Max("seq"), since=Min("created_at"), to=Max("created_at")
        )
        if tail["count"]:
            since, to = (tail[k].astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S") for k in ("since", "to"))
            problems.append(
                f"{name}: {tail['count']} rows written since the witness began (seq {tail['first']} to {tail['last']}, "
                f"{since} to {to} UTC) are in no witness line of this database (id {identity.uuid}): "
                f"witness files or lines deleted"
            )
    return problems


def verify_day_end_checkpoints(tables) -> list[str]:
    """The checkpoints' deletion: every gaming day of a table's events that a later day's
    event closed has the day-end checkpoints of both chains that the later day's first
    command signed (cardroom/checkpoints.py `close_day_if_turned`). Days sealed by the
    legacy checkpoint (before the chains were keyed) are exempt."""
    problems = []
    for table in tables:
        days = list(
            TableEvent.objects.filter(table=table).values("gaming_day").annotate(last=Max("seq"), rows=Count("pk")).order_by("last")
        )
        if len(days) < 2:
            continue
        legacy_end = (
            ChainCheckpoint.objects.filter(table=table, log="events", kind="legacy").aggregate(end=Max("last_seq"))["end"] or 0
        )
        signed = set(ChainCheckpoint.objects.filter(table=table, kind="day_end").values_list("log", "gaming_day"))
        for day in days[:-1]:  # the last is the table's current day: not closed yet
            if day["last"] <= legacy_end:
                continue
            for log in cp.TABLE_LOGS:
                if (log, day["gaming_day"]) not in signed:
                    problems.append(
                        f"table {table.pk} {log}: gaming day {day['gaming_day']} is closed (its {day['rows']} events end at "
                        f"seq {day['last']}, a later day's follow) but has no day-end checkpoint: deleted"
                    )
    return problems


ENDED = {"settled": "RoundSettled", "voided": "RoundVoided"}


def cross_check(tables) -> list[str]:
    """The records against each other: each table's version is its last event's seq, and
    every settled or voided round has the event that settled or voided it."""
    problems = []
    for table in tables:
        last = TableEvent.objects.filter(table=table).order_by("-seq").values_list("seq", flat=True).first() or 0
        if table.version != last:
            problems.append(f"table {table.pk}: its version is {table.version}, its last event is seq {last}")
        ended = Round.objects.filter(table=table, status__in=ENDED).values_list("number", "status")
        if not ended:
            continue
        closing = Q()
        for kind in ENDED.values():
            closing |= Q(records__contains=[{"kind": kind}])
        found = set()
        for records in TableEvent.objects.filter(closing, table=table).values_list("records", flat=True):
            found |= {(r["round"], r["kind"]) for r in records if r.get("kind") in ENDED.values()}
        for number, status in sorted(ended):
            if (number, ENDED[status]) not in found:
                problems.append(f"table {table.pk} round {number} is {status}, but no event in its chain {status} it")
    return problems

"""The progressive jackpot funds (game-rules 10.3): their meters and their ledger.

A meter is a shared object: tables name it in their configuration and every table naming
it moves the same row. The command service locks it with `cardroom.locks.meter`, always after
the table row (one fixed order: no deadlock, no lost update), hands its amounts to the engine
as a `Fund`, and the recording appends the engine's fund lines to the meter's own
hash-chained ledger (`entries_append`), kept apart from the collection log.
"""

from __future__ import annotations

from django.utils import timezone

from cardroom import hashchain, locks, witness
from cardroom.gaming_day import calendar
from rounds.engine.sidebets import Fund, FundLine, Progressive
from tables import checkpoints

from .models import JackpotCheckpoint, JackpotEntry, JackpotMeter


def meter_ensure(progressive: Progressive | None, *, stamp, restart: bool = False) -> JackpotMeter | None:
    """The meter a configuration names, made at its starting amounts (recorded as the
    chain's `opening` row) the first time any table names it. An existing meter is kept
    as it stands: a later configuration's starting amounts do not reset it, except with
    `restart` (a replay, inside its rolled-back transaction: the file's amounts are its
    start, whatever a meter of that name holds), by an `opening` row moving it there."""
    if progressive is None:
        return None
    _, created = JackpotMeter.objects.get_or_create(
        name=progressive.meter, defaults={"meter": 0, "reserve": 0, "created_at": stamp.now}
    )
    meter = locks.meter(progressive.meter)
    if created or restart:
        meter_delta, reserve_delta = progressive.start_meter - meter.meter, progressive.start_reserve - meter.reserve
        opening = FundLine("opening", None, "", abs(meter_delta + reserve_delta), meter_delta, reserve_delta)
        entries_append(meter, [opening], stamp=stamp)
    return meter


def fund_of(meter: JackpotMeter) -> Fund:
    return Fund(meter.meter, meter.reserve)


# The fund lines that are chips in (or back out of) the table's jackpot drop box.
BOXED_KINDS = {"contribution", "reversal"}


def entries_append(
    meter: JackpotMeter, lines: list[FundLine], *, stamp, table=None, rnd=None, event=None, box_id: int | None = None
) -> None:
    """Append the fund's lines to the meter's chain and move the (locked) meter row;
    contributions and reversals name the jackpot box they went into or came out of."""
    key_id = hashchain.current_key_id()
    entries = []
    for line in lines:
        meter.meter += line.meter_delta
        meter.reserve += line.reserve_delta
        meter.owed += line.owed
        meter.entry_seq += 1
        entry = JackpotEntry(
            meter=meter, seq=meter.entry_seq, kind=line.kind, table=table, round=rnd, event=event,
            seat=line.seat, player=line.player, amount=line.amount, meter_delta=line.meter_delta,
            reserve_delta=line.reserve_delta, owed=line.owed, hand=line.hand, confirmed=line.confirmed,
            box_id=box_id if line.kind in BOXED_KINDS else None,
            meter_after=meter.meter, reserve_after=meter.reserve,
            created_at=stamp.now, gaming_day=stamp.gaming_day, shift=stamp.shift,
            prev_hash=meter.entry_head, hash_key=key_id,
        )
        entry.row_hash = meter.entry_head = hashchain.link(entry.prev_hash, entry.chain_content(), key_id)
        entries.append(entry)
    JackpotEntry.objects.bulk_create(entries)
    meter.save(update_fields=["meter", "reserve", "owed", "entry_seq", "entry_head"])
    # Registered before the command's own (tables/services.py): a settle's line carries it.
    witness.committed_on_commit([("jackpot", meter.pk, meter.entry_seq, meter.entry_head)])


def checkpoints_write(*, gaming_day, meters=None) -> list[JackpotCheckpoint]:
    """Sign where every meter's fund chain (or each of `meters`') stands now
    (`verify_logs --checkpoint`, a jackpot export reaching the current gaming day)."""
    key_id, now = hashchain.current_key_id(), timezone.now()
    written = []
    for meter in (meters if meters is not None else JackpotMeter.objects.all()).filter(entry_seq__gt=0).order_by("pk"):
        checkpoint = JackpotCheckpoint(
            meter=meter, gaming_day=gaming_day, last_seq=meter.entry_seq, head=meter.entry_head,
            rows=meter.entries.filter(gaming_day=gaming_day, seq__lte=meter.entry_seq).count(),
            key_id=key_id, created_at=now,
        )
        checkpoint.signature = hashchain.sign(checkpoint.signed_content(), key_id)
        written.append(checkpoint)
    return JackpotCheckpoint.objects.bulk_create(written)


def checkpoints_for_export(filters: dict) -> list[dict]:
    """The signed checkpoints of the fund chains a jackpot export covers (its meter and
    gaming-day filters), as the collection log's export carries its tables'
    (tables/checkpoints.py `for_export`): fresh ones of the exported meters first when the
    export reaches the current gaming day. Called before the rows are read, so every row
    a checkpoint vouches for is in the export."""
    today = calendar().gaming_day(timezone.now())
    meters = JackpotMeter.objects.all()
    if filters.get("meter"):
        meters = meters.filter(name=filters["meter"])
    if not filters.get("day_to") or filters["day_to"] >= today.isoformat():
        checkpoints_write(gaming_day=today, meters=meters)
    found = JackpotCheckpoint.objects.filter(meter__in=meters)
    if filters.get("day_from"):
        found = found.filter(gaming_day__gte=filters["day_from"])
    if filters.get("day_to"):
        found = found.filter(gaming_day__lte=filters["day_to"])
    return [checkpoints.document(c) for c in found.order_by("meter_id", "last_seq", "id")]

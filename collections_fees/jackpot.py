"""The progressive jackpot funds (game-rules 10.3): their meters and their ledger.

A meter is a shared object: tables name it in their configuration and every table naming
it moves the same row. The command service locks it with `cardroom.locks.meter`, always after
the table row (one fixed order: no deadlock, no lost update), hands its amounts to the engine
as a `Fund`, and the recording appends the engine's fund lines to the meter's own
hash-chained ledger (`entries_append`), kept apart from the collection log.
"""

from __future__ import annotations

from cardroom import checkpoints, hashchain, locks, witness
from rounds.engine.sidebets import Fund, FundLine, Progressive

from .models import JackpotEntry, JackpotMeter


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


def checkpoints_for_export(filters: dict) -> list[dict]:
    """The signed checkpoints of the fund chains a jackpot export covers (its meter and
    gaming-day filters; cardroom/checkpoints.py `for_export`, as the collection log's
    export carries its tables')."""
    meters = JackpotMeter.objects.order_by("pk")
    if filters.get("meter"):
        meters = meters.filter(name=filters["meter"])
    return checkpoints.for_export(meters, log="jackpot", filters=filters)

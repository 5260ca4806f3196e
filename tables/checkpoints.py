"""Signed checkpoints of the hash chains: the heads anchored outside the table row.

A chain's head (last seq and hash) is kept on the table row, which the app must be able
to update; whoever can update it could delete the chain's tail and rewind the head to
an earlier row, and the chain would still verify. A checkpoint records, signed with the
ledger key (cardroom/hashchain.py), where a chain stood: its last seq, its head hash and
the number of its rows of one gaming day up to that seq. `verify_logs` then requires
every checkpointed row to be there, unchanged, and the day's row count to match.

When they are written:
* `day_end`: by the first command of a table on a later gaming day, for the day of the
  table's previous event (both chains), inside that command's transaction and under the
  table lock, before the command's own rows;
* `on_demand`: by `verify_logs --checkpoint` (both chains of every table) and by each
  collection export covering the current gaming day (the collection chain of the
  exported tables), before the rows are read, so the export carries the anchor;
* `legacy`: by the migration that keyed the chains, sealing the rows hashed before it.

The checkpoint table is append-only (trigger), and the app's database role may insert
and read it only. A checkpoint whose signature does not verify is reported, not used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils import timezone

from cardroom import hashchain
from cardroom.gaming_day import calendar
from collections_fees.models import CollectionEntry

from .models import ChainCheckpoint, Table, TableEvent

LOGS = ("events", "collections")
DOCUMENT_FIELDS = ("table", "log", "kind", "gaming_day", "last_seq", "head", "rows", "key_id", "signature", "created_at")


def chain_rows(log: str):
    return TableEvent.objects if log == "events" else CollectionEntry.objects


def chain_head(table: Table, log: str) -> tuple[int, str]:
    if log == "events":
        return table.version, table.event_head
    return table.collection_seq, table.collection_head


def write(table: Table, *, gaming_day: date, kind: str, logs=LOGS) -> list[ChainCheckpoint]:
    """Checkpoints of `table`'s chains as the row `table` holds them (its heads must be
    committed, or be this transaction's own, for the rows counted to match)."""
    key_id, now = hashchain.current_key_id(), timezone.now()
    checkpoints = []
    for log in logs:
        last_seq, head = chain_head(table, log)
        rows = chain_rows(log).filter(table=table, gaming_day=gaming_day, seq__lte=last_seq).count()
        checkpoint = ChainCheckpoint(
            table=table, log=log, kind=kind, gaming_day=gaming_day, last_seq=last_seq, head=head, rows=rows,
            key_id=key_id, created_at=now,
        )
        checkpoint.signature = hashchain.sign(checkpoint.signed_content(), key_id)
        checkpoints.append(checkpoint)
    return ChainCheckpoint.objects.bulk_create(checkpoints)


def close_day_if_turned(table: Table, gaming_day: date) -> None:
    """Called by the command service, under the table lock, before a command's rows: when
    the table's last event was on an earlier (or other) gaming day, sign where its chains
    stood at the end of that day."""
    if table.chain_day is not None and table.chain_day != gaming_day:
        write(table, gaming_day=table.chain_day, kind="day_end")
    table.chain_day = gaming_day  # saved by the caller with the rest of the row


def on_demand(tables, *, logs=LOGS) -> list[ChainCheckpoint]:
    """Checkpoints of the current heads of `tables` (chains with rows only), for the
    current gaming day."""
    today = calendar().gaming_day(timezone.now())
    written = []
    for table in tables:
        nonempty = tuple(log for log in logs if chain_head(table, log)[0] > 0)
        if nonempty:
            written += write(table, gaming_day=today, kind="on_demand", logs=nonempty)
    return written


def document(checkpoint: ChainCheckpoint) -> dict:
    """A checkpoint as JSON (export manifests): everything needed to check its signature
    with the key alone, and the rows it vouches for against an exported CSV."""
    return {
        **checkpoint.signed_content(),
        "key_id": checkpoint.key_id,
        "signature": checkpoint.signature,
        "created_at": checkpoint.created_at.isoformat(),
    }


# The fields each kind of checkpoint signs (its model's signed_content): a table's chains
# (ChainCheckpoint) or a jackpot meter's fund chain (collections_fees.JackpotCheckpoint,
# log "jackpot").
SIGNED_FIELDS = ("table", "log", "kind", "gaming_day", "last_seq", "head", "rows")
JACKPOT_SIGNED_FIELDS = ("meter", "log", "gaming_day", "last_seq", "head", "rows")


def document_signature_valid(doc: dict) -> bool:
    fields = JACKPOT_SIGNED_FIELDS if doc.get("log") == "jackpot" else SIGNED_FIELDS
    signed = {name: doc.get(name) for name in fields}
    return hashchain.signature_valid(signed, str(doc.get("key_id", "")), str(doc.get("signature", "")))


# --- Exports: the anchors travel with the file -------------------------------------------


@dataclass(frozen=True)
class ExportChains:
    """How an export's rows meet its checkpoints: the checkpoint field naming the chain,
    the CSV column holding it, and the filters that leave out rows of a chain (an export
    narrowed by them cannot hold every row a checkpoint vouches for)."""

    chain: str
    column: str
    narrowing: tuple[str, ...]


EXPORT_CHAINS = {
    "collections": ExportChains("table", "table_id", ("dealer", "payer", "player")),
    # A meter's chain runs across the tables linked to it: a table filter narrows it.
    "jackpot": ExportChains("meter", "meter_id", ("table", "player")),
}


def for_export(filters: dict) -> list[dict]:
    """The signed checkpoints of the collection chains a collection export covers (its
    table and gaming-day filters), after writing fresh ones of the exported tables when
    the export reaches the current gaming day. Called before the rows are read: every
    row a checkpoint vouches for is then in the export."""
    today = calendar().gaming_day(timezone.now()).isoformat()
    tables = Table.objects.order_by("pk")
    if filters.get("table"):
        tables = tables.filter(pk=filters["table"])
    if not filters.get("day_to") or filters["day_to"] >= today:
        on_demand(tables, logs=("collections",))
    found = ChainCheckpoint.objects.filter(log="collections", table__in=tables)
    if filters.get("day_from"):
        found = found.filter(gaming_day__gte=filters["day_from"])
    if filters.get("day_to"):
        found = found.filter(gaming_day__lte=filters["day_to"])
    return [document(c) for c in found.order_by("table_id", "last_seq", "id")]


def verify_export(manifest: dict, records) -> tuple[int, list[str]]:
    """Offline: (checkpoints checked, problems) of an export's CSV records (dicts,
    csv.DictReader) against the signed checkpoints in its manifest: the collection log's
    (per table) or the jackpot fund's (per meter), by the manifest's `kind`. Needs the
    ledger key, not the database.

    For each checkpoint (chain C, gaming day D, last seq M, head H, rows R): the export
    must hold exactly R rows of C and D with chain_seq <= M, and when R > 0 the row M
    with row_hash H. A deleted row, a truncated tail, or a row re-hashed after it was
    checkpointed fails this."""
    chains = EXPORT_CHAINS.get(manifest.get("kind"), EXPORT_CHAINS["collections"])
    problems, valid = [], []
    for doc in manifest.get("checkpoints", []):
        if document_signature_valid(doc):
            valid.append(doc)
        else:
            problems.append(
                f"checkpoint of {chains.chain} {doc.get(chains.chain)} gaming day {doc.get('gaming_day')} "
                f"seq {doc.get('last_seq')}: its signature does not verify with key {doc.get('key_id')!r} "
                "(forged, altered, or another key)"
            )
    narrowed = [name for name in chains.narrowing if manifest.get("filters", {}).get(name)]
    if narrowed:
        problems.append(f"the export is narrowed by {', '.join(narrowed)}: its rows cannot be checked against checkpoints")
        return 0, problems
    by_chain_day, hashes = {}, {}
    for record in records:
        chain, seq = int(record[chains.column]), int(record["chain_seq"])
        by_chain_day.setdefault((chain, record["gaming_day"]), []).append(seq)
        hashes[(chain, seq)] = record["row_hash"]
    for doc in valid:
        chain, day, last_seq = doc[chains.chain], doc["gaming_day"], doc["last_seq"]
        where = f"{chains.chain} {chain} gaming day {day}"
        held = sum(1 for seq in by_chain_day.get((chain, day), ()) if seq <= last_seq)
        if held != doc["rows"]:
            problems.append(f"{where}: the export holds {held} rows up to seq {last_seq}, the checkpoint signed {doc['rows']}")
        elif doc["rows"] and hashes.get((chain, last_seq)) != doc["head"]:
            problems.append(f"{where}: row seq {last_seq} is not the row the checkpoint signed (rewritten after it)")
    return len(valid), problems

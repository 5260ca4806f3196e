"""Signed checkpoints of the hash chains: the heads anchored outside their owner's row.

One module for every chain: a table's event log and collection log, a progressive
meter's fund ledger, and the house's cash log (its head on the one CashLog row). A chain's head (last seq and hash) is kept on its owner's row (the
table, the meter), which the app must be able to update; whoever can update it could
delete the chain's tail and rewind the head to an earlier row, and the chain would still
verify. A checkpoint (cardroom.models.SignedCheckpoint) records, signed with the ledger
key (cardroom/hashchain.py), where a chain stood: its last seq, its head hash and the
number of its rows of one gaming day up to that seq. `verify_logs` then requires every
checkpointed row to be there, unchanged, and the day's row count to match.

When they are written:
* `day_end`: by the first command of a table on a later gaming day, for the day of the
  table's previous event (both chains), inside that command's transaction and under the
  table lock, before the command's own rows (`close_day_if_turned`); likewise by the
  cash log's first transaction of a later gaming day, under the cash lock;
* `on_demand`: by `verify_logs --checkpoint` (every chain) and by each collection or
  jackpot export covering the current gaming day (the exported chains), before the rows
  are read, so the export carries the anchor (`for_export`);
* `legacy`: by the migration that keyed the chains, sealing the rows hashed before it.

The chains are reached through their owner's own relations (`owner.events`,
`owner.checkpoints`, ...), so this kernel module names no model of the apps above it.
A checkpoint whose signature does not verify is reported, not used. A day-end checkpoint
deleted is named from the events (tables/integrity.py `verify_day_end_checkpoints`): a
gaming day that a later day's event closed must have both.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date

from django.utils import timezone

from cardroom import hashchain
from cardroom.gaming_day import calendar


@dataclass(frozen=True)
class Chain:
    """Where a chain lives: the owner's reverse relation to its rows and the owner's
    fields holding its head; `owner` names the checkpoint field (and export column) that
    names the chain's owner."""

    owner: str
    rows: str
    seq: str
    head: str


CHAINS = {
    "events": Chain("table", rows="events", seq="version", head="event_head"),
    "collections": Chain("table", rows="collections", seq="collection_seq", head="collection_head"),
    "jackpot": Chain("meter", rows="entries", seq="entry_seq", head="entry_head"),
    "cash": Chain("ledger", rows="transactions", seq="seq", head="head"),
}
TABLE_LOGS = ("events", "collections")
METER_LOGS = ("jackpot",)
CASH_LOGS = ("cash",)


def chain_rows(owner, log: str):
    """The rows of `owner`'s chain `log` (a queryset)."""
    return getattr(owner, CHAINS[log].rows).all()


def chain_head(owner, log: str) -> tuple[int, str]:
    chain = CHAINS[log]
    return getattr(owner, chain.seq), getattr(owner, chain.head)


def _signed(owner, log: str, *, gaming_day: date, kind: str, key_id: str, now):
    last_seq, head = chain_head(owner, log)
    checkpoint = owner.checkpoints.model.for_chain(owner, log=log, kind=kind)
    checkpoint.gaming_day, checkpoint.last_seq, checkpoint.head = gaming_day, last_seq, head
    checkpoint.rows = chain_rows(owner, log).filter(gaming_day=gaming_day, seq__lte=last_seq).count()
    checkpoint.key_id, checkpoint.created_at = key_id, now
    checkpoint.signature = hashchain.sign(checkpoint.signed_content(), key_id)
    return checkpoint


def write(owner, *, gaming_day: date, kind: str, logs=TABLE_LOGS) -> list:
    """Checkpoints of `owner`'s chains as the row `owner` holds them (its heads must be
    committed, or be this transaction's own, for the rows counted to match)."""
    key_id, now = hashchain.current_key_id(), timezone.now()
    checkpoints = [_signed(owner, log, gaming_day=gaming_day, kind=kind, key_id=key_id, now=now) for log in logs]
    return owner.checkpoints.model.objects.bulk_create(checkpoints)


def close_day_if_turned(table, gaming_day: date, *, logs=TABLE_LOGS) -> None:
    """Called by the command service, under the table lock, before a command's rows: when
    the table's last event was on an earlier (or other) gaming day, sign where its chains
    stood at the end of that day. The cash log does the same with its head row."""
    if table.chain_day is not None and table.chain_day != gaming_day:
        write(table, gaming_day=table.chain_day, kind="day_end", logs=logs)
    table.chain_day = gaming_day  # saved by the caller with the rest of the row


def on_demand(owners, *, logs=TABLE_LOGS) -> list:
    """Checkpoints of the current heads of `owners` (a queryset of tables or of meters;
    chains with rows only), for the current gaming day, written in one insert."""
    today = calendar().gaming_day(timezone.now())
    key_id, now = hashchain.current_key_id(), timezone.now()
    signed = [
        _signed(owner, log, gaming_day=today, kind="on_demand", key_id=key_id, now=now)
        for owner in owners
        for log in logs
        if chain_head(owner, log)[0] > 0
    ]
    return _checkpoint_model(owners).objects.bulk_create(signed) if signed else []


def _checkpoint_model(owners):
    """The checkpoint model of a queryset of owners, through their `checkpoints` relation."""
    return owners.model._meta.get_field("checkpoints").related_model


def document(checkpoint) -> dict:
    """A checkpoint as JSON (export manifests): everything needed to check its signature
    with the key alone, and the rows it vouches for against an exported CSV."""
    return {
        **checkpoint.signed_content(),
        "key_id": checkpoint.key_id,
        "signature": checkpoint.signature,
        "created_at": checkpoint.created_at.isoformat(),
    }


# The fields each kind of checkpoint signs (its model's signed_content): a table's chains
# (log "events" or "collections"), a jackpot meter's fund chain (log "jackpot") or the
# house's cash log (log "cash", one chain: no owner).
SIGNED_FIELDS = ("table", "log", "kind", "gaming_day", "last_seq", "head", "rows")
JACKPOT_SIGNED_FIELDS = ("meter", "log", "gaming_day", "last_seq", "head", "rows")
CASH_SIGNED_FIELDS = ("log", "kind", "gaming_day", "last_seq", "head", "rows")


def document_signature_valid(doc: dict) -> bool:
    fields = {"jackpot": JACKPOT_SIGNED_FIELDS, "cash": CASH_SIGNED_FIELDS}.get(doc.get("log"), SIGNED_FIELDS)
    signed = {name: doc.get(name) for name in fields}
    return hashchain.signature_valid(signed, str(doc.get("key_id", "")), str(doc.get("signature", "")))


# --- Verifying a chain against its head and checkpoints -------------------------------


def first_break(rows, last_seq: int, head: str, checkpoints, *, holder: str = "the table",
                unkeyed_ever: bool = True) -> tuple[int | None, str] | None:
    """(seq, problem) of the first break of a chain (None: everything verifies): `rows`
    in seq order, against the head its owner holds (`last_seq`, `head`, named `holder`
    in the report) and its signed `checkpoints` (by last_seq). A chain that never had
    unkeyed rows (`unkeyed_ever` False: the cash log) refuses every row without the key."""

    def broken(seq, problem):
        return seq, problem

    # Rows hashed before the chains were keyed verify under the old rule only up to the
    # seq the keying migration sealed; an unkeyed row after it was re-hashed by someone
    # without the key.
    legacy_end = max((c.last_seq for c in checkpoints if c.kind == "legacy"), default=0)
    pending = list(checkpoints)  # by last_seq
    day_rows = Counter()
    expected_prev, expected_seq = hashchain.GENESIS, 1
    row, following = None, next(rows, None)
    while following is not None:
        row, following = following, next(rows, None)
        if row.seq != expected_seq:
            return broken(expected_seq, f"row missing (next stored row is seq {row.seq})")
        if row.prev_hash != expected_prev:
            return broken(row.seq, "does not link to the row before it")
        content = row.chain_content()
        if row.hash_key == hashchain.LEGACY and not unkeyed_ever:
            return broken(row.seq, (
                "hashed without the ledger key (plain SHA-256), but this log never had unkeyed rows: "
                "re-hashed by someone without the key"
            ))
        if row.hash_key == hashchain.LEGACY and row.seq > legacy_end:
            return broken(row.seq, (
                f"hashed without the ledger key (plain SHA-256) after the chain was keyed "
                f"(unkeyed rows end at seq {legacy_end}): re-hashed by someone without the key"
            ))
        try:
            expected = hashchain.link(row.prev_hash, content, row.hash_key)
        except hashchain.UnknownKey:
            return broken(row.seq, (
                f"signed with key {row.hash_key!r}, which is not configured "
                "(CARDROOM_LEDGER_KEY, CARDROOM_LEDGER_OLD_KEYS): cannot be verified"
            ))
        if expected != row.row_hash:
            if following is not None and following.prev_hash == row.prev_hash:
                return broken(row.seq, f"row inserted: the row after it links to seq {row.seq - 1}, not to it")
            if row.row_hash == hashchain.link(row.prev_hash, content, hashchain.LEGACY):
                return broken(row.seq, (
                    f"re-hashed without the ledger key: its hash is a plain SHA-256, not an HMAC under key {row.hash_key!r}"
                ))
            return broken(row.seq, f"content altered since it was written (its HMAC under key {row.hash_key!r} does not match)")
        day_rows[row.gaming_day] += 1
        while pending and pending[0].last_seq <= row.seq:  # those at this seq (or at 0)
            checkpoint = pending.pop(0)
            if checkpoint.last_seq != row.seq:
                continue
            if checkpoint.head != row.row_hash:
                return broken(row.seq, (
                    f"not the row the checkpoint of gaming day {checkpoint.gaming_day} signed: rewritten after it"
                ))
            if day_rows[checkpoint.gaming_day] != checkpoint.rows:
                return broken(row.seq, (
                    f"gaming day {checkpoint.gaming_day} holds {day_rows[checkpoint.gaming_day]} rows up to here, "
                    f"its checkpoint signed {checkpoint.rows}"
                ))
        expected_prev, expected_seq = row.row_hash, expected_seq + 1
    end = expected_seq - 1
    if pending:
        checkpoint = pending[-1]
        return broken(None, (
            f"chain ends at seq {end}, but the checkpoint of gaming day {checkpoint.gaming_day} signed seq "
            f"{checkpoint.last_seq}: rows after seq {end} were removed and the head rewound"
        ))
    if end != last_seq or expected_prev != head:
        return broken(None, f"chain ends at seq {end}, {holder} recorded {last_seq}")
    return None


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
    # A round's surveillance export holds its gaming days' events: the round's whole, the
    # others as links (tables/surveillance.py).
    "round_replay": ExportChains("table", "table_id", ()),
}


def for_export(owners, *, log: str, filters: dict) -> list[dict]:
    """The signed checkpoints of the chains `log` of `owners` (the tables or meters an
    export covers, already narrowed by its table or meter filter) within its gaming-day
    filters, after writing fresh ones when the export reaches the current gaming day.
    Called before the rows are read: every row a checkpoint vouches for is then in the
    export."""
    today = calendar().gaming_day(timezone.now()).isoformat()
    if not filters.get("day_to") or filters["day_to"] >= today:
        on_demand(owners, logs=(log,))
    model = _checkpoint_model(owners)
    owner = CHAINS[log].owner
    found = model.objects.filter(**{f"{owner}__in": owners})
    if log in TABLE_LOGS:
        found = found.filter(log=log)
    if filters.get("day_from"):
        found = found.filter(gaming_day__gte=filters["day_from"])
    if filters.get("day_to"):
        found = found.filter(gaming_day__lte=filters["day_to"])
    return [document(c) for c in found.order_by(f"{owner}_id", "last_seq", "id")]


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

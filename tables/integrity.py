"""Checks that the logs are what was written: the per-table hash chains of the event
log and the collection log (cardroom/hashchain.py)."""

from dataclasses import dataclass

from cardroom import hashchain
from collections_fees.models import CollectionEntry

from .models import Table, TableEvent


@dataclass(frozen=True)
class BrokenLink:
    table: int
    log: str  # "events" or "collections"
    seq: int | None  # the first row that does not verify (None: the end of the chain)
    problem: str

    def __str__(self) -> str:
        where = f"seq {self.seq}" if self.seq is not None else "end of chain"
        return f"table {self.table} {self.log} {where}: {self.problem}"


def verify_table(table: Table) -> list[BrokenLink]:
    """The first broken link of each of the table's two chains (empty: both verify)."""
    broken = []
    chains = (
        ("events", TableEvent.objects.filter(table=table), table.version, table.event_head),
        ("collections", CollectionEntry.objects.filter(table=table), table.collection_seq, table.collection_head),
    )
    for log, rows, last_seq, head in chains:
        problem = _first_break(table.pk, log, rows.order_by("seq").iterator(chunk_size=5000), last_seq, head)
        if problem is not None:
            broken.append(problem)
    return broken


def _first_break(table_id, log, rows, last_seq, head) -> BrokenLink | None:
    expected_prev, expected_seq = hashchain.GENESIS, 1
    for row in rows:
        if row.seq != expected_seq:
            return BrokenLink(table_id, log, expected_seq, f"row missing (next stored row is seq {row.seq})")
        if row.prev_hash != expected_prev:
            return BrokenLink(table_id, log, row.seq, "does not link to the row before it")
        if hashchain.link(row.prev_hash, row.chain_content()) != row.row_hash:
            return BrokenLink(table_id, log, row.seq, "content altered since it was written")
        expected_prev, expected_seq = row.row_hash, expected_seq + 1
    if expected_seq - 1 != last_seq or expected_prev != head:
        return BrokenLink(table_id, log, None, f"chain ends at seq {expected_seq - 1}, the table recorded {last_seq}")
    return None

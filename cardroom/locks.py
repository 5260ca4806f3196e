"""Row locks: the one place that takes them, and the one place that states their order.

Every change at a table holds its Table row until the transaction ends; a request for a
second supervisor's approval is decided under that same lock; a progressive meter, shared
by every table naming it, is locked last. The order, stated once:

    Table  ->  Approval  ->  Meter

Two transactions that lock in the same order never wait on each other in a cycle, so
two tables settling on one meter neither deadlock nor lose an update.

* `table(pk)` locks a table row. Only that row (`of=("self",)`): PostgreSQL refuses
  FOR UPDATE on the nullable side of a join.
* `approval_table(approval_id)` is the Approval step: an Approval is a ledger row (the
  served database role may not UPDATE it, and FOR UPDATE needs that), so it is never
  locked itself; its table is, and the approval is read after that, under the lock.
* `meter(name)` locks a progressive jackpot meter row.

This module is in the kernel (cardroom) and reads the models from the ones their apps
provide (cardroom/kernel_models.py), so the back office and the command service both use
it without the kernel importing either.

The order is checked, not only written down: taking a lock of an earlier rank while one
of a later rank is held in the same transaction raises `LockOrderError` (a programming
error, not a refusal to the person: nothing is locked, and the transaction rolls back as
for any bug). A lock counts as held while every `transaction.atomic()` block that was
open when it was taken is still open; a block's exit (commit or rollback) releases, for
this check, what was taken inside it. Nothing here runs a query beyond the lock itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from cardroom import kernel_models, statements

# The order, stated once: a lock may follow one of its own rank or an earlier one.
ORDER = ("tables.Table", "tables.Approval", "collections_fees.JackpotMeter")
RANK = {label: rank for rank, label in enumerate(ORDER)}


class LockOrderError(RuntimeError):
    """A lock was asked for out of ORDER (a bug in the caller: it could deadlock)."""

    code = "lock_order"


@dataclass(frozen=True)
class _Held:
    label: str
    key: object
    blocks: tuple  # the Atomic blocks open when the lock was taken (the objects themselves)


def _held(connection) -> list[_Held]:
    """The locks still held on this connection: those taken inside the atomic blocks that
    are open now (the same block objects, at the same depths). Finished blocks' are dropped."""
    open_blocks = connection.atomic_blocks
    kept = [
        h for h in getattr(connection, "cardroom_locks", [])
        if len(h.blocks) <= len(open_blocks) and all(a is b for a, b in zip(h.blocks, open_blocks))
    ]
    connection.cardroom_locks = kept
    return kept


def _check_order(connection, label: str, key) -> None:
    rank, held = RANK[label], _held(connection)
    if any(h.label == label and h.key == key for h in held):
        return  # a row this transaction holds already: taking it again never waits
    later = [h for h in held if RANK[h.label] > rank]
    if later:
        held = ", ".join(f"{h.label} {h.key!r}" for h in later)
        raise LockOrderError(f"{label} {key!r} locked after {held}: the order is {' -> '.join(ORDER)}")


def _note(connection, label: str, key) -> None:
    connection.cardroom_locks = [*_held(connection), _Held(label, key, tuple(connection.atomic_blocks))]


def _lock(label: str, key, query):
    connection = transaction.get_connection()
    _check_order(connection, label, key)
    row = query()
    _note(connection, label, key)
    return row


def table(pk: int):
    """The table row, locked until the transaction ends: every change at a table holds it."""
    model = kernel_models.model("Table")
    return _lock("tables.Table", pk, lambda: statements.row(model, lock=True, id=pk))


def approval_table(approval_id: int):
    """The table of an approval request, locked: decisions on one table's requests are
    taken one at a time, and the request is read after this, under the lock."""
    connection = transaction.get_connection()
    _check_order(connection, "tables.Approval", approval_id)
    approval_model = kernel_models.model("Approval")
    locked = table(approval_model.objects.values_list("table_id", flat=True).get(pk=approval_id))
    _note(connection, "tables.Approval", approval_id)
    return locked


def meter(name: str):
    """A progressive jackpot meter's row, locked until the transaction ends (last)."""
    model = kernel_models.model("JackpotMeter")
    return _lock("collections_fees.JackpotMeter", name, lambda: statements.row(model, lock=True, name=name))

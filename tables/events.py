"""Typed events for live screens, sent only after the command's transaction commits.

This module is the only place that sends to the channel layer: grep `publish_on_commit`
to find every broadcast. A client that sees a gap in `seq` takes a fresh snapshot.
"""

from dataclasses import asdict, dataclass
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from .selectors import table_snapshot


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


FLOOR_GROUP = "floor"


@dataclass(frozen=True)
class TableChanged:
    """Table `table` reached version `seq` by an accepted command; `snapshot` is the
    table's snapshot at that version (tables.services.table_snapshot)."""

    table: int
    seq: int
    command_type: str
    result: dict
    snapshot: dict
    type: str = "table.changed"  # the consumer method `table_changed` receives it


def publish_on_commit(*, table, command_type: str, result: dict) -> None:
    event = TableChanged(
        table=table.pk, seq=table.version, command_type=command_type, result=result, snapshot=table_snapshot(table)
    )
    transaction.on_commit(partial(_send, event))


def _send(event: TableChanged) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    message = asdict(event)
    async_to_sync(layer.group_send)(table_group(event.table), message)
    async_to_sync(layer.group_send)(FLOOR_GROUP, message)

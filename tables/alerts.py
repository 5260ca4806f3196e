"""A supervisor acknowledges a floor alert: it stays on the floor, marked with who took it
in hand and when, until it is gone or a new occurrence (a new `ref`) replaces it."""

from django.db import transaction
from django.utils import timezone

from cardroom.access import Actor
from rounds.engine.errors import CommandError

from .events import floor_row_changed_on_commit
from .models import AlertAcknowledgement, Table
from .floor import floor_rows


def alert_acknowledge(*, table_id: int, kind, ref, actor: Actor) -> AlertAcknowledgement:
    """Record that `actor` (a supervisor) has seen the table's alert `kind`/`ref`, which
    must be on the floor now. Raises Table.DoesNotExist for an unknown table."""
    if not isinstance(kind, str) or not isinstance(ref, str):
        raise CommandError("invalid_command", "an acknowledgement names the alert's kind and ref")
    Table.objects.only("pk").get(pk=table_id)
    (row,) = floor_rows([table_id])
    alert = next((a for a in row["alerts"] if a["kind"] == kind and a["ref"] == ref), None)
    if alert is None:
        raise CommandError("wrong_state", "that alert is no longer shown on the floor")
    if alert["ack"]:
        return AlertAcknowledgement.objects.filter(table_id=table_id, kind=kind, ref=ref).earliest("acknowledged_at")
    with transaction.atomic():
        ack = AlertAcknowledgement.objects.create(
            table_id=table_id, kind=kind, ref=ref, acknowledged_by_id=actor.user_id, acknowledged_at=timezone.now()
        )
        floor_row_changed_on_commit(table_id)
    return ack

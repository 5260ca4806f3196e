"""Writes for compliance records: drop-box counts and export manifests.

Both tables are append-only (a database trigger refuses UPDATE and DELETE): a recount is
a new DropCount row, and a manifest is written once when its export is complete.
Collection entries themselves are written only by the command service (tables/services.py).
"""

from __future__ import annotations

import uuid
from datetime import date, datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from cardroom.gaming_day import calendar
from tables.models import Table

from .models import DropCount, ExportManifest


def drop_count_record(*, table_id: int, gaming_day: date, amount: int, counted_by: str, note: str = "") -> DropCount:
    """Record what the count team found in a table's drop box for a gaming day. A later
    count for the same table and day does not replace this one: it is a new row, and the
    latest is the count in force."""
    if type(amount) is not int or amount < 0:
        raise ValidationError("a counted amount is a whole, non-negative number of cents")
    if not counted_by:
        raise ValidationError("a count needs the name of who counted")
    if gaming_day > calendar().gaming_day(timezone.now()):
        raise ValidationError("a gaming day that has not started cannot have been counted")
    table = Table.objects.get(pk=table_id)
    count = DropCount(
        table=table, gaming_day=gaming_day, amount=amount, counted_by=counted_by, counted_at=timezone.now(), note=note
    )
    count.full_clean()
    count.save(force_insert=True)
    return count


def export_manifest_record(
    *,
    export_id: uuid.UUID,
    kind: str,
    media_type: str,
    filename: str,
    filters: dict,
    columns: list[str],
    rows: int,
    size: int,
    sha256: str,
    requested_by: str,
    source: str,
    started_at: datetime,
    checkpoints: list | None = None,
) -> ExportManifest:
    """Record a finished export (called once the last byte has been produced)."""
    manifest = ExportManifest(
        id=export_id,
        kind=kind,
        media_type=media_type,
        filename=filename,
        filters=filters,
        columns=list(columns),
        time_zone=settings.TIME_ZONE,
        rows=rows,
        bytes=size,
        sha256=sha256,
        requested_by=requested_by,
        source=source,
        started_at=started_at,
        finished_at=timezone.now(),
        checkpoints=checkpoints or [],
    )
    manifest.save(force_insert=True)
    return manifest

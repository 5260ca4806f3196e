"""Writes for compliance records: export manifests.

Append-only (a database trigger refuses UPDATE and DELETE): a manifest is written once
when its export is complete. The count's records are written by collections_fees/counts.py.
Collection entries themselves are written only by the command service (tables/services.py).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from .models import ExportManifest


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
    manifest.seal()  # the stored SHA-256 cannot be changed to match another file unseen
    manifest.save(force_insert=True)
    return manifest

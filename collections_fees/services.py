"""Writes for compliance records: export manifests.

Append-only (a database trigger refuses UPDATE and DELETE): a manifest is written once
when its export is complete. The count's records are written by collections_fees/counts.py.
Collection entries themselves are written only by the command service (tables/services.py).
"""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta
from itertools import groupby

from django.conf import settings
from django.utils import timezone

from tables.models import RuleSetChange, Table, TableConfig

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
        rule_sets=rule_sets_in_force(filters),
    )
    manifest.seal()  # the stored SHA-256 cannot be changed to match another file unseen
    manifest.save(force_insert=True)
    return manifest


def rule_sets_in_force(filters: dict) -> list[dict]:
    """The rule set versions (tables/rule_sets.py) in force on any gaming day of an export's
    filters (`gaming_day`, or `day_from`..`day_to`; every day when neither), for the table it
    names or every table: each approved version from its effective day until the next
    approved version of its set takes effect, with its rules, who filed and who approved it,
    and the tables whose configuration versions carried it. An export of a table outside
    every rule set names none."""
    first = filters.get("gaming_day") or filters.get("day_from")
    last = filters.get("gaming_day") or filters.get("day_to")
    first, last = _day(first), _day(last)
    changes = RuleSetChange.objects.filter(decision="approved").select_related("rule_set")
    table_id = filters.get("table")
    table_id = int(table_id) if isinstance(table_id, int) or (isinstance(table_id, str) and table_id.isdigit()) else None
    if table_id:
        table = Table.objects.filter(pk=table_id).values_list("rule_set_id", flat=True).first()
        carried = TableConfig.objects.filter(table_id=table_id, rule_set_change__isnull=False)
        sets = {table, *carried.values_list("rule_set_change__rule_set_id", flat=True)} - {None}
        changes = changes.filter(rule_set_id__in=sets)
    named = []
    for rule_set_id, versions in groupby(sorted(changes, key=lambda c: (c.rule_set_id, c.effective_day, c.version)),
                                         key=lambda c: c.rule_set_id):
        versions = list(versions)
        for change, following in zip(versions, [*versions[1:], None]):
            until = following.effective_day - timedelta(days=1) if following is not None else None
            if following is not None and following.effective_day <= change.effective_day:
                continue  # replaced on its own first day
            if (last is not None and change.effective_day > last) or (first is not None and until is not None and until < first):
                continue
            tables = TableConfig.objects.filter(rule_set_change=change)
            if table_id:
                tables = tables.filter(table_id=table_id)
            named.append({
                "rule_set": change.rule_set.name,
                "version": change.version,
                "effective_day": change.effective_day.isoformat(),
                "until": until.isoformat() if until else None,
                "rules": change.rules,
                "filed_by": change.filed_by,
                "approved_by": change.decided_by,
                "tables": sorted(set(tables.values_list("table__name", flat=True))),
            })
    return named


def _day(value) -> date | None:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None

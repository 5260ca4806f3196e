"""Streamed CSV exports with a manifest, and the XLSX daily summary.

Why this shape: under an ASGI server (Daphne) a StreamingHttpResponse over a *sync*
iterator is consumed whole into memory before the first byte is sent, and a query read
with `fetchall()` holds every row at once. An export here is an *async* generator over
`COPY (SELECT ...) TO STDOUT` read through psycopg 3's async `cursor.copy()` on a
dedicated connection: PostgreSQL formats each row as CSV text, each CopyData message is
one row, and the generator hands ~64 KiB at a time to the response. The process holds one
chunk, whatever the number of rows; TCP back-pressure keeps the server from running far
ahead of a slow client. The dedicated connection is async (no worker thread is tied up
for the length of a download) and in autocommit, so the COPY is one statement reading
one snapshot.

The same generator computes the manifest as the bytes go out (SHA-256, byte and row
counts) and records it (ExportManifest, append-only) after the last byte was produced.
The HTTP response tells where the manifest will be (`X-Export-Id`, `Link`); the
command-line export writes it beside the file. See docs/compliance-exports.md.
"""

from __future__ import annotations

import hashlib
import io
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from datetime import timezone as dt_timezone
from decimal import Decimal

import psycopg
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.utils import timezone

from cardroom import checkpoints
from cardroom.spreadsheet import text_cell
from patrons.models import CashLog

from . import jackpot
from .models import CollectionEntry, ExportManifest
from cardroom.sql import SqlQuery
from .services import export_manifest_record

CSV_MEDIA_TYPE = "text/csv; charset=utf-8"
XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# Bytes handed to the response at a time: big enough that per-message overhead vanishes
# (~400 collection rows), small enough that memory stays flat.
CHUNK_BYTES = 64 * 1024
EXPORT_WORK_MEM = "64MB"
# The logs whose export carries the signed checkpoints of its chains, and where they come from.
def _collection_checkpoints(filters: dict) -> list[dict]:
    """The signed checkpoints of the collection chains of the tables an export covers
    (the tables reached through the log's own foreign key: the back office does not
    import the tables app)."""
    tables = CollectionEntry._meta.get_field("table").related_model.objects.order_by("pk")
    if filters.get("table"):
        tables = tables.filter(pk=filters["table"])
    return checkpoints.for_export(tables, log="collections", filters=filters)


def _cash_checkpoints(filters: dict) -> list[dict]:
    """The signed checkpoints of the house's cash log (one chain, its head on the one
    CashLog row) within the export's gaming days."""
    return checkpoints.for_export(CashLog.objects.all(), log="cash", filters=filters)


CHECKPOINTS_OF_EXPORT = {
    "collections": _collection_checkpoints,
    "jackpot": jackpot.checkpoints_for_export,
    "cash": _cash_checkpoints,
}


def dedicated_connection_params(alias: str = "default") -> dict:
    """Connection parameters of a Django database, for a psycopg connection of our own
    (Django's cursor factory and adapters context are sync-only: left out)."""
    params = connections[alias].get_connection_params()
    for django_only in ("cursor_factory", "context"):
        params.pop(django_only, None)
    return params


@dataclass
class CsvExport:
    """One export: the query, who asked, and what was sent so far.

    `stream()` is the async generator to hand to StreamingHttpResponse. `rows` counts
    data rows read from PostgreSQL so far (the header excluded): after the first chunk it
    shows how little had been read. `on_progress(rows)` is called after each chunk (the
    command line's progress bar)."""

    kind: str
    query: SqlQuery
    filters: dict
    requested_by: str
    source: str = "http"
    filename: str = ""
    export_id: uuid.UUID = field(default_factory=uuid.uuid4)
    on_progress: Callable[[int], None] | None = None
    rows: int = 0
    bytes: int = 0
    sha256: str = ""
    manifest: ExportManifest | None = None
    started_at: datetime | None = None
    checkpoints: list = field(default_factory=list)

    def __post_init__(self):
        if self.kind not in dict(ExportManifest.KINDS):
            # A manifest of a kind the model does not name would be recorded all the same
            # (choices are not a database constraint) and listed under no known kind.
            raise ValueError(f"unknown export kind {self.kind!r}: add it to ExportManifest.KINDS")
        if not self.filename:
            self.filename = export_filename(self.kind, self.filters, self.export_id, "csv")

    async def stream(self) -> AsyncIterator[bytes]:
        self.started_at = timezone.now()
        if self.kind in CHECKPOINTS_OF_EXPORT:
            # Before the COPY: every row these signed checkpoints vouch for is committed,
            # so it is in the export (cardroom/checkpoints.py).
            self.checkpoints = await sync_to_async(CHECKPOINTS_OF_EXPORT[self.kind])(self.filters)
        digest, buffer, messages = hashlib.sha256(), bytearray(), 0
        # Leaving these blocks early (the client went away: the generator is closed at
        # its `yield`) makes psycopg cancel the COPY on the server rather than read the
        # rest of it, and closes the connection; no manifest is recorded then.
        async with await psycopg.AsyncConnection.connect(**dedicated_connection_params(), autocommit=True) as conn:
            # Times in the CSV are shown in the cardroom's zone (to_char ... TZH:TZM).
            # The ORDER BY is sorted by the server: room for a table-month of lines in
            # the server's memory, not spilled to disk (this connection only).
            await conn.execute(
                "SELECT set_config('TimeZone', %s, false), set_config('work_mem', %s, false)",
                [settings.TIME_ZONE, EXPORT_WORK_MEM],
            )
            async with conn.cursor() as cursor:
                async with cursor.copy(self.query.copy_sql(), self.query.params) as copy:
                    async for message in copy:  # one CSV record per message, the header first
                        messages += 1
                        buffer += message
                        if len(buffer) >= CHUNK_BYTES:
                            self.rows = messages - 1
                            yield self._account(digest, buffer)
                            buffer = bytearray()
        self.rows = max(messages - 1, 0)
        if buffer:
            yield self._account(digest, buffer)
        self.sha256 = digest.hexdigest()
        self.manifest = await sync_to_async(export_manifest_record)(
            export_id=self.export_id,
            kind=self.kind,
            media_type=CSV_MEDIA_TYPE,
            filename=self.filename,
            filters=self.filters,
            columns=self.query.headers,
            rows=self.rows,
            size=self.bytes,
            sha256=self.sha256,
            requested_by=self.requested_by,
            source=self.source,
            started_at=self.started_at,
            checkpoints=self.checkpoints,
        )

    def _account(self, digest, buffer: bytearray) -> bytes:
        chunk = bytes(buffer)
        digest.update(chunk)
        self.bytes += len(chunk)
        if self.on_progress is not None:
            self.on_progress(self.rows)
        return chunk


def export_filename(kind: str, filters: dict, export_id: uuid.UUID, extension: str) -> str:
    # Named for what it holds: one gaming day (the CTR list's), a range, or every day.
    days = filters.get("gaming_day") or "_".join(filters[k] for k in ("day_from", "day_to") if filters.get(k)) or "all-days"
    table = f"_table-{filters['table']}" if filters.get("table") else ""
    return f"{kind}_{days}{table}_{str(export_id)[:8]}.{extension}"


def manifest_document(manifest: ExportManifest) -> dict:
    """The manifest as JSON: served at /compliance/exports/<id>/manifest.json and
    written beside a command-line export as FILE.manifest.json."""
    chain = checkpoints.EXPORT_CHAINS.get(manifest.kind, checkpoints.EXPORT_CHAINS["collections"])
    return {
        "manifest_version": 1,
        "export_id": str(manifest.id),
        "kind": manifest.kind,
        "file": {
            "name": manifest.filename,
            "media_type": manifest.media_type,
            "bytes": manifest.bytes,
            "sha256": manifest.sha256,
        },
        "rows": manifest.rows,
        "header_rows": 1,
        "columns": manifest.columns,
        "filters": manifest.filters,
        "time_zone": manifest.time_zone,
        "requested_by": manifest.requested_by,
        "source": manifest.source,
        "started_at": _utc(manifest.started_at),
        "finished_at": _utc(manifest.finished_at),
        "verify": (
            "The file is exactly the bytes described: its SHA-256 (sha256sum FILE) equals file.sha256 "
            "and its size equals file.bytes. For CSV, rows counts the CSV records after the header. "
            "Money columns are integer cents; times are UTC (time_utc) and the cardroom zone "
            "(time_local, ISO 8601 with its offset). In a CSV, a text people typed (an id, a name, a note) that "
            "begins with =, +, -, @, a tab or a carriage return, after any quotes, has one more ' in front so that "
            "a spreadsheet reads it as text: the value is the cell without that first ' (docs/compliance-exports.md)."
        ),
        # The rule set versions in force over the export's gaming days (docs/compliance-exports.md).
        "rule_sets": manifest.rule_sets,
        "checkpoints": manifest.checkpoints,
        "verify_checkpoints": (
            f"Each checkpoint is signed (HMAC-SHA256) with the cardroom's ledger key: for {chain.chain} C "
            f"(column {chain.column}), gaming day D, last_seq M, head H and rows R, the file must hold exactly R rows "
            "of C and D with chain_seq <= M and, when R > 0, the row chain_seq M with row_hash H. With the key: "
            "manage.py verify_logs --checkpoints FILE.manifest.json (docs/compliance-exports.md)."
        ),
    }


def _utc(moment: datetime) -> str:
    return moment.astimezone(dt_timezone.utc).isoformat().replace("+00:00", "Z")


# --- XLSX daily summary -----------------------------------------------------------------


def text_row(sheet, values: list) -> list:
    """A workbook row: each text a string cell, never a formula (cardroom/spreadsheet.py);
    numbers, days and prepared cells as they are."""
    return [text_cell(sheet, value) if isinstance(value, str) else value for value in values]


DAILY_SUMMARY_COLUMNS = [
    "gaming_day",
    "table_id",
    "table_name",
    "fee_lines",
    "fees_cents",
    "refund_lines",
    "refunds_cents",
    "expected_drop_cents",
    "counted_cents",
    "variance_cents",
    "counted_by",
    "counted_at_local",
    "count_entries",
    "uncounted_shifts",
    "fees_dollars",
    "refunds_dollars",
    "expected_drop_dollars",
    "counted_dollars",
    "variance_dollars",
]


def daily_summary_xlsx(*, totals: list[dict], filters: dict, requested_by: str, export_id: uuid.UUID) -> bytes:
    """Per table per gaming day: fees, refunds, expected drop, counted, variance.

    Small (tables x days rows), so built in memory. Integer cents are the figures of
    record; the dollar columns are the same amounts divided by 100, formatted, for
    reading."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("Daily summary")
    bold = Font(bold=True)
    zone = settings.TIME_ZONE
    preamble = [
        ["Collections: daily summary per table and gaming day"],
        ["Filters", ", ".join(f"{k}={v}" for k, v in filters.items()) or "none"],
        ["Export id", str(export_id), "manifest", f"/compliance/exports/{export_id}/manifest.json"],
        ["Requested by", requested_by, "at", timezone.localtime().strftime("%Y-%m-%d %H:%M:%S %Z"), zone],
        ["Expected drop = fees - refunds; variance = counted - expected of the shifts counted (the count in force);"
         " uncounted_shifts names the shifts that collected and are not counted yet."],
    ]
    for line in preamble:
        sheet.append(text_row(sheet, line))
    sheet.append([])
    header = []
    for name in DAILY_SUMMARY_COLUMNS:
        cell = WriteOnlyCell(sheet, value=name)
        cell.font = bold
        header.append(cell)
    sheet.append(header)

    def dollars(cents):
        if cents is None:
            return None
        cell = WriteOnlyCell(sheet, value=Decimal(cents) / 100)
        cell.number_format = "#,##0.00"
        return cell

    for row in totals:
        counted_at = row["counted_at"]
        sheet.append(
            text_row(sheet, [
                row["gaming_day"],
                row["table_id"],
                row["table_name"],
                row["fee_lines"],
                row["fees"],
                row["refund_lines"],
                row["refunds"],
                row["expected"],
                row["counted"],
                row["variance"],
                row["counted_by"] or "",
                timezone.localtime(counted_at).strftime("%Y-%m-%d %H:%M:%S %Z") if counted_at else "",
                row["count_entries"],
                " ".join(row["uncounted_shifts"]),
                dollars(row["fees"]),
                dollars(row["refunds"]),
                dollars(row["expected"]),
                dollars(row["counted"]),
                dollars(row["variance"]),
            ])
        )
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def daily_summary_export(*, totals: list[dict], filters: dict, requested_by: str) -> tuple[bytes, ExportManifest]:
    """Build the workbook and record its manifest (rows = summary rows)."""
    export_id = uuid.uuid4()
    started_at = timezone.now()
    content = daily_summary_xlsx(totals=totals, filters=filters, requested_by=requested_by, export_id=export_id)
    manifest = export_manifest_record(
        export_id=export_id,
        kind="daily_summary",
        media_type=XLSX_MEDIA_TYPE,
        filename=export_filename("daily-summary", filters, export_id, "xlsx"),
        filters=filters,
        columns=DAILY_SUMMARY_COLUMNS,
        rows=len(totals),
        size=len(content),
        sha256=hashlib.sha256(content).hexdigest(),
        requested_by=requested_by,
        source="http",
        started_at=started_at,
    )
    return content, manifest


# --- Count sheets and closer summaries ----------------------------------------------------
# Their CSV is streamed by CsvExport (collections_fees/selectors.py builds the queries).
# A closer printed or exported as a workbook is a document someone may print and file:
# the first one of a close is the original, every later one says REPRINT.


def closer_copy(*, kind: str, media_type: str, filters: dict) -> str:
    """"ORIGINAL" for the first document of this kind, format and filters (which name the
    close it was produced for), "REPRINT" once one has been recorded: a CSV of a count
    sheet exported first leaves its first workbook the original (issue 22). Call inside the
    transaction that records the new manifest, after `lock_closer_copies`."""
    earlier = ExportManifest.objects.filter(kind=kind, media_type=media_type, filters=filters).exists()
    return "REPRINT" if earlier else "ORIGINAL"


def lock_closer_copies(filters: dict) -> None:
    """Two prints at once: one is the original, the other waits and is the reprint."""
    import json

    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", ["cardroom-closer:" + json.dumps(filters, sort_keys=True)])


def rows_xlsx(*, title: str, preamble: list[list], columns: list[str], rows: list[list], money: set[str]) -> bytes:
    """A one-sheet workbook: the preamble lines, a bold header, the rows, and for each
    column in `money` (integer cents, the figures of record) a dollar column for reading."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(title[:31])
    for line in preamble:
        sheet.append(text_row(sheet, line))
    sheet.append([])
    money_columns = [name for name in columns if name in money]
    header = []
    for name in [*columns, *(name.replace("_cents", "_dollars") for name in money_columns)]:
        cell = WriteOnlyCell(sheet, value=name)
        cell.font = Font(bold=True)
        header.append(cell)
    sheet.append(header)
    for row in rows:
        values = dict(zip(columns, row))
        dollars = []
        for name in money_columns:
            cell = WriteOnlyCell(sheet, value=None if values[name] is None else Decimal(values[name]) / 100)
            cell.number_format = "#,##0.00"
            dollars.append(cell)
        sheet.append([*text_row(sheet, row), *dollars])
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def document_export(*, kind: str, media_type: str, extension: str, filters: dict, columns: list[str],
                    rows: int, requested_by: str, build) -> tuple[bytes, ExportManifest]:
    """A document built in memory (`build(export_id, copy) -> bytes`) and its manifest,
    recorded in one transaction; `copy` is ORIGINAL or REPRINT (closer documents)."""
    from django.db import transaction

    export_id, started_at = uuid.uuid4(), timezone.now()
    with transaction.atomic():
        lock_closer_copies(filters)
        copy = closer_copy(kind=kind, media_type=media_type, filters=filters)
        content = build(export_id, copy)
        name = kind.replace("_", "-") + ("-REPRINT" if copy == "REPRINT" else "")
        manifest = export_manifest_record(
            export_id=export_id, kind=kind, media_type=media_type,
            filename=export_filename(name, filters, export_id, extension),
            filters=filters, columns=columns, rows=rows, size=len(content),
            sha256=hashlib.sha256(content).hexdigest(), requested_by=requested_by, source="http", started_at=started_at,
        )
    return content, manifest

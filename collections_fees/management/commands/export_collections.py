"""`python manage.py export_collections --from YYYY-MM-DD --to YYYY-MM-DD --out FILE`

Writes the collection log CSV, byte for byte what `GET /compliance/collections/export.csv`
sends for the same filters (the same query and the same streaming code), and FILE.manifest.json
beside it; the manifest is also recorded in the database (source "cli"). `--log jackpot`
exports the jackpot funds' ledger instead (GET /compliance/jackpot/export.csv), kept
apart from the collection log. A progress bar
(tqdm, on stderr) counts rows. The file appears under its name only when complete.
"""

import getpass
import json
import os
from datetime import date

from asgiref.sync import async_to_sync
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from collections_fees.exports import CsvExport, manifest_document
from cardroom.sql import Filters, SqlRows
from collections_fees.selectors import collection_lines_query, jackpot_lines_query

LOGS = {"collections": collection_lines_query, "jackpot": jackpot_lines_query}


class Command(BaseCommand):
    help = "Export the collection log (gaming days FROM..TO) as CSV with a manifest."

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="day_from", type=date.fromisoformat, required=True, help="first gaming day")
        parser.add_argument("--to", dest="day_to", type=date.fromisoformat, required=True, help="last gaming day")
        parser.add_argument("--out", required=True, help="the CSV file to write; FILE.manifest.json is written too")
        parser.add_argument("--log", choices=sorted(LOGS), default="collections", help="which log (default collections)")
        parser.add_argument("--table", type=int, help="only this table id")
        parser.add_argument("--dealer", default="", help="only lines written by this dealer")
        parser.add_argument("--payer", default="", choices=["", "player", "player_dealer"], help="only this payer role")
        parser.add_argument("--player", default="", help="only this person id")
        parser.add_argument("--meter", default="", help="only this progressive meter (--log jackpot)")
        parser.add_argument("--by", default="", help="who is exporting (default: the OS user)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, day_from, day_to, out, log, table, dealer, payer, player, meter, by, no_progress, **options):
        if day_from > day_to:
            raise CommandError("--from is after --to")
        if log == "jackpot" and (dealer or payer):
            raise CommandError("the jackpot log has no --dealer or --payer filter")
        if log != "jackpot" and meter:
            raise CommandError("only the jackpot log has a --meter filter")
        filters = Filters(
            day_from=day_from, day_to=day_to, table=table, dealer=dealer, payer=payer, player=player, meter=meter
        )
        query = LOGS[log](filters)
        total = None if no_progress else SqlRows(query).count()  # the count is one more pass over the rows
        bar = tqdm(total=total, unit="rows", unit_scale=True, desc=log, disable=no_progress, file=self.stderr._out)  # the stream behind Django's wrapper, which would end every write with a newline

        def progress(rows):
            bar.update(rows - bar.n)

        export = CsvExport(
            kind=log,
            query=query,
            filters=filters.as_dict(),
            requested_by=by or getpass.getuser(),
            source="cli",
            filename=os.path.basename(out),
            on_progress=progress,
        )
        partial = f"{out}.part"
        try:
            # async_to_sync from this thread: the manifest is written through this
            # thread's database connection, like every other write of the command.
            async_to_sync(_write)(export, partial)
        except BaseException:
            if os.path.exists(partial):
                os.remove(partial)
            raise
        finally:
            bar.update(export.rows - bar.n)
            bar.close()
        os.replace(partial, out)
        with open(f"{out}.manifest.json", "w", encoding="utf-8") as handle:
            json.dump(manifest_document(export.manifest), handle, indent=2)
            handle.write("\n")
        self.stdout.write(
            f"{export.rows} rows, {export.bytes} bytes, sha256 {export.sha256} -> {out} (+ {out}.manifest.json)"
        )


async def _write(export: CsvExport, path: str) -> None:
    with open(path, "wb") as handle:
        async for chunk in export.stream():
            handle.write(chunk)

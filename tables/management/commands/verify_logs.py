"""`python manage.py verify_logs [--table ID] [--checkpoint]`: check every table's hash
chains against their heads and signed checkpoints, and (without --table) every jackpot
meter's fund ledger against its head and amounts, and the house's cash log against its
head and checkpoints, with its alerts recomputed from it; `--checkpoint` first signs where
every chain stands now. Then the witness files (cardroom/witness.py) against themselves
and their index, every head they witnessed against the chain at its seq (a cut tail, a
rewound head, a row rewritten after it), and the records against each other (each
table's version is its last event's seq; each settled or voided round has its event).
Then the records that are no chain of their own (tables/record_checks.py): each table's
audit chain, the rotation log against the events, the approval decisions against the
audit trail and the voids; without --table the self-exclusion lists and hits and the
export manifests.

`python manage.py verify_logs --checkpoints FILE.manifest.json [--csv FILE]`: offline,
with the ledger key and no database, check a collection or jackpot export against the
signed checkpoints its manifest carries (cardroom/checkpoints.py, docs/compliance-exports.md),
a round's surveillance export also re-hashed and played again (tables/surveillance.py);
any other export (a workbook, a print, another CSV) against its manifest's SHA-256 and size.

Exit status 0 when everything verifies, 1 when anything does not (each reported).
"""

import csv as csvlib
import hashlib
import io
import json
import os
import sys

from django.core.management.base import BaseCommand, CommandError


from cardroom import checkpoints as anchors
from cardroom.audit import link_pending
from collections_fees.models import JackpotMeter
from cardroom import witness
from patrons.cash import verify_alerts, verify_chain
from patrons.models import CashLog
from tables.integrity import (
    cross_check,
    verify_day_end_checkpoints,
    verify_meter,
    verify_table,
    verify_witness,
    verify_witness_coverage,
)
from tables import record_checks
from tables.surveillance import verify_replay_export
from tables.models import Table


def csv_records(content: bytes):
    """An export's CSV records, as dicts. Read as one stream (newline=""), not split into
    lines first: a cash note may hold a line break or a carriage return inside its quotes."""
    return csvlib.DictReader(io.StringIO(content.decode("utf-8"), newline=""))


class Command(BaseCommand):
    help = "Verify the hash chains of the event and collection logs; report the first broken link of each."

    def add_arguments(self, parser):
        parser.add_argument("--table", type=int, help="only this table id")
        parser.add_argument("--checkpoint", action="store_true", help="first sign a checkpoint of every chain's head")
        parser.add_argument("--checkpoints", metavar="MANIFEST", help="offline: check an export against its manifest")
        parser.add_argument("--csv", help="the export's file (default: beside the manifest, by its file.name)")

    def handle(self, *args, table=None, checkpoint=False, checkpoints=None, csv=None, **options):
        if checkpoints:
            return self.offline(checkpoints, csv)
        tables = Table.objects.order_by("pk")
        if table is not None:
            tables = tables.filter(pk=table)
        if checkpoint:
            written = anchors.on_demand(tables)
            if table is None:  # and every progressive meter's fund chain, and the cash log
                written += anchors.on_demand(JackpotMeter.objects.order_by("pk"), logs=anchors.METER_LOGS)
                written += anchors.on_demand(CashLog.objects.all(), logs=anchors.CASH_LOGS)
            self.stdout.write(f"{len(written)} checkpoints signed")
        if table is None:
            # Audit rows a process committed and stopped before linking (cardroom/audit.py
            # `link_pending`) join the house chain now, as the next audit row would link
            # them: a row whose link an owner deleted is linked again past a gap that stays.
            stranded = link_pending()
            if stranded:
                self.stdout.write(f"NOTE {stranded} committed audit rows were linked into the house chain first")
        broken, checked = [], list(tables)
        for t in checked:
            broken += verify_table(t)
        meters = 0
        if table is None:  # the progressive meters' fund ledgers (shared by tables)
            for meter in JackpotMeter.objects.order_by("pk").iterator():
                meters += 1
                broken += verify_meter(meter)
        if table is None:  # the house's cash log (patrons/cash.py), one chain across tables
            broken += verify_chain()
        for link in broken:
            self.stdout.write(f"BROKEN {link}")
        # The chains against the heads witnessed outside the database, and the records
        # against each other (tables/integrity.py).
        reading = witness.read()
        problems = verify_witness(checked, every=table is None, reading=reading) + cross_check(checked)
        # Deletions the database's own rows name: closed days without their day-end
        # checkpoints, rows past every head of this database's witness.
        problems += verify_day_end_checkpoints(checked)
        problems += verify_witness_coverage(checked, reading, every=table is None)
        for note in reading.notes():  # another database's lines in the folder: not a problem
            self.stdout.write(f"NOTE {note}")
        if table is None:  # the cash alerts recomputed from the cash log and compared
            problems += verify_alerts()
        problems += self.other_records(checked, every=table is None)
        for problem in problems:
            self.stdout.write(f"BROKEN {problem}")
        checked_text = f"{len(checked)} tables" + (f" and {meters} jackpot meters" if table is None else "")
        self.stdout.write(f"{checked_text} checked, {len(broken)} broken chains")
        self.stdout.write(
            f"{reading.files} witness files ({reading.lines} lines, {len(reading.heads)} heads) and the records "
            f"cross-checked, {len(problems)} problems"
        )
        if broken or problems:
            sys.exit(1)

    def other_records(self, tables, *, every: bool) -> list[str]:
        """The records that are no chain of their own, each against what is
        (tables/record_checks.py): the rotation log and the approval decisions of
        `tables`; with `every` (no --table), the house's records too: the house audit
        chain, the self-exclusion lists and hits, the export manifests."""
        problems = record_checks.audit_chain_problems(tables)
        problems += record_checks.rotation_log_problems(tables) + record_checks.approval_decision_problems(tables)
        if every:
            problems += record_checks.house_audit_problems()
            problems += record_checks.self_exclusion_problems(tables) + record_checks.export_manifest_problems()
        return problems

    def offline(self, manifest_path, csv_path):
        try:
            with open(manifest_path, encoding="utf-8") as handle:
                manifest = json.load(handle)
            csv_path = csv_path or os.path.join(os.path.dirname(manifest_path), manifest["file"]["name"])
            with open(csv_path, "rb") as handle:
                content = handle.read()
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(f"cannot read the export: {exc}") from exc
        problems = []
        if hashlib.sha256(content).hexdigest() != manifest["file"]["sha256"] or len(content) != manifest["file"]["bytes"]:
            problems.append(f"{csv_path} is not the file the manifest describes (SHA-256 or size differs)")
        from patrons.integrity import verify_cash_export

        what = "checkpoints"
        if manifest.get("kind") == "cash":
            # The cash log's export carries its whole chain: every row is re-hashed.
            records = csv_records(content)
            checked, found = verify_cash_export(manifest, records)
            what = "cash rows"
        elif manifest.get("kind") == "round_replay":
            # A round's surveillance export: its checkpoints, every event re-hashed, and
            # the round played again from its starting state (tables/surveillance.py).
            checked, found = verify_replay_export(manifest, list(csv_records(content)))
            what = "round events"
        elif manifest.get("kind") in anchors.EXPORT_CHAINS:
            records = csv_records(content)
            checked, found = anchors.verify_export(manifest, records)
        else:
            # Every other export (rounds, rotation, count sheets, closers, workbooks, prints,
            # and the reports drawn from the logs: MTL, CTR, hits, a patron's history) carries
            # no chain rows to hold against checkpoints: its SHA-256 and size are what its
            # manifest vouches for, and all there is to check offline.
            checked, found = 0, []
            self.stdout.write(f"a {manifest.get('kind')} export carries no checkpoints: its SHA-256 and size checked")
        for problem in problems + found:
            self.stdout.write(f"BROKEN {problem}")
        self.stdout.write(f"{checked} {what} checked, {len(problems) + len(found)} problems")
        if problems or found:
            sys.exit(1)

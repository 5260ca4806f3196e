"""`python manage.py verify_logs [--table ID]`: check every table's hash chains.

Exit status 0 when every chain verifies, 1 when any link is broken (each reported).
"""

import sys

from django.core.management.base import BaseCommand

from tables.integrity import verify_table
from tables.models import Table


class Command(BaseCommand):
    help = "Verify the hash chains of the event and collection logs; report the first broken link of each."

    def add_arguments(self, parser):
        parser.add_argument("--table", type=int, help="only this table id")

    def handle(self, *args, table=None, **options):
        tables = Table.objects.order_by("pk")
        if table is not None:
            tables = tables.filter(pk=table)
        broken, checked = [], 0
        for t in tables.iterator():
            checked += 1
            broken += verify_table(t)
        for link in broken:
            self.stdout.write(f"BROKEN {link}")
        self.stdout.write(f"{checked} tables checked, {len(broken)} broken chains")
        if broken:
            sys.exit(1)

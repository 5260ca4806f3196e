"""Streamed CSV export of the collection log: rows per second and peak memory.

Run with `python -m benchmarks.bench_exports [days] [repeats]` (default 10 gaming days of
10,000 generated fee lines = 100,000 fee lines + 2,000 refunds). Prints figures; asserts
only that every row was exported.

The database: a throwaway PostgreSQL cluster started here by the test suite's
tests/plugins/services.py (with Redis, when installed) unless DATABASE_URL is set; either way the data goes into a
scratch `test_...` database that is created, migrated and dropped again, so an existing
database is never written to. The ledger is the test suite's (tests/compliance/ledger.py).

Measured, each the best of `repeats` runs:
* the export's async generator alone (COPY TO STDOUT, chunked, hashed): rows/s;
* the whole HTTP path through Django's ASGI handler, as Daphne serves it: rows/s;
* peak Python memory (tracemalloc) while streaming, for the first day's rows and for all
  of them: flat, whatever the number of rows;
* for contrast, the same rows read with `fetchall()` through Django's connection.
"""

import os
import sys
import time
import tracemalloc


def main(argv: list[str]) -> None:
    days = int(argv[0]) if argv else 10
    repeats = int(argv[1]) if len(argv) > 1 else 3
    from tests.plugins.services import Services

    # As the test suite starts them (DATABASE_URL / REDIS_URL when set), with its cleanup
    # of the throwaway servers however the benchmark ends.
    services = Services()
    services.start()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    try:
        run(days, repeats)
    finally:
        services.stop()


def run(days: int, repeats: int) -> None:
    import django

    django.setup()
    from datetime import timedelta

    from asgiref.sync import async_to_sync
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.test import Client
    from django.test.utils import (
        setup_databases,
        setup_test_environment,
        teardown_databases,
        teardown_test_environment,
    )

    from collections_fees.exports import CsvExport
    from cardroom.sql import Filters
    from collections_fees.selectors import collection_lines_query
    from tests.compliance import ledger as ledger_module
    from tests.compliance.asgi import AsgiClient

    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False)
    try:
        volume_days = [ledger_module.VOLUME_DAYS[0] + timedelta(days=i) for i in range(days)]
        started = time.perf_counter()
        ledger = ledger_module.build(volume_days)
        print(f"ledger built in {time.perf_counter() - started:.1f} s: {ledger.volume_fee_lines:,} generated fee lines")

        def filters_for(last_day):
            return Filters(table=ledger.volume.pk, day_from=volume_days[0], day_to=last_day)

        def export(filters) -> CsvExport:
            return CsvExport(kind="collections", query=collection_lines_query(filters), filters={}, requested_by="bench")

        async def drain(job: CsvExport) -> None:
            async for _ in job.stream():
                pass

        every, first_day = filters_for(volume_days[-1]), filters_for(volume_days[0])

        best, job = float("inf"), None
        for _ in range(repeats):
            job = export(every)
            start = time.perf_counter()
            async_to_sync(drain)(job)
            best = min(best, time.perf_counter() - start)
        rows = job.rows
        assert rows == ledger.volume_fee_lines + ledger.volume_refunds, rows
        print(f"generator (COPY, chunked, SHA-256): {rows:,} rows, {job.bytes / 2**20:.1f} MiB in {best:.2f} s = {rows / best:,.0f} rows/s")

        user = get_user_model().objects.create_user("bench")
        user.groups.add(Group.objects.get(name="compliance"))  # exports are for compliance staff
        client = Client()
        client.force_login(user)
        asgi = AsgiClient(client)
        params = {"table": ledger.volume.pk, "from": volume_days[0], "to": volume_days[-1]}
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            response = asgi.get("/compliance/collections/export.csv", params, keep_body=False)
            best = min(best, time.perf_counter() - start)
        assert response.status == 200
        print(f"HTTP through the ASGI handler: {response.chunks} body messages, {rows / best:,.0f} rows/s")

        for label, filters in (("first day", first_day), ("all days", every)):
            job = export(filters)
            tracemalloc.start()
            try:
                base, _ = tracemalloc.get_traced_memory()
                tracemalloc.reset_peak()
                async_to_sync(drain)(job)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            print(f"peak Python memory while streaming {label} ({job.rows:,} rows, {job.bytes / 2**20:.1f} MiB): {(peak - base) / 2**20:.2f} MiB")

        query = collection_lines_query(every)
        tracemalloc.start()
        try:
            base, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            start = time.perf_counter()
            with connection.cursor() as cursor:
                cursor.execute(query.ordered(), query.params)
                fetched = len(cursor.fetchall())
            elapsed = time.perf_counter() - start
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        print(f"for contrast, fetchall() of the same {fetched:,} rows: peak {(peak - base) / 2**20:.1f} MiB (under tracemalloc, {elapsed:.1f} s)")
        print(f"database: PostgreSQL {connection.pg_version // 10000}; time zone {settings.TIME_ZONE}")
    finally:
        teardown_databases(databases, verbosity=0)
        teardown_test_environment()


if __name__ == "__main__":
    main(sys.argv[1:])

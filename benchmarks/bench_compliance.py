"""Compliance pages and exports on a large ledger: a million settled rounds by default.

Run with `python -m benchmarks.bench_compliance [--rounds N] [--tables 20] [--days 365]`.

The database: a throwaway PostgreSQL cluster (and Redis) started here by the test suite's
tests/plugins/services.py unless DATABASE_URL is set; either way the data goes into a
scratch `test_...` database that is created, migrated and dropped again.

The generator. One real round is played through the command service on a template
table; its rows (wagers, decisions, cards, settlement lines, fee lines) are the pattern
of every generated round. The generated rounds are written with COPY (psycopg 3
`cursor.copy`), one connection per ledger table so that PostgreSQL parses them on both
cores, spread over `--tables` tables and `--days` gaming days ending today (so that the
pages' default "this month" has rows). Each round has its opening and settling events in the table's
event chain, its fee lines in the table's collection chain, and a rotation log entry.
The links are computed by `cardroom.hashchain.link` over the models' own
`chain_content()`, as the command service does, and the tables' heads are moved, so
`manage.py verify_logs` verifies the result (it is run, and its verdict and time
printed). The load is a fixture the owner writes (COPY, setval), with the foreign-key
and append-only triggers off for the load (`session_replication_role = replica`): the
ids are generated consistently here, and the triggers refuse only UPDATE and DELETE,
which a load never does.

The timings. Every compliance page's first screen, fetched by a logged-in compliance
user through Django's test client as the served role (`cardroom_app`), median and p95 of
`--repeats` fetches, against the target of 200 ms; every CSV export streamed through
Django's ASGI handler, in rows/s against 100,000 rows/s. The same pages are first timed
on a small ledger (`--baseline-rounds`, 1,000 by default) in the same run, then the rest
of the rounds are loaded and everything is timed again; a `SELECT 1` round trip is the
floor.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, date, timedelta

TARGET_PAGE_MS = 200
TARGET_EXPORT_ROWS_S = 100_000


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000, help="settled rounds in all")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--days", type=int, default=365, help="gaming days, ending today")
    parser.add_argument("--baseline-rounds", type=int, default=1_000, help="rounds of the same run's baseline")
    parser.add_argument("--repeats", type=int, default=7, help="fetches per page")
    parser.add_argument("--no-verify", action="store_true", help="skip verify_logs on the large ledger")
    parser.add_argument("--keep", action="store_true",
                        help="keep the scratch database (on the server DATABASE_URL names) and, when it already "
                             "holds the rounds, time it again without loading or migrating anew (no baseline)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="time only this page or export (its name in the report; repeatable)")
    parser.add_argument("--explain", action="append", default=[], metavar="NAME",
                        help="on the large ledger, print EXPLAIN ANALYZE of this page's slowest queries, "
                             "or of this export's query (its name in the report; repeatable)")
    args = parser.parse_args(argv)
    from tests.plugins.services import Services

    services = Services()
    services.start()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    try:
        run(args)
    finally:
        services.stop()


# --- The generator ----------------------------------------------------------------------


def copy_text(value) -> str:
    """A value in COPY's text format."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, (dict, list)):
        value = json.dumps(value, separators=(",", ":"))
    elif hasattr(value, "isoformat"):
        return value.isoformat()
    else:
        value = str(value)
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


@dataclass
class Chain:
    """Where one generated table stands: its round numbers and its two chains' heads."""

    table_id: int
    config_id: int
    schedule_id: int
    number: int = 0
    event_seq: int = 0
    event_head: str = ""
    collection_seq: int = 0
    collection_head: str = ""
    last_day: date | None = None


@dataclass
class Template:
    """The rows of one real round, the pattern of the generated ones."""

    round: dict
    children: dict = field(default_factory=dict)  # model -> [field dicts]
    collections: list = field(default_factory=list)


class Loader:
    """Writes generated rounds with COPY, one owner connection per ledger table."""

    def __init__(self, params: dict, template: Template, chains: list[Chain], days: list[date]):
        from collections_fees.models import CollectionEntry
        from rounds.models import Decision, Round, RoundCard, SettlementLine, Wager
        from tables.models import RotationLogEntry, TableEvent

        self.params, self.template, self.chains, self.days = params, template, chains, days
        self.models = [Round, TableEvent, Wager, Decision, RoundCard, SettlementLine, CollectionEntry, RotationLogEntry]
        self.Round, self.TableEvent, self.CollectionEntry, self.RotationLogEntry = Round, TableEvent, CollectionEntry, RotationLogEntry
        self.rows = dict.fromkeys(self.models, 0)

    def load(self, rounds: int) -> float:
        """Append `rounds` settled rounds, round-robin over the tables and spread evenly
        over the days; returns the seconds it took."""
        import psycopg

        from cardroom import hashchain
        from cardroom.gaming_day import calendar

        started = time.perf_counter()
        cal = calendar()
        key_id = hashchain.current_key_id()
        per_round = {m: len(self.template.children.get(m, [])) for m in self.models}
        per_round.update({self.Round: 1, self.TableEvent: 2, self.RotationLogEntry: 1, self.CollectionEntry: len(self.template.collections)})
        connections = {m: psycopg.connect(**self.params) for m in self.models}
        try:
            ids = {}
            for model, conn in connections.items():
                conn.execute("SET session_replication_role = replica")
                table = model._meta.db_table
                first = conn.execute(f"SELECT nextval(pg_get_serial_sequence('{table}', 'id'))").fetchone()[0]
                conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), %s)", [first + rounds * per_round[model]])
                ids[model] = first
            columns = {m: [f for f in m._meta.concrete_fields] for m in self.models}
            copies, stack = {}, []
            for model, conn in connections.items():
                names = ", ".join(f'"{f.column}"' for f in columns[model])
                cm = conn.cursor().copy(f"COPY {model._meta.db_table} ({names}) FROM STDIN")
                copies[model] = cm.__enter__()
                stack.append(cm)

            def write(model, values: dict):
                copies[model].write("\t".join(copy_text(values[f.attname]) for f in columns[model]) + "\n")
                self.rows[model] += 1

            # Each template child row as COPY text once, with holes for what each round
            # changes (its own id, the round, the time, the player): per round, a format.
            children = []
            for model, rows in self.template.children.items():
                prepared = []
                for child in rows:
                    parts = [None, None, None, None]
                    for f in columns[model]:
                        hole = {"id": "{0}", "round_id": "{1}", "created_at": "{2}", "player": "{3}"}.get(f.attname)
                        parts.append(hole or copy_text(child[f.attname]).replace("{", "{{").replace("}", "}}"))
                    prepared.append((child.get("player"), parts))
                children.append((model, prepared))
            event = self.TableEvent(hash_key=key_id)
            entry = self.CollectionEntry(hash_key=key_id)
            shifts = {}
            days = self.days
            per_day = -(-rounds // len(days))
            step = timedelta(hours=22) / max(1, -(-per_day // len(self.chains)))
            actions = ("limit_reached", "offer", "accept")
            for i in range(rounds):
                chain = self.chains[i % len(self.chains)]
                day = days[min(len(days) - 1, i // per_day)]
                slot = (i % per_day) // len(self.chains)
                start, _ = cal.day_bounds(day)
                opened = (start + timedelta(hours=1) + step * slot).astimezone(UTC)
                closed = opened + step * 0.9
                if opened not in shifts:
                    shifts.clear()
                    shifts[opened] = cal.shift(opened)
                shift = shifts[opened]
                chain.number += 1
                round_id = ids[self.Round]
                ids[self.Round] += 1
                names = {p: f"P-{chain.table_id}-{(chain.number * 7 + n) % 997}" for n, p in enumerate(self.template.players)}
                row = dict(self.template.round)
                row.update(
                    id=round_id, table_id=chain.table_id, number=chain.number, config_id=chain.config_id,
                    fee_schedule_id=chain.schedule_id, pd_player=names[row["pd_player"]], opened_at=opened,
                    gaming_day=day, closed_at=closed,
                )
                write(self.Round, row)
                # The opening and the settling events, in the table's event chain (the
                # rotation pages find a round's opening by its event).
                for kind, at, result, records in (
                    ("open_round", opened, {"ok": True, "round": chain.number}, [{"kind": "RoundOpened", "round": chain.number}]),
                    # The settle records the rotation entry written below, as the engine's
                    # would: verify_logs holds the rotation log against its events.
                    ("settle", closed, {"ok": True}, [{"kind": "RoundSettled", "round": chain.number}, {
                        "kind": "RotationEntry", "action": actions[chain.number % 3], "seat": 1,
                        "player": row["pd_player"], "round": chain.number, "badge": None, "reason": None,
                    }]),
                ):
                    chain.event_seq += 1
                    event.id, event.table_id, event.seq = ids[self.TableEvent], chain.table_id, chain.event_seq
                    ids[self.TableEvent] += 1
                    event.command_type, event.command, event.command_id = kind, {"type": kind}, None
                    event.result, event.records = result, records
                    event.actor, event.created_at, event.gaming_day = "dealer-ann", at, day
                    event.prev_hash = chain.event_head
                    event.row_hash = hashchain.link(chain.event_head, event.chain_content(), key_id)
                    chain.event_head = event.row_hash
                    write(self.TableEvent, {f.attname: getattr(event, f.attname) for f in columns[self.TableEvent]})
                at = closed.isoformat()
                for model, rows in children:
                    out = copies[model]
                    for player, parts in rows:
                        # The template row's text with this round's id, round, time, player.
                        parts[0], parts[1], parts[2] = str(ids[model]), str(round_id), at
                        if player is not None:
                            parts[3] = copy_text(names.get(player, player))
                        out.write("\t".join(parts[4:]).format(*parts[:4]) + "\n")
                        ids[model] += 1
                    self.rows[model] += len(rows)
                for fee in self.template.collections:
                    for name, value in fee.items():
                        setattr(entry, name, value)
                    chain.collection_seq += 1
                    entry.id, entry.table_id, entry.seq = ids[self.CollectionEntry], chain.table_id, chain.collection_seq
                    ids[self.CollectionEntry] += 1
                    entry.round_id, entry.event_id, entry.schedule_id = round_id, event.id, chain.schedule_id
                    entry.player = names.get(fee["player"], fee["player"])
                    entry.created_at, entry.gaming_day, entry.shift = closed, day, shift
                    entry.prev_hash = chain.collection_head
                    entry.row_hash = hashchain.link(chain.collection_head, entry.chain_content(), key_id)
                    chain.collection_head = entry.row_hash
                    write(self.CollectionEntry, {f.attname: getattr(entry, f.attname) for f in columns[self.CollectionEntry]})
                write(self.RotationLogEntry, dict(
                    id=ids[self.RotationLogEntry], table_id=chain.table_id, event_id=event.id,
                    action=actions[chain.number % 3], seat=1, player=row["pd_player"], round_number=chain.number,
                    badge="", reason="", created_at=closed, gaming_day=day,
                ))
                ids[self.RotationLogEntry] += 1
                chain.last_day = day
            for cm in reversed(stack):
                cm.__exit__(None, None, None)
            for model in self.models:
                connections[model].commit()
            with connections[self.Round] as conn:
                for chain in self.chains:
                    conn.execute(
                        "UPDATE tables_table SET version = %s, event_head = %s, collection_seq = %s, "
                        "collection_head = %s, chain_day = %s WHERE id = %s",
                        [chain.event_seq, chain.event_head, chain.collection_seq, chain.collection_head, chain.last_day, chain.table_id],
                    )
        finally:
            for conn in connections.values():
                conn.close()
        return time.perf_counter() - started


def build_template():
    """One real round through the command service on a template table; its rows."""
    from collections_fees.models import CollectionEntry
    from rounds.models import Decision, Round, RoundCard, SettlementLine, Wager
    from tables.lifecycle import table_create
    from tables.services import command_execute
    from tests.compliance.ledger import FEES_A
    from tests.engine.helpers import dealt_round, seated_with_pd

    table = table_create(name="Template", config={"seats": 6, "fee_schedule": FEES_A}, created_by="bench")
    for command in seated_with_pd([1, 2, 3], pd=1) + dealt_round([2, 3], ante=2500):
        result = command_execute(table_id=table.pk, command=command, actor="dealer-ann").result
        assert result["ok"], (command, result)
    rnd = Round.objects.get(table=table, number=1)
    template = Template(round={f.attname: getattr(rnd, f.attname) for f in Round._meta.concrete_fields})
    for model in (Wager, Decision, RoundCard, SettlementLine):
        template.children[model] = [
            {f.attname: getattr(row, f.attname) for f in model._meta.concrete_fields}
            for row in model.objects.filter(round=rnd).order_by("id")
        ]
    chained = {"id", "table_id", "seq", "round_id", "event_id", "schedule_id", "created_at", "gaming_day", "shift",
               "prev_hash", "row_hash", "hash_key"}
    template.collections = [
        {f.attname: getattr(row, f.attname) for f in CollectionEntry._meta.concrete_fields if f.attname not in chained}
        for row in CollectionEntry.objects.filter(round=rnd).order_by("seq")
    ]
    template.players = sorted({w["player"] for w in template.children[Wager]} | {rnd.pd_player})
    return template


def make_tables(count: int, first_day: date):
    from cardroom.gaming_day import calendar
    from tables.models import Table
    from tables.lifecycle import table_create
    from tests.compliance.ledger import FEES_A

    at = calendar().day_bounds(first_day)[0] - timedelta(days=1)
    chains = []
    for n in range(count):
        table = table_create(name=f"Table {n + 1}", config={"seats": 6, "fee_schedule": FEES_A}, created_by="bench", at=at)
        table = Table.objects.select_related("config").get(pk=table.pk)
        chains.append(Chain(
            table.pk, table.config_id, table.config.fee_schedule_id, event_head=table.event_head,
            collection_head=table.collection_head,
        ))
    return chains


# --- The timings --------------------------------------------------------------------------


def pages(ctx) -> list[tuple[str, str]]:
    day, shift, table, round_id, patron = ctx["day"], ctx["shift"], ctx["table"], ctx["round_id"], ctx["patron"]
    return [
        ("collection log", "/compliance/collections/"),
        ("jackpot fund", "/compliance/jackpot/"),
        ("drop count history", f"/compliance/collections/drop-counts/{table}/{day}/"),
        ("exports", "/compliance/exports/"),
        ("round history", "/compliance/rounds/"),
        ("round detail", f"/compliance/rounds/{round_id}/"),
        ("rotation log", "/compliance/rotation/"),
        ("rounds offered", "/compliance/rotation/offered/"),
        ("boxes", "/compliance/boxes/"),
        ("count index", "/compliance/count/"),
        ("count sheet", f"/compliance/count/{day}/{shift}/"),
        ("count sheet print", f"/compliance/count/{day}/print/"),
        ("closer", f"/compliance/closer/{day}/"),
        ("closer print", f"/compliance/closer/{day}/print/"),
        ("patrons", "/compliance/patrons/"),
        ("patron detail", f"/compliance/patrons/{patron}/"),
        ("MTL log", "/compliance/mtl/"),
        ("CTR candidates", "/compliance/ctr/"),
        ("self-exclusion", "/compliance/self-exclusion/"),
    ]


def exports(ctx) -> list[tuple[str, str, dict]]:
    month = {"from": ctx["month_from"], "to": ctx["day"]}
    return [
        ("collections CSV (a month)", "/compliance/collections/export.csv", month),
        ("rounds CSV (a month)", "/compliance/rounds/export.csv", month),
        ("rotation CSV (a month)", "/compliance/rotation/export.csv", month),
        ("count sheet CSV (a day)", f"/compliance/count/{ctx['day']}/export.csv", {}),
        ("closer CSV (a day)", f"/compliance/closer/{ctx['day']}/export.csv", {}),
        ("patron history CSV", f"/compliance/patrons/{ctx['patron']}/history.csv", {}),
    ]


def chosen(items: list, only: list[str]) -> list:
    return [item for item in items if not only or item[0] in only]


def time_pages(client, ctx, repeats: int, only: list[str]) -> dict:
    results = {}
    for name, url in chosen(pages(ctx), only):
        client.get(url)  # warm: templates compiled, plans cached
        spent, status = [], None
        for _ in range(repeats):
            start = time.perf_counter()
            response = client.get(url)
            spent.append((time.perf_counter() - start) * 1000)
            status = response.status_code
        spent.sort()
        p95 = spent[min(len(spent) - 1, int(round(0.95 * (len(spent) - 1))))]
        results[name] = (statistics.median(spent), p95, status)
    return results


def time_exports(asgi, ctx, only: list[str]) -> dict:
    from collections_fees.models import ExportManifest

    results = {}
    for name, url, params in chosen(exports(ctx), only):
        start = time.perf_counter()
        response = asgi.get(url, params, keep_body=False)
        elapsed = time.perf_counter() - start
        export_id = response.headers.get("x-export-id") if hasattr(response, "headers") else None
        manifest = ExportManifest.objects.filter(pk=export_id).first() if export_id else None
        if manifest is None:
            manifest = ExportManifest.objects.order_by("-finished_at").first()
        rows = manifest.rows if manifest else 0
        # The file's SHA-256 (from its manifest): an export changed for speed must keep it.
        digest = manifest.sha256[:12] if manifest else ""
        results[name] = (rows, rows / elapsed if elapsed else 0.0, elapsed, response.status, digest)
    return results


def explain(client, ctx, names: list[str], slowest: int = 3) -> None:
    """The plans behind a page or an export, on the data just timed: a page's `slowest`
    queries (captured while it is fetched once) and an export's whole query (its SELECT,
    as the export's COPY runs it), each through EXPLAIN (ANALYZE, BUFFERS)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from web.compliance.forms import CollectionFilterForm, RotationFilterForm, RoundFilterForm
    from collections_fees.round_selectors import rotation_log_query, round_history_query
    from collections_fees.selectors import collection_lines_query

    export_queries = {
        "collections CSV (a month)": (CollectionFilterForm, collection_lines_query),
        "rounds CSV (a month)": (RoundFilterForm, round_history_query),
        "rotation CSV (a month)": (RotationFilterForm, rotation_log_query),
    }
    urls = dict(pages(ctx))
    month = {"from": ctx["month_from"], "to": ctx["day"]}

    def plan(sql: str, params=None) -> None:
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            print("\n".join("    " + row[0] for row in cursor.fetchall()), flush=True)

    for name in names:
        if name in export_queries:
            form_class, build = export_queries[name]
            form = form_class(month)
            assert form.is_valid(), form.errors
            query = build(form.filters())
            print(f"\nEXPLAIN {name}:", flush=True)
            plan(query.export_sql(), query.params)
            continue
        with CaptureQueriesContext(connection) as captured:
            client.get(urls[name])
        ranked = sorted(captured.captured_queries, key=lambda q: -float(q["time"]))[:slowest]
        print(f"\nEXPLAIN {name}: {len(captured.captured_queries)} queries, the slowest {len(ranked)}:", flush=True)
        for query in ranked:
            print(f"  {float(query['time']) * 1000:.1f} ms: {query['sql'][:300]}", flush=True)
            plan(query["sql"])


def select_one_ms(repeats: int = 50) -> float:
    from django.db import connection

    spent = []
    with connection.cursor() as cursor:
        for _ in range(repeats):
            start = time.perf_counter()
            cursor.execute("SELECT 1")
            cursor.fetchone()
            spent.append((time.perf_counter() - start) * 1000)
    return statistics.median(spent)


def verify(label: str) -> None:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    start = time.perf_counter()
    try:
        call_command("verify_logs", stdout=out)
        verdict = "passes"
    except SystemExit:
        verdict = "FAILS"
    elapsed = time.perf_counter() - start
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    print(f"verify_logs on the {label} ledger: {verdict} in {elapsed:.1f} s ({'; '.join(lines[-2:])})", flush=True)
    for line in lines:
        if line.startswith("BROKEN"):
            print("  " + line)
            break


def run(args) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_databases, setup_test_environment, teardown_databases, teardown_test_environment

    from cardroom.gaming_day import calendar
    from django.utils import timezone
    from patrons.models import Patron
    from rounds.models import Round
    from tests import db_access
    from tests.compliance.asgi import AsgiClient

    setup_test_environment()
    # With --keep the scratch database outlives the run (keepdb: migrate applies only
    # what is new), so a code change is timed again on the same ledger, back to back.
    # No serialized copy of the database (for tests that roll back by reloading it): on a
    # held ledger it would dump millions of rows as JSON.
    databases = setup_databases(verbosity=0, interactive=False, keepdb=args.keep, serialized_aliases=set())
    try:
        cal = calendar()
        today = cal.gaming_day(timezone.now())
        days = [today - timedelta(days=args.days - 1 - i) for i in range(args.days)]
        held = args.keep and Round.objects.filter(table__name__startswith="Table ").count() >= args.rounds
        user = get_user_model().objects.filter(username="bench-compliance").first()
        if not held:
            template = build_template()
            chains = make_tables(args.tables, days[0])
            params = dict(connection.get_connection_params())
            params.pop("options", None)  # the owner: the load is the fixture's, not the app's
            params.pop("cursor_factory", None)
            params.pop("context", None)
            loader = Loader(params, template, chains, days)
            user = get_user_model().objects.create_user("bench-compliance")
            user.groups.add(Group.objects.get(name="compliance"))
            Patron.objects.create(number=f"P-{chains[0].table_id}-8", display_name="Bench", legal_name="Bench Patron", created_at=timezone.now())

        def ctx():
            last = Round.objects.order_by("-id").values_list("id", "table_id").first()
            return {
                "day": today, "shift": cal.shift(timezone.now()), "table": last[1], "round_id": last[0],
                "patron": Patron.objects.get().pk, "month_from": today - timedelta(days=29),
            }

        def measure(label: str, rounds_loaded: int):
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
            db_access.serve_as_app_role()
            try:
                client = Client()
                client.force_login(user)
                floor = select_one_ms()
                page_times = time_pages(client, ctx(), args.repeats, args.only)
                export_rates = time_exports(AsgiClient(client), ctx(), args.only)
                if args.explain and label == "large":
                    explain(client, ctx(), args.explain)
            finally:
                db_access.serve_as_owner()
            return {"label": label, "rounds": rounds_loaded, "select1": floor, "pages": page_times, "exports": export_rates}

        if held:
            print(f"the held ledger: {args.rounds:,} rounds, not loaded again", flush=True)
            report({"rounds": 0, "select1": 0.0, "pages": {}, "exports": {}}, measure("large", args.rounds))
            return
        baseline_rounds = min(args.baseline_rounds, args.rounds)
        took = loader.load(baseline_rounds)
        print(f"baseline: {baseline_rounds:,} rounds loaded in {took:.1f} s", flush=True)
        verify("baseline")
        small = measure("baseline", baseline_rounds)
        rest = args.rounds - baseline_rounds
        if rest:
            took = loader.load(rest)
            rows = sum(loader.rows.values())
            print(f"{args.rounds:,} rounds loaded ({rows:,} ledger rows: "
                  + ", ".join(f"{m.__name__} {n:,}" for m, n in loader.rows.items())
                  + f") in {took:.0f} s for the last {rest:,} rounds ({rest / took:,.0f} rounds/s)", flush=True)
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
            if not args.no_verify:
                verify("large")
        large = measure("large", args.rounds)
        report(small, large)
    finally:
        if not args.keep:
            teardown_databases(databases, verbosity=0)
        teardown_test_environment()


def report(small: dict, large: dict) -> None:
    print()
    print(f"SELECT 1 round trip: {small['select1']:.2f} ms (baseline run), {large['select1']:.2f} ms (large run)")
    print(f"{'page (first screen)':28} {small['rounds']:>9,} rounds: median / p95 | {large['rounds']:>9,} rounds: median / p95 | target {TARGET_PAGE_MS} ms")
    for name, (median, p95, status) in large["pages"].items():
        base = small["pages"].get(name, (0, 0, 0))
        verdict = "ok" if p95 <= TARGET_PAGE_MS and status == 200 else "OVER" if status == 200 else f"HTTP {status}"
        print(f"{name:28} {base[0]:>10.1f} / {base[1]:>7.1f} ms | {median:>10.1f} / {p95:>7.1f} ms | {verdict}")
    print()
    print(f"{'export':28} {'baseline rows, rows/s':>26} | {'large rows, rows/s, seconds':>34} | target {TARGET_EXPORT_ROWS_S:,} rows/s")
    for name, (rows, rate, elapsed, status, digest) in large["exports"].items():
        base = small["exports"].get(name, (0, 0.0, 0, 0, ""))
        verdict = "ok" if rate >= TARGET_EXPORT_ROWS_S else "under" if status == 200 else f"HTTP {status}"
        print(f"{name:28} {base[0]:>10,} {base[1]:>14,.0f} | {rows:>10,} {rate:>12,.0f} {elapsed:>9.2f} s | {verdict} sha256 {digest}")


if __name__ == "__main__":
    main(sys.argv[1:])

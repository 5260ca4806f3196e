"""The floor with 250 busy tables: messages sent to the floor with and without coalescing,
and how late the floor learns of a change.

Run with `.venv/bin/python -m benchmarks.bench_floor [--tables 250] [--rate 1] [--seconds 20]`.
It starts its own throwaway PostgreSQL and Redis (tests/plugins/services.py; whatever
DATABASE_URL / REDIS_URL say is ignored, so no real database is touched) and creates the
tables. Then `--processes` dealer processes (as several Daphne processes would) tap
`rate` commands a second at every table through the real command service, choosing like
simulate_floor, for `seconds`; each coalesces its own floor rows
(tables.events.Publisher). A floor listener in a process of its own receives the
rows on the real channels_redis layer; for comparison every event is also sent the old
way, one message per event with the table's snapshot, to a second listener group.
Prints figures; asserts nothing.
"""

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import sys
import threading
import time

RAW_GROUP = "bench-uncoalesced"


def setup_django() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    os.environ["DJANGO_DEBUG"] = "0"
    import django

    django.setup()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--rate", type=float, default=1.0, help="commands per second at each table")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--processes", type=int, default=2, help="dealer processes, like Daphne processes")
    parser.add_argument("--threads", type=int, default=4, help="dealer threads in each process")
    parser.add_argument("--burst-rate", type=float, default=4.0,
                        help="second stage: changes a second at each table, more than the database here can commit")
    parser.add_argument("--burst-seconds", type=float, default=10.0)
    args = parser.parse_args(argv)

    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    from tests.plugins.services import Services

    services = Services()
    services.start()
    try:
        run(args, services.summary)
    finally:
        services.stop()


def run(args, summary: str) -> None:
    setup_django()
    from django.core.management import call_command
    from django.db import connection

    from tables.events import WINDOW, publisher
    from tables.management.commands.seed_demo import demo_table
    from tables.management.commands.simulate_floor import SIM_CONFIG

    print(summary)
    call_command("migrate", verbosity=0)
    started = time.monotonic()
    ids = [demo_table(f"Bench {n}", SIM_CONFIG, {s: f"B{n}-{s}" for s in (1, 2, 3, 4, 5)}, 1).pk for n in range(args.tables)]
    publisher.drain()
    connection.close()
    print(f"{args.tables} tables created in {time.monotonic() - started:.1f}s")

    spawn = multiprocessing.get_context("spawn")
    results = spawn.Queue()
    ready, stop = spawn.Event(), spawn.Event()
    listener = spawn.Process(target=listen, args=(results, ready, stop))
    listener.start()
    ready.wait(30)
    deadline = time.time() + 3 + args.seconds  # wall clock, shared by the processes (3 s to start them)
    dealers = [
        spawn.Process(target=deal, args=(ids[k:: args.processes], args.rate, deadline, args.threads, k, results))
        for k in range(args.processes)
    ]
    for p in dealers:
        p.start()
    committed, raw_sent, raw_bytes, counts = {}, 0, 0, {"ok": 0, "refused": 0, "floor": 0}
    for _ in dealers:
        kind, payload = results.get()
        assert kind == "dealer"
        committed.update(payload["committed"])
        raw_sent += payload["raw_sent"]
        raw_bytes += payload["raw_bytes"]
        for key in counts:
            counts[key] += payload[key]
    for p in dealers:
        p.join()
    stage2 = time.time() + 1
    time.sleep(1)  # let the last rows of the first stage arrive (not an assertion)
    burst_raw = burst(ids, args.burst_rate, args.burst_seconds)
    time.sleep(2)  # and those of the second
    stop.set()
    kind, received = results.get()
    listener.join()
    first = {"rows": [r for r in received["rows"] if r[0] < stage2], "raw": [r for r in received["raw"] if r[0] < stage2]}
    report(args, committed, raw_sent, raw_bytes, counts, first, WINDOW)
    rows = [r for r in received["rows"] if r[0] >= stage2]
    raw = [r for r in received["raw"] if r[0] >= stage2]
    report_burst(args, burst_raw, rows, raw, WINDOW)


def burst(ids, rate, seconds) -> dict:
    """Changes at every table faster than this machine's database can commit commands:
    the publisher is told of each (its rows are read from the database as usual), and
    the same changes are sent the old way, a message with a real snapshot per change."""
    from asgiref.sync import async_to_sync
    from channels import DEFAULT_CHANNEL_LAYER
    from channels.layers import channel_layers

    from tables.events import publisher
    from tables.models import Table
    from tables.selectors import server_snapshot

    snapshot = server_snapshot(Table.objects.get(pk=ids[0]))
    rng = random.Random(7)
    schedule = sorted((rng.uniform(0, seconds), t) for t in ids for _ in range(int(rate * seconds)))
    sent = {"messages": 0, "bytes": len(json.dumps(snapshot)) + 80}

    async def go():
        layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)  # as one more process would
        start = time.time()
        for at, table_id in schedule:
            delay = start + at - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            publisher.changed(table_id)
            await layer.group_send(RAW_GROUP, {"type": "table.changed", "table": table_id, "sent": time.time(), "snapshot": snapshot})
            sent["messages"] += 1
        sent["elapsed"] = time.time() - start
        await layer.close_pools()

    async_to_sync(go)()
    publisher.drain()
    return sent


def deal(table_ids, rate, deadline, threads, seed, results) -> None:
    setup_django()
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from tables import events
    from tables.management.commands.simulate_floor import deal_tables

    committed: dict[tuple[int, int], float] = {}
    stats = {"ok": 0, "refused": 0, "raw_sent": 0, "raw_bytes": 0}
    lock = threading.Lock()
    real_send = events._send

    def send_and_compare(event):
        committed[(event.table, event.seq)] = time.time()
        real_send(event)
        # What the floor got before coalescing: one message per event, with the snapshot.
        message = {"type": "table.changed", "table": event.table, "seq": event.seq, "snapshot": event.snapshot}
        async_to_sync(get_channel_layer().group_send)(RAW_GROUP, message)
        with lock:
            stats["raw_sent"] += 1
            stats["raw_bytes"] += len(json.dumps(message))

    events._send = send_and_compare

    def count(command, outcome):
        with lock:
            stats["ok" if outcome.ok else "refused"] += 1

    workers = [
        threading.Thread(
            target=deal_tables,
            args=(table_ids[k::threads], rate, deadline, random.Random(seed * 100 + k), count),
            kwargs={"actor": "bench", "clock": time.time},
        )
        for k in range(threads)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    events.publisher.drain()
    results.put(("dealer", {**stats, "floor": events.publisher.floor_sent, "committed": committed}))


def listen(results, ready, stop) -> None:
    setup_django()
    from channels.layers import get_channel_layer

    from tables.events import FLOOR_GROUP

    rows: list[tuple[float, int, int, int]] = []  # (received, table, seq, bytes)
    raw: list[tuple[float, float | None, int]] = []  # (received, sent, bytes)

    def take_batch(message, size):
        # One message per window carries every table that changed: its bytes are shared.
        now, batch = time.time(), message["rows"]
        rows.extend((now, r["table"], r["seq"], size / len(batch)) for r in batch)

    async def drain(layer, channel, sink):
        while True:
            message = await layer.receive(channel)
            sink(message, len(json.dumps(message)))  # a consumer encodes each message too

    async def go():
        layer = get_channel_layer()
        floor, uncoalesced = await layer.new_channel(), await layer.new_channel()
        await layer.group_add(FLOOR_GROUP, floor)
        await layer.group_add(RAW_GROUP, uncoalesced)
        tasks = [
            asyncio.create_task(drain(layer, floor, lambda m, n: take_batch(m, n))),
            asyncio.create_task(drain(layer, uncoalesced, lambda m, n: raw.append((time.time(), m.get("sent"), n)))),
        ]
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(go())
    results.put(("listener", {"rows": rows, "raw": raw}))


def pct(values, q):
    return values[min(len(values) - 1, int(len(values) * q))] * 1000 if values else float("nan")


def report(args, committed, raw_sent, raw_bytes, counts, received, window) -> None:
    rows, raw = received["rows"], received["raw"]
    elapsed = args.seconds
    lags = sorted(t - committed[(table, seq)] for t, table, seq, _ in rows if (table, seq) in committed)
    latest: dict[int, int] = {}
    for table, seq in committed:
        latest[table] = max(latest.get(table, 0), seq)
    last_row: dict[int, int] = {}
    by_table: dict[int, list[float]] = {}
    for t, table, seq, _ in rows:
        last_row[table] = max(last_row.get(table, 0), seq)
        by_table.setdefault(table, []).append(t)
    gaps = sorted(b - a for times in by_table.values() for a, b in zip(times, times[1:]))
    row_bytes = sum(n for *_, n in rows)

    print(f"{args.tables} tables at {args.rate:g} command(s)/s each for {elapsed:g}s "
          f"({args.processes} dealer processes x {args.threads} threads)")
    print(f"  commands: {counts['ok']} accepted, {counts['refused']} refused ({(counts['ok'] + counts['refused']) / elapsed:.0f}/s)")
    print(f"  floor without coalescing: {raw_sent} messages ({raw_sent / elapsed:.0f}/s), "
          f"{raw_bytes / max(raw_sent, 1) / 1024:.1f} KiB each, {raw_bytes / elapsed / 1024:.0f} KiB/s; received {len(raw)}")
    print(f"  floor with coalescing:    {len(rows)} messages ({len(rows) / elapsed:.0f}/s), "
          f"{row_bytes / max(len(rows), 1) / 1024:.1f} KiB each, {row_bytes / elapsed / 1024:.0f} KiB/s "
          f"(sent {counts['floor']})")
    print(f"  ratio: {raw_sent / max(len(rows), 1):.2f} events per floor message, {raw_bytes / max(row_bytes, 1):.1f}x fewer bytes")
    print(f"  commit -> floor row: p50 {pct(lags, 0.5):.0f} ms, p95 {pct(lags, 0.95):.0f} ms, "
          f"p99 {pct(lags, 0.99):.0f} ms, max {pct(lags, 1):.0f} ms")
    print(f"  gap between two rows of one table: p1 {pct(gaps, 0.01):.0f} ms, median {pct(gaps, 0.5):.0f} ms "
          f"(window {window * 1000:.0f} ms)")
    stale = sum(1 for t, seq in latest.items() if last_row.get(t) != seq)
    print(f"  tables whose last floor row is not their latest state: {stale} of {len(latest)}")


def report_burst(args, sent, rows, raw, window) -> None:
    elapsed = sent["elapsed"]
    raw_lags = sorted(t - s for t, s, _ in raw if s is not None)
    per_table: dict[int, list[float]] = {}
    for t, table, _, _ in rows:
        per_table.setdefault(table, []).append(t)
    gaps = sorted(b - a for times in per_table.values() for a, b in zip(times, times[1:]))
    print(f"burst: {args.tables} tables changing {args.burst_rate:g} times a second each for {elapsed:.1f}s "
          f"({sent['messages'] / elapsed:.0f} changes/s)")
    print(f"  without coalescing: {sent['messages']} messages sent ({sent['messages'] / elapsed:.0f}/s, "
          f"{sent['messages'] * sent['bytes'] / elapsed / 1024:.0f} KiB/s), {len(raw)} received "
          f"({sent['messages'] - len(raw)} dropped at the listener's channel capacity), "
          f"lag p50 {pct(raw_lags, 0.5):.0f} ms, p95 {pct(raw_lags, 0.95):.0f} ms, max {pct(raw_lags, 1):.0f} ms")
    print(f"  with coalescing:    {len(rows)} messages ({len(rows) / elapsed:.0f}/s), "
          f"{sum(n for *_, n in rows) / elapsed / 1024:.0f} KiB/s; ratio {sent['messages'] / max(len(rows), 1):.1f} changes per message")
    print(f"  gap between two rows of one table: p1 {pct(gaps, 0.01):.0f} ms, median {pct(gaps, 0.5):.0f} ms "
          f"(window {window * 1000:.0f} ms)")


if __name__ == "__main__":
    main(sys.argv[1:])

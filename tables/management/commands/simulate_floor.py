"""`python manage.py simulate_floor --tables N --rate R --duration S`: dealers at N tables
tapping R commands a second each, for S seconds, through the real command service.

Each simulated dealer does what the tablet shows it (rounds.engine.view.table_view: the
next step, the seats' actions), choosing at random where a person would choose, so the
floor dashboard comes alive for demos and load tests. Tables missing from the demo floor
(seed_demo) are created as "Sim UTH-<n>". Meant for demo and test databases only.
"""

import random
import threading
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from rounds.engine.view import table_view
from tables.events import publisher
from tables.models import Table
from tables.services import command_execute

from .seed_demo import DEMO_TABLES, demo_table

ACTOR = "simulator"
BANKS = (50000, 100000, 200000)
ANTES = (500, 1000, 2500, 5000)
# The ids the simulator seats (`_sit`). It acts only for these: a seat taken by anyone
# else (a demo patron, a real one) is a person's, whose wagers and decisions would land
# in their cash and AML history; at such a seat's turn the simulator waits.
SIM_PLAYER_PREFIX = "G-"
# Tables beyond the demo floor (and benchmarks.bench_floor's) are set up like Demo UTH-1.
SIM_CONFIG = DEMO_TABLES["Demo UTH-1"][0]


def next_command(state: dict, rng: random.Random) -> dict | None:
    """What a dealer would tap next at a table in this state."""
    return command_for_view(table_view(state), rng)


def seated_by_simulator(player) -> bool:
    return isinstance(player, str) and player.startswith(SIM_PLAYER_PREFIX)


def command_for_view(view: dict, rng: random.Random) -> dict | None:
    """What a dealer would tap next, from what the tablet shows: the snapshot's `view`
    (rounds.engine.view.table_view). benchmarks.bench_e2e chooses from the snapshots its
    sockets receive, as a tablet does, so this needs nothing but the view. None when the
    next tap is a decision of a seat the simulator did not seat (it never plays a person)."""
    next_step = view["next"]
    step = next_step["step"]
    seats = [s for s in view["seats"] if s["player"] is None or seated_by_simulator(s["player"])]
    own = {s["seat"] for s in seats if s["player"] is not None}
    if step in ("offer", "decisions") and (next_step.get("seat") if step == "offer" else next_step["pending"][0]) not in own:
        return None
    if step == "offer":
        choice = "accept_bank" if rng.random() < 0.8 else "decline_bank"
        return {"type": choice, "seat": next_step["seat"]}
    if step in ("choose_player_dealer", "stopped"):
        seated = sum(1 for s in seats if s["player"] is not None)
        eligible = [seat for seat in view["eligible_to_bank"] if seat in own]
        if eligible and seated >= 2:
            return {"type": "offer_bank", "seat": rng.choice(eligible)}
        return _sit(seats, rng)
    if step == "wait_for_players":
        return _sit(seats, rng)
    if step == "open_round":
        roll = rng.random()
        if roll < 0.05:
            return {"type": "pass_bank"}
        if roll < 0.10:
            leaving = [s["seat"] for s in seats if s["role"] == "player"]
            return {"type": "leave", "seat": rng.choice(leaving)} if len(leaving) > 1 else _sit(seats, rng)
        return {"type": "open_round", "bank": rng.choice(BANKS)}
    if step in ("take_wagers", "no_more_bets"):
        unbet = [s["seat"] for s in seats if s["role"] == "player" and s["wager"] is None]
        if unbet and (step == "take_wagers" or rng.random() < 0.7):
            wager = {"type": "wager", "seat": unbet[0], "ante": rng.choice(ANTES)}
            trips = rng.choice((0, 0, 100, 500))
            return {**wager, "trips": trips} if trips else wager
        return {"type": "no_more_bets"}
    if step == "deal":
        if rng.random() < 0.01:
            return {"type": "void_round", "reason": "shuffler malfunction (simulated)", "approved_by": "sim-supervisor"}
        return {"type": "deal"}
    if step == "decisions":
        seat = next(s for s in seats if s["seat"] == next_step["pending"][0])
        return {**rng.choice(seat["actions"]), "seat": seat["seat"]}
    return {"type": step}  # flop, turn_river, showdown, settle: the dealt cards


def _sit(seats: list[dict], rng: random.Random) -> dict | None:
    empty = [s["seat"] for s in seats if s["player"] is None]
    if not empty:
        return None
    return {"type": "sit", "seat": rng.choice(empty), "player": f"G-{rng.randrange(10**6):06d}"}


def deal_tables(table_ids, rate, deadline, rng, on_outcome, *, actor=ACTOR, clock=time.monotonic) -> None:
    """One dealer working `table_ids` until `deadline` (a time on `clock`): about `rate`
    commands a second at each table, each chosen by next_command and sent through the
    command service; `on_outcome(command, outcome)` is called after each. Closes this
    thread's database connection at the end. (benchmarks.bench_floor passes time.time:
    its dealer processes share one deadline.)"""
    due = {t: clock() + rng.random() / rate for t in table_ids}
    try:
        while True:
            table_id, when = min(due.items(), key=lambda item: item[1])
            if when >= deadline:
                return
            time.sleep(max(0.0, when - clock()))
            state = Table.objects.only("state").get(pk=table_id).state
            command = next_command(state, rng)
            if command is not None:  # None: a person's turn at this table, not the simulator's
                outcome = command_execute(table_id=table_id, command=command, actor=actor, rng=rng)
                on_outcome(command, outcome)
            # Exponential gaps: taps come in bursts and lulls, as at a real table.
            due[table_id] = max(when, clock() - 1 / rate) + rng.expovariate(rate)
    finally:
        connection.close()


class Command(BaseCommand):
    help = "Play rounds at N tables through the command service (R commands per second per table, for S seconds)."

    def add_arguments(self, parser):
        parser.add_argument("--tables", type=int, default=len(DEMO_TABLES))
        parser.add_argument("--rate", type=float, default=1.0, help="commands per second at each table")
        parser.add_argument("--duration", type=float, default=60.0, help="seconds")
        parser.add_argument("--threads", type=int, default=0, help="dealer threads (default: one per table, up to 8)")
        parser.add_argument("--seed", type=int, default=None, help="random seed for the dealers' choices")

    def handle(self, *args, tables, rate, duration, threads, seed, **options):
        if tables < 1 or rate <= 0 or duration <= 0:
            raise CommandError("--tables, --rate and --duration must be positive")
        table_ids = [self._table(i).pk for i in range(1, tables + 1)]
        # PostgreSQL locks per table row: dealers at different tables do not wait for each other.
        threads = threads or min(8, tables)
        stats = {"ok": 0, "refused": 0, "settled": 0}
        lock = threading.Lock()

        def count(command, outcome):
            with lock:
                stats["ok" if outcome.ok else "refused"] += 1
                stats["settled"] += outcome.ok and command["type"] == "settle"

        deadline = time.monotonic() + duration
        workers = [
            threading.Thread(
                target=deal_tables,
                args=(table_ids[k::threads], rate, deadline, random.Random(None if seed is None else seed + k), count),
            )
            for k in range(threads)
        ]
        started = time.monotonic()
        self.stdout.write(f"simulating {tables} table(s) at {rate:g} command(s)/s each for {duration:g}s ({threads} thread(s))")
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        elapsed = time.monotonic() - started
        publisher.drain()
        total = stats["ok"] + stats["refused"]
        self.stdout.write(
            f"{total} commands in {elapsed:.1f}s ({total / elapsed:.1f}/s): {stats['ok']} accepted, "
            f"{stats['refused']} refused, {stats['settled']} rounds settled; "
            f"{publisher.floor_sent} floor messages for {stats['ok']} table events"
        )

    def _table(self, n: int):
        names = list(DEMO_TABLES)
        if n <= len(names):
            return demo_table(names[n - 1], *DEMO_TABLES[names[n - 1]])
        return demo_table(f"Sim UTH-{n}", SIM_CONFIG, {s: f"S{n}-{s}" for s in (1, 2, 3, 4, 5)}, 1)

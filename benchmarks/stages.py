"""The command path cut into stages, each stage's cost measured where it runs (issue 37 item 4).

A stage is a set of the product's own functions (STAGES). `install(meter)` wraps each of them,
in place, so that what a call costs is charged to its stage, less what the stages it calls
cost (each is charged once, to the innermost stage running). `meter` says what a cost is:

* `cpu`: the thread's CPU time (time.thread_time), in the thread that runs the stage. The
  end-to-end benchmark installs it in Daphne (`BENCH_STAGES_FILE`, see `install_from_env`),
  so a stage's figure is what it cost the served process, under load;
* `calls`: Python function calls (a profile hook counting calls, per thread), which no load
  moves; `benchmarks.bench_command_calls` installs it.

Whatever a command costs outside every stage is charged to "service" (the rest of
`command_execute`: the transaction, the commit, building the answer). Only the benchmarks
import this module; nothing of it is in the product.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
import time
from collections import defaultdict
from functools import wraps

# Stage: the functions whose cost is charged to it, as (module, attribute path).
STAGES: dict[str, list[tuple[str, str]]] = {
    "envelope": [  # the frame read, the command's shape, a known id's answer
        ("cardroom.wire", "read_json"),
        ("tables.services", "_check_envelope"),
        ("tables.services", "_prior_answer"),
    ],
    "lock": [("cardroom.locks", "table"), ("cardroom.locks", "meter")],
    "standing": [  # who may drive, on the locked row; the sockets' periodic reading
        ("tables.services", "can_drive_row"),
        ("tables.standing", "fingerprints"),
    ],
    "approvals+boxes": [("tables.services", "_approved"), ("tables.services", "_require_boxes")],
    "patron gate": [("tables.services", "_patron_gate")],
    "engine": [
        ("rounds.engine.table", "TableGame.from_dict"),
        ("rounds.engine.table", "TableGame.apply"),
        ("rounds.engine.table", "TableGame.to_dict"),
    ],
    "ledger writes": [  # the event, the ledger rows, the table row, the audit row
        ("tables.recording", "write"),
        ("tables.recording", "Writes.send"),
        ("tables.services", "audit_chained"),
        ("tables.services", "audit_entry"),
        ("cardroom.checkpoints", "close_day_if_turned"),
    ],
    "publish": [  # after commit: the table's event encoded for each viewer and sent
        ("tables.services", "_notify"),
        ("tables.events", "_send_changed"),
    ],
    "floor": [("tables.events", "_rows"), ("tables.floor", "whole_floor")],
    # The service's entry, also as the socket and the HTTP view hold it (imported by name).
    "service": [("tables.services", "command_execute"), ("web.tables.consumers", "command_execute"),
                ("web.tables.views", "command_execute")],
}
ORDER = list(STAGES)
WRITE_EVERY = 0.5  # seconds between a served process's writes of its totals


class _Ledger:
    """Costs per stage, charged exclusively through a per-thread stack of running stages."""

    def __init__(self, reading, pause=None, resume=None):
        self.reading = reading  # the current thread's meter reading
        # Around the ledger's own bookkeeping (the call counter: its calls are not the product's).
        self.pause, self.resume = pause or _nothing, resume or _nothing
        self.totals: dict[str, float] = defaultdict(float)
        self.lock = threading.Lock()
        self.local = threading.local()

    def _charge(self, stage: str | None, now: float) -> None:
        last = getattr(self.local, "last", now)
        self.local.last = now
        if stage is not None and now > last:
            with self.lock:
                self.totals[stage] += now - last

    def snapshot(self) -> dict[str, float]:
        with self.lock:
            return dict(self.totals)


_ledger: _Ledger | None = None


def _nothing() -> None:
    return None


def _staged(stage: str, func):
    """`func`, its cost charged to `stage` in the ledger in use when it runs."""

    @wraps(func)
    def staged(*args, **kwargs):
        ledger = _ledger
        if ledger is None:
            return func(*args, **kwargs)
        ledger.pause()
        stack = getattr(ledger.local, "stack", None)
        if stack is None:
            stack = ledger.local.stack = []
        ledger._charge(stack[-1] if stack else None, ledger.reading())
        stack.append(stage)
        ledger.resume()
        try:
            return func(*args, **kwargs)
        finally:
            ledger.pause()
            ledger._charge(stack.pop(), ledger.reading())
            ledger.resume()

    return staged


_wrapped = False


def _call_counter() -> _Ledger:
    """A ledger of Python and C function calls (what cProfile's total counts), counted per
    thread by a profile hook set for this thread and every thread started later."""
    local = threading.local()

    def hook(frame, event, arg):
        if _ledger is not ledger:  # counting has stopped: this thread's hook goes too
            sys.setprofile(None)
        elif (event == "call" or event == "c_call") and not getattr(local, "off", False):
            local.n = getattr(local, "n", 0) + 1

    def reading() -> float:
        return float(getattr(local, "n", 0))

    def pause() -> None:
        local.off = True
        if sys.getprofile() is not hook:  # a thread started before the counting (the publisher's)
            sys.setprofile(hook)

    def resume() -> None:
        local.off = False

    global _ledger
    ledger = _ledger = _Ledger(reading, pause, resume)
    sys.setprofile(hook)
    threading.setprofile(hook)
    return ledger


def install(meter: str = "cpu") -> None:
    """Charge the stages' costs from now on, in `meter` ("cpu" or "calls"), from zero. The
    stages' functions are wrapped the first time."""
    global _ledger, _wrapped
    sys.setprofile(None)
    threading.setprofile(None)
    if not _wrapped:
        for stage, places in STAGES.items():
            for module_name, path in places:
                owner = importlib.import_module(module_name)
                *outer, name = path.split(".")
                for part in outer:
                    owner = getattr(owner, part)
                raw = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
                if isinstance(raw, classmethod):
                    setattr(owner, name, classmethod(_staged(stage, raw.__func__)))
                else:
                    setattr(owner, name, _staged(stage, raw))
        _wrapped = True
    _ledger = _Ledger(time.thread_time) if meter == "cpu" else _call_counter()


def stop() -> None:
    """Charge nothing more (and stop counting calls)."""
    global _ledger
    sys.setprofile(None)
    threading.setprofile(None)
    _ledger = None


def totals() -> dict[str, float]:
    """Each stage's cost so far (seconds of CPU, or calls)."""
    return _ledger.snapshot() if _ledger is not None else {}


def install_from_env() -> None:
    """In a served process (after Django is set up): with BENCH_STAGES_FILE set, wrap the
    stages, and meter them in CPU while the file BENCH_STAGES_FILE + ".on" exists (the
    benchmark makes it for a phase of its own: the meter's clock readings cost CPU, which
    must not weigh on the phase compared with a baseline that has no meter). Every
    WRITE_EVERY seconds the process writes whether its meter is on and the totals since it
    was turned on to BENCH_STAGES_FILE suffixed with the process id."""
    folder_and_name = os.environ.get("BENCH_STAGES_FILE")
    if not folder_and_name:
        return
    path = f"{folder_and_name}.{os.getpid()}"
    switch = f"{folder_and_name}.on"
    install("cpu")
    stop()  # wrapped, but charging nothing until the benchmark asks

    def keep_writing():
        while True:
            wanted = os.path.exists(switch)
            if wanted and _ledger is None:
                install("cpu")
            elif not wanted and _ledger is not None:
                stop()
            text = json.dumps({"on": _ledger is not None, "totals": totals()})
            with open(path + ".tmp", "w") as out:
                out.write(text)
            os.replace(path + ".tmp", path)
            time.sleep(WRITE_EVERY)

    threading.Thread(target=keep_writing, name="bench-stages", daemon=True).start()


def read_file(path: str) -> dict:
    """What a served process last wrote: {"on": its meter is on, "totals": per stage}."""
    try:
        with open(path) as source:
            return json.load(source)
    except (OSError, ValueError):
        return {"on": False, "totals": {}}


def per_command(before: dict, after: dict, commands: int, scale: float = 1.0) -> dict[str, float]:
    """Each stage's cost per command between two readings, times `scale` (1000: ms)."""
    return {stage: (after.get(stage, 0.0) - before.get(stage, 0.0)) * scale / max(1, commands) for stage in ORDER}


def line(figures: dict[str, float], unit: str, digits: int = 2) -> str:
    shown = ", ".join(f"{stage} {figures.get(stage, 0.0):.{digits}f}" for stage in ORDER)
    return f"{shown} {unit}; stages together {sum(figures.values()):.{digits}f} {unit}"

"""A command a test starts and stops as a terminal would: in its own process group, with
SIGINT's default action, stopped by a signal to the whole group with a bounded wait.

Why SIGINT needs restoring: a process inherits ignored signals. A suite launched in the
background by a non-interactive shell (`nohup bash .ci/run &`, cron, a CI runner) has
SIGINT ignored, and so would `make run` and its Daphne: the test's Ctrl-C would reach a
server that cannot hear it. `subprocess.Popen(restore_signals=True)` restores SIGPIPE,
SIGXFZ and SIGXFSZ only, and `preexec_fn` is unsafe in a process with threads (the
browser driver's), so the child sets SIGINT back to its default itself before it execs
the command (`SIG_DFL` survives exec; `SIG_IGN` would too).

Used by tests/live/test_default_setup.py (`ReadmeRun`), and through it by
tests/live/test_journey_browser.py and tests/live/test_production_served.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

# Run as `python -c RESTORE_SIGINT command args...`: SIGINT to its default, then exec.
RESTORE_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])"
)


def start_group(args: list[str], **popen) -> subprocess.Popen:
    """`args` in a new session (its own process group, no terminal), SIGINT at its default
    whatever this process inherited."""
    return subprocess.Popen([sys.executable, "-c", RESTORE_SIGINT, *args], start_new_session=True, **popen)


def stop_group(process: subprocess.Popen, wait: float = 60, then: float = 15) -> signal.Signals | None:
    """What a terminal's Ctrl-C does: SIGINT to the whole process group; if the group's
    leader has not stopped after `wait` seconds, SIGTERM, then after `then` more, SIGKILL.
    The signal the leader stopped after (None: it had already exited); its exit status is
    `process.returncode`. A test that means Ctrl-C checks that it was SIGINT."""
    if process.poll() is not None:
        return None
    for sig, seconds in ((signal.SIGINT, wait), (signal.SIGTERM, then), (signal.SIGKILL, then)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass  # the group is gone but for the leader, not yet reaped
        try:
            process.wait(seconds)
            return sig
        except subprocess.TimeoutExpired:
            continue
    process.wait(then)
    return signal.SIGKILL


def sigint_ignored(pid: int) -> bool:
    """Whether process `pid` ignores SIGINT (Linux: the SigIgn mask in /proc)."""
    with open(f"/proc/{pid}/status") as status:
        mask = next(int(line.split()[1], 16) for line in status if line.startswith("SigIgn:"))
    return bool(mask & (1 << (signal.SIGINT - 1)))


def read_output(log) -> str:
    """All a child has written so far to `log`, the file passed as its stdout.

    Read through a descriptor of its own (`/proc/self/fd/N` opens the file afresh): the child
    shares `log`'s file offset, so a `log.seek(0)` here could land between two of the child's
    writes and the next one would overwrite the start of the file (a server's first line
    lost to a migration's output, seen once in CI)."""
    with open(f"/proc/self/fd/{log.fileno()}", encoding="utf-8", errors="replace") as fresh:
        return fresh.read()

"""tests/process_group.py: a command started by a suite that was itself launched with
SIGINT ignored (`nohup bash .ci/run &`) still stops on Ctrl-C (issue 33, finding 11)."""

import signal
import subprocess
import sys
import time

from tests.process_group import sigint_ignored, start_group, stop_group

# Sleeps until a signal stops it; first prints whether it ignores SIGINT.
SLEEPER = [sys.executable, "-c", "import signal, time; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN, flush=True); time.sleep(600)"]


def launched_with_sigint_ignored(args: list[str]) -> subprocess.Popen:
    """`args` started as a background job of a non-interactive shell starts it: SIGINT
    ignored, inherited by everything it starts."""
    return subprocess.Popen(args, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
                            stdout=subprocess.PIPE, text=True)


def test_a_command_started_with_the_helper_stops_on_ctrl_c_even_from_a_suite_that_ignores_it():
    # A suite whose own SIGINT is ignored starts a command through the helper.
    starter = (
        "import sys, signal; from tests.process_group import start_group, sigint_ignored;"
        f"child = start_group({SLEEPER!r}); print(child.pid, flush=True); child.wait()"
    )
    suite = launched_with_sigint_ignored([sys.executable, "-c", starter])
    try:
        assert sigint_ignored(suite.pid)
        pid = suite.stdout.readline().strip()
        assert suite.stdout.readline().strip() == "False"  # the command hears Ctrl-C
        started = time.monotonic()
        signal_used = stop_group(_Leader(int(pid)), wait=10, then=5)
        assert signal_used == signal.SIGINT and time.monotonic() - started < 5
        assert suite.wait(10) == 0  # its child stopped: the suite's wait() returned
    finally:
        suite.kill()
        suite.wait()


def test_the_stop_escalates_to_sigterm_when_ctrl_c_is_not_heard():
    """What a plain start from such a suite gives (SIGINT inherited ignored): the bounded
    stop still ends it, by SIGTERM, and says so."""
    deaf = subprocess.Popen(SLEEPER, start_new_session=True, stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert deaf.stdout.readline().strip() == "True"
    started = time.monotonic()
    assert stop_group(deaf, wait=1, then=5) == signal.SIGTERM
    assert deaf.returncode == -signal.SIGTERM and time.monotonic() - started < 5


class _Leader:
    """A process group leader this process did not start (the suite's child): polled by pid."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode = None

    def poll(self):
        return None if _alive(self.pid) else 0

    def wait(self, timeout=None):
        deadline = time.monotonic() + (timeout or 0)
        while _alive(self.pid):
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("leader", timeout)
            time.sleep(0.05)
        return 0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return False


def test_reading_a_childs_output_while_it_writes_never_overwrites_a_line():
    """A test polls a server's log while the server writes it (tests/process_group.py
    `read_output`): every line the child wrote is there whole, the first one included."""
    import tempfile

    from tests.process_group import read_output

    lines = 3000
    writer = f"import sys\nfor n in range({lines}): print(f'line {{n:05d}} of the child', flush=True)"
    with tempfile.TemporaryFile("w+") as log:
        child = subprocess.Popen([sys.executable, "-c", writer], stdout=log, stderr=subprocess.STDOUT)
        while child.poll() is None:
            read_output(log)  # the parent's reads, racing the child's writes
        assert child.wait() == 0
        assert read_output(log).splitlines() == [f"line {n:05d} of the child" for n in range(lines)]

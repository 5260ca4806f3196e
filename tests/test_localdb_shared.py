"""The embedded database stays up while any process uses it (issue 28), with real
processes: `manage.py serve` (what `make run` runs) and short `manage.py shell -c`
commands that hold the database until the test lets them go.

The two tests with a server share one `var` folder, so the migrations run once."""

import http.cookiejar
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.plugins.services import _free_port
from tests.process_group import read_output

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
START_SECONDS = 240  # a cold serve creates the cluster and applies every migration
# Connects, says "ready", waits for the test's go-file, then uses the same connection.
HOLDER = """
import os, time
from django.db import connection
def users():
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
        return cursor.fetchone()[0]
users()
print("ready", flush=True)
while not os.path.exists({go!r}):
    time.sleep(0.05)
print("done", users(), flush=True)
"""


def _env(var: Path) -> dict:
    """The README's path: no DATABASE_URL, so the app's own PostgreSQL in `var`."""
    drop = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "CARDROOM_APP_DB_PASSWORD",
            "CARDROOM_APP_DB_ROLE", "CARDROOM_LOCALDB_USER")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["CARDROOM_LOCALDB_DIR"] = str(var)
    # stdout and stderr share one file: unbuffered, a line of one is never cut by the other.
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Proc:
    """A manage.py process in its own session, its output in a file."""

    def __init__(self, var: Path, *args: str):
        self.log = tempfile.NamedTemporaryFile("w+", prefix="localdb-", suffix=".log")  # noqa: SIM115 (kept for the process)
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), *args],
            cwd=ROOT, env=_env(var), stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output(self) -> str:
        return read_output(self.log)

    def wait_for(self, text: str, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.output():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no {text!r} from {self.process.args[2:]}:\n{self.output()[-4000:]}")
            time.sleep(0.05)  # polling a child's output, not an assertion

    def finish(self, seconds: float = 60) -> int:
        return self.process.wait(seconds)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(30)


class Holder(Proc):
    """`manage.py shell -c`: joins the database, then holds it until `go()`."""

    def __init__(self, var: Path):
        self.go_file = var.parent / f"go-{os.urandom(4).hex()}"
        super().__init__(var, "shell", "-c", HOLDER.format(go=str(self.go_file)))
        self.wait_for("ready")

    def go(self) -> str:
        """Let it use its connection once more and end; its output."""
        self.go_file.touch()
        assert self.finish() == 0, self.output()
        return self.output()


class Server(Proc):
    def __init__(self, var: Path):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        super().__init__(var, "serve", "--port", str(self.port))
        self.wait_for(f"Serving on {self.url}/", START_SECONDS)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the server did not answer:\n{self.output()[-4000:]}") from None
                time.sleep(0.1)  # polling for the server to come up, not an assertion

    def sigterm(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.finish()

    def log_in(self) -> int:
        """The status of the login form's POST with the demo dealer's credentials."""
        jar = http.cookiejar.CookieJar()

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
        form = opener.open(f"{self.url}/accounts/login/", timeout=30).read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
        body = urllib.parse.urlencode(
            {"csrfmiddlewaretoken": token, "username": "dealer", "password": "dealer-demo"}
        ).encode()
        try:
            with opener.open(f"{self.url}/accounts/login/", data=body, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as answer:  # a redirect (not followed) or an error
            return answer.code


def _running(var: Path) -> bool:
    return (var / "postgres" / "postmaster.pid").exists()


@pytest.fixture(scope="module")
def shared_var():
    """One `var` for the server tests (not pytest's tmp_path: under root the server runs
    as another OS user, who must be able to reach the folder)."""
    folder = Path(tempfile.mkdtemp(prefix="cardroom-localdb-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder / "var"
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def procs():
    """Every process a test starts, killed if the test left it running."""
    started: list[Proc] = []
    yield started
    for proc in started:
        proc.kill()


@pytest.fixture
def var(shared_var):
    yield shared_var
    if _running(shared_var):  # a failed test's leftovers: the next one starts afresh
        subprocess.run([sys.executable, str(ROOT / "manage.py"), "shell", "-c", "pass"], env=_env(shared_var),
                       cwd=ROOT, timeout=120, capture_output=True, check=False)


def test_a_command_started_first_ends_and_the_server_it_let_in_keeps_serving_logins(var, procs):
    command = Holder(var)
    procs.append(command)
    server = Server(var)
    procs.append(server)
    assert "Database: joined the local PostgreSQL already running" in server.output()

    assert "done" in command.go()  # the command that started the database ends ...
    assert _running(var)  # ... and leaves it to the server
    assert server.log_in() == 302  # logged in (a 500 if the database had gone)
    assert server.sigterm() in (0, -signal.SIGTERM)
    assert "Database stopped: no other process was using it." in server.output()
    assert not _running(var)


def test_a_command_keeps_its_database_when_the_server_that_started_it_stops(var, procs):
    server = Server(var)
    procs.append(server)
    assert "Database: started the local PostgreSQL" in server.output()
    command = Holder(var)
    procs.append(command)

    assert server.sigterm() in (0, -signal.SIGTERM)  # Ctrl-C's SIGTERM twin, the command still working
    assert "Database left running: other processes still use it" in server.output()
    assert _running(var)
    done = command.go()  # the same connection, used after the server has gone
    assert re.search(r"^done \d+$", done, re.MULTILINE), done
    assert not _running(var)  # the command was the last user: it stopped the database


def test_a_killed_process_does_not_keep_the_database_up_for_ever(localdb_dir, procs):
    starter = Holder(localdb_dir)
    procs.append(starter)
    other = Holder(localdb_dir)
    procs.append(other)
    starter.kill()  # SIGKILL: no exit handler runs, the kernel drops its lock
    assert _running(localdb_dir)
    other.go()
    assert not _running(localdb_dir)  # the last live user stopped it, the dead one no obstacle

    alone = Holder(localdb_dir)  # starts it again, then dies holding it alone ...
    procs.append(alone)
    alone.kill()
    assert _running(localdb_dir)
    short = Proc(localdb_dir, "shell", "-c", "pass")  # ... so the next process to end stops it
    procs.append(short)
    assert short.finish(120) == 0, short.output()
    assert not _running(localdb_dir)

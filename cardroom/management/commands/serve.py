"""`python manage.py serve`: what `make run` does: migrate, seed the demo floor, serve.

With no DATABASE_URL, loading the settings has already started the checkout's own
PostgreSQL (cardroom/localdb.py), or joined the one another process had started;
migrations run as its owner, Daphne as the app role that owns nothing
(cardroom/db_roles.py). After Daphne stops on Ctrl-C (or SIGTERM) this process leaves
the database: it stops it cleanly if no other process still uses it (a `replay`, the
simulator, ...), and leaves it running for them otherwise; the last of them stops it.
The next `serve` finds its data again (the seeding is idempotent). Both the start and the
stop say which it was.

Daphne runs as a child process, so that the server and the database stop in order:
first the server, then (if it is the last user) the database.
"""

import os
import signal
import subprocess
import sys

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connections

from cardroom import localdb

STOP_SECONDS = 15
_LEFT = {
    "stopped": "Database stopped: no other process was using it.",
    "left": "Database left running: other processes still use it (the last of them stops it).",
    None: "Database already released.",
}


class Command(BaseCommand):
    help = "Apply migrations, seed the demo floor (idempotent) and serve the app with Daphne."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST") or "127.0.0.1")
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8000))
        parser.add_argument("--no-seed", action="store_true", help="do not create the demo floor and logins")

    def handle(self, *args, host, port, no_seed, **options):
        lease = localdb.current_lease()
        if lease is not None:
            where = lease.cluster.data
            self.stdout.write(
                f"Database: started the local PostgreSQL in {where}."
                if lease.started
                else f"Database: joined the local PostgreSQL already running in {where} (another process started it)."
            )
            # Said now, whole: stdout to a file or a pipe is block-buffered, and the server's
            # log (stderr) would otherwise cut into the line.
            self.stdout.flush()
        call_command("migrate", interactive=False, verbosity=1)
        if not no_seed:
            call_command("seed_demo")
        connections.close_all()  # the owner's login is not needed while serving
        env = dict(os.environ)
        if not os.environ.get("DATABASE_URL") and settings.CARDROOM_APP_DB_ROLE:
            # The served app logs in as the role that owns nothing (granted by migrate above).
            env["CARDROOM_LOCALDB_USER"] = settings.CARDROOM_APP_DB_ROLE
        daphne = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", host, "-p", str(port), "config.asgi:application"],
            stdin=subprocess.DEVNULL,
            env=env,
        )
        self.stdout.write(f"Serving on http://{host}:{port}/ (Ctrl-C stops the server)")
        self.stdout.flush()
        signal.signal(signal.SIGTERM, lambda signum, frame: daphne.send_signal(signal.SIGTERM))
        try:
            code = daphne.wait()
        except KeyboardInterrupt:
            code = _stop(daphne)
        self.stdout.write("Server stopped.")
        if lease is not None:
            self.stdout.write(_LEFT[lease.release()])
        if code not in (0, -signal.SIGINT, -signal.SIGTERM):
            sys.exit(code)


def _stop(daphne: subprocess.Popen) -> int:
    # A terminal's Ctrl-C reaches Daphne as well; a SIGINT sent to this process alone does not.
    daphne.send_signal(signal.SIGINT)
    try:
        return daphne.wait(STOP_SECONDS)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        daphne.terminate()
        try:
            return daphne.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            daphne.kill()
            return daphne.wait()

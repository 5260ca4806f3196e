#!/bin/sh
# Container entrypoint: wait until PostgreSQL and Redis (REDIS_URL) accept connections,
# apply migrations as the tables' owner (MIGRATE_DATABASE_URL, default DATABASE_URL),
# which also (re)grants the app's own role (CARDROOM_APP_DB_ROLE, cardroom/db_roles.py),
# then run the command (Daphne by default, see Dockerfile) as that role (DATABASE_URL),
# without the owner's URL or the role's password in its environment.
set -eu
export MIGRATE_DATABASE_URL="${MIGRATE_DATABASE_URL:-${DATABASE_URL:-}}"

python - <<'PY'
import os
import sys
import time

import psycopg
import redis

deadline = time.monotonic() + float(os.environ.get("WAIT_FOR_SERVICES_SECONDS", "60"))


def wait_for(name, check):
    while True:
        try:
            check()
        except Exception as exc:  # not up yet: refused, DNS not ready, starting up, ...
            if time.monotonic() > deadline:
                sys.exit(f"entrypoint: gave up waiting for {name}: {exc}")
            time.sleep(1)
        else:
            print(f"entrypoint: {name} is up", flush=True)
            return


# The owner's login: the app's role may not exist before the first migrate.
database_url = os.environ.get("MIGRATE_DATABASE_URL", "")
if database_url.startswith(("postgres://", "postgresql://")):
    wait_for("PostgreSQL", lambda: psycopg.connect(database_url, connect_timeout=3).close())

redis_url = os.environ.get("REDIS_URL", "")
if redis_url:
    wait_for("Redis", lambda: redis.Redis.from_url(redis_url, socket_connect_timeout=3).ping())
PY

# Several app containers may start at once (`--scale app=N`): they migrate one at a time,
# under a PostgreSQL advisory lock; the later ones find nothing left to do.
python - <<'PY'
import os
import subprocess

import psycopg

database_url = os.environ.get("MIGRATE_DATABASE_URL", "")
as_owner = {**os.environ, "DATABASE_URL": database_url} if database_url else dict(os.environ)
if database_url.startswith(("postgres://", "postgresql://")):
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext('cardroom-migrate'))")
        subprocess.run(["python", "manage.py", "migrate", "--noinput"], check=True, env=as_owner)
else:
    subprocess.run(["python", "manage.py", "migrate", "--noinput"], check=True, env=as_owner)
PY

exec env -u MIGRATE_DATABASE_URL -u CARDROOM_APP_DB_PASSWORD "$@"

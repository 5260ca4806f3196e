#!/bin/sh
# Container entrypoint: wait until PostgreSQL (DATABASE_URL) and Redis (REDIS_URL) accept
# connections, apply migrations, then run the command (Daphne by default, see Dockerfile).
set -eu

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


database_url = os.environ.get("DATABASE_URL", "")
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

database_url = os.environ.get("DATABASE_URL", "")
if database_url.startswith(("postgres://", "postgresql://")):
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext('cardroom-migrate'))")
        subprocess.run(["python", "manage.py", "migrate", "--noinput"], check=True)
else:
    subprocess.run(["python", "manage.py", "migrate", "--noinput"], check=True)
PY

exec "$@"

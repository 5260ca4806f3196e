"""Settings for the test suite: always a real PostgreSQL.

The pytest plugin `tests.plugins.services` starts a throwaway PostgreSQL cluster (and a
Redis server) and exports DATABASE_URL / REDIS_URL before these settings are imported,
unless the caller already points DATABASE_URL at a PostgreSQL server.
"""

import os

from .base import *  # noqa: F403
from .base import DATABASES

if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise RuntimeError(
        "The test suite runs on PostgreSQL only; DATABASE_URL is "
        f"{os.environ.get('DATABASE_URL')!r}. Run it with the README's test command."
    )

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A fixed ledger key for the throwaway test database (the Django test runner turns DEBUG
# off, so the development key file would not be used); CARDROOM_LEDGER_KEY overrides it.
CARDROOM_LEDGER_KEY = os.environ.get("CARDROOM_LEDGER_KEY") or "test:not-secret-only-for-the-test-database-0123456789"

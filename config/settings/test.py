"""Settings for the test suite.

The pytest plugin `tests.plugins.services` starts a throwaway PostgreSQL cluster (and a
Redis server) and exports DATABASE_URL / REDIS_URL before these settings are imported,
unless the caller already points DATABASE_URL at a PostgreSQL server.
"""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from cardroom import localdb

from .base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A fixed ledger key for the throwaway test database (the Django test runner turns DEBUG
# off, so the development key file would not be used); CARDROOM_LEDGER_KEY overrides it.
CARDROOM_LEDGER_KEY = os.environ.get("CARDROOM_LEDGER_KEY") or "test:not-secret-only-for-the-test-database-0123456789"

# The suite runs as the role production serves with (tests/db_access.py): `migrate`
# grants it (cardroom/db_roles.py), then every test's connection acts as it.
CARDROOM_APP_DB_ROLE = os.environ.get("CARDROOM_APP_DB_ROLE") or localdb.APP_ROLE

# The witness files of a test session go to a folder of their own, removed at the end (a
# Daphne started by a test inherits it through the environment); tests/conftest.py gives
# each test a fresh folder inside it, so one test's heads never meet another's database.
if not os.environ.get("CARDROOM_WITNESS_DIR"):
    os.environ["CARDROOM_WITNESS_DIR"] = tempfile.mkdtemp(prefix="cardroom-witness-")
    atexit.register(shutil.rmtree, os.environ["CARDROOM_WITNESS_DIR"], True)
CARDROOM_WITNESS_DIR = Path(os.environ["CARDROOM_WITNESS_DIR"])

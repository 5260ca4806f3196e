"""Fixtures of the compliance tests.

`ledger` builds the test ledger (tests/compliance/ledger.py) once for this package and
commits it, because the streamed exports read it over a dedicated database connection
that cannot see a test's uncommitted transaction. Tests here therefore use plain
`django_db` (each test's own writes roll back; the ledger stays) and never
`transaction=True` (its flush would empty the ledger). At the end of the package the
ledger is removed with TRUNCATE (the append-only triggers refuse DELETE; TRUNCATE is
left to database privileges, as the test runner's flush does), so later tests start
from an empty database.
"""

import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from . import ledger as ledger_module
from .asgi import AsgiClient

LEDGER_TABLES = ("tables_table", "collections_fees_exportmanifest")


@pytest.fixture(scope="package")
def ledger(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        started = time.perf_counter()
        built = ledger_module.build()
        built.build_seconds = time.perf_counter() - started
        try:
            yield built
        finally:
            with connection.cursor() as cursor:
                cursor.execute(f"TRUNCATE {', '.join(LEDGER_TABLES)} CASCADE")


@pytest.fixture
def officer(db):
    return get_user_model().objects.create_user("officer-olga", password="not-used-here")


@pytest.fixture
def officer_client(client, officer):
    client.force_login(officer)
    return client


@pytest.fixture
def asgi(officer_client):
    """Requests through Django's ASGI handler, as Daphne makes them, logged in."""
    return AsgiClient(officer_client)

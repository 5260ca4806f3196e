"""Fixtures of the compliance tests.

`ledger` builds the test ledger (tests/compliance/ledger.py) once for this package and
commits it, because the streamed exports read it over a dedicated database connection
that cannot see a test's uncommitted transaction. Tests here therefore use plain
`django_db` (each test's own writes roll back; the ledger stays) and never
`transaction=True` (its flush would empty the ledger). At the end of the package the
ledger is removed with TRUNCATE (the append-only triggers refuse DELETE; TRUNCATE is
left to database privileges, as the test runner's flush does) of every table that was
empty before it was built (whatever the command service wrote to, the audit trail
included), so later tests start from the database they would have had; rows that
migrations put in (content types, permissions, groups) are left alone.
"""

import time

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from cardroom import witness

from . import ledger as ledger_module
from tests.db_access import empty_tables, remove_committed

from .asgi import AsgiClient

@pytest.fixture(scope="package")
def ledger(django_db_setup, django_db_blocker, tmp_path_factory):
    # The ledger's commands witness their heads into a folder of the package's
    # (cardroom/witness.py); the tests that use the ledger point the witness there.
    witness_dir = tmp_path_factory.mktemp("ledger-witness")
    with django_db_blocker.unblock(), override_settings(CARDROOM_WITNESS_DIR=witness_dir):
        were_empty = empty_tables()
        started = time.perf_counter()
        built = ledger_module.build()
        witness.close()  # as the timer and the exit would: the last heads, each file's end
        built.build_seconds = time.perf_counter() - started
        built.witness_dir = witness_dir
        try:
            yield built
        finally:
            remove_committed(were_empty)


@pytest.fixture(autouse=True)
def witness_dir(request, settings, tmp_path):
    """The ledger's witness folder for the tests that use the ledger, a fresh one for the others."""
    if "ledger" in request.fixturenames:
        settings.CARDROOM_WITNESS_DIR = request.getfixturevalue("ledger").witness_dir
    else:
        settings.CARDROOM_WITNESS_DIR = tmp_path / "witness"
    yield settings.CARDROOM_WITNESS_DIR
    witness.close()


def _with_role(username, role):
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(username, password="not-used-here")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def officer(db):
    return _with_role("officer-olga", "compliance")


@pytest.fixture
def officer_client(client, officer):
    client.force_login(officer)
    return client


@pytest.fixture
def supervisor_client(db):
    from django.test import Client

    supervisor = Client()
    supervisor.force_login(_with_role("floor-fran", "supervisor"))
    return supervisor


@pytest.fixture
def asgi(officer_client):
    """Requests through Django's ASGI handler, as Daphne makes them, logged in."""
    return AsgiClient(officer_client)

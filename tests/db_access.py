"""The suite's database work runs as the role production serves with.

`make run` and the compose stack migrate as the tables' owner and serve as the app role
(`cardroom_app`, cardroom/db_roles.py), which may not UPDATE or DELETE a ledger row,
TRUNCATE, ALTER or CREATE. The suite does the same: pytest-django creates and migrates
the test database as the owner (whose `migrate` grants the app role), and from then on
every connection the tests open (the test's own, a consumer thread's, an export's
dedicated connection, a Daphne process's) acts as the app role. So a privilege the app
lacks fails the test that needs it, as it would fail in the cardroom.

Connections in this process log in as the owner and take the app role at connection
start (libpq's `options=-c role=...`), so PostgreSQL checks every statement against the
app role's grants. The owner is taken back only where a test plays the part of someone
with the owner's rights on purpose: a tamperer switching triggers off, the runner
emptying the tables between transactional tests (`as_owner`). Processes the tests start
(Daphne) log in as the app role itself (`app_role_database_url`).
"""

from __future__ import annotations

import os
from contextlib import ExitStack, contextmanager
from urllib.parse import quote

from django.conf import settings
from django.db import connections
from django.test import testcases

ROLE_OPTION = "-c role={role}"


def app_role() -> str:
    role = settings.CARDROOM_APP_DB_ROLE
    assert role, "the test settings name the served role (CARDROOM_APP_DB_ROLE)"
    return role


def serve_as_app_role() -> None:
    """Every connection opened from now on acts as the app role."""
    role = app_role()
    for connection in connections.all():
        connection.close()
        options = connection.settings_dict.setdefault("OPTIONS", {})
        options["options"] = ROLE_OPTION.format(role=role)
    _flush_as_owner()


def serve_as_owner() -> None:
    """Connections opened from now on act as the owner again (the database's teardown)."""
    for connection in connections.all():
        connection.close()
        connection.settings_dict.setdefault("OPTIONS", {}).pop("options", None)


@contextmanager
def as_owner(using: str = "default"):
    """The owner's rights on this connection for the block (SET ROLE NONE: the session
    user, who logged in as the owner), then the app role again (RESET ROLE: back to the
    role set at connection start)."""
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute("SET ROLE NONE")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


def assert_refused_to_both(statement) -> None:
    """An append-only ledger refuses `statement` (an UPDATE or DELETE) twice over: the
    app's login lacks the privilege, and the owner, or whoever holds its rights, meets
    the append-only trigger. Each attempt in a savepoint, so the test goes on."""
    import pytest
    from django.db import IntegrityError, ProgrammingError, transaction

    with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
        statement()
    with pytest.raises(IntegrityError, match="append-only"), as_owner(), transaction.atomic():
        statement()


def owner_connection_params(using: str = "default") -> dict:
    """psycopg parameters of a connection that stays the owner: a test's own observer
    (pg_stat_activity shows the query text of other sessions to their role, or to a
    superuser), never the app's work."""
    params = connections[using].get_connection_params()
    for not_for_psycopg in ("cursor_factory", "context", "options"):
        params.pop(not_for_psycopg, None)
    return params


def app_role_database_url() -> str:
    """DATABASE_URL for a process the tests start: it logs in as the app role, with the
    password the test cluster gave it, if any."""
    db = connections["default"].settings_dict
    password = os.environ.get("CARDROOM_APP_DB_PASSWORD", "")
    auth = quote(app_role(), safe="") + (":" + quote(password, safe="") if password else "")
    return f"postgresql://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


_original_fixture_teardown = testcases.TransactionTestCase._fixture_teardown


def _flush_as_owner() -> None:
    """A transactional test's teardown empties every table with TRUNCATE, which the app
    role may not do (nor may anyone in the cardroom): the runner does it as the owner."""
    if getattr(testcases.TransactionTestCase._fixture_teardown, "as_owner", False):
        return

    def _fixture_teardown(self):
        with ExitStack() as owner:
            for alias in self._databases_names(include_mirrors=False):
                owner.enter_context(as_owner(alias))
            return _original_fixture_teardown(self)

    _fixture_teardown.as_owner = True
    testcases.TransactionTestCase._fixture_teardown = _fixture_teardown


# The one table that holds session keys by design: Django's session store, where a key
# is looked up. Every other table is a record, and a record keeps a session by its tag.
SESSION_STORE = "django_session"


def columns_holding(text: str, using: str = "default") -> list[tuple[str, str]]:
    """(table, column) of every text, JSON or character column of the database, the
    session store aside, in which some row contains `text`: read as the owner, who sees
    every table, so that no record the app role cannot read escapes the scan."""
    connection = connections[using]
    found = []
    with as_owner(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name <> %s "
            "AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb') "
            "ORDER BY table_name, column_name",
            [SESSION_STORE],
        )
        for table, column in cursor.fetchall():
            cursor.execute(
                f'SELECT EXISTS (SELECT 1 FROM "{table}" WHERE strpos("{column}"::text, %s) > 0)', [text]
            )
            if cursor.fetchone()[0]:
                found.append((table, column))
    return found


def empty_tables(using: str = "default") -> list[str]:
    """The tables that hold no row now: what a fixture that commits a day of records for a
    whole module or package removes again afterwards (`remove_committed`)."""
    connection = connections[using]
    names = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        empty = []
        for name in sorted(names):
            cursor.execute(f"SELECT NOT EXISTS (SELECT 1 FROM {connection.ops.quote_name(name)})")
            if cursor.fetchone()[0]:
                empty.append(name)
    return empty


def remove_committed(were_empty: list[str], using: str = "default") -> None:
    """Empty again, with TRUNCATE as the owner (the app role may not; the test runner's
    flush does the same), every table that was empty before a fixture committed its
    records, so later tests start from the database they would have had. The house audit
    chain's head row was made by its migration (never empty, so not truncated): it starts
    again as after a flush (cardroom/audit.py `restart_emptied_house_chain`)."""
    from django.apps import apps

    from cardroom.audit import restart_emptied_house_chain

    connection = connections[using]
    with as_owner(using), connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(connection.ops.quote_name(t) for t in were_empty)}")
    restart_emptied_house_chain(apps.get_app_config("cardroom"), using=using)

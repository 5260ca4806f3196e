"""The app's own database login cannot rewrite the ledger (cardroom/db_roles.py).

The role is created and granted in the test database from the owner's (superuser's)
connection, committed, as `migrate` would do with CARDROOM_APP_DB_ROLE set; a second
connection logs in as it, with the password it was given (the throwaway cluster asks
every role for one), and PostgreSQL itself must refuse every rewrite.
"""

import os
import secrets

import psycopg
import pytest
from django.db import connection

from cardroom.db_roles import grant_app_role
from collections_fees.exports import dedicated_connection_params
from tests.db_access import as_owner

# A role of this test's own, named per xdist worker: roles are the cluster's, shared by
# every worker's database, and two workers setting one role's password at once fail with
# "tuple concurrently updated".
ROLE = f"cardroom_app_test_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def app_db(ledger, django_db_blocker):
    with django_db_blocker.unblock(), as_owner():
        password = secrets.token_urlsafe(16)
        grant_app_role(ROLE, password=password)
        grant_app_role(ROLE, password=password)  # idempotent: the second run changes nothing and fails nothing
        params = {**dedicated_connection_params(), "user": ROLE, "password": password}
        params.pop("options", None)  # logs in as the role itself, not the suite's owner acting as the app
        with psycopg.connect(**params, autocommit=True) as conn:
            # Never wait behind the test's own transaction: a refusal comes before any lock.
            conn.execute("SET lock_timeout = '2s'")
            yield conn
        with as_owner(), connection.cursor() as cursor:
            cursor.execute(f"DROP OWNED BY {ROLE}")
            cursor.execute(f"DROP ROLE {ROLE}")


REFUSED = [
    "ALTER TABLE collections_fees_collectionentry DISABLE TRIGGER USER",
    "ALTER TABLE tables_tableevent DISABLE TRIGGER USER",
    "ALTER TABLE tables_chaincheckpoint DISABLE TRIGGER USER",
    "TRUNCATE collections_fees_collectionentry",
    "TRUNCATE collections_fees_jackpotentry",
    "UPDATE collections_fees_jackpotentry SET amount = 1",
    "DELETE FROM collections_fees_jackpotentry",
    "DELETE FROM collections_fees_jackpotmeter",
    "DELETE FROM tables_rulesetchange",  # which rules were in force is proven from these rows
    "DELETE FROM tables_ruleset",
    "TRUNCATE cardroom_auditentry",
    "TRUNCATE tables_chaincheckpoint",
    "UPDATE collections_fees_collectionentry SET amount = 1 WHERE seq = 1",
    "DELETE FROM collections_fees_collectionentry WHERE seq = 1",
    "UPDATE tables_tableevent SET actor = 'nobody' WHERE seq = 1",
    "DELETE FROM tables_tableevent WHERE seq = 1",
    "UPDATE tables_chaincheckpoint SET rows = 0",
    "DELETE FROM tables_chaincheckpoint",
    "DELETE FROM cardroom_auditentry",
    "DELETE FROM rounds_round",
    "DELETE FROM tables_alertacknowledgement",
    "UPDATE tables_alertacknowledgement SET ref = ''",
    # The refused-command log: a retry's answer and what was attempted, never pruned.
    "DELETE FROM tables_rejectedcommand",
    "UPDATE tables_rejectedcommand SET code = 'x'",
    "TRUNCATE tables_rejectedcommand",
    "CREATE TABLE sneaky (id int)",
    # The count's records (collections_fees/counts.py): a recount or a reopen is a new row.
    "UPDATE collections_fees_boxcount SET counted = 0",
    "DELETE FROM collections_fees_countsignature",
    "UPDATE collections_fees_shiftclose SET action = 'reopen'",
    "DELETE FROM collections_fees_boxplacement",
    "UPDATE collections_fees_dropbox SET kind = 'fees'",
    # The waitlist (tables/waitlist.py): nobody leaves it without a trace.
    "UPDATE tables_waitlistevent SET player = 'x'",
    "DELETE FROM tables_waitlistevent",
    # Dealer reliefs (tables/relief.py): a plan is replaced by a newer one; a hand-over stands.
    "UPDATE tables_reliefplan SET relief_minutes = 1",
    "DELETE FROM tables_reliefpush",
    "UPDATE tables_dealerhandover SET after_round = 0",
    "DELETE FROM tables_dealerhandover",
]


@pytest.mark.parametrize("statement", REFUSED)
def test_the_app_role_is_refused_by_postgresql(app_db, statement):
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
        app_db.execute(statement)
    assert "permission denied" in str(refused.value) or "must be owner" in str(refused.value)


def test_the_app_role_reads_appends_and_moves_what_the_app_moves(app_db, ledger):
    """What the command service does is allowed: read the ledger, update the table row,
    update a round still in play (checked by its own trigger), add a checkpoint."""
    with app_db.transaction(force_rollback=True):
        assert app_db.execute("SELECT count(*) FROM collections_fees_collectionentry").fetchone()[0] > 0
        app_db.execute("UPDATE tables_table SET is_open = is_open WHERE id = %s", [ledger.table_a.pk])
        # A progressive's meter row moves with every contribution and award; its ledger grows.
        app_db.execute("UPDATE collections_fees_jackpotmeter SET meter = meter")
        app_db.execute("SELECT count(*) FROM collections_fees_jackpotentry")
        app_db.execute("UPDATE rounds_round SET street = street WHERE status NOT IN ('settled', 'voided')")
        app_db.execute(
            "INSERT INTO tables_chaincheckpoint (table_id, log, kind, gaming_day, last_seq, head, rows, key_id, "
            "signature, created_at) VALUES (%s, 'events', 'on_demand', '2026-03-02', 0, '', 0, 'x', '', now())",
            [ledger.table_a.pk],
        )
        app_db.execute("DELETE FROM django_session")


def test_the_app_role_owns_nothing_and_is_no_superuser(app_db):
    owned = app_db.execute(
        "SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE r.rolname = %s", [ROLE]
    ).fetchone()[0]
    superuser = app_db.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [ROLE]).fetchone()[0]
    assert (owned, superuser) == (0, False)

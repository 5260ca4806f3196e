"""The app's least-privilege PostgreSQL login (settings.CARDROOM_APP_DB_ROLE).

Migrations run as the role that owns the tables (DATABASE_URL of `manage.py migrate`);
the app process logs in as a role that owns nothing and holds only what it uses:

* the append-only ledger tables (every table with the `cardroom_refuse_change` DELETE
  trigger, cardroom/ledger.py): SELECT and INSERT; UPDATE too where the UPDATE trigger
  is conditional (a round moves through its streets until it is settled or voided);
  never DELETE or TRUNCATE;
* a progressive's meter row and the cash log's head row: SELECT, INSERT, UPDATE (never DELETE);
* every other table (the table row with its chain heads, seats, sessions, users, login
  lockouts, ...): SELECT, INSERT, UPDATE, DELETE; `django_migrations` and the
  database's identity (`cardroom_databaseidentity`): SELECT only. The
  table row's `drivers_version` is the exception a grant cannot state (the role updates
  that row on every command): a trigger refuses any change of it but the one the
  assignment trigger makes (tables/migrations/0019_table_drivers_version.py);
* sequences: USAGE and SELECT; the schema: USAGE (no CREATE).

Not the owner, so no ALTER TABLE (no DISABLE TRIGGER) and no DROP. Tables created later
by the owner get SELECT and INSERT by default until the next `migrate` re-grants.

`grant_app_role` runs after every `migrate` (post_migrate) when the setting is set:
idempotent, it creates the role if missing (LOGIN, with CARDROOM_APP_DB_PASSWORD when
given: without one it can log in only where the server trusts it), revokes everything it
held on the schema's tables and grants the above, in one transaction.
"""

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections, transaction

SCHEMA = "public"
# The database's identity (cardroom.models.DatabaseIdentity) is made by `migrate` alone.
READ_ONLY_TABLES = {"django_migrations", "cardroom_databaseidentity"}
# Rows the app moves but never removes: a progressive's meter holds a fund's amounts
# (collections_fees.JackpotMeter; its movements are the append-only JackpotEntry chain),
# the cash log's head (patrons.CashLog; its rows are the CashTransaction chain), and the
# house audit chain's head (cardroom.AuditHouseHead; its rows are the AuditHouseLink chain).
NEVER_DELETED_TABLES = {"collections_fees_jackpotmeter", "patrons_cashlog", "cardroom_audithousehead", "patrons_awardcashout",
                        # A rule set and its versions: which rules were in force is proven from them.
                        "tables_ruleset", "tables_rulesetchange"}


def append_only_tables(cursor) -> dict[str, bool]:
    """{table: whether its UPDATE trigger is conditional} for every append-only table."""
    cursor.execute(
        """
        SELECT c.relname, bool_or(t.tgname = c.relname || '_no_update' AND t.tgqual IS NOT NULL)
        FROM pg_trigger t
        JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE n.nspname = %s AND p.proname = 'cardroom_refuse_change'
        GROUP BY c.relname
        """,
        [SCHEMA],
    )
    return dict(cursor.fetchall())


def grant_app_role(role: str, *, password: str = "", using: str = "default") -> None:
    connection = connections[using]
    if connection.vendor != "postgresql" or not role:
        return
    quote = connection.ops.quote_name
    name = quote(role)
    with transaction.atomic(using=using), connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
        if owner == role:
            raise ImproperlyConfigured(
                f"CARDROOM_APP_DB_ROLE is {role!r}, the role running the migrations: migrate as the tables' owner "
                "and run the app as a different role."
            )
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [role])
        found = cursor.fetchone()
        if found is None:
            cursor.execute(f"CREATE ROLE {name} LOGIN")
        elif found[0]:
            raise ImproperlyConfigured(f"CARDROOM_APP_DB_ROLE {role!r} is a superuser: it could rewrite the ledger.")
        if password:
            cursor.execute(f"ALTER ROLE {name} PASSWORD %s", [password])

        cursor.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {name}")
        cursor.execute(f"REVOKE CREATE ON SCHEMA {SCHEMA} FROM {name}")
        cursor.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA {SCHEMA} FROM {name}")
        cursor.execute(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {SCHEMA} FROM {name}")
        cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {SCHEMA} TO {name}")
        ledger = append_only_tables(cursor)
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [SCHEMA])
        for (table,) in cursor.fetchall():
            if table in READ_ONLY_TABLES:
                privileges = "SELECT"
            elif table in ledger:
                privileges = "SELECT, INSERT, UPDATE" if ledger[table] else "SELECT, INSERT"
            elif table in NEVER_DELETED_TABLES:
                privileges = "SELECT, INSERT, UPDATE"
            else:
                privileges = "SELECT, INSERT, UPDATE, DELETE"
            cursor.execute(f"GRANT {privileges} ON {quote(table)} TO {name}")
        # Tables the owner creates later (a migration's new table) are usable at once,
        # append-only until the next grant says otherwise.
        for statement in (
            f"GRANT SELECT, INSERT ON TABLES TO {name}",
            f"GRANT USAGE, SELECT ON SEQUENCES TO {name}",
        ):
            cursor.execute(f"ALTER DEFAULT PRIVILEGES FOR ROLE {quote(owner)} IN SCHEMA {SCHEMA} {statement}")


def grant_after_migrate(sender, using="default", **kwargs):
    """post_migrate receiver (cardroom/apps.py): once per migrate, after every app."""
    if sender.label == "cardroom" and settings.CARDROOM_APP_DB_ROLE:
        grant_app_role(settings.CARDROOM_APP_DB_ROLE, password=settings.CARDROOM_APP_DB_PASSWORD, using=using)

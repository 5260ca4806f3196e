"""Append-only tables, enforced by the database itself.

The regulator must be able to trust that settled rounds, settlement lines, collection
entries and the event log were never edited: the application never updates or deletes
them, and a trigger refuses it to anyone else too. Corrections are new rows.

Used from migrations: `migrations.RunPython(*refuse_changes("rounds_settlementline"))`.
TRUNCATE is left to database privileges (the test runner empties tables with it).
"""

PG_FUNCTION = """
CREATE OR REPLACE FUNCTION cardroom_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'cardroom: % on % is refused: the table is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def refuse_changes(table: str, *, update_when: str | None = None):
    """RunPython (forward, backward) installing triggers that refuse UPDATE and DELETE.

    `update_when` is an SQL condition on OLD: UPDATE is refused only when it holds (a
    round may move through its streets until it is settled or voided). DELETE is always
    refused.
    """

    def forward(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        statements = []
        if vendor == "postgresql":
            statements.append(PG_FUNCTION)
            upd_when = f"WHEN ({update_when})" if update_when else ""
            statements += [
                f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} FOR EACH ROW {upd_when} "
                f"EXECUTE FUNCTION cardroom_refuse_change()",
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} FOR EACH ROW "
                f"EXECUTE FUNCTION cardroom_refuse_change()",
            ]
        elif vendor == "sqlite":
            upd_when = f"WHEN {update_when}" if update_when else ""
            for op, when in (("UPDATE", upd_when), ("DELETE", "")):
                statements.append(
                    f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} {when} BEGIN "
                    f"SELECT RAISE(ABORT, 'cardroom: {op} on {table} is refused: the table is append-only'); END"
                )
        else:
            raise NotImplementedError(f"no append-only triggers for {vendor}")
        for sql in statements:
            schema_editor.execute(sql, params=None)  # no placeholders: % is literal

    def backward(apps, schema_editor):
        for op in ("update", "delete"):
            if schema_editor.connection.vendor == "postgresql":
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_{op} ON {table}")
            else:
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_{op}")

    return forward, backward


def reinstall_on_sqlite(*tables: str):
    """RunPython (forward, backward) putting the triggers back after an AddField on SQLite:
    Django adds a column with a default there by copying the table into a new one, and the
    old table's triggers go with it (PostgreSQL adds the column in place and keeps them)."""

    def forward(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            for table in tables:
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
                refuse_changes(table)[0](apps, schema_editor)

    def backward(apps, schema_editor):
        pass

    return forward, backward

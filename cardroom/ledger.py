"""Append-only tables, enforced by the database itself.

The regulator must be able to trust that settled rounds, settlement lines, collection
entries and the event log were never edited: the application never updates or deletes
them, and a trigger refuses it to anyone else too. Corrections are new rows.

Used from migrations: `migrations.RunPython(*refuse_changes("rounds_settlementline"))`.
TRUNCATE is left to database privileges (the test runner empties tables with it).
"""

from .access import session_tag

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
        upd_when = f"WHEN ({update_when})" if update_when else ""
        statements = [
            PG_FUNCTION,
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} FOR EACH ROW {upd_when} "
            f"EXECUTE FUNCTION cardroom_refuse_change()",
            f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} FOR EACH ROW "
            f"EXECUTE FUNCTION cardroom_refuse_change()",
        ]
        for sql in statements:
            schema_editor.execute(sql, params=None)  # no placeholders: % is literal

    def backward(apps, schema_editor):
        for op in ("update", "delete"):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_{op} ON {table}")

    return forward, backward


# Distinct keys rewritten per UPDATE: each statement reads the table once, joining the
# rows to this many (key, tag) pairs by hash, whatever the number of rows.
RETAG_BATCH = 1000


def tag_recorded_sessions(table: str, column: str):
    """RunPython (forward, backward) rewriting the session keys recorded in `table`.`column`
    of an append-only table into their tags (cardroom.access.session_tag).

    Before sessions were recorded by tag, the column held the raw key, a credential. The
    update trigger is switched off for these statements alone and on again, inside the
    migration's transaction, as the owner who runs migrations (the served role may not
    ALTER TABLE); nothing else in a row changes. A trail holds many rows per session, so
    the keys are read once each and every row of a key is rewritten by one joined UPDATE,
    not one statement per row. A tag cannot be turned back into its key: going back
    leaves the tags in place.
    """

    def forward(apps, schema_editor):
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(f"SELECT DISTINCT {column} FROM {table} WHERE {column} <> ''")
            keys = [key for (key,) in cursor.fetchall()]
        if not keys:
            return
        schema_editor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {table}_no_update")
        for start in range(0, len(keys), RETAG_BATCH):
            batch = keys[start:start + RETAG_BATCH]
            pairs = ", ".join(["(%s, %s)"] * len(batch))
            schema_editor.execute(
                f"UPDATE {table} AS recorded SET {column} = pair.tag FROM (VALUES {pairs}) AS pair(key, tag) "
                f"WHERE recorded.{column} = pair.key",
                [value for key in batch for value in (key, session_tag(key))],
            )
        schema_editor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {table}_no_update")

    def backward(apps, schema_editor):
        pass  # the tags stay: the keys cannot be had back from them

    return forward, backward

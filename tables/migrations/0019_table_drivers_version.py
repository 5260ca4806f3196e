"""Who may drive a table, as a counter on its row, moved by the database.

`tables_table.drivers_version` is moved on by a trigger on `tables_dealerassignment`
whenever rows of it are inserted, updated, deleted or truncated: once per table the
statement touched. A trigger, not the service that writes assignments, because
assignments are also changed by the relief hand-over, the seed, the admin and raw SQL,
and a change that missed the counter would let an ended dealer keep driving until their
socket's periodic check. The command service reads the counter on the row it locks
anyway (tables/services.py `_check`), so comparing it costs no query.

A second trigger keeps the counter to that one writer: an UPDATE of the table row that
changes `drivers_version` is refused unless it comes from the assignment trigger (trigger
depth 2). The app's database role updates table rows on every command, so a column
privilege alone could not say this; the served role cannot create, alter or disable a
trigger (cardroom/db_roles.py: it owns nothing), so it cannot get around it.
"""

from django.db import migrations, models

FUNCTIONS = """
CREATE OR REPLACE FUNCTION cardroom_drivers_changed() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE tables_table SET drivers_version = drivers_version + 1;
    ELSIF TG_OP = 'INSERT' THEN
        UPDATE tables_table SET drivers_version = drivers_version + 1
        WHERE id IN (SELECT table_id FROM new_rows);
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE tables_table SET drivers_version = drivers_version + 1
        WHERE id IN (SELECT table_id FROM old_rows);
    ELSE
        UPDATE tables_table SET drivers_version = drivers_version + 1
        WHERE id IN (SELECT table_id FROM old_rows UNION SELECT table_id FROM new_rows);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION cardroom_drivers_version_kept() RETURNS trigger AS $$
BEGIN
    -- 1: an UPDATE of the table row itself; 2: the one cardroom_drivers_changed runs.
    IF pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'cardroom: drivers_version of table % moves only with its dealer assignments', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""

# Statement-level, with the transition tables: one bump per table per statement, however
# many of its assignments a statement changes (a hand-over ends several at once).
TRIGGERS = """
CREATE TRIGGER tables_dealerassignment_drivers_inserted AFTER INSERT ON tables_dealerassignment
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cardroom_drivers_changed();
CREATE TRIGGER tables_dealerassignment_drivers_updated AFTER UPDATE ON tables_dealerassignment
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION cardroom_drivers_changed();
CREATE TRIGGER tables_dealerassignment_drivers_deleted AFTER DELETE ON tables_dealerassignment
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cardroom_drivers_changed();
CREATE TRIGGER tables_dealerassignment_drivers_truncated AFTER TRUNCATE ON tables_dealerassignment
    FOR EACH STATEMENT EXECUTE FUNCTION cardroom_drivers_changed();
CREATE TRIGGER tables_table_drivers_version_kept BEFORE UPDATE ON tables_table FOR EACH ROW
    WHEN (NEW.drivers_version IS DISTINCT FROM OLD.drivers_version)
    EXECUTE FUNCTION cardroom_drivers_version_kept();
"""

DROP = """
DROP TRIGGER IF EXISTS tables_table_drivers_version_kept ON tables_table;
DROP TRIGGER IF EXISTS tables_dealerassignment_drivers_truncated ON tables_dealerassignment;
DROP TRIGGER IF EXISTS tables_dealerassignment_drivers_deleted ON tables_dealerassignment;
DROP TRIGGER IF EXISTS tables_dealerassignment_drivers_updated ON tables_dealerassignment;
DROP TRIGGER IF EXISTS tables_dealerassignment_drivers_inserted ON tables_dealerassignment;
DROP FUNCTION IF EXISTS cardroom_drivers_version_kept();
DROP FUNCTION IF EXISTS cardroom_drivers_changed();
"""


class Migration(migrations.Migration):

    dependencies = [
        ("tables", "0018_handover_session_tag"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="drivers_version",
            field=models.PositiveBigIntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.RunSQL(FUNCTIONS + TRIGGERS, DROP),
    ]

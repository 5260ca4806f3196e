"""A rotation log entry records its gaming day, and the log's index leads with it.

The day was a join away (the entry's event), so PostgreSQL could not tell how many
entries a day range holds and sorted a month of them for a page of 101 (docs/scaling.md).
The entries recorded before this get their event's gaming day: the table is append-only
(cardroom/ledger.py), so its no-update trigger is off for the one UPDATE and on again,
inside the migration's transaction, as the owner. Nothing else in a row changes, and the
day is the one the event already recorded. From here on the command path writes it
(tables/recording.py). The column is added empty, filled, then made NOT NULL.
"""

from django.db import migrations, models

TABLE = "tables_rotationlogentry"
EVENT = "tables_tableevent"


def record_gaming_days(apps, schema_editor):
    schema_editor.execute(f"ALTER TABLE {TABLE} DISABLE TRIGGER {TABLE}_no_update")
    schema_editor.execute(
        f"UPDATE {TABLE} e SET gaming_day = ev.gaming_day FROM {EVENT} ev WHERE ev.id = e.event_id"
    )
    schema_editor.execute(f"ALTER TABLE {TABLE} ENABLE TRIGGER {TABLE}_no_update")


class Migration(migrations.Migration):

    dependencies = [
        ("tables", "0024_event_index_by_table_and_time"),
    ]

    operations = [
        migrations.AddField(
            model_name="rotationlogentry",
            name="gaming_day",
            field=models.DateField(null=True),
        ),
        migrations.RunPython(record_gaming_days, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="rotationlogentry",
            name="gaming_day",
            field=models.DateField(),
        ),
        migrations.RemoveIndex(
            model_name="rotationlogentry",
            name="rotation_table_at",
        ),
        migrations.AddIndex(
            model_name="rotationlogentry",
            index=models.Index(fields=["table", "gaming_day", "created_at", "id"], name="rotation_table_day_at"),
        ),
    ]

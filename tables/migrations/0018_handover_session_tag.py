"""A hand-over names its session by tag (cardroom.access.session_tag), not by the key.

The rows written before this held the raw session key, a credential. They are rewritten
here: the table is append-only (cardroom/ledger.py), so the update trigger is switched off
for this one statement and on again, inside the migration's transaction, as the owner
(the served role may not ALTER TABLE). Nothing else changes in a row. The key cannot be
recovered from its tag, so going back leaves the tags in place.
"""

from django.db import migrations, models

from cardroom.access import session_tag  # the kernel's, not an app's runtime module

TABLE = "tables_dealerhandover"


def tag_sessions(apps, schema_editor):
    handovers = apps.get_model("tables", "DealerHandover")
    schema_editor.execute(f"ALTER TABLE {TABLE} DISABLE TRIGGER {TABLE}_no_update")
    for row in handovers.objects.exclude(session="").only("pk", "session").iterator():
        handovers.objects.filter(pk=row.pk).update(session=session_tag(row.session))
    schema_editor.execute(f"ALTER TABLE {TABLE} ENABLE TRIGGER {TABLE}_no_update")


class Migration(migrations.Migration):

    dependencies = [
        ("tables", "0017_dealer_relief"),
    ]

    operations = [
        migrations.AlterField(
            model_name="dealerhandover",
            name="session",
            field=models.CharField(blank=True, help_text="the session's tag (events.session_tag)", max_length=64),
        ),
        migrations.RunPython(tag_sessions, migrations.RunPython.noop),
    ]

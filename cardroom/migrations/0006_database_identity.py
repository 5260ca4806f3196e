"""The database's identity (cardroom.models.DatabaseIdentity): a random UUID stored with
the schema, named by every witness line (cardroom/witness.py). Append-only; the app's
role may only read it (cardroom/db_roles.py READ_ONLY_TABLES)."""

import uuid

from django.db import migrations, models
from django.utils import timezone

from cardroom.ledger import refuse_changes


def create_identity(apps, schema_editor):
    DatabaseIdentity = apps.get_model("cardroom", "DatabaseIdentity")
    DatabaseIdentity.objects.using(schema_editor.connection.alias).get_or_create(
        pk=1, defaults={"uuid": uuid.uuid4(), "created_at": timezone.now()}
    )


class Migration(migrations.Migration):

    dependencies = [
        ("cardroom", "0005_audit_session_tag"),
    ]

    operations = [
        migrations.CreateModel(
            name="DatabaseIdentity",
            fields=[
                ("id", models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False)),
                ("uuid", models.UUIDField(unique=True)),
                ("created_at", models.DateTimeField()),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("id", 1)), name="cardroom_database_identity_one_row")
                ],
            },
        ),
        migrations.RunPython(create_identity, migrations.RunPython.noop),
        migrations.RunPython(*refuse_changes("cardroom_databaseidentity")),
    ]

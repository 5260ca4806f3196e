"""The audit trail names its session by tag (cardroom.access.session_tag), not by the key.

The rows written before this held the raw session key, a credential: cardroom.ledger's
tag_recorded_sessions rewrites them, the append-only table's update trigger off for those
statements alone, as the owner. The key cannot be had back from its tag: going back
leaves the tags in place.
"""

from django.db import migrations, models

from cardroom.ledger import tag_recorded_sessions


class Migration(migrations.Migration):

    dependencies = [
        ('cardroom', '0004_audit_count_action'),
    ]

    operations = [
        migrations.AlterField(
            model_name='auditentry',
            name='session',
            field=models.CharField(blank=True, help_text="the session's tag (access.session_tag)", max_length=64),
        ),
        migrations.RunPython(*tag_recorded_sessions('cardroom_auditentry', 'session')),
    ]

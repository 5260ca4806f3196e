from django.db import migrations

from cardroom.ledger import refuse_changes


class Migration(migrations.Migration):
    dependencies = [("collections_fees", "0002_initial")]

    operations = [
        migrations.RunPython(*refuse_changes("collections_fees_feeschedule")),
        migrations.RunPython(*refuse_changes("collections_fees_feerate")),
        migrations.RunPython(*refuse_changes("collections_fees_collectionentry")),
    ]

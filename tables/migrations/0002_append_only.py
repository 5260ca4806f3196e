from django.db import migrations

from cardroom.ledger import refuse_changes


class Migration(migrations.Migration):
    dependencies = [("tables", "0001_initial")]

    operations = [
        migrations.RunPython(*refuse_changes("tables_tableevent")),
        migrations.RunPython(*refuse_changes("tables_rotationlogentry")),
        migrations.RunPython(*refuse_changes("tables_tableconfig")),
    ]

from django.db import migrations

from cardroom.ledger import refuse_changes


class Migration(migrations.Migration):
    dependencies = [("tables", "0003_assignments_approvals_corrections")]

    operations = [
        migrations.RunPython(*refuse_changes("tables_approval")),
        migrations.RunPython(*refuse_changes("tables_approvaldecision")),
        migrations.RunPython(*refuse_changes("tables_roundcorrection")),
    ]

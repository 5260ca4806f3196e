from django.db import migrations

from cardroom.ledger import refuse_changes


class Migration(migrations.Migration):
    dependencies = [("rounds", "0001_initial")]

    operations = [
        # A round changes street by street while in progress; settled or voided, never.
        migrations.RunPython(*refuse_changes("rounds_round", update_when="OLD.status IN ('settled', 'voided')")),
        migrations.RunPython(*refuse_changes("rounds_wager")),
        migrations.RunPython(*refuse_changes("rounds_decision")),
        migrations.RunPython(*refuse_changes("rounds_roundcard")),
        migrations.RunPython(*refuse_changes("rounds_settlementline")),
    ]

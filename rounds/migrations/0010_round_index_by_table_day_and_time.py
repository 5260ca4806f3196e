"""The rotation log reads a table's rounds in its keyset order, (table, gaming day, time),
so that both of its halves come from an index in the same order (docs/scaling.md). The
index by (table, time) served only that log, and is replaced."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("rounds", "0009_round_opened_and_wager_player_indexes"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="round",
            name="round_table_opened",
        ),
        migrations.AddIndex(
            model_name="round",
            index=models.Index(fields=["table", "gaming_day", "opened_at", "id"], name="round_table_day_opened"),
        ),
    ]

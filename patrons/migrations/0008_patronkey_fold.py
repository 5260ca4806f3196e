"""PatronKey.fold: each name and number as people write it (patrons/folding.py), for the
tablet's lookup (partial, accent-insensitive names; numbers and cards whatever their
punctuation). The existing keys are filled in here."""

from django.db import migrations, models

NAMES = ("display_name", "legal_name")


def fill(apps, schema_editor):
    from patrons.folding import fold_name, fold_number

    PatronKey = apps.get_model("patrons", "PatronKey")
    for key in PatronKey.objects.select_related("patron").iterator():
        value = getattr(key.patron, key.field)
        key.fold = (fold_name if key.field in NAMES else fold_number)(value)
        key.save(update_fields=["fold"])


class Migration(migrations.Migration):
    dependencies = [("patrons", "0007_list_changes_two_people")]

    operations = [
        migrations.AddField(
            model_name="patronkey", name="fold", field=models.CharField(db_index=True, default="", max_length=400),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]

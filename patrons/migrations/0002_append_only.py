"""Every patrons table but the patron's own record (and its lookup keys) is append-only:
a link, a cash transaction, an alert, a list import, a list entry, a hit is a new row."""

from django.db import migrations

from cardroom.ledger import refuse_changes

APPEND_ONLY = (
    "patrons_unidentifiedpatron",
    "patrons_patronlink",
    "patrons_cashtransaction",
    "patrons_cashalert",
    "patrons_exclusionimport",
    "patrons_exclusionentry",
    "patrons_exclusionhit",
)


class Migration(migrations.Migration):
    dependencies = [("patrons", "0001_initial")]

    operations = [migrations.RunPython(*refuse_changes(table)) for table in APPEND_ONLY]

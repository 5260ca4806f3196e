from django.db import migrations

from cardroom.ledger import refuse_changes


class Migration(migrations.Migration):
    """The refused-command log is a record of what was attempted at a table: like every
    other log it only grows (cardroom/ledger.py). With the DELETE trigger in place the
    served role's grant drops to SELECT, INSERT at the next grant (cardroom/db_roles.py).
    Nothing in the app prunes it: a retry of a command id must keep its first answer."""

    dependencies = [("tables", "0011_table_boxes_placed")]

    operations = [
        migrations.RunPython(*refuse_changes("tables_rejectedcommand")),
    ]

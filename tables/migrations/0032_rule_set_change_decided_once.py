"""A rule set version's decision is final at the database, as every other approval's is.

The other approvals keep their decision in an append-only row of its own
(tables_approvaldecision, 0004); a rule set version keeps it on its own row, the filer's
half written at filing and the decider's half filled once (tables/rule_sets.py
`rule_set_decide`). So the row is append-only but for that one UPDATE: the trigger refuses
any UPDATE of a version already decided (a second decision, another decider), one that
decides nothing, and one that touches the filer's half; and any DELETE. Which rules were
in force on a day is proven from these rows.
"""

from django.db import migrations

from cardroom.ledger import refuse_changes

FILED = ("rule_set_id", "version", "rules", "effective_day", "reason", "filed_by", "filed_by_user_id", "filed_at")
# The one UPDATE allowed: a version not decided yet gets its decision, its filer's half as it was.
REFUSED_UPDATE = (
    "OLD.decision <> '' OR NEW.decision = '' OR "
    f"({', '.join('NEW.' + column for column in FILED)}) IS DISTINCT FROM ({', '.join('OLD.' + column for column in FILED)})"
)


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0031_no_tppp'),
    ]

    operations = [
        migrations.RunPython(*refuse_changes("tables_rulesetchange", update_when=REFUSED_UPDATE)),
    ]

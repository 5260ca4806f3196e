"""`python manage.py rule_set NAME [--join TABLE ...] [--leave TABLE ...]`: a rule set
(tables/rule_sets.py) created if it does not exist, and tables moved into it or out of it.

Membership is a system process's act, not a staff login's: whoever moves a table into a
rule set changes the rules it plays under, so it is done by whoever runs the cardroom's
deployment, and audited. The rules themselves change only through the rule sets page (one
supervisor files, another approves)."""

from django.core.management.base import BaseCommand, CommandError

from cardroom.access import Actor
from tables import rule_sets
from tables.management.commands.game_math import _table
from tables.models import RuleSet

SYSTEM = Actor.system("manage.py rule_set")


class Command(BaseCommand):
    help = "Create a rule set if needed, and move tables into it (--join) or out of it (--leave)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--join", action="append", default=[], help="a table's id or name (repeatable)")
        parser.add_argument("--leave", action="append", default=[], help="a table's id or name (repeatable)")

    def handle(self, *args, name, join, leave, **options):
        rule_set = RuleSet.objects.filter(name=name).first()
        if rule_set is None:
            try:
                rule_set = rule_sets.rule_set_create(actor=SYSTEM, name=name)
            except rule_sets.RuleSetError as refused:
                raise CommandError(refused.message) from None
            self.stdout.write(f"Rule set {name!r} created.")
        for value in join:
            table = _table(value)
            rule_sets.rule_set_join(actor=SYSTEM, table_id=table.pk, rule_set_id=rule_set.pk)
            self.stdout.write(f"{table.name} plays under {name!r} from its next gaming day's first round.")
        for value in leave:
            table = _table(value)
            if table.rule_set_id != rule_set.pk:
                raise CommandError(f"{table.name} is not in {name!r}")
            rule_sets.rule_set_join(actor=SYSTEM, table_id=table.pk, rule_set_id=None)
            self.stdout.write(f"{table.name} left {name!r}: its own configuration keeps the rules it carries.")

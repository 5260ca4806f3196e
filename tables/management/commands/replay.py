"""`python manage.py replay FILE|-`: run a replay file through the real command service.

Prints `{"results": [...]}`, one result per command, then rolls everything back.
Exit status 0 when the file was readable whatever the commands did; 2 for an
unreadable or malformed file, with the reason on stderr (commands.md).
"""

import json
import sys

from django.core.management.base import BaseCommand
from django.db import transaction

from rounds.engine.errors import CommandError
from tables.services import command_execute, table_create

REPLAY_ACTOR = "replay"


class MalformedReplay(Exception):
    pass


class _Rollback(Exception):
    pass


class Command(BaseCommand):
    help = "Run a replay file (a table configuration and its commands) and print every result; changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the replay file, or - for standard input")

    def handle(self, *args, file, **options):
        try:
            table_config, commands = _read(file)
            results = _run(table_config, commands)
        except MalformedReplay as problem:
            self.stderr.write(f"replay: {problem}")
            sys.exit(2)
        self.stdout.write(json.dumps({"results": results}))


def _not_json(constant: str):
    raise ValueError(f"{constant} is not a JSON value")


def _read(path: str) -> tuple[dict, list]:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as problem:
        raise MalformedReplay(f"cannot read {path}: {problem}") from None
    try:
        document = json.loads(text, parse_constant=_not_json)
    except (json.JSONDecodeError, ValueError) as problem:
        raise MalformedReplay(f"{path} is not JSON: {problem}") from None
    if not isinstance(document, dict):
        raise MalformedReplay("a replay file is a JSON object with 'table' and 'commands'")
    table, commands = document.get("table"), document.get("commands")
    if not isinstance(table, dict) or not isinstance(table.get("name"), str):
        raise MalformedReplay("'table' must be an object with a 'name' and 'seats'")
    if not isinstance(commands, list):
        raise MalformedReplay("'commands' must be a list")
    return table, commands


def _run(table_config: dict, commands: list) -> list[dict]:
    results = []
    try:
        with transaction.atomic():
            try:
                config = {k: v for k, v in table_config.items() if k != "name"}
                table = table_create(
                    name=table_config["name"], config=config, created_by=REPLAY_ACTOR, restart_meters=True
                )
            except CommandError as problem:
                raise MalformedReplay(f"bad table configuration: {problem.message}") from None
            for command in commands:
                results.append(command_execute(table_id=table.pk, command=command, actor=REPLAY_ACTOR).result)
            raise _Rollback  # a replay shows what would happen; it leaves nothing behind
    except _Rollback:
        pass
    return results

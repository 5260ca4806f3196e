"""`python manage.py replay FILE|-`: run a replay file through the real command service.

Prints `{"results": [...]}`, one result per command, then rolls everything back.
Exit status 0 when the file was readable whatever the commands did; 2 for an
unreadable or malformed file, with the reason on stderr (docs/commands.md).
"""

import json
import sys
from datetime import datetime, timezone

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone as django_timezone

from cardroom.gaming_day import calendar
from rounds.engine.errors import CommandError
from rounds.engine.policy import parse_time
from tables import rule_sets
from tables.lifecycle import table_create
from tables.services import command_execute

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
            table_config, commands, rule_set = _read(file)
            results = _run(table_config, commands, rule_set)
        except MalformedReplay as problem:
            self.stderr.write(f"replay: {problem}")
            sys.exit(2)
        self.stdout.write(json.dumps({"results": results}))


def _not_json(constant: str):
    raise ValueError(f"{constant} is not a JSON value")


def _read(path: str) -> tuple[dict, list, dict | None]:
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
    rule_set = document.get("rule_set")
    if rule_set is not None and (not isinstance(rule_set, dict) or set(rule_set) != {"name", "version", "rules"}):
        raise MalformedReplay("'rule_set' must be an object with 'name', 'version' and 'rules'")
    return table, commands, rule_set


def _run(table_config: dict, commands: list, rule_set: dict | None = None) -> list[dict]:
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
            clock = _ReplayClock(django_timezone.now())
            if rule_set is not None:
                _play_under(table, rule_set, _start_of(commands, clock.now))
            for command in commands:
                try:
                    command, at = clock.read(command)
                except CommandError as problem:
                    results.append(problem.as_result())  # applied nothing
                    continue
                results.append(command_execute(table_id=table.pk, command=command, actor=REPLAY_ACTOR, at=at).result)
            raise _Rollback  # a replay shows what would happen; it leaves nothing behind
    except _Rollback:
        pass
    return results


def _play_under(table, rule_set: dict, start: datetime) -> None:
    """The file's inlined rule set (docs/commands.md): the table plays every command under
    it, and each round names it, as a table of that rule set's version would."""
    try:
        rule_sets.inlined(actor=REPLAY_ACTOR, table_id=table.pk, name=rule_set["name"], version=rule_set["version"],
                          rules=rule_set["rules"], effective_day=calendar().gaming_day(start), now=start)
    except rule_sets.RuleSetError as problem:
        raise MalformedReplay(f"bad rule set: {problem.message}") from None


def _start_of(commands: list, now: datetime) -> datetime:
    """When the replay's first command happens: its first `at` when that is earlier than now."""
    for command in commands:
        if isinstance(command, dict) and "at" in command:
            try:
                return min(now, _utc_time(command["at"]))
            except CommandError:
                return now
    return now


class _ReplayClock:
    """When each command of a replay file happened (docs/commands.md): its `at`, an ISO 8601
    UTC time never earlier than the previous `at`; without one, the previous command's
    time; the first command's, the time the replay starts."""

    def __init__(self, start: datetime):
        self.now = start
        self.last_at: datetime | None = None

    def read(self, command) -> tuple[object, datetime]:
        """The command without its `at` (which only a replay may give), and its time."""
        if not isinstance(command, dict) or "at" not in command:
            return command, self.now
        at = _utc_time(command["at"])
        if self.last_at is not None and at < self.last_at:
            raise CommandError("invalid_command", f"'at' {command['at']} is earlier than the previous command's")
        self.now = self.last_at = at
        return {k: v for k, v in command.items() if k != "at"}, at


def _utc_time(value) -> datetime:
    at = parse_time(value)
    if at.utcoffset():
        raise CommandError("invalid_command", "'at' must be an ISO 8601 UTC time, e.g. 2026-05-01T20:00:00Z")
    return at.astimezone(timezone.utc)

"""Rule sets with effective dates (issue 38): the posted rules a set of tables plays under,
changed on a gaming day by two supervisors.

California's player-dealer rules move by dates (a regulation approved, enjoined, brought back
under new numbers), so a cardroom changes the rules of many tables at once, on a day, and
proves afterwards which rules each round was played under:

* A **rule set** names configuration keys (RULE_KEYS) with their values; its values override
  each member table's own configuration for those keys. A table belongs to at most one.
* A **change** (a new version, the whole of the set's rules) is filed by one supervisor with the
  gaming day it takes effect and decided by another supervisor: two persons, two user ids
  (the database refuses the filer as decider, whatever the code does). Until decided it is
  pending and changes nothing.
* An approved change is written into each member table's configuration at the first
  `open_round` of a gaming day on or after its effective day (`due`, called by the command
  service under the table lock, in the command's transaction): a round in progress across the
  gaming day's start finishes under the rules it opened with. The new configuration version
  names the change (TableConfig.rule_set_change), so each round, through its configuration
  version, names the rule set and version it was played under.
* A table's own configuration change (approved as before) keeps the rule set's keys.

Membership (`rule_set_join`) is set by a system process (the demo seed, a management
command): a staff login cannot move a table between rule sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.utils import timezone

from cardroom.access import Actor
from cardroom.audit import audit_record
from cardroom.gaming_day import calendar
from rounds.engine.config import TableConfig as EngineConfig
from rounds.engine.errors import CodedError, CommandError
from rounds.engine.money import dollars
from rounds.engine.table import TableGame

from .events import floor_row_changed_on_commit
from rounds.engine.sidebets import BAD_BEAT_TABLES, PAIRS_TABLES, PROGRESSIVE_TABLES

from .lifecycle import SIDE_BET_PAYTABLES, as_actor, config_version_create, with_rules
from .models import RuleSet, RuleSetChange, Table, TableConfig
from .setup import rules_shown

# The posted rules a rule set may name (docs/commands.md `table`): the rotation limit, the
# 2026 policy with its parameters, the fee schedule, the pay table (Trips and Blind), the
# side bets' pay tables (Bad Beat, Pairs, the progressive: each table keeps whether it
# offers them, their limits and its own meter), the posted notice and the no-TPPP mode
# (a TPPP sits but never banks).
RULE_KEYS = (
    "max_consecutive_banks", "rotation_policy", "fee_schedule", "paytable", SIDE_BET_PAYTABLES, "notice", "no_tppp",
)
# The side bets whose pay table a rule set may post, with the pay tables each may name.
SIDE_BET_TABLES = {"bad_beat": BAD_BEAT_TABLES, "pairs": PAIRS_TABLES, "progressive": PROGRESSIVE_TABLES}


class RuleSetError(CodedError):
    """A refused rule set action, with a stable code: a configuration the engine refuses
    keeps the engine's code (CommandError's)."""

    codes = CommandError.codes | {"unknown_rule_set", "second_person_required"}


def rule_set_create(*, actor: Actor, name: str) -> RuleSet:
    """A new, empty rule set (its rules come with its first approved change)."""
    _require_supervisor(actor)
    name = (name or "").strip() if isinstance(name, str) else ""
    if not 1 <= len(name) <= 64:
        raise RuleSetError("invalid_command", "name the rule set in 1 to 64 characters")
    if RuleSet.objects.filter(name=name).exists():
        raise RuleSetError("invalid_command", f"a rule set named {name!r} exists already")
    with transaction.atomic():
        rule_set = RuleSet.objects.create(name=name, created_at=timezone.now(), created_by=actor.name)
        audit_record(actor=actor, action="configuration", summary=f"rule set {name} created", detail={"rule_set": rule_set.pk})
    return rule_set


def rule_set_file(*, actor: Actor, rule_set_id: int, rules: dict, effective_day: date, reason: str = "") -> RuleSetChange:
    """A change filed by a supervisor: the set's whole rules from `effective_day` (today's
    gaming day or later). Each member table's configuration is checked with them now, so a
    change no table could play under is refused before anyone approves it."""
    _require_supervisor(actor)
    rules_checked(rules)
    if not isinstance(effective_day, date):
        raise RuleSetError("invalid_command", "the change takes effect on a gaming day (YYYY-MM-DD)")
    today = calendar().gaming_day(timezone.now())
    if effective_day < today:
        raise RuleSetError("invalid_command", f"a change takes effect today ({today}) or later, not on {effective_day}")
    reason = reason.strip()[:200] if isinstance(reason, str) else ""
    with transaction.atomic():
        rule_set = RuleSet.objects.select_for_update().filter(pk=rule_set_id).first()
        if rule_set is None:
            raise RuleSetError("unknown_rule_set", "no such rule set")
        for table in rule_set.tables.select_related("config"):
            _checked(TableGame.from_dict(table.state).config.to_config(), rules, table.name)
        last = rule_set.changes.order_by("-version").values_list("version", flat=True).first() or 0
        change = RuleSetChange.objects.create(
            rule_set=rule_set, version=last + 1, rules=rules, effective_day=effective_day, reason=reason,
            filed_by=actor.name, filed_by_user_id=actor.user_id, filed_at=timezone.now(),
        )
        audit_record(
            actor=actor, action="configuration", summary=f"rule set {rule_set.name} v{change.version} filed for {effective_day}",
            detail={"change": change.pk, "rules": rules, "effective_day": effective_day.isoformat()},
        )
    return change


def rules_checked(rules) -> None:
    """A rule set version's rules as filed: an object naming some of RULE_KEYS, the side
    bets' pay tables each one of its bet's (each member table's configuration is checked
    with them where they are applied)."""
    if not isinstance(rules, dict) or not rules:
        raise RuleSetError("invalid_command", f"the rules are an object naming some of {', '.join(RULE_KEYS)}")
    unknown = sorted(set(rules) - set(RULE_KEYS))
    if unknown:
        raise RuleSetError("invalid_command", f"a rule set does not name {', '.join(unknown)}: only {', '.join(RULE_KEYS)}")
    if SIDE_BET_PAYTABLES in rules:
        _side_bet_paytables_checked(rules[SIDE_BET_PAYTABLES])


def rule_set_decide(*, actor: Actor, change_id: int, approve: bool) -> RuleSetChange:
    """A pending change approved or declined by a supervisor who did not file it."""
    _require_supervisor(actor)
    if actor.user_id is None and not actor.is_system:
        raise RuleSetError("not_authorized", "a supervisor's own login decides a rule set change")
    with transaction.atomic():
        change = RuleSetChange.objects.select_for_update().select_related("rule_set").filter(pk=change_id).first()
        if change is None:
            raise RuleSetError("unknown_rule_set", "no such rule set change")
        if change.decision:
            raise RuleSetError("wrong_state", f"this change was {change.decision} already")
        if (change.filed_by_user_id is not None and change.filed_by_user_id == actor.user_id) or change.filed_by == actor.name:
            raise RuleSetError("second_person_required", "the supervisor who filed a change does not decide it")
        change.decision = "approved" if approve else "declined"
        change.decided_by, change.decided_by_user_id, change.decided_at = actor.name, actor.user_id, timezone.now()
        change.save(update_fields=["decision", "decided_by", "decided_by_user_id", "decided_at"])
        audit_record(
            actor=actor, action="configuration",
            summary=f"rule set {change.rule_set.name} v{change.version} {change.decision} for {change.effective_day}",
            detail={"change": change.pk, "decision": change.decision},
        )
        for table_id in change.rule_set.tables.values_list("pk", flat=True):
            floor_row_changed_on_commit(table_id)
    return change


def rule_set_join(*, actor: Actor | str, table_id: int, rule_set_id: int | None) -> None:
    """A table into a rule set (or out, with None): a system process's act. The set's
    rules reach the table at its next first round of a gaming day (`due`)."""
    actor = as_actor(actor)
    if not actor.is_system:
        raise RuleSetError("not_authorized", "a table joins a rule set by a system process (manage.py rule_set)")
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table_id)
        table.rule_set_id = rule_set_id
        table.save(update_fields=["rule_set"])
        audit_record(actor=actor, action="configuration", table_id=table.pk,
                     summary=f"{table.name} joins rule set {rule_set_id}", detail={"rule_set": rule_set_id})


def inlined(*, actor: Actor | str, table_id: int, name, version, rules, effective_day: date, now=None) -> RuleSetChange:
    """A rule set a system process states a table plays under (a replay file's `rule_set`):
    a rule set of its own (named `name`, or `name (replay N)` when the database holds one of
    that name, so a live rule set's versions never mix in) with version `version` of `rules`,
    approved from `effective_day`, the table joined to it, and the table's configuration
    version carrying it written now, so that every command of the replay plays under it and
    each round names it."""
    actor = as_actor(actor)
    if not actor.is_system:
        raise RuleSetError("not_authorized", "only a system process states a table's rule set")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 64:
        raise RuleSetError("invalid_command", "the rule set's name is a text of 1 to 64 characters")
    if type(version) is not int or version < 1:
        raise RuleSetError("invalid_command", "the rule set's version is a whole number from 1")
    rules_checked(rules)
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table_id)
        game = TableGame.from_dict(table.state)
        config = _checked(game.config.to_config(), rules, table.name)
        own_name, copy = name.strip(), 1
        while RuleSet.objects.filter(name=own_name).exists():
            copy += 1
            own_name = f"{name.strip()[:48]} (replay {copy})"
        at = now or timezone.now()
        rule_set = RuleSet.objects.create(name=own_name, created_at=at, created_by=actor.name)
        change = RuleSetChange.objects.create(
            rule_set=rule_set, version=version, rules=rules, effective_day=effective_day, reason="stated by " + actor.name,
            filed_by=actor.name, filed_at=at, decision="approved", decided_by=actor.name, decided_at=at,
        )
        table.rule_set = rule_set
        table.state = game.with_config(config).to_dict()
        table.save(update_fields=["rule_set", "state"])
        applied(table, config, change, now=now)
    return change


def in_force(rule_set_id: int, gaming_day: date) -> RuleSetChange | None:
    """The rule set's approved change in force on `gaming_day`: the latest effective one."""
    return (
        RuleSetChange.objects.filter(rule_set_id=rule_set_id, decision="approved", effective_day__lte=gaming_day)
        .order_by("-effective_day", "-version").first()
    )


def due(table: Table, game: TableGame, gaming_day: date) -> tuple[TableGame, RuleSetChange] | None:
    """At an open_round: the table's game under its rule set's change in force on
    `gaming_day`, with that change, when the table's configuration does not carry it yet;
    None otherwise (no query for a table outside any rule set)."""
    if table.rule_set_id is None:
        return None
    change = in_force(table.rule_set_id, gaming_day)
    if change is None:
        return None
    carried = TableConfig.objects.filter(pk=table.config_id).values_list("rule_set_change_id", flat=True).first()
    if carried == change.pk:
        return None
    try:
        config = _checked(game.config.to_config(), change.rules, table.name)
    except RuleSetError as refused:
        # A refusal of the command, never a server error: the round waits for a version
        # this table can play under (the check at filing makes this rare).
        raise CommandError(refused.code, refused.message) from None
    return game.with_config(config), change


def applied(table: Table, config: EngineConfig, change: RuleSetChange, now=None) -> TableConfig:
    """The configuration version that brings `change` in: written by the command service in
    the open_round's transaction, once the engine accepted the round under it, in force from
    the open_round's own time (`now`; a replay's clock), so the records of the table at any
    time name the version it played under then."""
    version = config_version_create(
        table=table, engine_config=config, created_by=f"rule set {change.rule_set_id} v{change.version}",
        rule_set_change=change, now=now,
    )
    Table.objects.filter(pk=table.pk).update(config=version)
    audit_record(
        actor=Actor.system("rule_set"), action="configuration", table_id=table.pk,
        summary=f"{table.name} configuration version {version.version}: rule set change {change.pk} "
                f"(v{change.version}) from {change.effective_day}",
        detail={"config": config.to_config(), "rule_set_change": change.pk},
    )
    return version


def _side_bet_paytables_checked(value) -> None:
    """The side bets' pay tables a change posts, each a pay table of its bet: checked on its
    own, for a member table that does not offer a bet is not checked with it."""
    if not isinstance(value, dict) or not value:
        raise RuleSetError("invalid_command", f"{SIDE_BET_PAYTABLES} names the pay table of some of "
                                              f"{', '.join(SIDE_BET_TABLES)}")
    for bet, paytable in value.items():
        if bet not in SIDE_BET_TABLES:
            raise RuleSetError("invalid_command", f"{SIDE_BET_PAYTABLES}: {bet!r} is not a side bet with a pay table "
                                                  f"({', '.join(SIDE_BET_TABLES)})")
        if paytable not in SIDE_BET_TABLES[bet]:
            raise RuleSetError("invalid_command", f"{SIDE_BET_PAYTABLES}: the {bet} pay table is one of "
                                                  f"{', '.join(SIDE_BET_TABLES[bet])}")


def _checked(config: dict, rules: dict, table_name: str) -> EngineConfig:
    try:
        return EngineConfig.from_config(with_rules(config, rules))
    except CommandError as refused:
        raise RuleSetError(refused.code, f"{table_name} cannot play under these rules: {refused.message}") from None


def _require_supervisor(actor: Actor) -> None:
    if not actor.is_system and actor.role != "supervisor":
        raise RuleSetError("not_authorized", "a floor supervisor files and decides rule set changes")


@dataclass(frozen=True)
class Upcoming:
    """A rule set version that has not reached its tables yet, in the floor's words."""

    rule_set: str
    version: int
    effective_day: date
    approved: bool
    tables: list[str]  # the member tables it has not reached yet
    words: str


def upcoming(*, today: date, table: Table | None = None, with_pending: bool = True) -> list[Upcoming]:
    """What changes when (the floor page, the dealer's tablet): each approved version whose
    gaming day is later than `today`, or has come but not yet reached every table (its first
    round there is still to open), and, `with_pending`, each version waiting for its second
    supervisor. For `table`: its own rule set's, while they have not reached it."""
    if table is not None and table.rule_set_id is None:
        return []
    changes = RuleSetChange.objects.exclude(decision="declined").select_related("rule_set").order_by(
        "effective_day", "rule_set__name", "version")
    if table is not None:
        changes = changes.filter(rule_set_id=table.rule_set_id)
    if not with_pending:
        changes = changes.filter(decision="approved")
    members = {}
    tables = Table.objects.filter(rule_set__isnull=False, retired=False)
    if table is not None:
        tables = tables.filter(pk=table.pk)
    for member in tables.only("pk", "name", "rule_set_id", "config_id").order_by("name"):
        members.setdefault(member.rule_set_id, []).append(member)
    carried = dict(TableConfig.objects.filter(
        pk__in=[m.config_id for tables in members.values() for m in tables if m.config_id]
    ).values_list("pk", "rule_set_change_id"))
    in_force_of = {}
    shown = []
    for change in changes:
        tables = members.get(change.rule_set_id, [])
        if change.decision == "approved" and change.effective_day <= today:
            if change.rule_set_id not in in_force_of:
                in_force_of[change.rule_set_id] = in_force(change.rule_set_id, today)
            if in_force_of[change.rule_set_id] != change:
                continue  # replaced by a later version already
            tables = [m for m in tables if carried.get(m.config_id) != change.pk]
            if not tables:
                continue  # in force on every table
        shown.append(Upcoming(
            rule_set=change.rule_set.name, version=change.version, effective_day=change.effective_day,
            approved=change.decision == "approved", tables=[m.name for m in tables],
            words=_upcoming_words(change, today),
        ))
    return shown


def _rule_words(key: str, value) -> str:
    """One rule in words: a fee schedule as its rates read on the table's sign, any other
    key as the setup screens show it (tables/setup.py)."""
    if key == "fee_schedule" and isinstance(value, dict):
        rates = "; ".join(
            f"{dollars(rate['min'])} to {dollars(rate['max'])}: a player {dollars(rate['player_fee'])}, "
            f"the player-dealer {dollars(rate['pd_fee'])}" for rate in value.get("rates") or ())
        payers = dict(rules_shown({"fee_schedule": {"payers": value.get("payers")}})).get("Fee schedule · Who pays")
        return f"fee schedule {rates}" + (f" (paid by {payers})" if value.get("payers") else "")
    return ", ".join(f"{label}: {shown}" for label, shown in rules_shown({key: value}))


def _upcoming_words(change: RuleSetChange, today: date) -> str:
    """"From gaming day Tue 1 Dec: Consecutive banks allowed: 1, ...; approved by bob"."""
    day = change.effective_day
    when = f"{day:%a} {day.day} {day:%b}" + (" (from each table's next round)" if day <= today else "")
    rules = ", ".join(_rule_words(key, change.rules[key]) for key in RULE_KEYS if key in change.rules)
    state = (f"approved by {change.decided_by}" if change.decision == "approved"
             else f"waiting for a second supervisor (filed by {change.filed_by})")
    return f"{change.rule_set.name} version {change.version}, from gaming day {when}: {rules}; {state}"

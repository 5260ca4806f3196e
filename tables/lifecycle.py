"""A table's lifecycle and setup: created (with its first configuration filed for a
second supervisor), configured (a new configuration version, its fee schedule and its
progressive's meter), opened and closed, retired, and a settled round corrected by its
approved reversal. Each in one transaction with the table row locked, as the command
service (tables/services.py) runs a command; neither calls the other."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from cardroom import locks
from cardroom.access import SYSTEM, Actor
from cardroom.audit import audit_record
from collections_fees import jackpot
from collections_fees.models import FeeRate, FeeSchedule
from rounds.engine.errors import CommandError
from rounds.engine.config import TableConfig as EngineConfig
from rounds.engine.config import checked_text
from rounds.engine.table import TableGame
from rounds.models import Round

from . import recording
from .events import floor_row_changed_on_commit
from .models import Approval, RoundCorrection, Table, TableConfig, TableStatusChange


# The reason of the request table_create files for a person's new table (the queue
# compares it against nothing: no configuration is in force before it).
FIRST_CONFIG_REASON = "a new table's first configuration"


def is_first_configuration(approval: Approval) -> bool:
    """A table's first configuration request: the one table_create files, or one filed
    again from the setup page after a refusal (tables.approvals.first_configuration_request).
    Only its approval opens the table. `first` is the services' own mark: a request filed
    through the API cannot carry it (tables.approvals.PAYLOAD_FIELDS)."""
    return approval.kind == "config" and approval.payload.get("first") is True


def table_create(
    *, name: str, config: dict, created_by: Actor | str, restart_meters: bool = False, at: datetime | None = None
) -> Table:
    """A new table with configuration version 1. `config` is the replay file's `table`
    object (name excepted); it is checked by the engine (CommandError invalid_command).
    A progressive meter it names is made at its starting amounts if new (`restart_meters`:
    set to them anyway, for a replay; collections_fees/jackpot.py).

    Made by the system (seed_demo, replay: a name), the table is ready. Made by a person,
    a supervisor (anyone else: `not_authorized`), it is created closed with its first
    configuration waiting for a second supervisor: a configuration request marked `first`
    is filed with it (tables/approvals.py), and the table cannot open (`config_not_approved`)
    until that request, and no other, is approved. `at` is when the table
    was set up, for one that plays a past shift (the demo seed, a system process): its
    configuration and meter then date from then, before the rounds it plays; by default, now."""
    actor = as_actor(created_by)
    if not actor.is_system and actor.role != "supervisor":
        raise CommandError("not_authorized", "only a supervisor sets up a table")
    if at is not None and not actor.is_system:
        raise CommandError("not_authorized", "only the system's own processes date a table in the past")
    if not isinstance(name, str) or not name.strip():
        raise CommandError("invalid_command", "a table needs a name")
    engine_config = EngineConfig.from_config(config)
    with transaction.atomic():
        table = Table.objects.create(
            name=name.strip(),
            seats=engine_config.seats,
            state=TableGame.new(engine_config).to_dict(),
            is_open=actor.is_system,
            config_approved=actor.is_system,
        )
        now = at or timezone.now()
        config_version_create(table=table, engine_config=engine_config, created_by=actor.name, now=now)
        table.save(update_fields=["config"])
        if not actor.is_system:
            first = Approval.objects.create(
                table=table,
                kind="config",
                payload={"reason": FIRST_CONFIG_REASON, "config": engine_config.to_config(), "first": True},
                requested_by_id=actor.user_id,
                requested_role=actor.role,
                requested_session=actor.recorded_session,
                requested_address=actor.address[:64],
                requested_at=now,
            )
            # As every request is (tables.approvals.approval_request): on the audit trail,
            # and in the floor's count of waiting approvals once committed.
            audit_record(
                actor=actor,
                action="approval_requested",
                table_id=table.pk,
                summary=f"config requested at {table.name} (its first configuration)",
                detail={"approval": first.pk, "payload": first.payload},
            )
            floor_row_changed_on_commit(table.pk)
        stamp = recording.Stamp.at(now)
        jackpot.meter_ensure(engine_config.side_bets.progressive, stamp=stamp, restart=restart_meters)
    return table


def table_configure(
    *, table_id: int, config: dict, changed_by: Actor | str, approved: bool = False, first: bool = False
) -> TableConfig:
    """A new configuration version, effective now. Between rounds only: a round always
    plays under the one configuration it opened with. A person changes a table's
    configuration, open or closed, only through a second supervisor's approval
    (tables.approvals passes `approved`); the system's own actors (seed_demo, replay,
    management commands) need none.
    Only the approval of the table's own first configuration (`first`) lets a new table
    open; until then no other change is carried out (`wrong_state`): a later change
    approved first would open the table on a configuration no second supervisor saw
    whole, and the first one, approved after it, would undo it.
    `config` names the keys it changes; every other key stays as the table has it (a
    change that switches the rotation policy on keeps the fee schedule and the pay table),
    and a key given as null goes back to its default (`"side_bets": null`: none offered)."""
    actor = as_actor(changed_by)
    with transaction.atomic():
        table = locks.table(table_id)
        game = TableGame.from_dict(table.state)
        if game.round is not None:
            raise CommandError("wrong_state", "the configuration changes between rounds")
        if not isinstance(config, dict):
            raise CommandError("invalid_command", "the table configuration must be an object")
        # The rule set's keys stay the rule set's (tables/rule_sets.py): a table's own change
        # does not override them.
        rules, carried = rule_set_rules(table)
        engine_config = EngineConfig.from_config(with_rules(merged_config(game.config.to_config(), config), rules))
        _check_seats(game, engine_config.seats)
        # After the configuration is checked, so that a bad one is named as such.
        if not approved and not actor.is_system:
            raise CommandError(
                "approval_required", "a configuration change needs a second supervisor: request it for approval"
            )
        if approved and not first and not table.config_approved:
            raise CommandError(
                "wrong_state", f"{table.name}'s first configuration is approved before any change to it"
            )
        if approved and first:
            table.config_approved = True
        table.seats = engine_config.seats
        version = config_version_create(table=table, engine_config=engine_config, created_by=actor.name,
                                        rule_set_change=carried)
        jackpot.meter_ensure(engine_config.side_bets.progressive, stamp=recording.Stamp.at(timezone.now()))
        if engine_config.side_bets.progressive is not None and not actor.is_system:
            _place_jackpot_box(table.pk, actor)
        table.state = game.with_config(engine_config).to_dict()
        table.save(update_fields=["state", "config", "config_approved", "seats"])
        floor_row_changed_on_commit(table.pk)
        audit_record(
            actor=actor,
            action="configuration",
            table_id=table.pk,
            summary=f"{table.name} configuration version {version.version}",
            detail={"config": engine_config.to_config()},
        )
        return version


def rule_set_rules(table: Table) -> tuple[dict, object | None]:
    """The rule set's rules the table's configuration carries now, and their change
    (tables/rule_sets.py): a table's own configuration change keeps them."""
    carried = (
        TableConfig.objects.filter(pk=table.config_id).select_related("rule_set_change").first()
        if table.config_id else None
    )
    change = carried.rule_set_change if carried is not None else None
    if change is None or change.rule_set_id != table.rule_set_id:
        return {}, None
    return change.rules, change


# A rule set's key that names only the pay table of each side bet (Bad Beat, Pairs, the
# progressive): the set posts what a bet pays; whether a table offers the bet, its limits
# and its progressive's meter stay the table's own, so one rule set never links every
# table's progressive to one meter.
SIDE_BET_PAYTABLES = "side_bet_paytables"


def with_rules(config: dict, rules: dict) -> dict:
    """A whole configuration under a rule set's rules (tables/rule_sets.py): the keys the
    rules name replace the configuration's; `side_bet_paytables` replaces the pay table of
    each side bet the table offers, and nothing else of it."""
    merged = {**config, **{key: value for key, value in rules.items() if key != SIDE_BET_PAYTABLES}}
    paytables = rules.get(SIDE_BET_PAYTABLES)
    if isinstance(paytables, dict) and isinstance(merged.get("side_bets"), dict):
        side_bets = dict(merged["side_bets"])
        for bet, paytable in paytables.items():
            if isinstance(side_bets.get(bet), dict):
                side_bets[bet] = {**side_bets[bet], "paytable": paytable}
        merged["side_bets"] = side_bets
    return merged


def merged_config(in_force: dict, change: dict) -> dict:
    """The configuration a change asks for: the keys it names replace the ones in force,
    every other key stays (`None` for a key: back to its default)."""
    return {**in_force, **change}


def _check_seats(game: TableGame, seats: int) -> None:
    """Fewer seats only where nobody sits in the seats taken away."""
    taken = sorted(n for n in game.occupants if n > seats)
    if taken:
        raise CommandError("wrong_state", f"seat(s) {taken} are occupied: they must be empty before the table has {seats} seats")


def _place_jackpot_box(table_id: int, actor: Actor) -> None:
    """The progressive's contributions go into the table's jackpot box: placed with the
    configuration that switches it on (collections_fees.counts), in its transaction. A
    placement the count refuses (the shift's count is closed) refuses the configuration,
    with the count's reason. The system's own actors (replay, seed_demo) place none."""
    from collections_fees.counts import CountError, jackpot_box_with_progressive

    try:
        jackpot_box_with_progressive(table_id=table_id, actor=actor)
    except CountError as refused:
        code = "not_authorized" if refused.code == "not_authorized" else "wrong_state"
        raise CommandError(code, f"the jackpot box could not be placed: {refused.message}") from None


def round_correct(*, approval: Approval) -> RoundCorrection:
    """The reversing entry for a settled round (game-rules section 8), on an approved
    correction: every seat's net, every backline bettor's and the player-dealer's net of the
    original, negated.
    The original round is never edited."""
    with transaction.atomic():
        table = locks.table(approval.table_id)
        rnd = Round.objects.get(table=table, number=approval.round_number)
        # Under the table lock: two approved requests for one round reverse it once.
        if RoundCorrection.objects.filter(round=rnd).exists():
            raise CommandError("wrong_state", f"round {rnd.number} has already been corrected")
        settlement = rnd.settlement or {}
        reversal = {
            "seats": [{"seat": s["seat"], "player": s["player"], "amount": -s["net"]} for s in settlement.get("seats", [])],
            "player_dealer": {"seat": rnd.pd_seat, "player": rnd.pd_player, "amount": -(rnd.pd_net or 0)},
            # Every backline bettor's net too (game-rules 12): the reversal conserves chips.
            "backline": [
                {"seat": b["seat"], "bettor": b["bettor"], "amount": -b["net"]} for b in settlement.get("backline", [])
            ],
        }
        return RoundCorrection.objects.create(
            table=table,
            round=rnd,
            approval=approval,
            reason=approval.payload["reason"],
            reversal=reversal,
            created_at=timezone.now(),
        )


def table_open_close(*, table_id: int, open: bool, actor: Actor | str, reason) -> Table:
    """A supervisor opens or closes a table, saying why; a table closes only between
    rounds. The floor shows who did it and when (TableStatusChange, with the audit)."""
    actor = as_actor(actor)
    if actor.role not in ("supervisor", SYSTEM):
        raise CommandError("not_authorized", "only a supervisor opens and closes tables")
    reason = checked_text("reason", reason)
    with transaction.atomic():
        table = locks.table(table_id)
        if open and table.retired:
            raise CommandError("wrong_state", f"{table.name} is retired: it does not open again")
        if not open and table.state.get("round") is not None:
            raise CommandError("wrong_state", "finish or void the round before closing the table")
        if open and not table.config_approved:
            raise CommandError(
                "config_not_approved", f"{table.name}'s first configuration waits for a second supervisor's approval"
            )
        table.is_open = open
        table.save(update_fields=["is_open"])
        action = "opened" if open else "closed"
        _status_change(table, action, reason, actor)
        return table


def table_retire(*, table_id: int, actor: Actor | str, reason) -> Table:
    """A supervisor retires a table: closed for good and off the floor, every record kept
    (nothing is deleted; the compliance pages read its rounds, fees and events as before).
    Between rounds only; it closes the table if it was open."""
    actor = as_actor(actor)
    if actor.role not in ("supervisor", SYSTEM):
        raise CommandError("not_authorized", "only a supervisor retires a table")
    reason = checked_text("reason", reason)
    with transaction.atomic():
        table = locks.table(table_id)
        if table.retired:
            raise CommandError("wrong_state", f"{table.name} is already retired")
        if table.state.get("round") is not None:
            raise CommandError("wrong_state", "finish or void the round before retiring the table")
        table.is_open = False
        table.retired = True
        table.save(update_fields=["is_open", "retired"])
        _status_change(table, "retired", reason, actor)
        return table


def _status_change(table: Table, action: str, reason: str, actor: Actor) -> None:
    TableStatusChange.objects.create(
        table=table, action=action, reason=reason, by=actor.name, by_user_id=actor.user_id, at=timezone.now()
    )
    floor_row_changed_on_commit(table.pk)
    audit_record(
        actor=actor, action="configuration", table_id=table.pk, summary=f"{table.name} {action}: {reason}"[:200],
        detail={"status": action, "reason": reason},
    )


def _fee_schedule_version(*, table: Table, engine_config: EngineConfig, created_by: str, now) -> FeeSchedule | None:
    """The fee schedule version the configuration uses: the current one when the fees are
    unchanged, else a new version (old versions are never edited)."""
    fees = engine_config.fee_schedule
    if fees is None:
        return None
    current = table.config.fee_schedule if table.config_id else None
    if current is not None and current.to_config() == fees.to_config():
        return current
    schedule = FeeSchedule.objects.create(
        table=table,
        version=table.fee_schedules.count() + 1,
        payers=fees.payers,
        player_basis=fees.player_basis,
        pd_basis=fees.pd_basis,
        effective_from=now,
        created_by=created_by,
    )
    FeeRate.objects.bulk_create(
        FeeRate(schedule=schedule, index=i, min=r.min, max=r.max, player_fee=r.player_fee, pd_fee=r.pd_fee)
        for i, r in enumerate(fees.rates, start=1)
    )
    return schedule


def config_version_create(*, table: Table, engine_config: EngineConfig, created_by: str, now=None,
                          rule_set_change=None) -> TableConfig:
    """A new configuration version of `table`, in force from now (`rule_set_change`: the rule
    set's change whose rules it carries, tables/rule_sets.py)."""
    now = now or timezone.now()
    schedule = _fee_schedule_version(table=table, engine_config=engine_config, created_by=created_by, now=now)
    limits = engine_config.limits
    config = TableConfig.objects.create(
        table=table,
        version=table.configs.count() + 1,
        paytable=engine_config.paytable.to_config(),
        ante_min=limits.ante_min,
        ante_max=limits.ante_max,
        trips_min=limits.trips_min,
        trips_max=limits.trips_max,
        dealing=engine_config.dealing,
        max_consecutive_banks=engine_config.max_consecutive_banks,
        fee_schedule=schedule,
        rotation_policy=engine_config.rotation_policy.to_config() if engine_config.rotation_policy else None,
        notice=engine_config.notice,
        side_bets=engine_config.side_bets.to_config(),
        backline=engine_config.backline.to_config() if engine_config.backline else None,
        no_tppp=engine_config.no_tppp,
        effective_from=now,
        created_by=created_by,
        rule_set_change=rule_set_change,
    )
    table.config = config  # saved by the caller, with its other changes to the row
    return config


def as_actor(actor: Actor | str) -> Actor:
    """A person as given, or a system process (replay, simulator) by its name."""
    return actor if isinstance(actor, Actor) else Actor.system(actor)

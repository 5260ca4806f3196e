"""Admin for table records. Everything that moves money goes through the command service,
so these are read-only; dealer assignments are also made on the supervisors' page."""

import json

from django.contrib import admin

from cardroom.admin import ReadOnlyAdmin
from rounds.engine.cards import DECK

from .models import Approval, DealerAssignment, RotationLogEntry, Table, TableConfig, TableEvent
from .visibility import withheld_from_records


def _withheld(table: Table) -> tuple[set[str] | None, int | None]:
    """The cards of the table's round in play its records may not show, and the seq from
    which its events are that round's (None, None between rounds): the admin's pages are
    records like the compliance pages (tables.visibility.withheld_from_records)."""
    rnd = table.state.get("round")
    if rnd is None:
        return None, None
    opened = (
        TableEvent.objects.filter(table=table, command_type="open_round", result__round=rnd["number"])
        .values_list("seq", flat=True)
        .first()
    )
    return withheld_from_records("in_progress", table.state, rnd["number"]), opened or 0


def _masked(value, withheld: set[str] | None):
    """`value` (JSON) with each withheld card replaced by null; every card string when
    `withheld` is None (a round that cannot be judged)."""
    if isinstance(value, dict):
        return {k: _masked(v, withheld) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, withheld) for v in value]
    if isinstance(value, str) and value in DECK and (withheld is None or value in withheld):
        return None
    return value


def _shown(value) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False)


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("name", "seats", "is_open", "version", "created_at")
    exclude = ("state",)
    readonly_fields = ("state_shown",)

    @admin.display(description="state (cards the table has not shown withheld)")
    def state_shown(self, table: Table) -> str:
        withheld, opened = _withheld(table)
        return _shown(_masked(table.state, withheld) if opened is not None else table.state)


@admin.register(TableConfig)
class TableConfigAdmin(ReadOnlyAdmin):
    list_display = ("table", "version", "paytable", "dealing", "max_consecutive_banks", "effective_from", "created_by")
    list_select_related = ("table",)


@admin.register(TableEvent)
class TableEventAdmin(ReadOnlyAdmin):
    list_display = ("table", "seq", "command_type", "actor", "created_at", "gaming_day")
    list_filter = ("command_type", "gaming_day")
    search_fields = ("actor", "command_id")
    list_select_related = ("table",)
    exclude = ("command", "result", "records")
    readonly_fields = ("command_shown", "result_shown", "records_shown")

    def _of_round_in_play(self, event: TableEvent, value) -> str:
        withheld, opened = _withheld(event.table)
        return _shown(_masked(value, withheld) if opened is not None and event.seq >= opened else value)

    @admin.display(description="command")
    def command_shown(self, event: TableEvent) -> str:
        return self._of_round_in_play(event, event.command)

    @admin.display(description="result")
    def result_shown(self, event: TableEvent) -> str:
        return self._of_round_in_play(event, event.result)

    @admin.display(description="records")
    def records_shown(self, event: TableEvent) -> str:
        return self._of_round_in_play(event, event.records)


@admin.register(RotationLogEntry)
class RotationLogEntryAdmin(ReadOnlyAdmin):
    list_display = ("table", "action", "seat", "player", "round_number", "created_at")
    list_select_related = ("table",)


@admin.register(Approval)
class ApprovalAdmin(ReadOnlyAdmin):
    list_display = ("table", "kind", "round_number", "requested_by", "requested_at")
    list_select_related = ("table", "requested_by")


@admin.register(DealerAssignment)
class DealerAssignmentAdmin(admin.ModelAdmin):
    list_display = ("dealer", "table", "gaming_day", "shift", "assigned_by", "assigned_at", "ended_at")
    list_select_related = ("dealer", "table", "assigned_by")

"""Admin for table records. Everything that moves money goes through the command service,
so these are read-only; dealer assignments are also made on the supervisors' page."""

from django.contrib import admin

from collections_fees.admin import ReadOnlyAdmin

from .models import Approval, DealerAssignment, RotationLogEntry, Table, TableConfig, TableEvent


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("name", "seats", "is_open", "version", "created_at")


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

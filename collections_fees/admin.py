"""Read-only admin for the compliance records of this app.

The tables behind these models are append-only (database triggers refuse UPDATE and
DELETE), so the admin offers no change or delete: drop counts are entered on the
collection log page (a recount is a new row), fee lines come from the command service,
and export manifests from the exports.
"""

from django.contrib import admin

from cardroom.admin import ReadOnlyAdmin

from .models import CollectionEntry, DropCount, ExportManifest, FeeSchedule


@admin.register(CollectionEntry)
class CollectionEntryAdmin(ReadOnlyAdmin):
    list_display = ("table", "seq", "gaming_day", "shift", "kind", "seat", "payer", "player", "amount", "reason")
    list_filter = ("kind", "payer", "gaming_day")
    search_fields = ("player",)
    list_select_related = ("table",)


@admin.register(FeeSchedule)
class FeeScheduleAdmin(ReadOnlyAdmin):
    list_display = ("table", "version", "payers", "player_basis", "pd_basis", "effective_from", "created_by")


@admin.register(DropCount)
class DropCountAdmin(ReadOnlyAdmin):
    list_display = ("table", "gaming_day", "amount", "counted_by", "counted_at", "note")
    list_filter = ("gaming_day",)


@admin.register(ExportManifest)
class ExportManifestAdmin(ReadOnlyAdmin):
    list_display = ("finished_at", "kind", "filename", "rows", "bytes", "sha256", "requested_by", "source")
    list_filter = ("kind", "source")

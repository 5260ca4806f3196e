"""Read-only admin for rounds: a settled round is never edited (a trigger refuses it)."""

from django.contrib import admin

from cardroom.admin import ReadOnlyAdmin

from .models import Round, SettlementLine


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "gaming_day", "status", "pd_seat", "pd_player", "bank", "pd_net", "exhausted")
    list_filter = ("status", "gaming_day")
    list_select_related = ("table",)


@admin.register(SettlementLine)
class SettlementLineAdmin(ReadOnlyAdmin):
    list_display = ("round", "order", "seat", "player", "wager", "stake", "result", "amount", "uncovered")
    list_select_related = ("round",)

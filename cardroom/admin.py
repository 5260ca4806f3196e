"""The admin of append-only records (cardroom/ledger.py): each app registers its ledgers
with `ReadOnlyAdmin`, kept in the kernel so that every layer may use it."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shows the rows and offers no add, change or delete: the database refuses UPDATE and
    DELETE on these tables anyway, and a correction is a new row made by a service."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

"""The admin's base for ledger rows, shared by every app that keeps them.

A ledger table is append-only (database triggers refuse UPDATE and DELETE, cardroom/
ledger.py), so its admin offers no add, change or delete. Here, in the kernel, so that the
round records, the back office and the tables app use it without importing one another.
"""

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

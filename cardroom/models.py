"""The audit trail: every command, approval, login, configuration and admin change.

Append-only (a database trigger refuses UPDATE and DELETE). Times are stored in UTC and
shown in the cardroom's zone.
"""

from django.conf import settings
from django.db import models


class AuditEntry(models.Model):
    ACTIONS = [
        (a, a)
        for a in (
            "command",
            "command_refused",
            "approval_requested",
            "approval_decided",
            "login",
            "login_failed",
            "logout",
            "configuration",
            "assignment",
            "admin",
            "count",  # drop boxes, counts, signatures, shift closes (collections_fees/counts.py)
        )
    ]

    at = models.DateTimeField(db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    username = models.CharField(max_length=150, db_index=True)
    role = models.CharField(max_length=16)
    session = models.CharField(max_length=64, blank=True, help_text="session key or device")
    address = models.CharField(max_length=64, blank=True, help_text="client IP address")
    action = models.CharField(max_length=24, choices=ACTIONS, db_index=True)
    table_id = models.PositiveBigIntegerField(null=True, blank=True, db_index=True)
    summary = models.CharField(max_length=200)
    detail = models.JSONField(default=dict)

    class Meta:
        ordering = ["-at", "-id"]

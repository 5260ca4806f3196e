"""Writing the audit trail. Every entry point records through `audit_record`."""

from django.utils import timezone

from .access import Actor
from .models import AuditEntry


def audit_record(*, actor: Actor, action: str, summary: str, table_id: int | None = None, detail: dict | None = None):
    return AuditEntry.objects.create(
        at=timezone.now(),
        user_id=actor.user_id,
        username=actor.name,
        role=actor.role,
        session=actor.recorded_session,  # the tag: the key is a login
        address=actor.address[:64],
        action=action,
        table_id=table_id,
        summary=summary[:200],
        detail=detail or {},
    )

"""Audit entries for what only Django's signals see: logins, failed logins, logouts and
changes made in the Django admin. Commands and approvals are recorded by their services."""

from django.contrib.admin.models import LogEntry
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.db.models.signals import post_save
from django.dispatch import receiver

from .access import Actor, request_address
from .audit import audit_record


@receiver(user_logged_in)
def _logged_in(sender, request, user, **kwargs):
    audit_record(actor=Actor.from_request(request, user), action="login", summary=f"{user.get_username()} logged in")


@receiver(user_logged_out)
def _logged_out(sender, request, user, **kwargs):
    if user is not None:
        audit_record(actor=Actor.from_request(request, user), action="logout", summary=f"{user.get_username()} logged out")


@receiver(user_login_failed)
def _login_failed(sender, credentials, request=None, **kwargs):
    username = str(credentials.get("username", ""))[:150]
    audit_record(
        actor=Actor(name=username, role="", address=request_address(request)),
        action="login_failed",
        summary=f"failed login for {username!r}",
    )


@receiver(post_save, sender=LogEntry)
def _admin_change(sender, instance, created, **kwargs):
    if created:
        actor = Actor.of(instance.user)
        audit_record(
            actor=actor,
            action="admin",
            summary=f"admin {instance.get_action_flag_display()}: {instance.object_repr}",
            detail={"content_type": instance.content_type_id, "object_id": instance.object_id,
                    "change": instance.get_change_message()},
        )

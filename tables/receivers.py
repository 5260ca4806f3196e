"""Live screens follow the session: a logout closes the sockets opened with it."""

from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from . import events


@receiver(user_logged_out)
def _close_sockets_of_the_session(sender, request, user, **kwargs):
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and session_key:
        events.session_ended(user.pk, session_key)

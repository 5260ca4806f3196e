"""Live screens follow the session and the back office: a logout closes the sockets
opened with it, and a drop box placed by the count's service shows on the floor."""

from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from collections_fees.signals import box_placed

from . import events


@receiver(user_logged_out)
def _close_sockets_of_the_session(sender, request, user, **kwargs):
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and session_key:
        events.session_ended(user.pk, session_key)


@receiver(box_placed, dispatch_uid="tables.floor_row_on_box_placed")
def _floor_row_follows_the_box(sender, table_id, **kwargs):
    # The back office sends this inside its transaction; the floor row is published on commit.
    events.floor_row_changed_on_commit(table_id)


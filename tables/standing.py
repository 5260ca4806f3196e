"""A person's standing (their session, user, role and a dealer's assignments), as held by
their open sockets, and the signals that tell those sockets it changed.

A socket checks its person's standing when it opens and every SESSION_CHECK_SECONDS
(web.tables.consumers), and holds what it found: a command then costs no query for it. What
can take a person's standing away announces it here, once its transaction commits:

* a user saved (deactivated, password or superuser flag changed) or deleted;
* a user's groups changed (their role), from either side of the relation;
* a dealer assignment saved (ended, moved) or deleted;
* a logout, which closes the session's sockets at once (tables.receivers).

An announcement does two things. In this process it moves the person's generation on
at once, so a socket of this process that holds the old one checks again before its next
command, whatever the channel layer does. And it is sent to the person's group
(events.user_group), so the sockets of every other process drop what they hold and check
again at once. A change that no signal sees (a raw SQL update, a group emptied or deleted
from the group's side in another process) is found by the periodic check, within
SESSION_CHECK_SECONDS, as before this cache existed.

A dealer's right to drive the table is the one part of the standing that does not wait
for either: the socket's actors share a DriveGrant (cardroom.access), the answer it last
found for the table's `drivers_version` and the gaming day and shift, and the command
service compares it with the table row it locks (cardroom.access.can_drive_row). The
database moves that counter on with every change of the table's assignments, so an ended
assignment or a hand-over refuses the dealer's next command even if no announcement
arrives (Redis down, a raw SQL update), and a new shift ends the grant by the clock alone.
"""

import itertools
import logging
import threading

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from .models import DealerAssignment

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_ticks = itertools.count(1)
_everyone = 0  # moved on by a change that may touch anyone (a group deleted or emptied)
_of_user: dict[int, int] = {}


def generation(user_id: int | None) -> tuple[int, int]:
    """Read before a check: a standing checked under this generation still holds while it
    is unchanged. (Read before, not after: a change committed during the check then moves
    it on, and the next command checks again.)"""
    return _everyone, _of_user.get(user_id, 0)


def changed(user_ids, *, everyone: bool = False) -> None:
    """These users' standing changed: announced once the current transaction commits (at
    once outside one); a rolled-back change announces nothing."""
    ids = sorted({int(pk) for pk in user_ids or ()})
    if ids or everyone:
        transaction.on_commit(lambda: _announce(ids, everyone))


def _announce(user_ids: list[int], everyone: bool) -> None:
    global _everyone
    with _lock:
        tick = next(_ticks)
        if everyone:
            _everyone = tick
        for user_id in user_ids:
            _of_user[user_id] = tick
    from . import events

    for user_id in user_ids:
        events.standing_changed(user_id)


# Only a login's own bookkeeping: it changes nothing a socket relies on.
_NOT_STANDING = frozenset({"last_login"})


@receiver(post_save, sender=get_user_model(), dispatch_uid="standing_user_saved")
def _user_saved(sender, instance, created, update_fields=None, **kwargs):
    if created or (update_fields is not None and set(update_fields) <= _NOT_STANDING):
        return
    changed([instance.pk])


@receiver(post_delete, sender=get_user_model(), dispatch_uid="standing_user_deleted")
def _user_deleted(sender, instance, **kwargs):
    changed([instance.pk])


@receiver(m2m_changed, sender=get_user_model().groups.through, dispatch_uid="standing_groups_changed")
def _groups_changed(sender, instance, action, reverse, pk_set, **kwargs):
    if action not in ("post_add", "post_remove", "post_clear"):
        return
    if not reverse:  # user.groups.add/remove/set/clear: instance is the user
        changed([instance.pk])
    elif pk_set:  # group.user_set.add/remove: pk_set holds the users
        changed(pk_set)
    else:  # group.user_set.clear(): who was in it is no longer known here
        changed((), everyone=True)


@receiver(post_delete, sender=Group, dispatch_uid="standing_group_deleted")
def _group_deleted(sender, instance, **kwargs):
    changed((), everyone=True)


@receiver(post_save, sender=DealerAssignment, dispatch_uid="standing_assignment_saved")
@receiver(post_delete, sender=DealerAssignment, dispatch_uid="standing_assignment_deleted")
def _assignment_changed(sender, instance, **kwargs):
    changed([instance.dealer_id])


# --- The periodic check, one statement for every socket of a process --------------------
#
# Every SESSION_CHECK_SECONDS each process reads, in one statement for all its sockets,
# what a person's standing rests on (a "fingerprint"): the session row alive and unexpired,
# the user's active flag, superuser flag, a digest of their password hash (a changed
# password ends every session, as Django's own check does), their groups, and for a socket
# on a table that table's drivers_version and whether the person holds an assignment to it
# this gaming day and shift (a new shift ends a dealer's by the clock). A socket whose
# fingerprint moved since its last full check runs that full check (the consumer's
# `standing`, which closes it if it may no longer stay); every other socket costs nothing.
# So what no signal announces (raw SQL, an `.update()`, an expiry, a shift turning) is still
# found within SESSION_CHECK_SECONDS, at one query per process instead of one per socket.

Socket = tuple[str, int, int | None]  # (session key, user id, table id or None)


def fingerprints(sockets: list[Socket]) -> list[tuple]:
    """Each socket's fingerprint, in the order given, in one statement."""
    if not sockets:
        return []
    from django.contrib.sessions.models import Session
    from django.db import connection
    from django.utils import timezone

    from cardroom.gaming_day import calendar

    from .models import Table

    user_model = get_user_model()
    groups = user_model.groups.through
    now, cal = timezone.now(), calendar()
    keys, users, tables = zip(*sockets)
    sql = f"""
        SELECT s.ord, ds.session_key IS NOT NULL, u.is_active, u.is_superuser, md5(u.password),
               coalesce((SELECT array_agg(g.name ORDER BY g.name) FROM {groups._meta.db_table} ug
                         JOIN {Group._meta.db_table} g ON g.id = ug.group_id WHERE ug.user_id = u.id), '{{}}'),
               t.drivers_version,
               EXISTS (SELECT 1 FROM {DealerAssignment._meta.db_table} a WHERE a.dealer_id = u.id
                       AND a.table_id = s.table_id AND a.gaming_day = %s AND a.shift = %s AND a.ended_at IS NULL)
        FROM unnest(%s::int[], %s::text[], %s::bigint[], %s::bigint[]) AS s(ord, key, user_id, table_id)
        LEFT JOIN {Session._meta.db_table} ds ON ds.session_key = s.key AND ds.expire_date > %s
        LEFT JOIN {user_model._meta.db_table} u ON u.id = s.user_id
        LEFT JOIN {Table._meta.db_table} t ON t.id = s.table_id
        ORDER BY s.ord"""
    with connection.cursor() as cursor:
        cursor.execute(sql, [cal.gaming_day(now), cal.shift(now), list(range(len(sockets))), list(keys),
                             list(users), list(tables), now])
        return [tuple(row[1:]) for row in cursor.fetchall()]

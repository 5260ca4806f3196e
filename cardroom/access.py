"""Who may do what: roles, actors and the checks every entry point shares.

Roles are Django groups: `dealer` drives only the tables assigned to them for the
current shift; `supervisor` sees and drives every table, assigns dealers, approves voids,
corrections and configuration changes; `compliance` reads everything and changes
nothing; `admin` uses the Django admin. `count_team` counts the drop boxes and signs the
count sheet (4 CCR 12385: a role of its own, not the floor's); `manager` approves what the
count escalates (a variance above threshold, reopening a closed shift). Management commands (replay, the simulator,
seeding) act as `system`.
"""

import inspect
import threading
from dataclasses import dataclass, field, replace
from functools import cached_property, wraps

from asgiref.sync import sync_to_async
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.utils.crypto import salted_hmac

from cardroom import kernel_models

ROLES = ("dealer", "supervisor", "compliance", "admin", "count_team", "manager")
SYSTEM = "system"
# A person normally holds one role; if several, the strongest one applies.
_PRECEDENCE = ("admin", "manager", "supervisor", "compliance", "count_team", "dealer")


@dataclass(frozen=True)
class Actor:
    """Whoever sends a command or takes an action, as recorded in the audit trail."""

    name: str
    role: str
    user_id: int | None = None
    session: str = ""  # the session key or device of the request: a credential, never stored
    address: str = ""  # the client's IP address
    # A socket's actors share what they found about driving tables (from_scope): the next
    # command of the socket then needs no assignment query while it still holds.
    grant: "DriveGrant | None" = field(default=None, compare=False, repr=False)

    @classmethod
    def system(cls, name: str) -> "Actor":
        return cls(name=name, role=SYSTEM)

    @classmethod
    def of(cls, user, *, session: str = "", address: str = "", role: str | None = None) -> "Actor":
        """`user` as an actor; `role` when it is known already (a request's)."""
        role = role if role is not None else role_of(user)
        return cls(name=user.get_username(), role=role or "", user_id=user.pk, session=session, address=address)

    @classmethod
    def from_request(cls, request, user=None) -> "Actor":
        """The person behind a request (`user` when the request's is not set yet)."""
        where = {"session": request_session(request), "address": request_address(request)}
        if user is None:
            return cls.of(request.user, role=request_role(request), **where)
        return cls.of(user, **where)

    @classmethod
    def from_scope(cls, scope) -> "Actor":
        """The person behind a socket. Every actor made for one socket (at connect, at each
        re-check of its standing) shares the socket's DriveGrant, kept in its scope: it is
        keyed by everything that decides the answer, so a re-check loses nothing by it."""
        session = scope.get("session")
        client = scope.get("client") or ("", 0)
        actor = cls.of(scope["user"], session=getattr(session, "session_key", "") or "", address=client[0] or "")
        grant = scope.setdefault(DriveGrant.SCOPE_KEY, DriveGrant())
        return replace(actor, grant=grant)

    @property
    def is_system(self) -> bool:
        return self.role == SYSTEM

    @cached_property
    def recorded_session(self) -> str:
        """The session as every record keeps it: its tag (`session_tag`), never the key.
        An HMAC, computed once per actor: a socket holds its actor across its commands, and
        each command records the tag on its event and its audit row."""
        return session_tag(self.session)


# The purpose of the tag's HMAC key, so that no other use of SECRET_KEY (signed cookies,
# password resets) ever yields the same digest.
_SESSION_TAG_PURPOSE = "cardroom.access.session_tag"


def session_tag(session_key: str) -> str:
    """A session as records and socket messages name it: an HMAC of the key, keyed by a
    key derived from SECRET_KEY. The key itself is a credential (whoever holds it is logged
    in as its person), so no record, export or page ever keeps it; the tag still tells one
    session (the same tablet) from another and cannot be turned back into the key, nor
    computed from a key by anyone who does not hold SECRET_KEY. No session, no tag: ""."""
    if not session_key:
        return ""
    return salted_hmac(_SESSION_TAG_PURPOSE, session_key, algorithm="sha256").hexdigest()[:32]


def request_session(request) -> str:
    return getattr(getattr(request, "session", None), "session_key", None) or ""


def request_address(request) -> str:
    return request.META.get("REMOTE_ADDR", "") if request is not None else ""


def request_role(request) -> str | None:
    """The role of the request's user, looked up once per request: the guard, the actor
    and every template ask for it. (Not cached on the user: a websocket keeps its user
    for hours, and a role taken away must count at its next command.)"""
    if not hasattr(request, "_cardroom_role"):
        request._cardroom_role = role_of(request.user)
    return request._cardroom_role


def role_of(user) -> str | None:
    if user is None or not user.is_authenticated:
        return None
    if user.is_superuser:
        return "admin"
    names = set(user.groups.values_list("name", flat=True))
    return next((role for role in _PRECEDENCE if role in names), None)


def can_drive(actor: Actor, table_id: int) -> bool:
    """May this actor send commands to this table now?"""
    if actor.role in (SYSTEM, "supervisor"):
        return True
    if actor.role != "dealer" or actor.user_id is None:
        return False
    return dealer_assigned_now(user_id=actor.user_id, table_id=table_id)


class DriveGrant:
    """What a socket found the last time it asked whether its dealer may drive a table:
    the answer, and what it was found for: the user, the table, the table's
    `drivers_version` and the gaming day and shift.

    The counter is moved by the database on every change of the table's assignments
    (tables/migrations/0019_table_drivers_version.py), and the shift follows the clock, so while all of them match
    the answer stands without asking the assignments again: an ended assignment, a
    relief hand-over or a new shift each makes the next command ask, with no signal, no
    channel layer and no write of its own (Redis may be down)."""

    SCOPE_KEY = "cardroom.drive_grant"

    def __init__(self):
        self._lock = threading.Lock()  # a socket's commands and its periodic check run in worker threads
        self._held: tuple[tuple, bool] | None = None  # (key, answer): a socket drives one table

    def answer(self, key: tuple) -> bool | None:
        with self._lock:
            held = self._held
        return held[1] if held is not None and held[0] == key else None

    def hold(self, key: tuple, answer: bool) -> None:
        with self._lock:
            self._held = (key, answer)


def can_drive_row(actor: Actor, table) -> bool:
    """can_drive, for the command service, on the table's row as it locked it: a dealer's
    answer is kept by the actor's DriveGrant (a socket's) for the row's `drivers_version`
    and the current gaming day and shift, and asked of the assignments again only when
    one of them moved. Locked, the row's counter is the one that decides: an assignment
    change either committed before the lock (the counter moved) or waits for it."""
    if actor.role != "dealer" or actor.user_id is None or actor.grant is None:
        return can_drive(actor, table.pk)
    from django.utils import timezone

    from cardroom.gaming_day import calendar

    now, cal = timezone.now(), calendar()
    day, shift = cal.gaming_day(now), cal.shift(now)
    key = (actor.user_id, table.pk, table.drivers_version, day, shift)
    answer = actor.grant.answer(key)
    if answer is None:
        answer = _assignments(actor.user_id, day, shift).filter(table_id=table.pk).exists()
        actor.grant.hold(key, answer)
    return answer


def can_drive_table(actor: Actor, table_id: int) -> bool:
    """can_drive_row outside a command (a socket's periodic check): the table's
    `drivers_version`, read without a lock, decides whether the answer the socket's
    DriveGrant holds still stands, so a dealer's tablet asks the assignments again only
    when they changed or the shift did. Unlocked, as can_drive is: a change committed
    before the read moved the counter and is asked about now; one committed after it is
    caught by the next command, which compares the locked row."""
    if actor.role != "dealer" or actor.user_id is None or actor.grant is None:
        return can_drive(actor, table_id)
    table = kernel_models.model("Table").objects.only("pk", "drivers_version").filter(pk=table_id).first()
    return table is not None and can_drive_row(actor, table)


def tables_drivable(actor: Actor, table_ids: set[int]) -> set[int]:
    """The tables of `table_ids` this actor may drive now: can_drive for many tables, in
    one query for a dealer (the home page's links)."""
    return {t for t in table_ids if can_drive(actor, t)} if actor.role != "dealer" else _assigned(actor, table_ids)


def tables_viewable(actor: Actor, table_ids: set[int]) -> set[int]:
    """The tables of `table_ids` this actor may watch now: can_view_table for many."""
    return {t for t in table_ids if can_view_table(actor, t)} if actor.role != "dealer" else _assigned(actor, table_ids)


def _assigned(actor: Actor, table_ids: set[int]) -> set[int]:
    # A dealer drives and watches exactly the tables assigned for this shift.
    return tables_assigned_now(actor.user_id) & set(table_ids) if actor.user_id is not None else set()


def dealer_assigned_now(*, user_id: int, table_id: int) -> bool:
    """The dealer holds an assignment to the table for the current gaming day and shift."""
    return _assignments_now(user_id).filter(table_id=table_id).exists()


def tables_assigned_now(user_id: int) -> set[int]:
    """Every table the dealer is assigned to for the current gaming day and shift."""
    return set(_assignments_now(user_id).values_list("table_id", flat=True))


def _assignments_now(user_id: int):
    from django.utils import timezone

    from cardroom.gaming_day import calendar

    now, cal = timezone.now(), calendar()
    return _assignments(user_id, cal.gaming_day(now), cal.shift(now))


def _assignments(user_id: int, day, shift: str):
    """The dealer's live assignments of one gaming day and shift."""
    DealerAssignment = kernel_models.model("DealerAssignment")  # the kernel sits below the tables app
    return DealerAssignment.objects.filter(dealer_id=user_id, gaming_day=day, shift=shift, ended_at__isnull=True)


# --- view guards ------------------------------------------------------------------------
# Pages send anonymous users to the login page and answer 403 to a role without access;
# the JSON API answers 401 / 403; websockets close (web/tables/consumers.py). Both guards
# work for sync and async views, and mark the view with the roles it lets in, which the
# permission matrix test reads.

EVERY_ROLE = ROLES
READERS = ("supervisor", "compliance", "admin")
DRIVERS = ("dealer", "supervisor")
# The count pages: read by the readers, the count team and managers.
COUNT_READERS = (*READERS, "count_team", "manager")


def _guard(roles: tuple[str, ...], refuse_anonymous, refuse_role):
    def decorate(view):
        if inspect.iscoroutinefunction(view):

            @wraps(view)
            async def guarded(request, *args, **kwargs):
                user = await request.auser()
                if not user.is_authenticated:
                    return refuse_anonymous(request)
                if await sync_to_async(request_role)(request) not in roles:
                    return refuse_role(request)
                return await view(request, *args, **kwargs)

        else:

            @wraps(view)
            def guarded(request, *args, **kwargs):
                if not request.user.is_authenticated:
                    return refuse_anonymous(request)
                if request_role(request) not in roles:
                    return refuse_role(request)
                return view(request, *args, **kwargs)

        guarded.allowed_roles = roles
        return guarded

    return decorate


def _to_login(request):
    return redirect_to_login(request.get_full_path())


def _forbidden(request):
    # The site's 403 page (templates/403.html, with the navigation of the person's role).
    raise PermissionDenied("Your role does not give access to this page.")


def _json_refusal(status: int, message: str):
    return lambda request: JsonResponse({"ok": False, "error": {"code": "not_authorized", "message": message}}, status=status)


def page_for(*roles: str):
    """A page for these roles only."""
    return _guard(roles, _to_login, _forbidden)


def api_for(*roles: str):
    """A JSON endpoint for these roles only: 401 anonymous, 403 other roles."""
    return _guard(roles, _json_refusal(401, "log in first"), _json_refusal(403, "your role may not do this"))


def can_view_table(actor: Actor, table_id: int) -> bool:
    """Supervisors, compliance and admins see every table; a dealer the ones assigned."""
    if actor.role in READERS:
        return True
    return actor.role == "dealer" and dealer_assigned_now(user_id=actor.user_id, table_id=table_id)


def role_context(request) -> dict:
    """`role` in every template, so the navigation shows each person only their pages."""
    role = request_role(request) if hasattr(request, "user") else None
    return {"role": role, "approvals_waiting": _approvals_waiting if role == "supervisor" else 0}


def _approvals_waiting() -> int:
    """Requests a supervisor has yet to decide (the navigation's count; called by the
    template only where it is shown)."""
    return kernel_models.model("Approval").objects.filter(decision__isnull=True).count()

"""The relief plan page (supervisors) and the dealer's take-over page (tables/relief.py)."""

from datetime import datetime

from django.contrib.auth import get_user_model
from django.shortcuts import redirect, render
from django.utils import timezone

from cardroom.access import Actor, page_for
from cardroom.gaming_day import calendar

from tables import relief
from tables.models import ReliefPush, Table

# A refused step is answered on the page with its code and this status; nothing changed.
REFUSED_STATUS = 409


def _first_push(clock: str) -> datetime:
    """"HH:MM" today, in the cardroom's zone."""
    try:
        hours, minutes = (int(part) for part in clock.split(":"))
        local = timezone.localtime().replace(hour=hours, minute=minutes, second=0, microsecond=0)
    except (AttributeError, ValueError):
        raise relief.ReliefError("invalid_command", "the first push is a time, HH:MM") from None
    return local


@page_for("supervisor")
def relief_plan_page(request):
    """The shift's plan: make one (dealers in rotation order, tables in push order, the
    first push), and see the one in force with the shift's hand-overs."""
    refused = done = None
    if request.method == "POST":
        post = request.POST
        try:
            plan = relief.relief_plan_make(dealers=post.getlist("dealers"), tables=post.getlist("tables"),
                                           starts_at=_first_push(post.get("starts_at", "")),
                                           actor=Actor.from_request(request))
            done = f"Plan made for {plan.gaming_day} {plan.shift}: a push every {plan.relief_minutes} minutes"
        except relief.ReliefError as err:
            refused = err  # the page shows its words; the code rides in an attribute
    now = timezone.now()
    cal = calendar()
    plan = relief.plan_in_force(cal.gaming_day(now), cal.shift(now))
    pushes = ReliefPush.objects.filter(plan=plan).select_related("dealer", "table") if plan else []
    context = {
        "refused": refused, "done": done, "plan": plan, "pushes": pushes, "board": relief.relief_board(now),
        "minutes": relief.relief_minutes(), "now": timezone.localtime(now),
        "dealers": get_user_model().objects.filter(groups__name="dealer").order_by("username"),
        "tables": Table.objects.filter(retired=False).order_by("name", "pk"),
    }
    return render(request, "tables/relief.html", context, status=REFUSED_STATUS if refused else 200)


@page_for("dealer")
def relief_mine(request):
    """A dealer's pushes; at their push, the button that takes over the table's tablet."""
    refused = None
    if request.method == "POST":
        try:
            handover = relief.handover_take(table_id=request.POST.get("table"), actor=Actor.from_request(request))
            return redirect("tablet", table_id=handover.table_id)
        except relief.ReliefError as err:
            refused = err  # the page shows its words; the code rides in an attribute
    context = {"refused": refused, **relief.my_pushes(request.user.pk)}
    return render(request, "tables/relief_mine.html", context, status=REFUSED_STATUS if refused else 200)

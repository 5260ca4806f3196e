"""Table setup, for supervisors: create a table, change each part of its configuration,
retire it. Every change is shown against the version in force (tables/setup.py) and
becomes a request that a second supervisor approves in the queue (tables/approvals.py);
nothing here changes a configuration itself. The engine's `TableConfig.from_config`
checks every change: a refusal is shown on the form with its code, and nothing is filed.

A new table opens only once its own first configuration is approved. When that request
was refused, it is filed again from here: as the configuration stands, or with a
section's change, which then becomes the first configuration asked for.
"""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from cardroom.access import Actor, page_for
from web.staff.setup_forms import SECTIONS, ExpectedWagersForm, TableCreateForm
from web.tables.ui_text import POSTED_TEXT
from collections_fees.counts import boxes_now
from collections_fees.models import JackpotMeter
from rounds.engine.config import TableConfig as EngineConfig
from rounds.engine.errors import CommandError
from rounds.game_math import (
    WagerError,
    bad_beat_distribution,
    edges_text,
    game_math_data,
    money,
    table_math,
    wagers_for,
    wagers_text,
)
from tables.approvals import approval_request, first_configuration_request
from tables.models import Approval, Table, TableStatusChange
from tables.lifecycle import table_create, table_retire
from tables.setup import (
    SAMPLE_ANTES,
    asked_config,
    config_changes,
    fee_preview,
    first_configuration,
    request_changes,
)


def _refused(err: CommandError) -> str:
    return f"{err.code}: {err.message}"


@page_for("supervisor")
def table_list(request):
    """Every table, the retired ones apart, and the form that creates one."""
    form = TableCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            table = table_create(name=data["name"], config={"seats": data["seats"], "paytable": data["paytable"]},
                                 created_by=Actor.from_request(request))
        except CommandError as err:
            form.add_error(None, _refused(err))
        else:
            messages.success(request, f"{table.name} created, closed: its first configuration waits in the queue for "
                                      "a second supervisor. Configure the rest below; each change is a request too.")
            return redirect("table-setup", table_id=table.pk)
    tables = list(Table.objects.order_by("name", "pk"))
    return render(request, "staff/tables.html", {
        "form": form, "active": [t for t in tables if not t.retired], "retired": [t for t in tables if t.retired],
    })


@page_for("supervisor")
def table_setup(request, table_id: int, section: str | None = None):
    """The table's configuration in force, a form per part of it, and its requests
    waiting for a second supervisor. A POST to a part (`section`) with `step=review`
    shows what it would change; with `step=request` it files the request."""
    table = get_object_or_404(Table, pk=table_id)
    config = table.state["config"]
    forms = {name: form_class(initial=form_class.initial_from(config), prefix=name) for name, form_class in SECTIONS.items()}
    review = None
    if request.method == "POST":
        if section not in SECTIONS:
            return redirect("table-setup", table_id=table.pk)
        form = forms[section] = SECTIONS[section](request.POST, initial=forms[section].initial, prefix=section)
        review = _review(request, table, form)
        if review is not None and review.get("filed"):
            return redirect("table-setup", table_id=table.pk)
    pending = list(Approval.objects.filter(table=table, kind="config", decision__isnull=True)
                   .select_related("requested_by", "table").order_by("requested_at"))
    for approval in pending:
        approval.changes = request_changes(approval)
    fees = config.get("fee_schedule")
    progressive = (config.get("side_bets") or {}).get("progressive")
    return render(request, "staff/table_setup.html", {
        "table": table, "config": config, "forms": forms, "review": review, "pending": pending,
        "first": first_configuration(table),
        "preview": (review or {}).get("preview") or (fee_preview(fees, SAMPLE_ANTES, table.seats) if fees else None),
        "meter": JackpotMeter.objects.filter(name=progressive["meter"]["name"]).first() if progressive else None,
        "boxes": boxes_now([table])[table.pk],
        "progressive": bool(progressive),
        "status": TableStatusChange.objects.filter(table=table).select_related("by_user")[:10],
    })


def _review(request, table: Table, form) -> dict | None:
    """The form's change checked by the engine and compared with the version in force;
    filed as a request when asked to (`filed`). None when the form itself is invalid."""
    if not form.is_valid():
        return None
    change = form.change()
    try:
        asked = asked_config(table, change)
    except CommandError as err:
        form.add_error(None, _refused(err))
        return None
    review = {"section": form.section, "changes": config_changes(table.state["config"], asked)}
    if form.section == "fees" and asked["fee_schedule"] is not None:
        review["preview"] = fee_preview(asked["fee_schedule"], form.cleaned_data["samples"], asked["seats"])
    if not review["changes"]:
        form.add_error(None, "no_change: this is the configuration in force")
        return review
    if request.POST.get("step") != "request":
        return review
    if not (form.cleaned_data.get("reason") or "").strip():
        form.add_error("reason", "a request says why (the deciding supervisor reads it)")
        return review
    # A table whose first configuration was refused asks for it again with this change in it.
    first = first_configuration(table).state == "refused"
    try:
        if first:
            first_configuration_request(actor=Actor.from_request(request), table_id=table.pk,
                                        reason=form.cleaned_data["reason"], change=change)
        else:
            approval_request(actor=Actor.from_request(request), table_id=table.pk, kind="config",
                             payload={"reason": form.cleaned_data["reason"], "config": change})
    except CommandError as err:
        form.add_error(None, _refused(err))
        return review
    if first:
        messages.success(request, f"{form.title}: the table's first configuration, with this change, sent to the "
                                  "approval queue; another supervisor decides.")
    else:
        messages.success(request, f"{form.title}: {len(review['changes'])} change(s) sent to the approval queue; "
                                  "another supervisor decides.")
    return {**review, "filed": True}


@page_for("supervisor")
@require_POST
def table_first_configuration(request, table_id: int):
    """The table's first configuration, refused, filed again as it stands."""
    table = get_object_or_404(Table, pk=table_id)
    try:
        first_configuration_request(actor=Actor.from_request(request), table_id=table.pk,
                                    reason=request.POST.get("reason", ""))
    except CommandError as err:
        messages.error(request, f"Not filed: {_refused(err)}")
    else:
        messages.success(request, f"{table.name}'s first configuration sent to the approval queue again; "
                                  "another supervisor decides.")
    return redirect("table-setup", table_id=table.pk)


@page_for("supervisor")
@require_POST
def table_retirement(request, table_id: int):
    table = get_object_or_404(Table, pk=table_id)
    try:
        table_retire(table_id=table.pk, actor=Actor.from_request(request), reason=request.POST.get("reason", ""))
    except CommandError as err:
        messages.error(request, f"Not retired: {_refused(err)}")
        return redirect("table-setup", table_id=table.pk)
    messages.success(request, f"{table.name} retired: it stays in the compliance records and leaves the floor.")
    return redirect("table-list")


@page_for("supervisor")
def table_game_math(request, table_id: int):
    """What the table's configuration in force costs per round (rounds/game_math.py): the
    player-dealer's expected result against 1 to seats - 1 players, and each player's
    expected cost, collection fees included, for the wagers asked (the Ante at the
    table's minimum when none is given)."""
    table = get_object_or_404(Table, pk=table_id)
    config = EngineConfig.from_config(table.state["config"])
    form = ExpectedWagersForm(request.GET or None)
    figures, wagers, refusal = None, None, None
    if form.is_bound and not form.is_valid():
        refusal = "Amounts are dollars and cents."
    else:
        try:
            wagers = wagers_for(config, **(form.wagers() if form.is_bound else {}))
            figures = table_math(config, wagers)
        except WagerError as err:
            refusal = str(err)
    schedule = config.fee_schedule
    rows = [{
        "players": row.players,
        "pd_result": money(row.pd_result), "pd_from_players": money(row.pd_from_players),
        "pd_fee": money(row.pd_fee), "pd_loses": row.pd_result < 0,
        "player_cost": money(row.player_cost), "player_to_bank": money(row.player_to_bank),
        "player_fee": money(row.player_fee),
    } for row in (figures.rows if figures else ())]
    return render(request, "staff/table_game_math.html", {
        "table": table, "config": config, "form": form, "refusal": refusal, "rows": rows,
        "wagers": wagers_text(wagers) if wagers else None,
        "edges": edges_text(figures.edges, wagers) if figures else [],
        "fees": None if schedule is None else {
            "payers": POSTED_TEXT[schedule.payers], "player_basis": POSTED_TEXT[schedule.player_basis],
            "pd_basis": POSTED_TEXT[schedule.pd_basis],
        },
        "provenance": bad_beat_distribution()["provenance"],
        "base_source": game_math_data()["base_game"]["source"],
    })

"""The rule sets page (tables/rule_sets.py): for supervisors, each rule set with its tables,
the rules in force today, and every change with the gaming day it takes effect; a change is
filed here by one supervisor and approved or declined here by another."""

import json
from datetime import date

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from cardroom.access import Actor, page_for
from cardroom.gaming_day import calendar
from tables import rule_sets
from tables.models import RuleSet
from tables.setup import LABELS, rules_shown


@page_for("supervisor")
def rule_set_list(request):
    today = calendar().gaming_day(timezone.now())
    shown = []
    for rule_set in RuleSet.objects.order_by("name").prefetch_related("tables", "changes"):
        changes = sorted(rule_set.changes.all(), key=lambda c: -c.version)
        in_force = rule_sets.in_force(rule_set.pk, today)
        shown.append({
            "rule_set": rule_set,
            "tables": sorted(t.name for t in rule_set.tables.all() if not t.retired),
            "in_force": in_force,
            "changes": [{"change": c, "rules": rules_shown(c.rules), "json": json.dumps(c.rules, sort_keys=True),
                         "state": _state(c, in_force, today)} for c in changes],
        })
    return render(request, "staff/rule_sets.html", {
        "rule_sets": shown, "today": today, "me": request.user.pk,
        "keys": [(LABELS.get(key, key), key) for key in rule_sets.RULE_KEYS],
    })


def _state(change, in_force, today: date) -> str:
    """What the change is now, in the floor's words."""
    if not change.decision:
        return "waiting for a second supervisor"
    if change.decision == "declined":
        return "declined"
    if in_force is not None and change.pk == in_force.pk:
        return "in force"
    return f"from {change.effective_day}" if change.effective_day > today else "replaced"


@page_for("supervisor")
@require_POST
def rule_set_change_file(request, rule_set_id: int):
    actor = Actor.from_request(request)
    try:
        rules = json.loads(request.POST.get("rules") or "")
    except ValueError:
        messages.error(request, "Not filed: the rules are a JSON object, e.g. {\"notice\": \"...\"}")
        return redirect("rule-sets")
    try:
        day = date.fromisoformat(request.POST.get("effective_day") or "")
    except ValueError:
        messages.error(request, "Not filed: give the gaming day the change takes effect (YYYY-MM-DD)")
        return redirect("rule-sets")
    try:
        change = rule_sets.rule_set_file(actor=actor, rule_set_id=rule_set_id, rules=rules, effective_day=day,
                                         reason=request.POST.get("reason") or "")
    except rule_sets.RuleSetError as refused:
        messages.error(request, f"Not filed: {refused.message}")
        return redirect("rule-sets")
    messages.success(request, f"Version {change.version} filed for {change.effective_day}: another supervisor decides it.")
    return redirect("rule-sets")


@page_for("supervisor")
@require_POST
def rule_set_change_decide(request, change_id: int):
    approve = request.POST.get("decision") == "approve"
    try:
        change = rule_sets.rule_set_decide(actor=Actor.from_request(request), change_id=change_id, approve=approve)
    except rule_sets.RuleSetError as refused:
        messages.error(request, f"Not decided: {refused.message}")
        return redirect("rule-sets")
    messages.success(request, f"Version {change.version} {change.decision}"
                              + (f": in force from the first round of {change.effective_day}." if approve else "."))
    return redirect("rule-sets")

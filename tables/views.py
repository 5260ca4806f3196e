"""Thin read-only views; every change goes through tables.services.command_execute."""

from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render

from .models import Table
from .selectors import table_snapshot


def home(request):
    return render(request, "tables/home.html", {"tables": Table.objects.order_by("name")})


def table_state(request, table_id: int):
    return JsonResponse(table_snapshot(get_object_or_404(Table, pk=table_id)))


def healthz(request):
    return JsonResponse({"ok": True})

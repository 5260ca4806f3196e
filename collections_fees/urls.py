"""Compliance pages, all under /compliance/ (cardroom/urls.py:
`path("compliance/", include("collections_fees.urls"))`), in the `compliance` namespace."""

from django.urls import include, path

from . import views

app_name = "compliance"

urlpatterns = [
    path("", views.index, name="index"),
    path("collections/", views.collection_log, name="collections"),
    path("collections/export.csv", views.collection_export_csv, name="collections-export"),
    path("collections/summary.xlsx", views.daily_summary, name="collections-summary"),
    path("jackpot/export.csv", views.jackpot_export_csv, name="jackpot-export"),
    path("collections/drop-counts/", views.drop_count_create, name="drop-count-create"),
    path(
        "collections/drop-counts/<int:table_id>/<str:gaming_day>/",
        views.drop_count_history,
        name="drop-count-history",
    ),
    path("exports/", views.export_list, name="exports"),
    path("exports/<uuid:export_id>/manifest.json", views.export_manifest, name="export-manifest"),
    path("", include("rounds.urls")),
]

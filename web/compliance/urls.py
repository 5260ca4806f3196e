"""Compliance pages, all under /compliance/ (config/urls.py:
`path("compliance/", include("web.compliance.urls"))`), in the `compliance` namespace."""

from django.urls import include, path

from web.compliance import counts, handovers, views

app_name = "compliance"

urlpatterns = [
    path("", views.index, name="index"),
    path("collections/", views.collection_log, name="collections"),
    path("collections/export.csv", views.collection_export_csv, name="collections-export"),
    path("collections/summary.xlsx", views.daily_summary, name="collections-summary"),
    path("jackpot/", views.jackpot_fund, name="jackpot"),
    path("jackpot/export.csv", views.jackpot_export_csv, name="jackpot-export"),
    path(
        "collections/drop-counts/<int:table_id>/<str:gaming_day>/",
        views.drop_count_history,
        name="drop-count-history",
    ),
    path("handovers/", handovers.handover_log, name="handovers"),
    path("handovers/export.csv", handovers.handover_export_csv, name="handovers-export"),
    path("exports/", views.export_list, name="exports"),
    path("exports/<uuid:export_id>/manifest.json", views.export_manifest, name="export-manifest"),
    path("boxes/", counts.boxes, name="boxes"),
    path("count/", counts.count_index, name="count-index"),
    path("count/<str:gaming_day>/print/", counts.count_sheet_print, name="count-sheet-print"),  # before <shift>/: "print" is no shift
    path("count/<str:gaming_day>/<str:shift>/", counts.count_sheet, name="count-sheet"),
    path("count/<str:gaming_day>/export.csv", counts.count_sheet_csv, name="count-sheet-export"),
    path("count/<str:gaming_day>/count.xlsx", counts.count_sheet_xlsx, name="count-sheet-xlsx"),
    path("closer/<str:gaming_day>/", counts.closer, name="closer"),
    path("closer/<str:gaming_day>/export.csv", counts.closer_csv, name="closer-export"),
    path("closer/<str:gaming_day>/closer.xlsx", counts.closer_xlsx, name="closer-xlsx"),
    path("closer/<str:gaming_day>/print/", counts.closer_print, name="closer-print"),
    path("", include("web.compliance.round_urls")),
]

"""Patron routes (config/urls.py includes them at the root): the table's endpoints
under /api/tables/<id>/, the floor's alerts, the compliance pages under /compliance/."""

from django.urls import path

from web.patrons import views
from patrons.identity import STATE_LIST_UPLOAD_PATH

app_name = "patrons"

urlpatterns = [
    path("api/tables/<int:table_id>/patrons", views.patron_search, name="search"),
    path("api/tables/<int:table_id>/patrons/unidentified", views.unidentified_new, name="unidentified-new"),
    path("api/tables/<int:table_id>/cash", views.cash_new, name="cash-new"),
    path("api/tables/<int:table_id>/cash/<int:seq>/reversal", views.cash_reversal_new, name="cash-reversal-new"),
    path("floor/patrons/", views.floor_patron_alerts, name="floor-alerts"),
    path("floor/patrons/awards/<int:award_id>/identify", views.award_identify, name="award-identify"),
    path("floor/patrons/reviews/<int:review_id>/decide", views.exclusion_review_decide, name="review-decide"),
    path("compliance/patrons/", views.patron_list, name="list"),
    path("compliance/patrons/duplicates/", views.duplicates, name="duplicates"),
    path("compliance/patrons/<int:patron_id>/", views.patron_detail, name="detail"),
    path("compliance/patrons/<int:patron_id>/history.csv", views.history_export, name="history-export"),
    path("compliance/patrons/unidentified/<int:unidentified_id>/link", views.patron_link, name="link"),
    path("compliance/mtl/", views.mtl_log, name="mtl"),
    path("compliance/mtl/export.csv", views.mtl_export, name="mtl-export"),
    path("compliance/cash/reversals/", views.cash_reversals, name="cash-reversals"),
    path("compliance/cash/export.csv", views.cash_export, name="cash-export"),
    path("compliance/ctr/", views.ctr_candidates, name="ctr"),
    path("compliance/ctr/export.csv", views.ctr_export, name="ctr-export"),
    path("compliance/self-exclusion/", views.self_exclusion, name="self-exclusion"),
    path("compliance/self-exclusion/export.csv", views.hits_export, name="self-exclusion-export"),
    # The upload of the state's list: the one route whose body may pass 64 KiB
    # (STATE_LIST_UPLOAD_PATH; config/asgi.py, docker/nginx.conf).
    path(STATE_LIST_UPLOAD_PATH.lstrip("/"), views.state_list_upload, name="state-list-upload"),
    path("compliance/self-exclusion/imports/<int:import_id>/", views.state_import, name="state-import"),
    path("compliance/self-exclusion/removals/<int:removal_id>/decide", views.removal_decide, name="removal-decide"),
    path("compliance/self-exclusion/house/", views.house_list, name="house-list"),
]

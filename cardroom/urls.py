from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("tables.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("compliance/", include("collections_fees.urls")),
    path("", include("cardroom.staff_urls")),
    path("admin/", admin.site.urls),
]

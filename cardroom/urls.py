from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("tables.urls")),
    path("admin/", admin.site.urls),
]

"""URLs for the compliance tests: the site's own URLs (the base template links to
them), with the compliance pages mounted where cardroom/urls.py is to mount them
(`path("compliance/", include("collections_fees.urls"))`) and the login pages that
login_required sends anonymous users to. The first match wins, so this works before
and after cardroom/urls.py mounts them itself."""

from django.urls import include, path

from cardroom.urls import urlpatterns as site

urlpatterns = [
    path("compliance/", include("collections_fees.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    *site,
]

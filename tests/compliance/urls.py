"""URLs for the compliance tests: the site's own (the base template links to them, and
they hold the login pages login_required sends anonymous users to), with the compliance
pages mounted at /compliance/ if cardroom/urls.py does not mount them itself."""

from django.urls import include, path

from cardroom.urls import urlpatterns as site

mounted = any(getattr(pattern, "namespace", None) == "compliance" for pattern in site)

urlpatterns = [*([] if mounted else [path("compliance/", include("collections_fees.urls"))]), *site]

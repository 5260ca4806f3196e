from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", include("web.tables.urls")),
    # Only what staff use: no self-service password reset by e-mail in a cardroom.
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("", include("web.patrons.urls")),
    path("compliance/", include("web.compliance.urls")),
    path("", include("web.staff.urls")),
    path("admin/", admin.site.urls),
    # Pages link the icon (templates/base.html); a browser asks this address of the others
    # (the admin's, a JSON answer opened in a tab).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True), name="favicon"),
]

# Error pages with the site's navigation (templates/403.html, 404.html, 500.html); Django's
# own 403 and 404 views render them with the request, the 500 one needs a view that does.
handler500 = "web.errors.server_error"

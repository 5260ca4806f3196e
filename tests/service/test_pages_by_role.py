"""Each role's pages offer only what that role may open: the navigation, the home page's
links, the collection log's drop-count form; refusals and unknown pages are the site's own
pages with its navigation."""

import pytest
from django.test import Client

from cardroom.models import AuditEntry  # noqa: F401 (the audit app's tables exist)

from .test_access import person, staff  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def test_a_dealer_is_shown_only_their_tables_and_no_floor(staff):  # noqa: F811
    page = client_of(staff["dealer"]).get("/").content.decode()
    assert "/floor/" not in page
    assert f"/tables/{staff['table'].pk}/tablet/" in page
    assert f"/tables/{staff['other'].pk}/tablet/" not in page and f"/tables/{staff['other'].pk}/\"" not in page


def test_compliance_gets_the_floor_and_live_views_but_no_tablet(staff):  # noqa: F811
    page = client_of(staff["auditor"]).get("/").content.decode()
    assert "/floor/" in page and f"/tables/{staff['table'].pk}/\"" in page
    assert "/tablet/" not in page


def test_compliance_is_told_who_records_drop_counts_and_offered_no_form(staff):  # noqa: F811
    # Nor is the floor: the count team counts, on the count sheet (tests/counts).
    for person in ("auditor", "sup"):
        page = client_of(staff[person]).get("/compliance/collections/").content.decode()
        assert "count team (4 CCR 12385)" in page and "Record count" not in page


def test_a_refused_page_is_the_sites_403_with_the_roles_navigation(staff):  # noqa: F811
    response = client_of(staff["dealer"]).get("/floor/")
    page = response.content.decode()
    assert response.status_code == 403
    assert 'data-status="403"' in page and "This page is not for your role" in page
    assert 'href="/"' in page and "Log out" in page


def test_an_unknown_page_is_the_sites_404(staff):  # noqa: F811
    response = client_of(staff["sup"]).get("/no/such/page/")
    assert response.status_code == 404 and 'data-status="404"' in response.content.decode()


def test_a_supervisor_sees_how_many_approvals_wait(staff):  # noqa: F811
    from tables.models import Approval
    from django.utils import timezone

    Approval.objects.create(table=staff["table"], kind="config", payload={"reason": "r", "config": {}},
                            requested_by=staff["sup2"], requested_role="supervisor", requested_at=timezone.now())
    page = client_of(staff["sup"]).get("/").content.decode()
    assert '<span class="count" id="approvals-waiting">1</span>' in page
    assert "approvals-waiting" not in client_of(staff["dealer"]).get("/").content.decode()


def test_a_server_error_is_the_sites_500_page(staff, rf):  # noqa: F811
    from web.errors import server_error

    request = rf.get("/floor/")
    request.user = staff["sup"]
    response = server_error(request)
    assert response.status_code == 500 and 'data-status="500"' in response.content.decode()
    assert "Nothing was changed" in response.content.decode()
    assert f'<code class="error-reference">{request.error_reference}</code>' in response.content.decode()

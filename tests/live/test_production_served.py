"""`make run` as served, with its production defaults (issue 20, item 4): DEBUG off, yet
the static files answer; a real failure shows the site's own 500 page with a reference
and no traceback, while the log carries the same reference with the traceback; a missing
page and a forbidden one show the site's 404 and 403 pages, not Django's debug pages.

The failure is a real one, not a crash URL: the served app's database login loses its
right to read the tables (as it lacked a right on the approvals in issue 20), and a
dealer opens the list of tables, then the tablet's state over the API."""

import http.cookiejar
import re
import signal
import urllib.error
import urllib.parse
import urllib.request

import psycopg
import pytest

from cardroom import localdb

from .test_default_setup import ReadmeRun

pytestmark = [pytest.mark.slow]

DEBUG_PAGE_MARKS = ("Traceback", "DEBUG = True", "technical_500", "Request Method:", "URLconf", "Django tried these")


@pytest.fixture
def served(localdb_dir):
    run = ReadmeRun(localdb_dir)
    run.env.pop("DJANGO_DEBUG", None)  # the defaults, whatever this shell has set
    try:
        run.start()
        yield run
    finally:
        if run.process.poll() is None:
            run.ctrl_c()


class Browser:
    """A person's HTTP session: cookies kept, the CSRF token sent back on a POST."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[int, str, dict]:
        try:
            with self.opener.open(f"{self.base}{path}", timeout=30) as answer:
                return answer.status, answer.read().decode(), dict(answer.headers)
        except urllib.error.HTTPError as answer:
            return answer.code, answer.read().decode(), dict(answer.headers)

    def log_in(self, username: str, password: str):
        status, page, _ = self.get("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        form = urllib.parse.urlencode({"username": username, "password": password, "csrfmiddlewaretoken": token})
        request = urllib.request.Request(f"{self.base}/accounts/login/", data=form.encode(),
                                         headers={"Referer": f"{self.base}/accounts/login/"})
        with self.opener.open(request, timeout=30) as answer:
            assert status == 200 and not answer.url.endswith("/accounts/login/"), answer.url


def owner_connection(var):
    cluster = localdb.Cluster(data=var / "postgres", run_dir=var / "run", log=var / "postgres.log")
    return psycopg.connect(**cluster.connection_params(), autocommit=True)


def test_make_run_serves_static_files_and_the_sites_own_error_pages_with_debug_off(served):
    url = served.url
    dealer = Browser(url)

    # DEBUG off: the static files are still the app's to serve (WhiteNoise, from the
    # source folders), and the ledger's development key signed the demo's rounds.
    for asset in ("/static/table.js", "/static/live/socket.js"):  # an entry point, a module it imports
        status, body, headers = dealer.get(asset)
        assert status == 200 and "javascript" in headers["Content-Type"] and len(body) > 1000, asset
    assert (served.var / "ledger-key").exists()

    status, page, _ = dealer.get("/no/such/page/")
    assert status == 404 and 'data-status="404"' in page and "There is no such page" in page
    assert not any(mark in page for mark in DEBUG_PAGE_MARKS), page

    dealer.log_in("dealer", "dealer-demo")
    status, page, _ = dealer.get("/")
    assert status == 200
    status, page, _ = dealer.get("/compliance/collections/")  # not a dealer's page
    assert status == 403 and 'data-status="403"' in page and "This page is not for your role" in page
    assert not any(mark in page for mark in DEBUG_PAGE_MARKS), page

    with owner_connection(served.var) as owner:
        owner.execute(f"REVOKE SELECT ON tables_table FROM {localdb.APP_ROLE}")
        try:
            status, page, _ = dealer.get("/")
            api_status, api_body, _ = dealer.get("/api/tables/1/state")
        finally:
            owner.execute(f"GRANT SELECT ON tables_table TO {localdb.APP_ROLE}")

    # The site's page, in the site's layout, with a reference and nothing of the failure.
    assert status == 500 and 'data-status="500"' in page and "The server failed on this page" in page
    assert 'action="/accounts/logout/"' in page  # the navigation: the site's own page, as the person's
    reference = re.search(r'<code class="error-reference">([A-Z0-9]{8})</code>', page).group(1)
    assert not any(mark in page for mark in DEBUG_PAGE_MARKS + ("permission denied", "tables_table")), page
    assert api_status == 500 and '"code": "server_error"' in api_body
    api_reference = re.search(r'"reference": "([A-Z0-9]{8})"', api_body).group(1)
    assert api_reference != reference and "permission denied" not in api_body

    # The log: each reference on its request's line, that failure's traceback right under it.
    log = served.output()
    for ref, path in ((reference, "/"), (api_reference, "/api/tables/1/state")):
        line = next(line for line in log.splitlines() if f"[error reference {ref}]" in line)
        assert line.endswith(f"Internal Server Error: {path} [error reference {ref}]"), line
        after = log.split(line, 1)[1]
        assert after.lstrip("\n").startswith("Traceback") and "permission denied for table tables_table" in after

    # Ctrl-C alone stops it, however this suite was launched (tests/process_group.py).
    assert served.ctrl_c() == signal.SIGINT, served.output()[-2000:]

"""The client's true address behind the shipped nginx (issue 33, finding 8).

The compose stack's Daphne, started with the arguments docker-compose.yml gives it, behind
a real nginx running docker/nginx.conf (tests/plugins/nginx.py). A person connects to
nginx from one loopback address (127.0.0.2 or 127.0.0.3; nginx itself reaches Daphne from
127.0.0.1) and sends a forged X-Forwarded-For. django-axes's failed-login records, the
audit rows and a dealer's hand-over all carry the address nginx saw, never the forged one
nor nginx's own; and five wrong passwords for one name from one machine lock that name
at that machine only: the same person logs in from another.

Rule and its reasons: docs/operations.md, "The client's address behind nginx"."""

import functools
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.utils import timezone

from cardroom.access import Actor
from cardroom.gaming_day import calendar
from cardroom.models import AuditEntry
from tables.models import DealerAssignment, DealerHandover
from tables.relief import relief_plan_make
from tests.db_access import app_role_database_url
from tests.plugins import nginx
from tests.plugins.services import _free_port
from tests.process_group import read_output

from .conftest import make_table, wait_until_serving
from .test_production_served import Browser

pytestmark = [pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
FORGED = "203.0.113.9"  # TEST-NET-3: an address the client makes up
PROXY = "127.0.0.1"  # where nginx connects to Daphne from


def compose_daphne_command() -> list[str]:
    """The app service's `command:` in docker-compose.yml (a JSON-style list)."""
    text = (ROOT / "docker-compose.yml").read_text()
    app = text.split("\n  app:\n", 1)[1].split("\n  web:\n", 1)[0]
    [line] = re.findall(r"^    command: (\[.*\])$", app, re.MULTILINE)
    return json.loads(line)


def served_like_compose(port: int) -> list[str]:
    """That command on a loopback port: only its bind address and port replaced."""
    args = compose_daphne_command()
    assert args[0] == "daphne"
    args[args.index("-b") + 1], args[args.index("-p") + 1] = "127.0.0.1", str(port)
    return [sys.executable, "-m", *args]


class _FromAddress(urllib.request.HTTPHandler):
    """Connects from a chosen local address (any of 127.0.0.0/8 reaches the loopback)."""

    def __init__(self, address: str):
        super().__init__()
        self.address = address

    def http_open(self, req):
        return self.do_open(functools.partial(http.client.HTTPConnection, source_address=(self.address, 0)), req)


def person_at(base: str, address: str) -> Browser:
    """A browser on the machine at `address`, which claims to be FORGED."""
    person = Browser(base)
    person.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(person.jar), _FromAddress(address))
    person.opener.addheaders = [("X-Forwarded-For", FORGED)]
    return person


def login_status(person: Browser, username: str, password: str) -> tuple[int, str]:
    """The answer to a login form post: where it went (the login page again on failure)."""
    _, page, _ = person.get("/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"username": username, "password": password, "csrfmiddlewaretoken": token})
    request = urllib.request.Request(f"{person.base}/accounts/login/", data=form.encode(),
                                     headers={"Referer": f"{person.base}/accounts/login/"})
    try:
        with person.opener.open(request, timeout=30) as answer:
            return answer.status, answer.url
    except urllib.error.HTTPError as answer:
        return answer.code, answer.url


def staff(name: str, role: str) -> User:
    user = User.objects.create_user(name, password="pw")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def behind_nginx(transactional_db, redis_url, shift_around_now):
    """The compose stack's Daphne (its settings: the suite's, with the shifts laid out as
    shift_around_now lays them here) behind nginx."""
    if nginx.find() is None:
        pytest.fail(f"no nginx binary: {nginx.INSTALL_HINT}", pytrace=False)
    folder = tempfile.mkdtemp(prefix="cardroom-edge-")
    Path(folder, "edge_settings.py").write_text(
        "from config.settings.test import *  # noqa\n"
        f"CARDROOM_GAMING_DAY_START = {settings.CARDROOM_GAMING_DAY_START!r}\n"
        f"CARDROOM_SHIFTS = {list(settings.CARDROOM_SHIFTS)!r}\n"
    )
    port = _free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "edge_settings", "PYTHONPATH": f"{folder}:{ROOT}",
           "DATABASE_URL": app_role_database_url(), "REDIS_URL": redis_url}
    log = tempfile.TemporaryFile("w+")
    daphne = subprocess.Popen(served_like_compose(port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)

    def output():
        return read_output(log)

    try:
        wait_until_serving(f"http://127.0.0.1:{port}", daphne, 30, output)
        with nginx.Nginx([f"127.0.0.1:{port}"]) as front:
            yield front
    finally:
        daphne.terminate()
        try:
            daphne.wait(10)
        except subprocess.TimeoutExpired:
            daphne.kill()
            daphne.wait(10)
        subprocess.run(["rm", "-rf", folder], check=False)


def test_a_forged_forwarded_address_through_nginx_leaves_the_true_address_in_axes_the_audit_and_hand_overs(behind_nginx):
    sup, ana, ben = staff("sam", "supervisor"), staff("ana", "dealer"), staff("ben", "dealer")
    table = make_table()
    now, cal = timezone.now(), calendar()
    DealerAssignment.objects.create(dealer=ana, table=table, gaming_day=cal.gaming_day(now), shift=cal.shift(now),
                                    assigned_by=sup, assigned_at=now)
    relief_plan_make(dealers=[ben.pk, ana.pk], tables=[table.pk], starts_at=now - timedelta(seconds=30),
                     actor=Actor.of(sup))

    # A wrong password: django-axes's record and the audit's login_failed row.
    stranger = person_at(behind_nginx.url, "127.0.0.2")
    assert login_status(stranger, "ben", "wrong")[1].endswith("/accounts/login/")
    assert list(AccessAttempt.objects.values_list("username", "ip_address")) == [("ben", "127.0.0.2")]
    assert list(AuditEntry.objects.filter(action="login_failed").values_list("address", flat=True)) == ["127.0.0.2"]

    # ben logs in from his own machine and takes over the table at his push.
    machine = person_at(behind_nginx.url, "127.0.0.3")
    machine.log_in("ben", "pw")
    assert list(AuditEntry.objects.filter(action="login").values_list("address", flat=True)) == ["127.0.0.3"]
    _, page, _ = machine.get("/relief/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"table": table.pk, "csrfmiddlewaretoken": token}).encode()
    request = urllib.request.Request(f"{machine.base}/relief/", data=form, headers={"Referer": f"{machine.base}/relief/"})
    with machine.opener.open(request, timeout=30) as answer:
        assert answer.url.endswith(f"/tables/{table.pk}/tablet/"), answer.url
    handover = DealerHandover.objects.get(table=table)
    assert (handover.incoming_id, handover.address) == (ben.pk, "127.0.0.3")
    assert AuditEntry.objects.get(action="assignment", username="ben").address == "127.0.0.3"

    seen = set(AuditEntry.objects.values_list("address", flat=True)) | {a.ip_address for a in AccessAttempt.objects.all()}
    assert FORGED not in seen and PROXY not in seen, seen


def test_five_wrong_passwords_from_one_machine_do_not_lock_the_name_out_at_another(behind_nginx, settings):
    staff("counter", "count_team")
    guesser = person_at(behind_nginx.url, "127.0.0.2")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login_status(guesser, "counter", "guess")
    # That machine is locked out for that name, even with the right password...
    status, _ = login_status(guesser, "counter", "pw")
    assert status in (403, 429), status
    # ...while the counter logs in at their own desk.
    desk = person_at(behind_nginx.url, "127.0.0.3")
    desk.log_in("counter", "pw")
    status, page, _ = desk.get("/")
    assert status == 200 and 'action="/accounts/logout/"' in page

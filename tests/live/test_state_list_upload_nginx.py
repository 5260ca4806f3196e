"""A real-size state self-exclusion list uploads through the shipped nginx and Daphne
(issue 34, reproduction 4: a 70,929-byte, 1,500-row list answered 413).

The compose stack's Daphne behind a real nginx running docker/nginx.conf (the fixture of
tests/live/test_client_address_nginx.py). The list's upload has a route of its own,
`/compliance/self-exclusion/state-list/`: the app allows it 5 MiB of file
(patrons.identity.STATE_LIST_BODY_BYTES, config/asgi.py) and nginx a `location` of its
own with a larger client_max_body_size. Every other route keeps 64 KiB, at nginx and in
the app. Rule: docs/operations.md, "Request bodies"."""

import re
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from django.contrib.auth.models import Group, User

from cardroom import wire
from patrons.identity import MAX_STATE_LIST_BYTES, STATE_LIST_UPLOAD_PATH
from patrons.models import ExclusionImport

from .test_client_address_nginx import behind_nginx  # noqa: F401 (the fixture)
from .test_production_served import Browser

pytestmark = [pytest.mark.slow, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

NGINX_PAGE = "<center>nginx"  # the signature of nginx's own error pages
BOUNDARY = "cardroom-list-boundary"


def state_list(size: int) -> tuple[bytes, int]:
    """A state list of about `size` bytes (never more): its bytes and its rows."""
    lines, total, row = [b"name,date_of_birth,id_number,state_ref\n"], 0, 0
    total = len(lines[0])
    while True:
        line = f"Listed Person {row:06d},1970-01-01,D{row:07d},CA-SE-{row:06d}\n".encode()
        if total + len(line) > size:
            break
        lines.append(line)
        total += len(line)
        row += 1
    return b"".join(lines), row


def multipart(token: str, content: bytes) -> bytes:
    return (
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"csrfmiddlewaretoken\"\r\n\r\n{token}\r\n"
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"list\"; filename=\"state.csv\"\r\n"
        "Content-Type: text/csv\r\n\r\n"
    ).encode() + content + f"\r\n--{BOUNDARY}--\r\n".encode()


def post(person: Browser, path: str, body: bytes, content_type: str) -> tuple[int, str, str]:
    """(status, body, where it ended) of a POST in the person's session."""
    request = urllib.request.Request(f"{person.base}{path}", data=body,
                                     headers={"Content-Type": content_type, "Referer": f"{person.base}{path}"})
    try:
        with person.opener.open(request, timeout=120) as answer:
            return answer.status, answer.read().decode(), answer.url
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read().decode(), answer.url


def officer_at(base: str) -> tuple[Browser, str]:
    person = Browser(base)
    person.log_in("cora", "pw")
    _, page, _ = person.get("/compliance/self-exclusion/")
    return person, re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def test_a_five_megabyte_list_uploads_through_nginx_and_every_other_route_keeps_64_kib(behind_nginx):  # noqa: F811
    user = User.objects.create_user("cora", password="pw")
    user.groups.add(Group.objects.get_or_create(name="compliance")[0])
    front = behind_nginx
    app = f"http://{front.upstreams[0]}"  # the same Daphne, without nginx in front

    # The list (70,929 bytes, 1,500 rows) and one of 5 MB, each through nginx.
    person, token = officer_at(front.url)
    for size in (70_929, 5_000_000):
        content, rows = state_list(size)
        started = time.monotonic()
        status, page, where = post(person, STATE_LIST_UPLOAD_PATH, multipart(token, content),
                                   f"multipart/form-data; boundary={BOUNDARY}")
        took = time.monotonic() - started
        assert status == 200 and "/compliance/self-exclusion/imports/" in where, (status, page[:500])
        batch = ExclusionImport.objects.order_by("-id").first()
        assert batch.rows == rows and batch.sha256 and f"{rows} people" in page, (batch.rows, rows)
        print(f"\nstate list of {len(content):,} bytes, {rows:,} rows: uploaded through nginx in {took:.1f} s")

    # A file past the app's 5 MiB (its body still under nginx's location limit) gets the
    # app's own answer, and nothing is imported.
    content, _ = state_list(MAX_STATE_LIST_BYTES + 1000)
    content += b"X" * (MAX_STATE_LIST_BYTES + 1 - len(content))
    status, page, _ = post(person, STATE_LIST_UPLOAD_PATH, multipart(token, content), f"multipart/form-data; boundary={BOUNDARY}")
    assert status == 400 and "invalid_list" in page and f"over {MAX_STATE_LIST_BYTES} bytes" in page, (status, page[:300])
    # Past nginx's location limit: nginx's own 413, before Daphne.
    status, page, _ = post(person, STATE_LIST_UPLOAD_PATH, b"x" * (7 * 1024 * 1024), "text/csv")
    assert status == 413 and NGINX_PAGE in page
    assert ExclusionImport.objects.count() == 2

    # Every other route keeps 64 KiB: the 70,929 bytes to another compliance page
    # is nginx's 413, and the app's own (JSON, too_large) when sent to Daphne directly.
    form = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "display_name": "x" * 70_900}).encode()
    status, page, _ = post(person, "/compliance/patrons/", form, "application/x-www-form-urlencoded")
    assert status == 413 and NGINX_PAGE in page, (status, page[:300])
    direct, direct_token = officer_at(app)
    form = urllib.parse.urlencode({"csrfmiddlewaretoken": direct_token, "display_name": "x" * 70_900}).encode()
    status, page, _ = post(direct, "/compliance/patrons/", form, "application/x-www-form-urlencoded")
    assert status == 413 and '"too_large"' in page and f"the {wire.MAX_BODY_BYTES} bytes" in page, (status, page[:300])
    # ... and the app alone cuts the list's route at its own limit, past nginx's reach.
    status, page, _ = post(direct, STATE_LIST_UPLOAD_PATH, b"x" * (7 * 1024 * 1024), "text/csv")
    assert status == 413 and '"too_large"' in page, (status, page[:300])
    # nginx's log holds its two refusals and nothing else amiss (no upstream failure).
    log = front.log()
    assert "client intended to send too large body: 70998 bytes" in log
    amiss = [line for line in log.splitlines() if ("[error]" in line or "[crit]" in line)
             and "client intended to send too large body" not in line]
    assert not amiss, log

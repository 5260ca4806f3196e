"""Bad input over the wire is answered, never crashed on (issue 14, item 4): a corpus of
explicit cases and hypothesis-made bodies against every JSON endpoint, and frames against
the table socket, each answered as JSON with a stable code, no 500, no crash, nothing
stored beyond the bound. Also the body limit in front of Django, the origin check, and
the 500 traceback in the log with DEBUG off."""

import asyncio
import io
import json
import logging

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import Group, User
from django.test import Client
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from cardroom import wire
from config.asgi import application
from cardroom.models import AuditEntry
from rounds.engine.errors import ERROR_CODES
from tables.approvals import approval_request
from tables.models import Approval, RejectedCommand, Table

from .conftest import make_table, play, run, socket
from tests.hypothesis_profiles import examples

STABLE_CODES = ERROR_CODES | set(wire.STATUS_CODES.values())
DEEP = 1000
BIG = b'{"type": "sit", "seat": 1, "player": "' + b"x" * (wire.MAX_BODY_BYTES + 1) + b'"}'
CORPUS = [
    b"",
    b"   ",
    b"{not json",
    b"[" * DEEP + b"]" * DEEP,
    b'{"a": ' * DEEP + b"1" + b"}" * DEEP,
    b'{"type": "sit", "seat": 1, "seat": 2, "player": "P-1"}',
    b'{"config": {"paytable": "UTH-01", "paytable": "UTH-02"}, "open": true, "open": false}',
    b"\xff\xfe\x00 not utf-8",
    b"\x00\x01\x02",
    b'{"type": "open_round", "bank": NaN}',
    b'{"type": "sit", "seat": 1e400, "player": "P-1"}',
    b'"a string"',
    b"[]",
    b"42",
    b"null",
    b'{"type": ["sit"], "seat": {"1": 1}}',
    b'{"type": "sit", "seat": "1", "player": 7}',
    b'{"type": "sit", "seat": 1, "player": "P-1", "sate": 3}',
    b'{"type": "sit", "seat": 1, "player": "P\\u0000"}',
    b'{"\\ud800": 1, "type": "sit"}',
    b'{"kind": "void", "payload": []}',
    b'{"kind": "config", "payload": {"reason": "r", "config": {"max_consecutive_bank": 3}}}',
    b'{"kind": "void", "payload": {"reason": "r", "extra": "x"}}',
    b'{"open": "yes"}',
    b'{"config": {"max_consecutive_bank": 3}}',
    b'{"config": [1, 2]}',
    b'{"username": {"a": 1}, "password": [], "approve": "true"}',
    b'{"username": "sue", "password": "wrong", "approve": 1}',
    BIG,
]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


def person(name, role):
    user = User.objects.create_user(name, password="pw-" + name)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture
def world(db, settings):
    # The fuzz is many refusals from one session: this test is not about their limit.
    settings.CARDROOM_REFUSED_COMMANDS_PER_MINUTE = 10**6
    sup, dealer = person("sam", "supervisor"), person("dan", "supervisor")
    person("sue", "supervisor")
    table = make_table()
    run(table.pk, {"type": "sit", "seat": 1, "player": "P-1"}, {"type": "sit", "seat": 2, "player": "P-2"},
        {"type": "offer_bank", "seat": 1}, {"type": "accept_bank", "seat": 1}, {"type": "open_round", "bank": 5000})
    from cardroom.access import Actor

    approval = approval_request(actor=Actor.of(dealer), table_id=table.pk, kind="void", payload={"reason": "jam"})
    client = Client()
    client.force_login(sup)
    urls = [
        f"/api/tables/{table.pk}/commands",
        f"/api/tables/{table.pk}/approvals",
        f"/api/tables/{table.pk}/open",
        f"/api/tables/{table.pk}/config",
        f"/api/approvals/{approval.pk}/decide",
    ]
    return {"client": client, "urls": urls, "table": table}


def assert_answered(response, what):
    """JSON with a stable code (or ok), never a 500."""
    assert response.status_code < 500, (what, response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), (what, response.content[:300])
    body = response.json()
    assert isinstance(body, dict), what
    if body.get("ok") is True or (response.status_code == 200 and "error" not in body and "result" not in body):
        return
    error = body.get("error") or body["result"]["error"]
    assert error["code"] in STABLE_CODES, (what, error)


def assert_nothing_stored_beyond_the_bound():
    for kept in RejectedCommand.objects.all():
        assert len(json.dumps(kept.command)) <= 2 * wire.KEPT_BYTES + 200
        assert len(json.dumps(kept.result)) <= 1000 or kept.code == "stale_version"
    for entry in AuditEntry.objects.all():
        assert len(json.dumps(entry.detail)) <= 2 * wire.KEPT_BYTES + 1000
    for approval in Approval.objects.all():
        assert len(json.dumps(approval.payload)) <= 2 * wire.KEPT_BYTES


def test_every_json_endpoint_answers_the_corpus_with_a_stable_code(world):
    table = world["table"]
    before = Table.objects.get(pk=table.pk).version
    for url in world["urls"]:
        for body in CORPUS:
            response = world["client"].post(url, body, content_type="application/json")
            assert_answered(response, (url, body[:60]))
            if body is BIG:
                assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"
    assert Table.objects.get(pk=table.pk).version == before  # nothing in the corpus is a good command
    assert_nothing_stored_beyond_the_bound()


@pytest.mark.parametrize(
    "body, code",
    [
        (b"[" * DEEP + b"]" * DEEP, "invalid_command"),
        # Deeper than the reader takes, though Python's parser would manage it.
        (b'{"type": "sit", "seat": 1, "player": "P-1", "x": ' + b"[" * 50 + b"]" * 50 + b"}", "invalid_command"),
        (b'{"type": "sit", "seat": 1, "seat": 2, "player": "P-1"}', "invalid_command"),
        (BIG, "too_large"),
        (b'{"type": "open_round", "bank": NaN}', "invalid_command"),
    ],
    ids=["deep", "50 deep", "duplicate key", "too large", "NaN"],
)
def test_the_command_endpoint_refuses_before_the_service_and_stores_nothing(world, body, code):
    response = world["client"].post(world["urls"][0], body, content_type="application/json")
    assert response.json()["result"]["error"]["code"] == code
    assert response.status_code == (413 if code == "too_large" else 400)
    assert not RejectedCommand.objects.exists() and not AuditEntry.objects.filter(action="command_refused").exists()


@hsettings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=JSON_VALUES, endpoint=st.integers(0, 4))
def test_any_json_value_is_answered_with_a_stable_code(world, value, endpoint):
    url = world["urls"][endpoint]
    assert_answered(world["client"].post(url, json.dumps(value), content_type="application/json"), (url, value))


@hsettings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=st.binary(max_size=200), endpoint=st.integers(0, 4))
def test_any_bytes_are_answered_with_a_stable_code(world, body, endpoint):
    url = world["urls"][endpoint]
    assert_answered(world["client"].post(url, body, content_type="application/json"), (url, body))


def test_djangos_own_error_pages_under_the_api_are_json(world):
    client, url = world["client"], world["urls"][0]
    wrong_method = client.get(url)
    assert wrong_method.status_code == 405 and wrong_method.json()["error"]["code"] == "method_not_allowed"
    no_route = client.post("/api/no/such/thing", b"{}", content_type="application/json")
    assert no_route.status_code == 404 and no_route.json()["error"]["code"] == "not_found"
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(User.objects.get(username="sam"))
    no_token = strict.post(url, b'{"type": "settle"}', content_type="application/json")
    assert no_token.status_code == 403 and no_token.json()["error"]["code"] == "not_authorized"


def test_a_failure_under_the_api_is_json_and_its_traceback_is_logged_with_debug_off(world, settings, monkeypatch):
    settings.DEBUG = False

    def broken(**kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr("web.tables.views.command_execute", broken)
    streams = []
    logger = logging.getLogger("django.request")
    while logger is not None:  # every handler of the settings a django.request record reaches
        for handler in logger.handlers:
            # (pytest's own capture handlers are not the deployment's log)
            if isinstance(handler, logging.StreamHandler) and not type(handler).__module__.startswith("_pytest"):
                streams.append((handler, handler.setStream(io.StringIO())))
        logger = logger.parent if logger.propagate else None
    try:
        client = Client(raise_request_exception=False)
        client.force_login(User.objects.get(username="sam"))
        response = client.post(world["urls"][0], b'{"type": "settle"}', content_type="application/json")
        written = "".join(handler.stream.getvalue() for handler, _ in streams)
    finally:
        for handler, previous in streams:
            handler.setStream(previous)
    assert response.status_code == 500 and response.json()["error"]["code"] == "server_error"
    assert "Traceback" in written and "the database went away" in written
    # The answer names the failure's reference, and so does its log line, above the traceback.
    reference = response.json()["error"]["reference"]
    assert f"[error reference {reference}]" in written.split("Traceback")[0]
    assert "the database went away" not in response.content.decode()


# --- the reader's own bounds, at the bound --------------------------------------------------


def json_of_size(size: int, fill: str = "x") -> str:
    """A JSON object of exactly `size` UTF-8 bytes: one string padded with `fill` (and
    with "x" for the bytes a wider `fill` cannot make up)."""
    shell = '{"pad": ""}'
    count, rest = divmod(size - len(shell), len(fill.encode()))
    return '{"pad": "' + "x" * rest + fill * count + '"}'


@pytest.mark.parametrize("fill", ["x", "é"])  # é: two bytes, so a text is measured in bytes
def test_a_message_of_exactly_the_limit_is_read_and_one_byte_more_is_too_large(fill):
    exact = json_of_size(wire.MAX_BODY_BYTES, fill)
    assert len(exact.encode()) == wire.MAX_BODY_BYTES
    for data in (exact, exact.encode()):
        assert wire.read_json(data) == {"pad": json.loads(exact)["pad"]}
    over = exact[:-2] + " " + exact[-2:]  # one byte more: a space before the closing quote
    for data in (over, over.encode()):
        with pytest.raises(wire.WireError) as refused:
            wire.read_json(data)
        assert (refused.value.code, refused.value.status) == ("too_large", 413)


@pytest.mark.parametrize("opening, closing", [("[", "]"), ('{"a": ', "}")])
def test_json_nested_exactly_max_depth_is_read_and_one_deeper_is_refused(opening, closing):
    def nested(levels):
        return opening * levels + "1" + closing * levels

    assert wire.MAX_DEPTH == 20
    value = wire.read_json(nested(20))
    for _ in range(20):
        value = value[0] if opening == "[" else value["a"]
    assert value == 1
    with pytest.raises(wire.WireError) as refused:
        wire.read_json(nested(21))
    assert refused.value.code == "invalid_command" and "nested" in refused.value.message


@pytest.mark.parametrize("value", [
    {"note": "[" * 50 + "{" * 50},
    {"note": 'a quote " then ' + "[" * 50},  # an escaped quote does not end the string
    {"a": "ends in a backslash \\", "b": "[" * 50},  # nor does an escaped backslash escape the quote
])
def test_brackets_inside_a_string_do_not_count_as_nesting(value):
    body = json.dumps(value)
    assert body.count("[") >= 50
    assert wire.read_json(body) == value


# --- in front of Django: the body limit ---------------------------------------------------


def http_scope(headers):
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
            "path": "/api/tables/1/commands", "raw_path": b"/api/tables/1/commands", "query_string": b"",
            "root_path": "", "headers": headers, "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}


async def call_app(scope, receive):
    sent = []

    async def send(message):
        sent.append(message)

    await application(scope, receive, send)
    return sent


def test_a_declared_huge_body_is_refused_before_any_of_it_is_read():
    reads = []

    async def receive():
        reads.append(1)
        return {"type": "http.request", "body": b"x" * 65536, "more_body": True}

    scope = http_scope([(b"content-type", b"application/json"), (b"content-length", b"400000000")])
    sent = asyncio.run(call_app(scope, receive))
    assert sent[0]["status"] == 413 and not reads
    assert json.loads(sent[1]["body"])["error"]["code"] == "too_large"


def test_an_undeclared_huge_body_is_refused_once_it_passes_the_limit():
    reads = []

    async def receive():
        reads.append(1)  # 1.6 MB in all, unless refused on the way
        return {"type": "http.request", "body": b"x" * 16384, "more_body": len(reads) < 100}

    sent = asyncio.run(call_app(http_scope([(b"content-type", b"application/json")]), receive))
    assert sent[0]["status"] == 413 and json.loads(sent[1]["body"])["error"]["code"] == "too_large"
    assert len(reads) == wire.MAX_BODY_BYTES // 16384 + 1


@pytest.mark.parametrize(
    "path, size, refused",
    [
        ("/compliance/self-exclusion/state-list/", 5 * 1024 * 1024 + 2048, False),  # a 5 MiB list and its form
        ("/compliance/self-exclusion/state-list/", 5 * 1024 * 1024 + 64 * 1024 + 1, True),
        ("/compliance/self-exclusion/", 70_929, True),  # the same page's other routes keep 64 KiB
        ("/compliance/patrons/", 70_929, True),
        ("/compliance/self-exclusion/state-list/x", 70_929, True),  # the path exactly, no prefix
    ],
)
def test_the_state_lists_upload_alone_may_send_a_body_past_64_kib(path, size, refused):
    """Issue 34: the list's upload has a limit of its own (patrons.identity.STATE_LIST_BODY_BYTES,
    config/asgi.py); every other route keeps wire.MAX_BODY_BYTES. A body let through
    reaches Django (which answers it: here the login redirect of an anonymous caller)."""
    chunks = [b"x" * 65536] * (size // 65536) + [b"x" * (size % 65536)]

    async def receive():
        if chunks:
            return {"type": "http.request", "body": chunks.pop(0), "more_body": len(chunks) > 0}
        await asyncio.Event().wait()  # the client stays until it is answered

    scope = {**http_scope([(b"content-type", b"text/csv"), (b"content-length", str(size).encode())]),
             "path": path, "raw_path": path.encode()}
    sent = asyncio.run(call_app(scope, receive))
    if refused:
        assert sent[0]["status"] == 413 and json.loads(sent[1]["body"])["error"]["code"] == "too_large"
    else:
        assert sent[0]["status"] != 413, sent[0]


# --- the origin check -------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin, host, scheme, allowed",
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws", True),
        ("http://127.0.0.1", "127.0.0.1:80", "ws", True),
        ("https://localhost", "localhost", "wss", True),
        ("http://127.0.0.1:9999", "127.0.0.1:8000", "ws", False),  # another port of the same host
        ("https://127.0.0.1:8000", "127.0.0.1:8000", "ws", False),  # another scheme
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "wss", False),  # a plain page on a TLS socket
        ("http://evil.example", "evil.example", "ws", False),  # not an allowed host
        ("null", "127.0.0.1", "ws", False),
    ],
)
def test_a_sockets_origin_must_match_scheme_host_and_port(origin, host, scheme, allowed):
    scope = {"type": "websocket", "scheme": scheme, "headers": [(b"origin", origin.encode()), (b"host", host.encode())]}
    assert wire.origin_allowed(scope) is allowed


# --- the socket -------------------------------------------------------------------------

# (frame, the code it must get when it is the reader's to refuse, before any service)
SOCKET_CORPUS = [
    ({"text": ""}, "invalid_command"),
    ({"bytes": b"\x00\x01binary"}, "invalid_command"),
    ({"bytes": b""}, "invalid_command"),
    ({"text": "[" * DEEP + "]" * DEEP}, "invalid_command"),
    ({"text": '{"type": "command", "command": {"type": "sit", "seat": 1, "player": "P-1", "x": ' + "[" * 50 + "]" * 50
      + "}}"}, "invalid_command"),
    ({"text": '{"type": "command", "type": "sync"}'}, "invalid_command"),
    ({"text": '{"type": "command", "command": {"type": "sit", "seat": 1, "player": "' + "x" * wire.MAX_BODY_BYTES + '"}}'},
     "too_large"),
    ({"text": "{not json"}, "invalid_command"),
    ({"text": "[]"}, "invalid_command"),
    ({"text": "42"}, "invalid_command"),
    ({"text": '{"type": "nope"}'}, "invalid_command"),
    ({"text": '{"type": "command", "command": {"type": "open_round", "bank": NaN}}'}, "invalid_command"),
    # These reach the service, which refuses them (and keeps a bounded copy).
    ({"text": '{"type": "command", "command": "sit"}'}, None),
    ({"text": '{"type": "command", "command": {"type": "sit", "seat": "1", "player": 7}}'}, None),
    ({"text": '{"type": "command", "command": {"type": "sit", "seat": 3, "player": "P-3", "extra": 1}}'}, None),
]



def assert_socket_answer(message, frame):
    if message["type"] == "error":
        assert message["error"]["code"] in STABLE_CODES, (frame, message)
    else:
        assert message["type"] == "result" and message["result"]["error"]["code"] in STABLE_CODES, (frame, message)


async def open_socket(cookie, table_id):
    communicator = socket(f"/ws/tables/{table_id}/?role=tablet", cookie)
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    assert (await communicator.receive_json_from(timeout=10))["type"] == "snapshot"
    return communicator


async def still_open(communicator, version):
    await communicator.send_json_to({"type": "sync"})
    snapshot = await communicator.receive_json_from(timeout=10)
    assert snapshot["type"] == "snapshot" and snapshot["snapshot"]["version"] == version


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_the_socket_answers_every_bad_frame_and_stays_open(session_cookie, settings):
    settings.CARDROOM_REFUSED_COMMANDS_PER_MINUTE = 10**6

    async def scenario():
        table = await sync_to_async(make_table)()
        communicator = await open_socket(session_cookie, table.pk)
        for frame, code in SOCKET_CORPUS:
            await communicator.send_input({"type": "websocket.receive", **frame})
            answer = await communicator.receive_json_from(timeout=10)
            assert_socket_answer(answer, frame)
            if code is not None:
                assert answer["type"] == "error" and answer["error"]["code"] == code, (frame, answer)
        await still_open(communicator, 0)
        kept = await sync_to_async(lambda: [len(json.dumps(r.command)) for r in RejectedCommand.objects.all()])()
        # Only the three the service refused are kept, each bounded.
        assert len(kept) == 3 and max(kept) <= 2 * wire.KEPT_BYTES
        await communicator.disconnect()

    play(scenario)


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
@hsettings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(frames=st.lists(JSON_VALUES.map(json.dumps) | st.text(max_size=30), min_size=1, max_size=4))
def test_any_frames_are_answered_and_the_socket_stays_open(session_cookie, frames):
    async def scenario():
        table = await sync_to_async(make_table)()
        communicator = await open_socket(session_cookie, table.pk)
        for frame in frames:
            await communicator.send_input({"type": "websocket.receive", "text": frame})
            try:
                content = json.loads(frame)
            except ValueError:
                content = None
            if isinstance(content, dict) and content.get("type") in ("sync", "heartbeat"):
                if content["type"] == "sync":
                    await communicator.receive_json_from(timeout=10)
                continue
            assert_socket_answer(await communicator.receive_json_from(timeout=10), frame)
        await still_open(communicator, 0)
        await communicator.disconnect()

    play(scenario)

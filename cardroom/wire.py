"""What comes over the wire: the one strict JSON reader of every JSON endpoint and
socket, and the JSON error answers of the API.

Bad input is answered, never crashed on: a body or frame larger than MAX_BODY_BYTES is
refused before it is parsed (`too_large`), JSON nested deeper than MAX_DEPTH before the
parser recurses (Python's parser overflows its stack at about 1,000 levels), and a
duplicate key or a non-JSON constant (NaN, Infinity) is refused instead of silently
taking the last value: what is logged is then what was sent. A text holding a NUL or a
lone surrogate is refused too (`text_refusal`, the one text check of every JSON body,
form field and uploaded list): PostgreSQL can keep neither, and a 500 is no answer.

Every API error is `{"ok": false, "error": {"code", "message"}}` with a stable code,
the shape `cardroom.access.api_for` and the staff views already answer.
"""

import hashlib
import json
import re
from datetime import datetime

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse

# The largest JSON a client sends is a table configuration with a custom pay table and
# a fee schedule (about 2 KiB); a command is a few hundred bytes.
MAX_BODY_BYTES = 64 * 1024
MAX_DEPTH = 20
# Of a refused payload, the audit keeps this much (plus its size and SHA-256).
KEPT_BYTES = 2048

# The stable codes of answers that are not a command's own refusal (docs/commands.md).
STATUS_CODES = {
    400: "invalid_command",
    401: "not_authorized",
    403: "not_authorized",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    429: "rate_limited",
}
SERVER_ERROR = "server_error"


class WireError(Exception):
    """Input refused before it reached a service: a stable code, a message, an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status

    def as_error(self) -> dict:
        return {"code": self.code, "message": self.message}


def too_large(size: int, limit: int = MAX_BODY_BYTES) -> WireError:
    return WireError("too_large", f"{size} bytes is more than the {limit} bytes a message may have", 413)


# A JSON string (its escapes included): brackets inside one do not nest.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


# Half of a UTF-16 pair: a JSON \ud800 escape decodes to one when its other half is missing
# (a whole pair decodes to the one character it encodes).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def text_refusal(text: str) -> str | None:
    """Why this text cannot be kept, or None: a NUL (PostgreSQL stores none in a text)
    or a lone surrogate (not a character: it has no UTF-8)."""
    if "\x00" in text:
        return "holds a NUL character"
    if _LONE_SURROGATE.search(text):
        return "holds a lone surrogate (half of a UTF-16 pair, not a character)"
    return None


def _text_refusal_in(value) -> str | None:
    """text_refusal of the first string (a key or a value) in a JSON value that has one."""
    if isinstance(value, str):
        return text_refusal(value)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        problem = (text_refusal(key) if isinstance(key, str) else None) or _text_refusal_in(inner)
        if problem:
            return problem
    return None


def _depth(text: str) -> int:
    deepest = level = 0
    for bracket in _BRACKETS.findall(_STRING.sub("", text)):
        level += 1 if bracket in "[{" else -1
        deepest = max(deepest, level)
    return deepest


def _no_duplicates(pairs: list) -> dict:
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} is given twice")
        seen[key] = value
    return seen


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


def read_json(data: bytes | str | None):
    """The JSON value of a body or frame, or WireError: too large (413), not UTF-8, not
    JSON, nested deeper than MAX_DEPTH, a duplicate key, NaN/Infinity, or a text with a
    NUL or a lone surrogate (400)."""
    if data is None:
        raise WireError("invalid_command", "the message is empty")
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > MAX_BODY_BYTES:
        raise too_large(len(raw))
    try:
        text = raw.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise WireError("invalid_command", "the message is not UTF-8 text") from None
    if not text.strip():
        raise WireError("invalid_command", "the message is empty")
    if _depth(text) > MAX_DEPTH:
        raise WireError("invalid_command", f"the JSON is nested more than {MAX_DEPTH} levels deep")
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except RecursionError:  # not reached past the depth check; kept as the last guard
        raise WireError("invalid_command", "the JSON is nested too deeply") from None
    except ValueError as problem:
        raise WireError("invalid_command", f"the message is not valid JSON: {problem}") from None
    problem = _text_refusal_in(value)
    if problem:
        raise WireError("invalid_command", f"a text in the message {problem}")
    return value


def request_json(request):
    """The request's JSON body (read_json). Django refuses to read a body whose declared
    length is over DATA_UPLOAD_MAX_MEMORY_SIZE (the same limit): too_large."""
    try:
        body = request.body
    except RequestDataTooBig:
        raise too_large(int(request.META.get("CONTENT_LENGTH") or 0)) from None
    return read_json(body)


def received(raw: bytes | str | None) -> dict:
    """What the audit keeps of a payload as it was received: its size, its SHA-256 and at
    most KEPT_BYTES of it (cut on a character boundary)."""
    if raw is None:
        return {}
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    return {
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "prefix": data[:KEPT_BYTES].decode("utf-8", "ignore"),
        "truncated": len(data) > KEPT_BYTES,
    }


def api_error(code: str, message: str, status: int, **extra) -> JsonResponse:
    return JsonResponse({"ok": False, "error": {"code": code, "message": message}, **extra}, status=status)


def is_api(path: str) -> bool:
    return path.startswith("/api/")


class ApiErrorMiddleware:
    """Under /api/, every answer is JSON: an HTML error page (Django's 404, 405, the CSRF
    failure, the 500 of an exception, which Django has logged with its traceback)
    becomes `{"ok": false, "error"}` with the status's stable code; a 500's answer also
    names its error reference (`error.reference`), the one its log line carries."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not is_api(request.path) or response.status_code < 400 or _is_json(response):
            return response
        status = response.status_code
        code = STATUS_CODES.get(status, SERVER_ERROR if status >= 500 else "invalid_command")
        reason = getattr(response, "reason_phrase", "") or "error"
        reference = getattr(request, "error_reference", None)  # a 500's (cardroom.errors)
        if reference:
            message = f"{status} {reason} (error reference {reference})"
            return JsonResponse({"ok": False, "error": {"code": code, "message": message, "reference": reference}}, status=status)
        return api_error(code, f"{status} {reason}", status)


def _is_json(response) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


class BodyLimitMiddleware:
    """ASGI: an HTTP request whose body is larger than MAX_BODY_BYTES is answered 413
    without handing it to Django, which would first copy all of it into a temporary file.
    A declared Content-Length is refused before any of the body is read; a body without
    one (chunked) is counted as it arrives and refused as soon as it passes the limit.

    Daphne (Twisted) has read the whole body before it calls the application, so this
    saves the copy and the work, not Daphne's buffer: the proxy's client_max_body_size
    (docker/nginx.conf) is what keeps a huge body from reaching Daphne at all.

    `routes` gives a path (exactly as requested, no prefix) a limit of its own: the state
    self-exclusion list's upload (config/asgi.py). Every other path keeps `limit`.
    Django's DATA_UPLOAD_MAX_MEMORY_SIZE stays 64 KiB for all: it counts the form's
    fields, not an uploaded file."""

    def __init__(self, app, limit: int | None = None, routes: dict[str, int] | None = None):
        self.app, self.limit, self.routes = app, limit or MAX_BODY_BYTES, dict(routes or {})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.routes.get(scope.get("path", ""), self.limit)
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            return await _refuse_too_large(send, declared, limit)
        messages, size = [], 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break  # the client went away: let the application see it
            size += len(message.get("body", b""))
            if size > limit:
                return await _refuse_too_large(send, size, limit)
            if not message.get("more_body", False):
                break

        async def replay():
            return messages.pop(0) if messages else await receive()

        return await self.app(scope, replay, send)


def _content_length(scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse_too_large(send, size: int, limit: int):
    error = too_large(size, limit)
    body = json.dumps({"ok": False, "error": error.as_error()}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            # The rest of the body is not read: the connection cannot be reused.
            "headers": [(b"content-type", b"application/json"), (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def command_id_of(command) -> object:
    """The `id` a command was sent with, whatever it is (None when the body is no object):
    every answer names it, so the tablet matches the answer to its tap."""
    return command.get("id") if isinstance(command, dict) else None


def unsent_answer(command, result: dict, *, version: int | None, **extra) -> dict:
    """The answer to a command that never reached the command service (a tap made under
    another login, one past the socket's rate): the envelope of every command's answer
    (tables.services.CommandOutcome.reply), nothing stored, nothing replayed."""
    return {"id": command_id_of(command), "result": result, "version": version, "replayed": False, **extra}


def socket_error(error: WireError) -> dict:
    """The message a socket answers to a frame it cannot read."""
    return {"type": "error", "error": error.as_error(), "message": error.message}


def origin_allowed(scope) -> bool:
    """A websocket's Origin is this site: the same scheme, host and port as the request
    (as Django's CSRF check compares them for a POST), the host one of ALLOWED_HOSTS,
    or one of CSRF_TRUSTED_ORIGINS."""
    from django.http.request import split_domain_port, validate_host

    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", ())}
    origin = headers.get("origin")
    host = headers.get("host")
    if not origin:
        return False
    if origin in getattr(settings, "CSRF_TRUSTED_ORIGINS", ()):
        return True
    if not host:
        return False
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    return _normal_origin(origin) == _normal_origin(f"{_scheme(scope, headers)}://{host}")


def _scheme(scope, headers: dict) -> str:
    """http or https as the browser sees it: behind a TLS-terminating proxy, the header
    SECURE_PROXY_SSL_HEADER names (as Django trusts it for requests)."""
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        name, secure_value = proxy
        header = name.removeprefix("HTTP_").replace("_", "-").lower()
        if header in headers:
            return "https" if headers[header] == secure_value else "http"
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


def _normal_origin(origin: str) -> str:
    """scheme://host:port, with the scheme's default port written out."""
    scheme, _, rest = origin.strip().lower().partition("://")
    if ":" not in rest.rsplit("]", 1)[-1]:
        rest = f"{rest}:{443 if scheme == 'https' else 80}"
    return f"{scheme}://{rest}"


class OriginValidator:
    """ASGI: refuses a websocket whose Origin is not this site (origin_allowed)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            # Closing before accepting refuses the handshake (HTTP 403 to the browser).
            await receive()  # websocket.connect
            return await send({"type": "websocket.close", "code": 4403})
        return await self.app(scope, receive, send)


def tapped_at(command) -> datetime | None:
    """The tablet's own time of a tap (`tapped_at`, ISO 8601 with its offset), or None
    where the command has none or it is not such a time."""
    text = command.get("tapped_at") if isinstance(command, dict) else None
    if not isinstance(text, str) or len(text) > 40:
        return None
    try:
        tapped = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return tapped if tapped.tzinfo is not None else None

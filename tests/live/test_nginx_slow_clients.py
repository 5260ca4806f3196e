"""The compose stack's nginx is the deployment's edge for slow clients (issue 33, finding
10): a request whose headers stop half-way is closed by nginx itself after
`client_header_timeout` (docker/nginx.conf), many at once included, and never reaches
Daphne. Rule: docs/operations.md, "Slow clients (half-sent requests)"."""

import socket
import time

import pytest

from tests.plugins import nginx

pytestmark = [pytest.mark.slow]

HALF_SENT = b"GET /accounts/login/ HTTP/1.1\r\nHost: cardroom.example\r\nUser-Agent: slow"
CONNECTIONS = 50


LIMIT = 10  # seconds (docs/operations.md): a tablet sends a whole request at once


def test_nginx_closes_half_sent_headers_after_its_timeout_without_reaching_the_app():
    if nginx.find() is None:
        pytest.fail(f"no nginx binary: {nginx.INSTALL_HINT}", pytrace=False)
    limit = LIMIT
    # An upstream where nothing listens: a request that reached it would be a 502 in the log.
    with nginx.Nginx(["127.0.0.1:9"]) as front:
        clients = []
        for _ in range(CONNECTIONS):
            client = socket.create_connection(("127.0.0.1", front.port), timeout=5)
            client.sendall(HALF_SENT)
            clients.append(client)
        started = time.monotonic()
        for client in clients:
            client.settimeout(max(0.1, limit + 5 - (time.monotonic() - started)))
            answer = b""
            try:
                while chunk := client.recv(4096):
                    answer += chunk
            except TimeoutError:
                pytest.fail(f"a half-sent request still open {limit + 5} s after it stopped")
            finally:
                client.close()
            assert answer == b"" or b" 408 " in answer.split(b"\r\n", 1)[0], answer[:200]
        assert limit - 1 <= time.monotonic() - started <= limit + 5
        assert "upstream" not in front.log()  # nothing went on to the app

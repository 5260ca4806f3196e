"""`make run` serves with production's defaults (issue 20, item 4): DEBUG off unless
`make dev` asks for it, the ledger's development key tied to the embedded database rather
than to DEBUG, and a 500's reference shared by its page and its log line.

The served process itself (a real 500, the 404 and 403 pages, static files) is proven on
`make run` in tests/live/test_production_served.py."""

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from cardroom import errors, hashchain

ROOT = Path(__file__).resolve().parents[1]


def _settings_value(name, **env):
    """A setting as `config.settings.base` computes it in a fresh process with `env`
    (DATABASE_URL kept: without it the settings would start the checkout's PostgreSQL)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("DJANGO_DEBUG", "DJANGO_SETTINGS_MODULE")}
    clean.update(DJANGO_SETTINGS_MODULE="config.settings.base", **env)
    done = subprocess.run(
        [sys.executable, "-c", f"from django.conf import settings; print(settings.{name})"],
        cwd=ROOT, env=clean, capture_output=True, text=True, check=True,
    )
    return done.stdout.strip()


def test_debug_is_off_unless_asked_for():
    assert os.environ.get("DATABASE_URL"), "the services plugin exports the test database"
    assert _settings_value("DEBUG") == "False"
    assert _settings_value("DEBUG", DJANGO_DEBUG="1") == "True"


@pytest.mark.parametrize("target, debug", [("run", "0"), ("dev", "1")])
def test_make_run_serves_without_debug_and_make_dev_with_it(target, debug):
    planned = subprocess.run(["make", "-n", "--no-print-directory", target], cwd=ROOT, capture_output=True, text=True)
    serve = [line for line in planned.stdout.splitlines() if "manage.py serve" in line]
    assert serve and serve[-1].startswith(f"DJANGO_DEBUG={debug} "), planned.stdout + planned.stderr


def _keyring_of(settings, *, embedded, debug, tmp_path):
    settings.CARDROOM_LEDGER_KEY = ""
    settings.CARDROOM_LEDGER_OLD_KEYS = ""
    settings.CARDROOM_EMBEDDED_DATABASE = embedded
    settings.DEBUG = debug
    settings.CARDROOM_LEDGER_DEV_KEY_FILE = tmp_path / "var" / "ledger-key"
    return hashchain.current_key_id()


def test_the_development_key_signs_on_the_embedded_database_with_debug_off(settings, tmp_path):
    assert _keyring_of(settings, embedded=True, debug=False, tmp_path=tmp_path) == hashchain.DEV_KEY_ID
    key_file = tmp_path / "var" / "ledger-key"
    assert len(key_file.read_text().strip()) >= hashchain.MIN_SECRET_LENGTH
    assert key_file.stat().st_mode & 0o077 == 0  # the owner's alone


def test_a_database_named_by_url_needs_a_real_key_even_with_debug_on(settings, tmp_path):
    with pytest.raises(ImproperlyConfigured, match="CARDROOM_LEDGER_KEY"):
        _keyring_of(settings, embedded=False, debug=True, tmp_path=tmp_path)
    assert not (tmp_path / "var" / "ledger-key").exists()


def test_the_embedded_database_is_the_one_without_database_url():
    assert _settings_value("CARDROOM_EMBEDDED_DATABASE") == "False"  # the test database's URL is set


def test_a_reference_is_made_once_per_request_and_read_aloud_safely(rf):
    request = rf.get("/")
    first = errors.reference_of(request)
    assert first == errors.reference_of(request) and len(first) == 8
    assert not set(first) & set("01OIL")
    assert len({errors.reference_of(rf.get("/")) for _ in range(50)}) == 50  # a new one per request


def test_the_filter_puts_the_reference_on_the_log_line_of_its_request(rf):
    request = rf.get("/floor/")
    reference = errors.reference_of(request)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("test.error_reference")
    logger.addHandler(handler)
    logger.addFilter(errors.ErrorReferenceFilter())
    logger.propagate = False
    try:
        logger.error("%s: %s", "Internal Server Error", "/floor/", extra={"request": request})
        logger.error("%s: %s", "Internal Server Error", "/other/", extra={"request": rf.get("/other/")})
    finally:
        logger.removeHandler(handler)
    first, second = stream.getvalue().splitlines()
    assert first == f"ERROR test.error_reference: Internal Server Error: /floor/ [error reference {reference}]"
    assert second == "ERROR test.error_reference: Internal Server Error: /other/"

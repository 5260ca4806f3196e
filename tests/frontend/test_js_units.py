"""The front end's own unit tests (tests/js/*.test.js), run by Node's built-in test runner
(`node --test`, Node 18 or later: Debian 12's `nodejs`; `.ci/run` installs it when `node`
is missing) inside `make test`. They import the browser's ES modules under static/ as they
are (the root package.json says `"type": "module"`); a failing unit test fails this test
with Node's report.

Also here: what the browser needs to run those modules at all. A module script is refused
unless it is served with a JavaScript content type, and the pages load only modules (no
inline script, so a Content-Security-Policy without 'unsafe-inline' never breaks them)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
UNIT_TESTS = sorted((ROOT / "tests" / "js").glob("*.test.js"))
NODE = shutil.which("node") or shutil.which("nodejs")


def test_the_javascript_unit_tests_pass():
    if NODE is None:
        pytest.fail("node is missing: install Debian's nodejs (.ci/run does)", pytrace=False)
    assert UNIT_TESTS, "no tests/js/*.test.js found: nothing would be checked"
    done = subprocess.run([NODE, "--test", "--test-reporter=tap", *map(str, UNIT_TESTS)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    report = done.stdout + done.stderr
    assert done.returncode == 0, f"node --test failed:\n{report}"
    passed = re.search(r"^# pass (\d+)", report, re.M)
    assert passed and int(passed.group(1)) > 0, f"node --test ran no test:\n{report}"


@pytest.mark.parametrize("path", ["table.js", "live.js", "floor.js", "approvals.js", "tablet/outbox.js", "live/socket.js", "floor/alerts.js"])
def test_the_modules_are_served_as_javascript(path):
    response = Client().get(f"{settings.STATIC_URL}{path}")  # "/static/"
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] in {"text/javascript", "application/javascript"}


def test_every_script_in_a_template_is_a_file_and_the_page_scripts_are_modules():
    templates = sorted((ROOT / "templates").rglob("*.html"))
    assert templates
    inline, classic = [], []
    for template in templates:
        for tag in re.findall(r"<script\b[^>]*>", template.read_text()):
            if "src=" not in tag:
                inline.append(f"{template.relative_to(ROOT)}: {tag}")
            elif 'type="module"' not in tag and template.name != "base.html":
                classic.append(f"{template.relative_to(ROOT)}: {tag}")
    assert inline == [], "inline scripts (move them into a module under static/)"
    assert classic == [], "page scripts load as ES modules (type=\"module\")"

"""Production settings: `manage.py check --deploy` reports nothing, and they refuse to
start without a real secret from the environment (none is in the repository)."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEDGER_KEY = "2026a:" + secrets.token_urlsafe(48)


def _check(extra_env):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.prod", "DJANGO_ALLOWED_HOSTS": "cardroom.example"})
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )


def test_check_deploy_reports_nothing_with_production_settings():
    done = _check({"DJANGO_SECRET_KEY": secrets.token_urlsafe(64), "CARDROOM_LEDGER_KEY": LEDGER_KEY})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_production_refuses_to_start_without_a_real_secret():
    done = _check({"DJANGO_SECRET_KEY": "", "CARDROOM_LEDGER_KEY": LEDGER_KEY})
    assert done.returncode != 0 and "DJANGO_SECRET_KEY" in done.stderr


@pytest.mark.parametrize("ledger_key", ["", "k1:too-short", "no-key-id-" + "x" * 40])
def test_production_refuses_to_start_without_a_ledger_key(ledger_key):
    done = _check({"DJANGO_SECRET_KEY": secrets.token_urlsafe(64), "CARDROOM_LEDGER_KEY": ledger_key})
    assert done.returncode != 0 and ("CARDROOM_LEDGER_KEY" in done.stderr or "a ledger key is" in done.stderr)


def test_no_env_file_is_committed_only_the_example():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:  # not a git checkout (an exported tree): nothing to check
        return
    assert ".env.example" in tracked and ".env" not in tracked


def _compose_block(text: str, *path: str) -> list[str]:
    """The lines under the key `path` of docker-compose.yml, read by indentation (the
    file is plain block YAML; no YAML library is a dependency of the app)."""
    def indent(line):
        return len(line) - len(line.lstrip())

    lines = text.splitlines()
    for key in path:
        level = min(indent(line) for line in lines if line.strip() and not line.lstrip().startswith("#"))
        start = next(i for i, line in enumerate(lines) if line.strip() == f"{key}:" and indent(line) == level)
        block = []
        for line in lines[start + 1 :]:
            if line.strip() and not line.lstrip().startswith("#") and indent(line) <= level:
                break
            block.append(line)
        lines = block
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_every_app_replica_writes_the_witness_to_one_named_volume():
    """Issue 33 item 4: a restart or `--scale app=N` must never read as a witness file
    deleted, so the witness folder is a named volume every app container mounts, not a
    folder inside each container."""
    text = (ROOT / "docker-compose.yml").read_text()
    environment = _compose_block(text, "services", "app", "environment")
    (setting,) = [line for line in environment if line.startswith("CARDROOM_WITNESS_DIR:")]
    folder = setting.split(":", 1)[1].strip()
    assert folder.startswith("/") and not folder.startswith("/app")
    assert f"- witness:{folder}" in _compose_block(text, "services", "app", "volumes")
    assert "witness:" in _compose_block(text, "volumes")
    # Not the database's: its owner must not reach the witness.
    assert not any("witness" in line for line in _compose_block(text, "services", "db"))


def test_only_the_compose_stack_trusts_the_forwarded_address_and_nginx_sets_it_itself():
    """docs/operations.md, "The client's address behind nginx": a Daphne that trusts
    X-Forwarded-For with nothing in front lets any client pick its address (and escape the
    login lockout); nginx appending to the client's header would let it pick it too. The
    behaviour through a real nginx: tests/live/test_client_address_nginx.py."""
    compose = (ROOT / "docker-compose.yml").read_text()
    app = compose.split("\n  app:\n", 1)[1].split("\n  web:\n", 1)[0]
    assert re.search(r'^    command: \[.*"--proxy-headers".*\]$', app, re.MULTILINE)
    [cmd] = re.findall(r"^CMD .*$", (ROOT / "Dockerfile").read_text(), re.MULTILINE)
    assert "daphne" in cmd and "proxy-headers" not in cmd  # the image alone, no proxy in front
    serve = (ROOT / "cardroom" / "management" / "commands" / "serve.py").read_text()
    assert '"-m", "daphne"' in serve and "proxy-headers" not in serve  # `make run`: one machine
    conf = (ROOT / "docker" / "nginx.conf").read_text()
    assert re.findall(r"proxy_set_header\s+X-Forwarded-For\s+(\S+);", conf) == ["$remote_addr"]

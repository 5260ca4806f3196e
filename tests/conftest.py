"""Shared fixtures for the whole test suite.

PostgreSQL and Redis are started (or taken from DATABASE_URL / REDIS_URL) by the pytest
plugin tests/plugins/services.py, loaded through pytest.ini before Django's settings.
Add further shared fixtures below this one.
"""

import os

import pytest


@pytest.fixture(scope="session")
def redis_url():
    """The Redis server for tests marked ``redis``; fails clearly if there is none."""
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.fail(
            "REDIS_URL is not set and no redis-server binary was found to start one. "
            "Install redis-server (apt-get install redis-server; .ci/run does this) "
            "or point REDIS_URL at a Redis server.",
            pytrace=False,
        )
    return url

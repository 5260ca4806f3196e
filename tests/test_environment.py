"""The suite runs on the real parts: PostgreSQL (never SQLite) and, for `redis` tests, Redis."""

import uuid

import pytest
from django.db import connection


@pytest.mark.django_db
def test_database_is_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL"), version


@pytest.mark.django_db
def test_test_database_is_a_throwaway_copy():
    # pytest-django runs tests in its own database, never the configured one.
    assert connection.settings_dict["NAME"].startswith("test_")


@pytest.mark.redis
def test_redis_round_trip(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=5)
    try:
        key = f"cardroom:test:{uuid.uuid4().hex}"
        assert client.set(key, "ante", ex=60)
        assert client.get(key) == b"ante"
        client.delete(key)
    finally:
        client.close()

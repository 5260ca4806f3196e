# The cardroom app served by Daphne (ASGI: HTTP + WebSockets). Used by docker-compose.yml,
# which also provides PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=config.settings.base

# An unprivileged user runs the app.
RUN groupadd --system --gid 10001 cardroom \
 && useradd --system --uid 10001 --gid cardroom --home-dir /app --shell /usr/sbin/nologin cardroom

WORKDIR /app

# Dependencies first, so code changes do not invalidate this layer.
# (Every package in requirements.txt has a manylinux wheel: no compiler needed.)
COPY requirements.txt ./
RUN pip install -r requirements.txt

COPY --chown=cardroom:cardroom . .
# /var/lib/cardroom/witness: the witness folder (docker-compose.yml mounts a named volume
# there, which takes this owner when it is first created).
RUN chmod 0755 docker/entrypoint.sh \
 && DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
 && chown -R cardroom:cardroom /app \
 && install -d -o cardroom -g cardroom -m 0750 /var/lib/cardroom/witness

USER cardroom
EXPOSE 8000

# entrypoint.sh waits for PostgreSQL and Redis and applies migrations, then runs CMD.
ENTRYPOINT ["/app/docker/entrypoint.sh"]
# A websocket message is at most 64 KiB (cardroom.wire.MAX_BODY_BYTES): Daphne's default
# would buffer 1 MiB before the application could refuse it. No --proxy-headers here: only
# the compose stack, with nginx in front, trusts X-Forwarded-For (docker-compose.yml).
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--websocket-max-message-size", "65536", "config.asgi:application"]

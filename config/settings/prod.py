"""Production: `DJANGO_SETTINGS_MODULE=config.settings.prod`.

Everything secret or site-specific comes from the environment (see .env.example);
`python manage.py check --deploy` reports nothing with these settings.
"""

import os

from django.core.exceptions import ImproperlyConfigured

from cardroom.hashchain import parse_key as _ledger_key_check

from .base import *  # noqa: F403

DEBUG = False

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("dev-only"):
    raise ImproperlyConfigured("Set DJANGO_SECRET_KEY to a long random value (50+ characters) in the environment.")

# The ledger key signs the hash chains (cardroom/hashchain.py); without it anyone who can
# write the tables could re-hash them. No development key file in production.
CARDROOM_LEDGER_KEY = os.environ.get("CARDROOM_LEDGER_KEY", "")
if not CARDROOM_LEDGER_KEY:
    raise ImproperlyConfigured("Set CARDROOM_LEDGER_KEY ('<key id>:<secret of 32+ characters>') in the environment.")
_ledger_key_check(CARDROOM_LEDGER_KEY)
for _old in CARDROOM_LEDGER_OLD_KEYS.split(","):  # noqa: F405
    if _old.strip():
        _ledger_key_check(_old)

ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

# HTTPS only, behind a TLS-terminating proxy that sets X-Forwarded-Proto.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = os.environ.get("DJANGO_SECURE_SSL_REDIRECT", "1") == "1"
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the container health check speaks plain HTTP
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = 31536000
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

"""Settings shared by every environment.

PostgreSQL is the one database engine. With no DATABASE_URL the app starts its own
PostgreSQL cluster in the checkout's var/ (cardroom/localdb.py); with no REDIS_URL the
channel layer is in memory. Set DATABASE_URL (through psycopg 3) and REDIS_URL for a real
deployment.
"""

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONCE as CSP_NONCE
from django.core.exceptions import ImproperlyConfigured

from cardroom import localdb

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-not-secret-change-me")
# Off unless asked for (`make dev` sets DJANGO_DEBUG=1): `make run` is what floor staff
# see, and Django's debug page would show them a traceback and the settings.
DEBUG = os.environ.get("DJANGO_DEBUG", "0") == "1"
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "tables",
    "rounds",
    "collections_fees",
    "patrons",
    "cardroom",
    "web",
    "axes",
]

MIDDLEWARE = [
    # First, so it sees every answer: under /api/ every error is JSON with a stable code.
    "cardroom.wire.ApiErrorMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Daphne serves no static files: WhiteNoise does, in development and in the container.
    "cardroom.static.StaticFilesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The Content-Security-Policy header on every answer (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it answers a locked-out login.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

# Content-Security-Policy (django-csp: Django 5.2 has none built in), in every environment,
# so the browser tests run the pages under the policy production sends. Scripts, styles,
# images, the tablet's service worker and its manifest come from this site only, as files:
# no inline <script>, <style>, style="" or on...= handler anywhere (a page that needs one
# moves it into static/). The printed count sheet and closer are the one exception: a
# document a person keeps must carry its styles, so their <style> has this answer's nonce
# (request.csp_nonce; the header names it only when a page used it). 'self' in
# connect-src also allows this site's own ws:/wss: (CSP Level 3): the tablet's, the
# floor's and the live view's sockets. No plugin, no <base>, no framing, forms post to
# this site only. docs/operations.md, "Response headers".
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", CSP_NONCE],
        "img-src": ["'self'"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    },
}

# No body Cardroom takes is near this (cardroom.wire.MAX_BODY_BYTES, also enforced in
# front of Django by cardroom.wire.BodyLimitMiddleware and by the proxy).
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024

# Errors go to stderr whatever DEBUG says (Django's default sends them to the console
# only with DEBUG on, else to mail_admins, which is not configured): a 500 with DEBUG off
# leaves its traceback in the container's log. 4xx answers (django.request warnings)
# are left out: anyone can cause as many as they like.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"error_reference": {"()": "cardroom.errors.ErrorReferenceFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "loggers": {
        "django": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        # A 500's line carries the reference its page shows (cardroom.errors).
        "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False, "filters": ["error_reference"]},
        "django.security": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        "cardroom": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        "tables": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        # The sockets' own lines (a channel layer outage, its groups re-joined): web.sockets.
        "web": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        # A Redis error the cache ignored (IGNORE_EXCEPTIONS, below): logged, not raised.
        "django_redis": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
    },
}

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "cardroom.access.role_context",
            ],
        },
    },
]

ASGI_APPLICATION = "config.asgi.application"

# Connections are kept (CARDROOM_DB_CONN_MAX_AGE seconds) and checked before reuse: opening one per
# command cost a Daphne process more than a quarter of its time (and PostgreSQL a
# backend start), measured by benchmarks/bench_e2e.py.
CARDROOM_DB_CONN_MAX_AGE = int(os.environ.get("CARDROOM_DB_CONN_MAX_AGE", "300"))
# The app's own PostgreSQL in the checkout's var/ (no DATABASE_URL): one machine, one
# database, so the ledger's development key may live beside it (cardroom/hashchain.py).
CARDROOM_EMBEDDED_DATABASE = not os.environ.get("DATABASE_URL")
if not CARDROOM_EMBEDDED_DATABASE:
    DATABASES = {
        "default": dj_database_url.config(env="DATABASE_URL", conn_max_age=CARDROOM_DB_CONN_MAX_AGE, conn_health_checks=True)
    }
else:
    # Migrations and the operator's own commands log in as the owner; `manage.py serve`
    # runs Daphne as the least-privilege app role (CARDROOM_LOCALDB_USER, see below). Each
    # logs in with the password the cluster was given (var/postgres-credentials.json).
    _localdb_user = os.environ.get("CARDROOM_LOCALDB_USER") or localdb.OWNER
    DATABASES = {
        "default": localdb.project_database(
            BASE_DIR,
            user=_localdb_user,
            password=None if _localdb_user == localdb.OWNER else os.environ.get("CARDROOM_APP_DB_PASSWORD"),
        )
    }
    DATABASES["default"].update(CONN_MAX_AGE=CARDROOM_DB_CONN_MAX_AGE, CONN_HEALTH_CHECKS=True)
# The command path's fixed statements (cardroom/statements.py) are prepared once per
# connection: psycopg prepares only when the connection's threshold is set (Django sets
# None), and only that module's server-binding cursor asks (prepare=True); Django's own
# cursors bind on the client and never prepare. CARDROOM_DB_PREPARE=0 turns it off, for a
# transaction-pooling proxy that cannot keep a connection's prepared statements.
if os.environ.get("CARDROOM_DB_PREPARE", "1") != "0":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 1_000_000)
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    # The append-only triggers, COPY exports and row locks are PostgreSQL's.
    raise ImproperlyConfigured("DATABASE_URL must name a PostgreSQL database (postgresql://...)")

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis's pub/sub layer, kept through a Redis outage (why pub/sub:
            # cardroom/channel_layer.py). A connection that cannot be made within a second
            # fails, so a command's answer (published after commit, tables.events) waits no
            # longer for a Redis that is unreachable; a publish or subscribe to a Redis that
            # stopped answering fails after 15 s (the answer waits at most 2 s for it). The
            # subscriptions' reading loop polls with its own 0.1 s timeout: a Redis that
            # hangs without closing the connection is found by TCP keepalive.
            "BACKEND": "cardroom.channel_layer.ChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 15, "socket_connect_timeout": 1}]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
USE_I18N = True
# Stored in UTC; shown in the cardroom's zone.
USE_TZ = True
TIME_ZONE = os.environ.get("CARDROOM_TIME_ZONE", "America/Los_Angeles")

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Served from the source folders too, so `make run` and the browser tests need no collectstatic.
WHITENOISE_USE_FINDERS = True

# Live tables (issue 3): every page and socket needs a logged-in user.
LOGIN_URL = "/accounts/login/"

# --- Accounts: lockout after repeated failures, sessions that expire --------------------
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out username at once
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("CARDROOM_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 0.25  # hours: a locked account unlocks after 15 minutes
# A person at one address: a shared tablet is not locked for everyone by one forgetful user.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
SESSION_COOKIE_AGE = 12 * 60 * 60  # one long shift at most
# A socket re-reads its session before every command (web.tables.consumers): from the cache
# (Redis when REDIS_URL is set), with the database behind it.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_COOKIE_HTTPONLY = True
# The tablet's approval login (a supervisor's credentials typed on the dealer's tablet)
# has its own lockout (tables.approvals.tablet_login), apart from django-axes: failing it
# never locks the supervisor out of their own login. Failures count per requester (the
# person whose session sent them, on any table and any session) with each approver's
# name, and with every name together; either limit holds that requester back (from that
# name, or from every name) until the cool-off passes without a failure.
CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT = 5
CARDROOM_APPROVAL_LOGIN_REQUESTER_FAILURE_LIMIT = 2 * CARDROOM_APPROVAL_LOGIN_FAILURE_LIMIT
CARDROOM_APPROVAL_LOGIN_COOLOFF_SECONDS = 15 * 60
# Refused commands a session may send in a minute; past it, `rate_limited` (429) and
# nothing is stored (tables.services).
CARDROOM_REFUSED_COMMANDS_PER_MINUTE = int(os.environ.get("CARDROOM_REFUSED_COMMANDS_PER_MINUTE", "30"))
# What one websocket may ask of the database (tables.socket_rates, a token bucket per
# socket): past the burst, and then faster than the rate, a `sync` or a command is
# answered `rate_limited` with `retry_after` and nothing is read or applied. The command
# burst holds a tablet's outbox flushed after a reconnect (sent one at a time, as fast as
# the answers come): more than two full rounds of taps at the largest table. A dealer
# taps far slower than the rate.
CARDROOM_SOCKET_COMMAND_BURST = int(os.environ.get("CARDROOM_SOCKET_COMMAND_BURST", "120"))
CARDROOM_SOCKET_COMMANDS_PER_SECOND = float(os.environ.get("CARDROOM_SOCKET_COMMANDS_PER_SECOND", "5"))
# A screen asks for a snapshot on connect, on a gap in the events and after an outage.
CARDROOM_SOCKET_SYNC_BURST = int(os.environ.get("CARDROOM_SOCKET_SYNC_BURST", "10"))
CARDROOM_SOCKET_SYNCS_PER_SECOND = float(os.environ.get("CARDROOM_SOCKET_SYNCS_PER_SECOND", "1"))
# Under the rotation policy (game-rules 2A.4) the floor turns a table amber this long
# before the window rule would end its game unless another player banks.
CARDROOM_WINDOW_WARNING_MINUTES = int(os.environ.get("CARDROOM_WINDOW_WARNING_MINUTES", "10"))
# Dealer relief (tables/relief.py): the house's relief interval; how long after a push an
# incoming dealer who has not taken over is shown late; how early before their push a
# dealer may take over.
CARDROOM_RELIEF_MINUTES = int(os.environ.get("CARDROOM_RELIEF_MINUTES", "20"))
CARDROOM_RELIEF_LATE_MINUTES = int(os.environ.get("CARDROOM_RELIEF_LATE_MINUTES", "3"))
CARDROOM_RELIEF_EARLY_MINUTES = int(os.environ.get("CARDROOM_RELIEF_EARLY_MINUTES", "2"))
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
# Tablet presence (the floor's "tablet disconnected" alert) must be visible to every
# Daphne process: in Redis when there is one, else in this one process's memory.
# Through django-redis, not Django's own RedisCache, for its IGNORE_EXCEPTIONS: while
# Redis is down a read is a miss and a write is skipped (and logged), where Django's
# backend raises, and the sessions (cached_db re-caches what it read from the database)
# turned every request and command into a 500. What that costs while Redis is down: the
# floor counts no tablet connected, and the refused-command and approval-login counters
# start again from zero (django-axes keeps the login lockout in the database).
# Short timeouts: a Redis that stopped answering costs a command a second, not five.
CACHES = {
    "default": (
        {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "cardroom",
            "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1},
        }
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True

# --- Compliance: the business calendar (cardroom/gaming_day.py) ---------------------
CARDROOM_GAMING_DAY_START = os.environ.get("CARDROOM_GAMING_DAY_START", "06:00")
# The shifts, in order from the gaming day's start: "name=HH:MM,..." (CARDROOM_SHIFTS).
CARDROOM_SHIFTS = [
    tuple(part.split("=", 1))
    for part in os.environ.get("CARDROOM_SHIFTS", "day=06:00,swing=14:00,grave=22:00").split(",")
]

# --- Compliance: the count (collections_fees/counts.py) --------------------------------
# A box whose variance (counted - expected, either way) is above EXPLAIN needs a signed
# explanation, above ESCALATE a manager's approval too, before the sheet can be signed
# (New Jersey's N.J.A.C. 13:69D-1.21 as the model). Cents.
CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS = int(os.environ.get("CARDROOM_COUNT_EXPLAIN_ABOVE_CENTS", "2500"))
CARDROOM_COUNT_ESCALATE_ABOVE_CENTS = int(os.environ.get("CARDROOM_COUNT_ESCALATE_ABOVE_CENTS", "10000"))
# What a counter may find in a box, in cents: bills and coins.
CARDROOM_COUNT_DENOMINATIONS = [10000, 5000, 2000, 1000, 500, 200, 100, 25, 10, 5, 1]

# --- Compliance: the ledger's hash chains and the database login (cardroom/hashchain.py,
# cardroom/db_roles.py) -----------------------------------------------------------------
# The key that signs the hash chains and their checkpoints: "<key id>:<secret>". Not in
# the database, so whoever can write the tables cannot re-sign them. Keys retired by a
# rotation stay here for verification: "<id>:<secret>,<id>:<secret>". On the embedded
# database (no DATABASE_URL) with no key set, a development key is generated once into
# var/ledger-key, beside that database, whether DEBUG is on (`make dev`) or off (`make run`).
CARDROOM_LEDGER_KEY = os.environ.get("CARDROOM_LEDGER_KEY", "")
CARDROOM_LEDGER_OLD_KEYS = os.environ.get("CARDROOM_LEDGER_OLD_KEYS", "")
# The house audit chain links an audit row just after the row's transaction commits
# (cardroom/audit.py `link_pending`); verify_logs names a row older than this that is in no
# chain (its link was deleted or never written).
CARDROOM_AUDIT_LINK_GRACE_SECONDS = int(os.environ.get("CARDROOM_AUDIT_LINK_GRACE_SECONDS", "300"))
# Beside the app's own PostgreSQL (CARDROOM_LOCALDB_DIR moves both, e.g. for a test).
CARDROOM_LEDGER_DEV_KEY_FILE = Path(os.environ.get("CARDROOM_LOCALDB_DIR") or BASE_DIR / "var") / "ledger-key"
# The witness (cardroom/witness.py): where the signed chain heads are appended, outside
# the database. Give the folder to an OS user the database server does not run as (or
# ship it to another host): the database's owner must not be able to rewrite it. By
# default beside the app's own PostgreSQL and its ledger key: CARDROOM_LOCALDB_DIR moves
# all three, so a second database used from the checkout keeps a witness of its own.
CARDROOM_WITNESS_DIR = Path(
    os.environ.get("CARDROOM_WITNESS_DIR") or Path(os.environ.get("CARDROOM_LOCALDB_DIR") or BASE_DIR / "var") / "witness"
)
# A changed chain is witnessed within this many seconds (a settle or a void at once).
CARDROOM_WITNESS_INTERVAL = int(os.environ.get("CARDROOM_WITNESS_INTERVAL", "60"))
# The login role the app process uses (empty: off, e.g. a developer's own server).
# `migrate`, run as the tables' owner, creates it if missing (with this password, if
# given) and grants it exactly what the app needs: no TRUNCATE, no ALTER, no UPDATE or
# DELETE on the append-only ledger tables.
# The app's own PostgreSQL (no DATABASE_URL) always has one: `cardroom_app`, whose
# password was generated with the cluster (var/postgres-credentials.json): `migrate`
# gives it to the role, and the served app logs in with it.
CARDROOM_APP_DB_ROLE = os.environ.get("CARDROOM_APP_DB_ROLE", "" if os.environ.get("DATABASE_URL") else localdb.APP_ROLE)
CARDROOM_APP_DB_PASSWORD = os.environ.get("CARDROOM_APP_DB_PASSWORD") or (
    "" if os.environ.get("DATABASE_URL") else localdb.app_password(BASE_DIR)
)

# Cash at the tables (patrons/cash.py, docs/patrons.md): each transaction at or over the MTL
# threshold is a Multiple Transaction Log entry; the floor and compliance are warned when a
# patron's cash in (or out) of a gaming day reaches the warning; above the CTR threshold
# (31 CFR 1021.311: more than $10,000) a Currency Transaction Report is required.
CARDROOM_MTL_THRESHOLD_CENTS = int(os.environ.get("CARDROOM_MTL_THRESHOLD_CENTS", "300000"))
CARDROOM_CASH_WARNING_CENTS = int(os.environ.get("CARDROOM_CASH_WARNING_CENTS", "800000"))
CARDROOM_CTR_THRESHOLD_CENTS = int(os.environ.get("CARDROOM_CTR_THRESHOLD_CENTS", "1000000"))
# The most one cash transaction at a table may be (default 100000000, $1,000,000): far above
# any chip purchase or jackpot paid at a table, so a larger amount is a typo or a forgery and
# is refused (`invalid_amount`) before it reaches the log.
CARDROOM_CASH_MAX_CENTS = int(os.environ.get("CARDROOM_CASH_MAX_CENTS", "100000000"))

"""Settings, all from the environment (see README "Production settings").

Defaults give the embedded setup of `make run`: SQLite and a filesystem Celery broker under var/,
no external server. Production sets DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis or
RabbitMQ), SECRET_KEY, DEBUG=0 and ALLOWED_HOSTS.

Settings import no app code (an import-linter contract in pyproject.toml keeps it so): a setting
that only an app can check is checked by that app at start-up (evaluator.apps).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from kgsite.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("KGB_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
TESTING = env_bool("KGB_TESTING", False)  # set by the test suite only
_DEV_SECRET = "dev-only-insecure-secret-key-change-me-0123456789abcdefghijklmnopqrstuvwxyz"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET if DEBUG or TESTING else None)
if len(SECRET_KEY) < 32:
    raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters long")
if not (DEBUG or TESTING) and (SECRET_KEY == _DEV_SECRET or SECRET_KEY.startswith("django-insecure-")):
    # the development key is public (it is in this file): with it anyone can forge sessions and reset links
    raise ImproperlyConfigured("SECRET_KEY is the public development key: set a secret one when DEBUG is off")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"] if DEBUG or TESTING else [])
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off (comma-separated host names)")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "csp",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "kgsite",
    "operators",
    "evaluator",
    "leaderboard",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # application errors (kgsite.errors) escaping an HTML view become the error page with their status
    "kgsite.error_handlers.ApplicationErrorMiddleware",
]

ROOT_URLCONF = "kgsite.urls"
WSGI_APPLICATION = "kgsite.wsgi.application"
ASGI_APPLICATION = "kgsite.asgi.application"

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
                "kgsite.context_processors.site",
            ],
        },
    },
]


def _database(url: str) -> dict:
    scheme = urlparse(url).scheme
    if scheme not in {"sqlite", "postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(f"DATABASE_URL scheme {scheme!r} is not supported (use sqlite:/// or postgres://)")
    config = dj_database_url.parse(url, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0))
    if config["ENGINE"].endswith("sqlite3"):
        config["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
        config["CONN_MAX_AGE"] = 0
    else:
        config["CONN_HEALTH_CHECKS"] = True
    return config


DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'kgb.sqlite3'}")
DATABASES = {"default": _database(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # not a rule: Django tells every validator when a password was changed (admin, `changepassword`,
    # reset and change forms); this one revokes the user's API token then
    {"NAME": "leaderboard.password_hooks.RevokeApiTokensOnPasswordChange"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# failed logins (site and admin) allowed within the window, beyond which further tries are refused without
# checking the password (leaderboard/login_throttle.py, docs/accounts.md): per username at one address or on
# one device; and for tries from neither a usual address nor a device of the account, per address (across
# usernames) and per account (across addresses). A username's usual addresses and device cookies are kept
# LOGIN_USUAL_ADDRESS_DAYS after its last successful login there.
LOGIN_FAILURES_PER_USERNAME = env_int("KGB_LOGIN_FAILURES_PER_USERNAME", 5, minimum=1)
LOGIN_FAILURES_PER_ADDRESS = env_int("KGB_LOGIN_FAILURES_PER_ADDRESS", 20, minimum=1)
LOGIN_FAILURES_PER_ACCOUNT = env_int("KGB_LOGIN_FAILURES_PER_ACCOUNT", 50, minimum=1)
LOGIN_FAILURE_WINDOW_S = env_int("KGB_LOGIN_FAILURE_WINDOW_S", 900, minimum=1)
LOGIN_USUAL_ADDRESS_DAYS = env_int("KGB_LOGIN_USUAL_ADDRESS_DAYS", 90, minimum=1)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "kgsite.staticfinders.PlotlyFinder",  # vendor/plotly.min.js from the plotly wheel
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or TESTING
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
MEDIA_ROOT = VAR_DIR / "media"

# security (production mode: `manage.py check --deploy` clean)
SESSION_COOKIE_SECURE = not DEBUG and env_bool("KGB_HTTPS", True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = (
    not DEBUG and not TESTING and env_bool("KGB_HTTPS", True) and env_bool("SECURE_SSL_REDIRECT", True)
)
SECURE_HSTS_SECONDS = 0 if DEBUG else env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("KGB_BEHIND_PROXY", False) else None
# reverse proxies in front of the site that append to X-Forwarded-For: per-address limits (DRF's
# throttles and kgsite.client_address) believe that many entries from its right end; 0 means REMOTE_ADDR only
KGB_TRUSTED_PROXIES = env_int("KGB_TRUSTED_PROXIES", 0, minimum=0)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# django-csp: everything from this origin only (static files are vendored, no CDN); no inline script
# or style (handlers live in static/js/site.js, styles in static/css); data: images for Plotly's and
# Swagger UI's icons
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
SESSION_COOKIE_HTTPONLY = True

# uploads: a whole 210-file submission zip stays far below this; larger requests are refused
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("KGB_MAX_REQUEST_BYTES", 20 * 1024 * 1024, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
# a multipart body (files included) past this is refused while it streams in, never read whole
# (kgsite/uploads.py); it holds the largest upload, a 16 MiB zip and an 8 MiB metadata file
KGB_MAX_UPLOAD_REQUEST_BYTES = env_int("KGB_MAX_UPLOAD_REQUEST_BYTES", 25 * 1024 * 1024, minimum=1024)
FILE_UPLOAD_HANDLERS = [
    "kgsite.uploads.RequestSizeLimitHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # every API refusal as {"error": code, "detail": message[, "errors": [...]]}
    "EXCEPTION_HANDLER": "kgsite.error_handlers.api_exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PARSER_CLASSES": [
        "kgsite.parsers.DepthSafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # LimitOffsetPagination with a largest page (an unbounded ?limit= overflowed the database's LIMIT)
    "DEFAULT_PAGINATION_CLASS": "kgsite.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "NUM_PROXIES": KGB_TRUSTED_PROXIES,
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("KGB_THROTTLE_ANON", "600/min"),
        "user": env_str("KGB_THROTTLE_USER", "1200/min"),
        "submissions": env_str("KGB_THROTTLE_SUBMISSIONS", "30/hour"),
        "submissions_ip": env_str("KGB_THROTTLE_SUBMISSIONS_IP", "60/hour"),
        # sign-up tries per client address (leaderboard.throttles.SignUpRateThrottle)
        "signups": env_str("KGB_THROTTLE_SIGNUPS", "10/hour"),
        "runner": env_str("KGB_THROTTLE_RUNNER", "6000/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "KernelGenBench API",
    "DESCRIPTION": "Operators, submissions, evaluations and leaderboards of the KernelGenBench platform.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
_REDIS_CACHE = env_str("REDIS_CACHE_URL", "")
if _REDIS_CACHE:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _REDIS_CACHE}}

# Celery: the broker carries job ids only; runners talk to the site over HTTP.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.split("://", 1)[0] not in {"filesystem", "redis", "rediss", "amqp", "amqps", "pyamqp", "memory"}:
    raise ImproperlyConfigured(f"CELERY_BROKER_URL={CELERY_BROKER_URL!r}: use redis://, amqp:// or filesystem://")
CELERY_BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    # the embedded broker of `make run`: folders under var/ shared by the site and the local runner
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_DIR / "out"),
        "data_folder_out": str(CELERY_BROKER_DIR / "out"),
        "processed_folder": str(CELERY_BROKER_DIR / "processed"),
        "control_folder": str(CELERY_BROKER_DIR / "control"),
        "store_processed": False,
        # the transport polls its folder; its default of 1 s would add up to a second per job
        "polling_interval": 0.1,
    }
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_RESULT_BACKEND = None

KGB_SITE_URL = env_str("KGB_SITE_URL", "http://127.0.0.1:8000")
KGB_PRELIMINARY_MIN_OPERATORS = env_int("KGB_PRELIMINARY_MIN_OPERATORS", 10, minimum=1)
KGB_MAX_QUEUED_JOBS_PER_USER = env_int("KGB_MAX_QUEUED_JOBS_PER_USER", 2000, minimum=1)
# fair dispatch: at most this many of one user's jobs per chip in the broker at once (or the chip's active
# runners, if more); the rest wait on the site and go out as the user's earlier jobs settle, so users take
# turns on a chip instead of queueing behind the biggest upload (evaluator/services/fair_share.py)
KGB_FAIR_SHARE_WINDOW = env_int("KGB_FAIR_SHARE_WINDOW", 4, minimum=1)
KGB_RUNNER_OFFLINE_AFTER_S = env_int("KGB_RUNNER_OFFLINE_AFTER_S", 120, minimum=5)
KGB_RUNNER_HEARTBEAT_S = env_int("KGB_RUNNER_HEARTBEAT_S", 30, minimum=1)
KGB_MAX_JOB_DELIVERIES = env_int("KGB_MAX_JOB_DELIVERIES", 3, minimum=1)
# test mode (POST /api/v1/verify/, evaluator/services/verify.py): checks per user and chip per hour (an admin
# raises one user's with a VerifyQuota row), the largest kernel source (an upload's per-file limit), and how long
# a check may wait for a runner before it is given up (ranked work goes first)
KGB_VERIFY_PER_HOUR = env_int("KGB_VERIFY_PER_HOUR", 30, minimum=0)
KGB_VERIFY_MAX_SOURCE_BYTES = env_int("KGB_VERIFY_MAX_SOURCE_BYTES", 256 * 1024, minimum=1024)
KGB_VERIFY_EXPIRE_S = env_int("KGB_VERIFY_EXPIRE_S", 3 * 3600, minimum=60)
# the broker URL handed to runners (their own credentials, e.g. per-chip); default: the site's
KGB_RUNNER_BROKER_URL = env_str("KGB_RUNNER_BROKER_URL", "")

# the timing protocol whose speedups are recorded and ranked, FLUSH:CLOCK (evaluator/harness: flush
# "write"/"read", clock "events"/"kernel"); a result timed under another protocol keeps its verdict
# but no speedup. Default: do_bench's protocol, which upstream KernelGenBench's speedups use (the
# harness's DEFAULT_TIMING_PROTOCOL; a test keeps the two equal). evaluator.apps validates it at start.
KGB_RANKED_TIMING_PROTOCOL = env_str("KGB_RANKED_TIMING_PROTOCOL", "write:events")

# held-out runs: the operator's private JSON of hidden full-tier cases per operator (evaluator/hidden_cases.py);
# blank = no hidden cases. `manage.py check_hidden_cases` validates it.
KGB_HIDDEN_CASES_FILE = env_str("KGB_HIDDEN_CASES_FILE", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

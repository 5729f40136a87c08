"""Evalsite settings, read from the environment (every variable is listed in .env.example).

The embedded default needs no server: SQLite for data and kombu's SQLAlchemy transport over a
second SQLite file for the Celery broker. DATABASE_URL and CELERY_BROKER_URL scale it out.
"""

import os
from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONE, SELF

from properties.scorers.net.policy import DEFAULT_LLM_KEY_VARIABLES, OutboundRefused, check_key_variable_names

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")

DATA_DIR = Path(env.str("EVALSITE_DATA_DIR", default=str(BASE_DIR / "var"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)
# Models converted on first load (the de-quantised causal LM of Fluency) are kept here for the next
# worker; the scoring library reads the variable, as it reads no Django setting.
os.environ.setdefault("EVALSITE_MODEL_CACHE", str(DATA_DIR / "models"))

DEBUG = env.bool("DEBUG", default=False)
# No secret default outside DEBUG: the start command writes a random one into .env.
SECRET_KEY = env.str("SECRET_KEY", default="insecure-debug-only-key" if DEBUG else "")
if not SECRET_KEY:
    raise environ.ImproperlyConfigured("Set SECRET_KEY (the start command writes one into .env).")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_TLS_PROXY", default=False) else None
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=False)

# Browser-side defences (docs/security.md). Pages run only the site's own scripts and styles, from
# static/ (no inline script, style or event handler), and no other site may frame them.
# plotly.js (static/vendor/plotly, the copy the plotly package ships) adds two <style> elements of
# its own: empty ones that it fills through the CSSOM (its mode bar's rules), and the stylesheet of
# its map traces. These hashes allow exactly those two texts; tests/unit/web/test_security_headers.py
# recomputes them from the vendored file.
PLOTLY_STYLE_HASHES = [
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
    "'sha256-ji27qzEtxXZW+7dun6UwjHXJ18e6WAin1VvNtkzIE/o='",
]
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, *PLOTLY_STYLE_HASHES],
        # Swagger UI draws some icons from data: URLs.
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [NONE],
        "object-src": [NONE],
    }
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "axes",
    "properties",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "evalsite.urls"
WSGI_APPLICATION = "evalsite.wsgi.application"

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
            ],
        },
    }
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{DATA_DIR / 'evalsite.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the worker write to the same file: WAL lets readers go on while one
    # writes, IMMEDIATE takes the write lock up front instead of failing on upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    # 0: under ASGI each request runs in a thread of its own, which a kept connection would outlive.
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=0))

# API rate limits count in the cache, which every web process must share: files under
# EVALSITE_DATA_DIR by default (counted under a lock), Redis when scaled out.
if env.str("CACHE_URL", default=""):
    CACHES = {"default": env.cache("CACHE_URL")}
else:
    CACHES = {
        "default": {
            "BACKEND": "evalsite.file_cache.LockedFileBasedCache",
            "LOCATION": str(DATA_DIR / "cache"),
            # Rate-limit counters are one file per token per minute: room for thousands of tokens.
            "OPTIONS": {"MAX_ENTRIES": 20_000},
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Login throttling (django-axes): after EVALSITE_LOGIN_FAILURE_LIMIT failed logins from one address,
# or for one user name from anywhere, both are refused for EVALSITE_LOGIN_COOLOFF_MINUTES. Failures
# are rows in the database, so every web process counts them together.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env.int("EVALSITE_LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("EVALSITE_LOGIN_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# A wrong password during the lockout does not extend it: an attacker cannot keep a user out for good.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "properties:project-list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every request when it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = Path(env.str("EVALSITE_MEDIA_DIR", default=str(DATA_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# Seconds a request body may send nothing before the server gives up on it (408); see
# evalsite/body_limits.py for the size limits it enforces while the body is read.
EVALSITE_REQUEST_BODY_TIMEOUT = env.int("EVALSITE_REQUEST_BODY_TIMEOUT", default=30)
# Seconds a connection has to send its request line and headers (evalsite/web_server.py).
EVALSITE_HEADER_TIMEOUT_S = env.float("EVALSITE_HEADER_TIMEOUT_S", default=10.0)
# Uploads: a file larger than this is refused before it is read.
EVALSITE_UPLOAD_MAX_BYTES = env.int("EVALSITE_UPLOAD_MAX_BYTES", default=500 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
# A single interaction field longer than this (in characters) rejects its row.
EVALSITE_FIELD_MAX_CHARS = env.int("EVALSITE_FIELD_MAX_CHARS", default=200_000)
# Properties planned for a new project when none are chosen.
EVALSITE_DEFAULT_PROPERTIES = env.list("EVALSITE_DEFAULT_PROPERTIES", default=[])
# Pydantic models projects may name for the Schema property, by name: "order=myapp.schemas.Order,...".
# The operator's code; a project's configuration never names a module to import.
EVALSITE_PYDANTIC_MODELS = env.dict("EVALSITE_PYDANTIC_MODELS", default={})
# Extra scorers by dotted path ("package.module.ClassName"), beside the evalsite.scorers entry points.
EVALSITE_SCORERS = env.list("EVALSITE_SCORERS", default=[])
# Interactions scored by one task.
EVALSITE_CHUNK_SIZE = env.int("EVALSITE_CHUNK_SIZE", default=200)
# REST API: interactions per logging request, request body size, requests per token per minute.
EVALSITE_API_MAX_BATCH = env.int("EVALSITE_API_MAX_BATCH", default=1000)
# Per project, the operator's: interactions stored, rows one upload or API batch may store, and jobs
# (scoring, rescoring, rules) open at once. Going past one is a message; nothing stored is touched.
EVALSITE_PROJECT_MAX_INTERACTIONS = env.int("EVALSITE_PROJECT_MAX_INTERACTIONS", default=10_000_000)
EVALSITE_UPLOAD_MAX_ROWS = env.int("EVALSITE_UPLOAD_MAX_ROWS", default=2_000_000)
EVALSITE_PROJECT_MAX_OPEN_JOBS = env.int("EVALSITE_PROJECT_MAX_OPEN_JOBS", default=10)
EVALSITE_API_MAX_BODY_BYTES = env.int("EVALSITE_API_MAX_BODY_BYTES", default=DATA_UPLOAD_MAX_MEMORY_SIZE)
EVALSITE_API_RATE_LIMIT = env.int("EVALSITE_API_RATE_LIMIT", default=600)

# Outbound requests and secrets are the operator's (docs/security.md): a project picks among what is
# allowed here, never widens it. Base URLs a project may point an LLM at (a listed URL's host and port
# may be a private address, such as a local Ollama); litellm's own provider endpoints are always allowed.
EVALSITE_LLM_BASE_URLS = env.list("EVALSITE_LLM_BASE_URLS", default=[])
# Environment variables a project may name as its provider key; by default litellm's provider key names.
EVALSITE_LLM_KEY_VARIABLES = env.list("EVALSITE_LLM_KEY_VARIABLES", default=list(DEFAULT_LLM_KEY_VARIABLES))
try:
    check_key_variable_names(EVALSITE_LLM_KEY_VARIABLES)
except OutboundRefused as exc:
    raise environ.ImproperlyConfigured(f"EVALSITE_LLM_KEY_VARIABLES: {exc}") from None
# Whether Invalid Links may contact loopback, private and link-local addresses (an intranet deployment).
EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES = env.bool("EVALSITE_LINKS_ALLOW_PRIVATE_ADDRESSES", default=False)
# Fernet keys (comma-separated, newest first) that encrypt the provider keys users enter for their
# projects. Without one, users cannot store keys; the start command writes one into .env.
EVALSITE_SECRETS_KEY = env.list("EVALSITE_SECRETS_KEY", default=[])

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=f"sqla+sqlite:///{DATA_DIR / 'broker.sqlite3'}")
# Seconds a worker waits before it looks again at an SQLAlchemy (SQLite) broker that had nothing for
# it (properties/pipeline/sqlite_broker.py).
EVALSITE_BROKER_POLL_S = env.float("EVALSITE_BROKER_POLL_S", default=0.2)
if not 0.01 <= EVALSITE_BROKER_POLL_S <= 60:
    # 0 would poll without pause, a core each worker; over a minute, every hop of a job waits that long.
    raise environ.ImproperlyConfigured(
        f"EVALSITE_BROKER_POLL_S must be 0.01 to 60 seconds, not {EVALSITE_BROKER_POLL_S}"
    )
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_TASK_ACKS_LATE = True
# A worker killed mid-task gets its message redelivered instead of acknowledged.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=600)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=660)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Planning and deleting walk a whole run (minutes on a million rows): their own time limit.
EVALSITE_RUN_TASK_TIME_LIMIT = env.int("EVALSITE_RUN_TASK_TIME_LIMIT", default=3600)
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Redis redelivers an unacknowledged message after this long; it must exceed the longest hard limit.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": max(CELERY_TASK_TIME_LIMIT, EVALSITE_RUN_TASK_TIME_LIMIT) + 300
    }
elif CELERY_BROKER_URL.startswith("sqla+"):
    # A polling broker: a worker whose prefetch slots are all taken sleeps a polling interval before it
    # looks again, so with one slot per pool process each process sat idle up to an interval (then
    # kombu's second) after each chunk. Four slots each keep the pool fed between polls
    # (tests/integration/test_faults.py, a 500-row run of 100 chunks with a pool process killed 4 times:
    # 100 s with one slot, 42 s with four).
    CELERY_WORKER_PREFETCH_MULTIPLIER = 4
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)

# Nothing lost or stuck when a worker dies (properties/pipeline/workers.py, properties/pipeline/sweeper.py). Workers
# write a heartbeat every EVALSITE_WORKER_HEARTBEAT_S seconds; one silent for EVALSITE_WORKER_STALE_S
# is gone. A worker whose pool takes no task for EVALSITE_WORKER_HANG_S while tasks wait and a pool
# process is free stops itself, to be restarted. Celery beat runs the sweeper every
# EVALSITE_SWEEP_INTERVAL_S: it sends again chunks lost with their worker (see its docstring for
# the margins) and gives a chunk up after EVALSITE_CHUNK_MAX_ATTEMPTS sends.
EVALSITE_WORKER_HEARTBEAT_S = env.float("EVALSITE_WORKER_HEARTBEAT_S", default=5.0)
EVALSITE_WORKER_STALE_S = env.float("EVALSITE_WORKER_STALE_S", default=30.0)
EVALSITE_WORKER_HANG_S = env.float("EVALSITE_WORKER_HANG_S", default=30.0)
# A worker that takes the models queue imports the packaged models' libraries before its pool forks
# (properties.pipeline.workers.import_model_libraries): a few seconds more to start, none in its first chunk.
EVALSITE_WORKER_IMPORT_MODELS = env.bool("EVALSITE_WORKER_IMPORT_MODELS", default=True)
# Each pool process of such a worker loads the models of the properties projects enable as it starts
# (properties.pipeline.model_loading), so that the first job after a start does not wait for them.
EVALSITE_WORKER_LOAD_MODELS = env.bool("EVALSITE_WORKER_LOAD_MODELS", default=True)
EVALSITE_SWEEP_INTERVAL_S = env.float("EVALSITE_SWEEP_INTERVAL_S", default=30.0)
EVALSITE_SWEEP_MARGIN_S = env.float("EVALSITE_SWEEP_MARGIN_S", default=60.0)
EVALSITE_SEND_GRACE_S = env.float("EVALSITE_SEND_GRACE_S", default=60.0)
# Score chunks a queue holds in flight at least; jobs take turns within it (properties.pipeline.dispatch).
EVALSITE_DISPATCH_WINDOW = env.int("EVALSITE_DISPATCH_WINDOW", default=4)
# Seconds one task applies annotation rules before the rest continues in a new task (its turn again).
EVALSITE_RULES_TASK_BUDGET_S = env.float("EVALSITE_RULES_TASK_BUDGET_S", default=5.0)
EVALSITE_IDLE_WITNESS_S = env.float("EVALSITE_IDLE_WITNESS_S", default=15.0)
EVALSITE_CHUNK_MAX_ATTEMPTS = env.int("EVALSITE_CHUNK_MAX_ATTEMPTS", default=3)
CELERY_BEAT_SCHEDULE = {
    "sweep-pipeline": {
        "task": "properties.sweep_pipeline",
        "schedule": EVALSITE_SWEEP_INTERVAL_S,
        # Sweeps sent while no worker runs are dropped, not run one after another on its return.
        "options": {"queue": "cpu", "expires": EVALSITE_SWEEP_INTERVAL_S},
    }
}
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
# Celery's scheduler, reconnecting after a refused send (evalsite/beat.py).
CELERY_BEAT_SCHEDULER = "evalsite.beat:ReconnectingScheduler"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # The server's secrets never reach a log line (properties/provider_keys.py); Celery's own log
    # handlers get the same filter (evalsite/celery.py).
    "filters": {"scrub_secrets": {"()": "properties.provider_keys.ScrubSecrets"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["scrub_secrets"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}

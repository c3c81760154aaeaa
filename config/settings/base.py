"""Settings shared by every environment; local/production/test refine them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url
from kombu import Exchange, Queue

from config.settings.env import env_bool, env_int, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("CUTOFF_VAR_DIR", str(BASE_DIR / "var")) or "var")

SECRET_KEY = env_str("SECRET_KEY", "insecure-local-only-key-never-used-in-production")
DEBUG = False
ALLOWED_HOSTS: list[str] = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "accounts",
    "exercises",
    "grading",
    "lms",
    "pages",
]

MIDDLEWARE = [
    "config.observability.RequestIdMiddleware",
    "config.api.RefuseNulInQueryMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
# API paths answer a refused CSRF check in the JSON error envelope, as every other error.
CSRF_FAILURE_VIEW = "config.views.csrf_failure"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"

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
                "django.template.context_processors.i18n",
            ],
        },
    },
]

# PostgreSQL plans every statement anew unless it is prepared; the hot paths repeat the same
# few statements hundreds of times a second, and planning their joins was most of the
# database's CPU per answer (bench/README.md, "Grading load"). Server-side binding lets
# psycopg prepare a statement on a connection once it has run DATABASE_PREPARE_THRESHOLD
# times (0: never, e.g. behind a pgbouncer in transaction mode older than 1.21).
DATABASE_PREPARE_THRESHOLD = env_int("DATABASE_PREPARE_THRESHOLD", 5)


def database_from_url(url: str) -> dict[str, Any]:
    """Return the settings of the database at ``url``: kept, health-checked connections and,
    on PostgreSQL, prepared statements."""
    database: dict[str, Any] = dict(dj_database_url.parse(
        url,
        conn_max_age=60,
        # A kept connection is checked before a request or task first uses it, so one the
        # database dropped (a restart) is replaced instead of failing that request; the check
        # queries only when the server sent the idle connection something (config.postgresql).
        conn_health_checks=True,
    ))
    if database["ENGINE"] == "django.db.backends.postgresql":
        # The same backend, whose health check needs no query on a quiet connection.
        database["ENGINE"] = "config.postgresql"
    if database["ENGINE"] == "config.postgresql" and DATABASE_PREPARE_THRESHOLD > 0:
        database.setdefault("OPTIONS", {}).update(
            {"server_side_binding": True, "prepare_threshold": DATABASE_PREPARE_THRESHOLD}
        )
    return database


DATABASES = {
    "default": database_from_url(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'cutoff.sqlite3'}") or ""
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en"
# "pt" is European Portuguese; Brazilian Portuguese has its own catalogue (locale/pt_BR).
LANGUAGES = [
    ("en", "English"),
    ("pt", "Português (Portugal)"),
    ("pt-br", "Português (Brasil)"),
    ("ca", "Català"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []

# Request bodies beyond this are refused before a view sees them (answers and code are small).
DATA_UPLOAD_MAX_MEMORY_SIZE = 512 * 1024

REST_FRAMEWORK: dict[str, Any] = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.PersonalTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["config.jsonsafe.StorableJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.jsonsafe.BoundedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS: dict[str, Any] = {
    "TITLE": "Cutoff API",
    "DESCRIPTION": (
        "Auto-graded adversarial-search exercises. Errors are always "
        '`{"error": {"code", "message", "details"}}` with a 4xx status. '
        "Problem, tree and answer JSON follow the `gametree/1` format. JSON bodies may nest "
        "at most 500 levels and may hold no NUL characters or unpaired surrogates "
        "(a 400 `parse_error` names where and the rule). A JSON number is read exactly as "
        "written: one a 64-bit float does not hold exactly (`0.12345678901234567891`, "
        "`1e-400`, `1e400`) is read, stored and echoed as the number string written "
        '(`"0.12345678901234567891"`), which every `gametree/1` reader takes exactly.'
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.schema.add_error_responses",
    ],
}

# --- Long-polls (grading/finished.py) --------------------------------------------------------
# Requests of one web process that may wait for a grade at once (`?wait=`); past it they are
# answered at once with `Retry-After`. Keep it below the process's threads (config/gunicorn.py:
# 16) so submissions are stored even while every waiting slot is taken.
LONG_POLL_MAX_WAITING = env_int("LONG_POLL_MAX_WAITING", 14)

# --- Celery -------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL or "redis://127.0.0.1:6379/0")
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
if (CELERY_BROKER_URL or "").startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    for _folder in ("out", "processed", "control"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
# Results live in the database rows the tasks update; Celery's own result store is not used.
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 120)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 150)
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_QUEUES = (
    Queue("default", Exchange("default"), routing_key="default"),
    Queue("sandbox", Exchange("sandbox"), routing_key="sandbox"),
)
CELERY_TASK_DEFAULT_EXCHANGE = "default"
CELERY_TASK_DEFAULT_ROUTING_KEY = "default"
CELERY_TASK_ROUTES = {
    "grading.code.tasks.run_code_submission": {"queue": "sandbox", "routing_key": "sandbox"},
    "grading.code.tasks.run_code_check": {"queue": "sandbox", "routing_key": "sandbox"},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A broker outage never ends a worker: it reconnects however long the outage lasts (kombu
# waits 2, 4, 6, ... up to 30 s between attempts). config.broker fixes the kombu crash that
# used to end it; config.heartbeat resends what the outage lost once it is back.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Tasks running when the connection is lost finish and record their grade (the database is
# the state); their acknowledgement is dropped (config.broker), and the message Redis still
# holds comes back after the visibility timeout as a no-op. Cancelling them would only redo
# the work.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# The outbox sweep: re-enqueue submissions and webhook deliveries whose message never reached
# the broker (it was down) or was lost, and the submissions of workers whose heartbeat stopped
# (killed outright). Beat runs embedded in the default-queue worker (-B). Every 10 s: a
# stranded submission is found at most ALIVE_WITHIN (20 s) + 10 s after its worker died.
STALE_WORK_SWEEP_SECONDS = 10.0
CELERY_BEAT_SCHEDULE = {
    "requeue-stale-submissions": {
        "task": "grading.tasks.requeue_stale_submissions",
        "schedule": STALE_WORK_SWEEP_SECONDS,
    },
    # Grade passbacks whose retries ran out while the LMS was away are sent again.
    "resend-failed-lti-passbacks": {
        "task": "lti.tasks.resend_failed_passbacks_task",
        "schedule": 30 * 60.0,
    },
}
# A broker that is down must not hang a web request: fail fast and let the outbox retry.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY = False
# Unless this is set, Celery's Django fixup closes the database connection before and after
# every task, so each task opens a new one (and PostgreSQL forks a backend for it): a third
# of a grading task's cost. Workers keep connections as web processes do (CONN_MAX_AGE),
# drop broken or expired ones before each task (config.celery_app) and recycle them after
# this many tasks.
CELERY_DB_REUSE_MAX = 500
# Workers log through LOGGING below (request/task ids, JSON in production); Celery would
# otherwise replace the root logger's handlers with its own plain format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

LOGGING: dict[str, Any] = {  # nested: production.py switches the console formatter
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "config.observability.ContextFilter"}},
    "formatters": {
        "plain": {
            "format": "%(asctime)s %(levelname)s %(name)s [req=%(request_id)s task=%(task_id)s] "
            "%(message)s"
        },
        "json": {"()": "config.observability.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["context"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# Per-user throttles; views opt in with `throttle_scope` (ScopedRateThrottle; it lets requests
# through while its Redis cache is down).
REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] = ["config.throttling.AvailableScopedRateThrottle"]
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {
    "submissions": env_str("THROTTLE_SUBMISSIONS", "30/min"),
    "code_runs": env_str("THROTTLE_CODE_RUNS", "6/min"),
}

# --- LTI ----------------------------------------------------------------------------------
# pylti1p3 keeps OIDC state, nonces and launch data in this cache; LMS access tokens are kept
# there too. Login initiation and launch may be served by different processes, so it must be
# shared: a table in the database (created by lti's migrations), which every process reaches
# and which stays up when Redis does not, so students coming from the LMS still get in.
LTI_CACHE_ALIAS = "lti"
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    LTI_CACHE_ALIAS: {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "lti_cache",
        # Expired entries are culled first; unexpired launches must never be (a class
        # launching at once holds a few entries per student).
        "OPTIONS": {"MAX_ENTRIES": 200_000},
    },
}
# Seconds a launch (state, nonce, claims) stays usable: long enough to pick a deep link.
LTI_LAUNCH_LIFETIME = env_int("LTI_LAUNCH_LIFETIME", 3600)
# Seconds the platforms' JWKS stay cached before being fetched again.
LTI_PLATFORM_KEYS_LIFETIME = env_int("LTI_PLATFORM_KEYS_LIFETIME", 3600)
LTI_PASSBACK_MAX_RETRIES = env_int("LTI_PASSBACK_MAX_RETRIES", 8)
# Hours our JWKS keeps publishing a signing key after a rotation replaced it.
LTI_TOOL_KEY_GRACE_HOURS = env_int("LTI_TOOL_KEY_GRACE_HOURS", 72)
# Hours during which a failed passback is sent again by the half-hourly sweep.
LTI_PASSBACK_RESEND_HOURS = env_int("LTI_PASSBACK_RESEND_HOURS", 24)
# The course role an LMS teaching assistant gets: grader (reads submissions, edits nothing),
# instructor, student, or none (the launch is refused).
LTI_TEACHING_ASSISTANT_ROLE = env_str("LTI_TEACHING_ASSISTANT_ROLE", "grader")
# API client tokens: `Authorization: Token cutoff_...` (the API outline's scheme, which person
# tokens share) or `Bearer cutoff_...`. First, so a `Token cutoff_...` reaches it rather than
# being refused as an unknown person's key; it leaves every other credential to the rest.
REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"].insert(
    0, "lms.clients.authentication.ApiClientTokenAuthentication"
)
# Every API class nests an InputSerializer/OutputSerializer: qualify their component names.
REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] = "config.schema.QualifiedNameAutoSchema"
# Several models have a `status` with different choices: name each enum after its model.
SPECTACULAR_SETTINGS.setdefault("ENUM_NAME_OVERRIDES", {}).update(
    {
        "ScorePassbackStatusEnum": "lms.models.ScorePassback.Status",
        "SubmissionStatusEnum": "grading.models.Submission.Status",
    }
)

# --- server-side requests -----------------------------------------------------------------
# Webhooks and LMS service calls reach public addresses only unless this is true
# (config.outbound checks every connection).
CUTOFF_ALLOW_PRIVATE_URLS = env_bool("CUTOFF_ALLOW_PRIVATE_URLS", False)

# --- pages --------------------------------------------------------------------------------
LOGIN_URL = "pages:login"
LOGIN_REDIRECT_URL = "pages:home"

# --- sandbox ------------------------------------------------------------------------------
# Code submissions run as these unprivileged uids; the folder holds the uid pool's locks.
CUTOFF_SANDBOX_DIR = env_str("CUTOFF_SANDBOX_DIR", "/tmp/cutoff-sandbox")
CUTOFF_SANDBOX_UID = env_int("CUTOFF_SANDBOX_UID", 60000)
CUTOFF_SANDBOX_UID_COUNT = env_int("CUTOFF_SANDBOX_UID_COUNT", 32)
# Limits of one sandboxed run of student code; a code item's "limits" param overrides them.
CUTOFF_SANDBOX_LIMITS = {
    "cpu_seconds": env_int("CUTOFF_SANDBOX_CPU_SECONDS", 5),
    "wall_seconds": env_int("CUTOFF_SANDBOX_WALL_SECONDS", 10),
    "memory_bytes": env_int("CUTOFF_SANDBOX_MEMORY_MB", 256) * 1024 * 1024,
}
# Fair use of the sandbox queue (grading.code.scheduling): a time budget per submission across
# its runs, and how many runs of one student / one item may be in flight at once (the rest wait
# in the broker, deferred by CUTOFF_CODE_DEFER_SECONDS, without holding a worker slot).
CUTOFF_CODE_BUDGET_SECONDS = env_int("CUTOFF_CODE_BUDGET_SECONDS", 30)
CUTOFF_CODE_RUNS_PER_STUDENT = env_int("CUTOFF_CODE_RUNS_PER_STUDENT", 1)
CUTOFF_CODE_RUNS_PER_ITEM = env_int("CUTOFF_CODE_RUNS_PER_ITEM", 8)
CUTOFF_CODE_DEFER_SECONDS = env_int("CUTOFF_CODE_DEFER_SECONDS", 2)
# A run the host kept too busy to time fairly ("host_busy") or killed from outside (its OOM
# killer: "killed_by_host") failed for the host, not the student: its submission is run again
# this many times, this many seconds later, before it fails.
CUTOFF_CODE_BUSY_RETRIES = env_int("CUTOFF_CODE_BUSY_RETRIES", 3)
CUTOFF_CODE_BUSY_RETRY_SECONDS = env_int("CUTOFF_CODE_BUSY_RETRY_SECONDS", 20)
# "Check" runs on a code item's public tests (no attempt used): (checks, per seconds) limits
# per student, their own in-flight limit, and how much of the printed output is kept.
CUTOFF_CODE_CHECK_RATES = [
    (env_int("CUTOFF_CODE_CHECKS_PER_10S", 1), 10),
    (env_int("CUTOFF_CODE_CHECKS_PER_HOUR", 20), 3600),
]
CUTOFF_CODE_CHECKS_PER_STUDENT = env_int("CUTOFF_CODE_CHECKS_PER_STUDENT", 1)
CUTOFF_CODE_CHECK_OUTPUT_BYTES = env_int("CUTOFF_CODE_CHECK_OUTPUT_BYTES", 8192)
# Agent items ask for hundreds of moves in one run, so their runs get more time by default.
CUTOFF_SANDBOX_KIND_LIMITS = {
    "code_tictactoe_agent": {"cpu_seconds": 10, "wall_seconds": 20},
    "code_connect4_agent": {"cpu_seconds": 10, "wall_seconds": 20},
}

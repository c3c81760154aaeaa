"""Settings for the test suite: PostgreSQL when DATABASE_URL says so, fast hashing, eager off.

Unit tests opt into eager Celery with the ``celery_eager`` fixture; end-to-end tests start a
real worker against the real broker (see tests/conftest.py).
"""

import os

from config.settings.base import *  # noqa: F403
from config.settings.base import VAR_DIR
from config.settings.env import env_str

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
VAR_DIR.mkdir(parents=True, exist_ok=True)

# One id per test run, inherited by the worker the e2e fixture starts, so that several runs on
# one machine (developers in parallel) never share a test database or broker keys.
TEST_RUN_ID = os.environ.setdefault("CUTOFF_TEST_RUN_ID", str(os.getpid()))

# SQLite tests use a file, not memory, so a real worker process can open the same database.
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": str(VAR_DIR / f"test-{TEST_RUN_ID}.sqlite3")
    }
else:
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": f"test_{DATABASES['default']['NAME']}_{TEST_RUN_ID}"  # noqa: F405
    }

# The end-to-end worker and the test process share this broker (a Redis db of its own, 14),
# under key names of their own run.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
CELERY_BROKER_TRANSPORT_OPTIONS = {"global_keyprefix": f"cutoff-test-{TEST_RUN_ID}:"}

# Generous throttles so suites that submit a lot are not throttled; the throttle test sets its own.
REST_FRAMEWORK = {**REST_FRAMEWORK}  # noqa: F405
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"submissions": "1000/min", "code_runs": "1000/min"}

# Webhook receivers and the LMS simulator listen on 127.0.0.1; the tests of the address
# checks turn this off.
CUTOFF_ALLOW_PRIVATE_URLS = True

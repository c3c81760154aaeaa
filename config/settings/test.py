"""Settings for the test suite: PostgreSQL when DATABASE_URL says so, fast hashing, eager off.

Unit tests opt into eager Celery with the ``celery_eager`` fixture; end-to-end tests start a
real worker against the real broker (see tests/conftest.py).
"""

import fcntl
import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import VAR_DIR
from config.settings.env import env_str

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
VAR_DIR.mkdir(parents=True, exist_ok=True)

# One id per test run, inherited by the worker the e2e fixture starts, so that several runs on
# one machine (developers in parallel) never share a test database or broker keys.
TEST_RUN_ID = os.environ.setdefault("CUTOFF_TEST_RUN_ID", str(os.getpid()))

# Sandbox uids of this run's own: a run's sandboxes count against RLIMIT_NPROC of their uid and
# its tests look for leftover processes by uid, so two runs on one machine sharing uids would
# fail each other. Each run holds one block (a lock file, kept for the process's life, the
# block's number inherited by the e2e worker); the code sandbox's pool and the sandbox tests'
# own uids are both in it.
SANDBOX_UID_BLOCKS = 32
SANDBOX_UID_BLOCK_SIZE = 48
_held_uid_block: list[int] = []


def _claim_sandbox_uid_block() -> int:
    """Return the number of a sandbox uid block no other test run on this machine holds."""
    for block in range(SANDBOX_UID_BLOCKS):
        fd = os.open(f"/tmp/cutoff-test-sandbox-uids-{block}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        _held_uid_block.append(fd)
        return block
    raise ImproperlyConfigured(f"all {SANDBOX_UID_BLOCKS} sandbox uid blocks of test runs are "
                               "held: too many test runs at once on this machine")


SANDBOX_UID_BLOCK = int(os.environ.get("CUTOFF_TEST_SANDBOX_UID_BLOCK")
                        or _claim_sandbox_uid_block())
os.environ["CUTOFF_TEST_SANDBOX_UID_BLOCK"] = str(SANDBOX_UID_BLOCK)
CUTOFF_SANDBOX_UID = 62000 + SANDBOX_UID_BLOCK * SANDBOX_UID_BLOCK_SIZE
CUTOFF_SANDBOX_UID_COUNT = 32
CUTOFF_TEST_SANDBOX_UID = CUTOFF_SANDBOX_UID + 40
"""The sandbox tests' own uids: four from here (tests/grading/sandbox)."""

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

"""Settings for a developer's machine: SQLite under var/ unless DATABASE_URL is set."""

from config.settings.base import *  # noqa: F403
from config.settings.base import VAR_DIR
from config.settings.env import env_bool

DEBUG = True
VAR_DIR.mkdir(parents=True, exist_ok=True)
# A developer's webhook receivers and LMS run on this machine.
CUTOFF_ALLOW_PRIVATE_URLS = env_bool("CUTOFF_ALLOW_PRIVATE_URLS", True)

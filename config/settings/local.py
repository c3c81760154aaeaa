"""Settings for a developer's machine: SQLite under var/ unless DATABASE_URL is set."""

from config.settings.base import *  # noqa: F403
from config.settings.base import VAR_DIR

DEBUG = True
VAR_DIR.mkdir(parents=True, exist_ok=True)

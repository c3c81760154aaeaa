"""The Celery application: configured from Django settings (the CELERY_ namespace)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("cutoff")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Code exercises keep their tasks in a sub-package of the grading app.
app.autodiscover_tasks(["grading.code"])

# Connect the heartbeat signal handlers (used by /healthz with brokers that lack broadcast).
import config.heartbeat  # noqa: E402,F401

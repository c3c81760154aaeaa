"""Load at a serving process's start what its first requests would otherwise load.

Django imports the URL configuration, and with it every view module, DRF's serializers and
the OpenAPI schema's declarations, on a process's first request, and each language's message
catalogue on its first request in that language. In a gunicorn worker that was about 0.45 s
of CPU (py-spy, ``bench/grading_load.py``), paid by the first students to reach a freshly
started process while every other process was busy too: the start of an exam, or the minute
after a deployment. Loaded before the process serves, it also lands in the start-up heap
that ``config.gc_tuning`` takes out of garbage collections.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import get_resolver, reverse
from django.utils import translation


def warm_up_web_process() -> None:
    """Import every URL pattern's view and load every configured language's catalogue."""
    # Resolving imports ROOT_URLCONF and everything it includes; reversing fills the
    # resolver's lookup tables, as the first request that builds a URL would.
    get_resolver().resolve("/healthz")
    reverse("healthz")
    for code, _name in settings.LANGUAGES:
        # Activating a language loads (and keeps) its catalogue.
        with translation.override(code):
            pass

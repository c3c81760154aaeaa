"""Worker heartbeat files, for brokers without broadcast (kombu's filesystem transport).

Each worker process touches ``var/heartbeat/<hostname>`` every few seconds; ``/healthz``
counts the files touched recently.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings

HEARTBEAT_EVERY_SECONDS = 5.0
ALIVE_WITHIN_SECONDS = 30.0
_stop = threading.Event()


def heartbeat_dir() -> Path:
    """Return the folder holding one heartbeat file per worker."""
    return Path(settings.VAR_DIR) / "heartbeat"


def workers_alive() -> int:
    """Return how many workers touched their heartbeat file recently."""
    folder = heartbeat_dir()
    if not folder.is_dir():
        return 0
    now = time.time()
    return sum(1 for f in folder.iterdir() if now - f.stat().st_mtime < ALIVE_WITHIN_SECONDS)


@worker_ready.connect
def start_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    """Start touching this worker's heartbeat file in a daemon thread."""
    hostname = getattr(sender, "hostname", "worker")
    path = heartbeat_dir() / str(hostname)
    path.parent.mkdir(parents=True, exist_ok=True)

    def beat() -> None:
        while not _stop.wait(HEARTBEAT_EVERY_SECONDS):
            path.touch()

    path.touch()
    threading.Thread(target=beat, name="cutoff-heartbeat", daemon=True).start()


@worker_shutdown.connect
def stop_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    """Stop the heartbeat and remove this worker's file."""
    _stop.set()
    hostname = getattr(sender, "hostname", "worker")
    (heartbeat_dir() / str(hostname)).unlink(missing_ok=True)

"""A worker's heartbeat lists each grading task's submission as soon as the task arrives,
written by the heartbeat's own thread (not in Celery's event loop), a burst in few writes."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from config.heartbeat import Heartbeat
from grading.models import WorkerHeartbeat
from tests.conftest import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def started(heartbeat: Heartbeat) -> threading.Thread:
    """Start ``heartbeat``'s thread (closing its own database connection when it ends)."""
    def run() -> None:
        try:
            heartbeat.run()
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def holding(name: str) -> list[Any]:
    return list(WorkerHeartbeat.objects.get(name=name).holding)


class RecordingHeartbeat(Heartbeat):
    """A heartbeat that remembers what each of its writes listed."""

    def __init__(self) -> None:
        super().__init__()
        self.listed: list[list[int]] = []

    def held_submissions(self, received: Any = frozenset()) -> list[int]:
        held = super().held_submissions(received)
        self.listed.append(held)
        return held


def test_a_received_submission_is_listed_at_once_by_the_heartbeat_thread() -> None:
    heartbeat = RecordingHeartbeat()
    heartbeat.name = "test@host pid 1"
    WorkerHeartbeat.objects.create(name=heartbeat.name, beat_at=timezone.now(), holding=[])
    thread = started(heartbeat)
    try:
        heartbeat.list_soon(41)
        # Far sooner than the next periodic beat (5 s): woken, not waiting for the period.
        assert wait_until(lambda: holding(heartbeat.name) == [41], timeout=4.0)
        # Two arriving while a write is under way are listed together by the next one.
        with heartbeat.lock:
            heartbeat.list_soon(43)
            heartbeat.list_soon(42)
        assert wait_until(lambda: [42, 43] in heartbeat.listed, timeout=4.0)
    finally:
        heartbeat.stop.set()
        heartbeat.wake.set()
        thread.join(timeout=10)
    assert not thread.is_alive()

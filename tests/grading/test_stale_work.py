"""The stale-work sweep: submissions held by workers whose heartbeat stopped, and those a
broker outage lost (grading.services.requeue_stale_submissions)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from config.heartbeat import ALIVE_WITHIN
from grading.models import Submission, WorkerHeartbeat
from grading.services import requeue_stale_submissions, requeue_stranded_submissions

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the submissions the sweep sends instead of sending them."""
    from grading import services

    ids: list[int] = []

    def record(submission_id: int, kind: str = "answer") -> bool:
        ids.append(submission_id)
        return True

    monkeypatch.setattr(services, "enqueue_submission", record)
    return ids


def stored(alphabeta_set: Any, student: Any, status: str, **fields: Any) -> Submission:
    _, variant = alphabeta_set
    item = variant.items.get(position=1)
    return Submission.objects.create(
        variant_item=item, student=student[0], status=status, answer={"value": 3},
        attempt_number=Submission.objects.filter(variant_item=item).count() + 1, **fields)


def test_a_dead_workers_running_and_prefetched_submissions_are_sent_again(
    alphabeta_set: Any, student: Any, sent: list[int]
) -> None:
    now = timezone.now()
    running = stored(alphabeta_set, student, "running", enqueued_at=now, started_at=now)
    prefetched = stored(alphabeta_set, student, "queued", enqueued_at=now)
    finished = stored(alphabeta_set, student, "graded", enqueued_at=now)
    held_by_the_living = stored(alphabeta_set, student, "queued", enqueued_at=now)
    WorkerHeartbeat.objects.create(
        name="killed@host pid 1", beat_at=now - ALIVE_WITHIN - timedelta(seconds=1),
        holding=[running.pk, prefetched.pk, finished.pk])
    WorkerHeartbeat.objects.create(name="alive@host pid 2", beat_at=now,
                                   holding=[held_by_the_living.pk])

    assert sorted(requeue_stranded_submissions(now)) == sorted([running.pk, prefetched.pk])
    assert list(WorkerHeartbeat.objects.values_list("name", flat=True)) == ["alive@host pid 2"]
    assert requeue_stranded_submissions(now) == []


def test_a_cut_off_worker_may_hold_what_it_could_not_list_so_older_queued_ones_go_again(
    alphabeta_set: Any, student: Any, sent: list[int]
) -> None:
    now = timezone.now()
    last_beat = now - ALIVE_WITHIN - timedelta(seconds=30)
    # Fetched just before its network went down: the heartbeat listing it never arrived.
    unlisted = stored(alphabeta_set, student, "queued", enqueued_at=last_beat)
    sent_after_it_stopped = stored(alphabeta_set, student, "queued",
                                   enqueued_at=last_beat + ALIVE_WITHIN + timedelta(seconds=1))
    listed_by_the_living = stored(alphabeta_set, student, "queued", enqueued_at=last_beat)
    WorkerHeartbeat.objects.create(name="cut@host pid 1", beat_at=last_beat, holding=[])
    WorkerHeartbeat.objects.create(name="alive@host pid 2", beat_at=now,
                                   holding=[listed_by_the_living.pk])

    assert requeue_stranded_submissions(now) == [unlisted.pk]
    assert sent_after_it_stopped.pk not in sent


def test_a_cut_off_worker_may_have_started_what_it_could_not_list_so_that_goes_again(
    alphabeta_set: Any, student: Any, sent: list[int]
) -> None:
    # Its grading's first write (running) reached the database, the heartbeat listing it did
    # not: the scale-out bench's cut host left one so for STALE_RUNNING (10 minutes).
    from grading.services import UNLISTED_GRACE

    now = timezone.now()
    last_beat = now - ALIVE_WITHIN - timedelta(seconds=1)
    unlisted = stored(alphabeta_set, student, "running", enqueued_at=last_beat,
                      started_at=last_beat + timedelta(seconds=1))
    # Started by a living worker a moment ago: its listing may still be on the way.
    just_started = stored(alphabeta_set, student, "running", enqueued_at=now,
                          started_at=now - UNLISTED_GRACE / 2)
    listed_by_the_living = stored(alphabeta_set, student, "running", enqueued_at=last_beat,
                                  started_at=last_beat)
    WorkerHeartbeat.objects.create(name="cut@host pid 1", beat_at=last_beat, holding=[])
    WorkerHeartbeat.objects.create(name="alive@host pid 2", beat_at=now,
                                   holding=[listed_by_the_living.pk])

    assert requeue_stranded_submissions(now) == [unlisted.pk]
    assert just_started.pk not in sent and listed_by_the_living.pk not in sent


def test_after_a_broker_outage_everything_queued_before_it_or_never_sent_goes_again(
    alphabeta_set: Any, student: Any, sent: list[int]
) -> None:
    lost_at = timezone.now()
    before = stored(alphabeta_set, student, "queued", enqueued_at=lost_at - timedelta(seconds=5))
    during = stored(alphabeta_set, student, "queued")  # never sent, younger than the grace
    after = stored(alphabeta_set, student, "queued", enqueued_at=lost_at + timedelta(seconds=5))

    assert requeue_stale_submissions() == []
    assert sorted(requeue_stale_submissions(broker_lost_at=lost_at)) == sorted(
        [before.pk, during.pk])
    assert after.pk not in sent


def test_a_grading_whose_workers_died_every_time_ends_as_an_error(
    alphabeta_set: Any, student: Any, sent: list[int]
) -> None:
    from grading.services import MAX_GRADING_RUNS

    long_ago = timezone.now() - timedelta(hours=1)
    runaway = stored(alphabeta_set, student, "running", enqueued_at=long_ago,
                     started_at=long_ago, grading_runs=MAX_GRADING_RUNS)
    again = stored(alphabeta_set, student, "running", enqueued_at=long_ago,
                   started_at=long_ago, grading_runs=MAX_GRADING_RUNS - 1)
    assert requeue_stale_submissions() == [again.pk]  # one more run for it
    runaway.refresh_from_db()
    assert (runaway.status, runaway.error_code) == ("error", "grading_failed")
    assert sent == [again.pk]

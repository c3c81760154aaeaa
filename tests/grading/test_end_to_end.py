"""End to end with a real Celery worker on Redis: submit → graded → feedback, exactly once."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from kombu.exceptions import OperationalError

from exercises.models import VariantItem
from grading.models import Submission, WebhookDelivery
from grading.services import requeue_stale_submissions
from grading.tasks import grade_submission_task
from tests.conftest import wait_until
from tests.grading.conftest import correct_answer
from tests.grading.test_webhooks import assert_signed, receiver  # noqa: F401 - a fixture

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def submit(client: Any, variant: Any, answer: Any, **headers: Any) -> Any:
    return client.post(f"/api/v1/assignments/{variant.pk}/items/1/submissions/",
                       {"answer": answer}, format="json", **headers)


def graded(client: Any, submission_id: int) -> dict[str, Any]:
    """Poll the submission until the worker finishes it; return its last state."""
    url = f"/api/v1/submissions/{submission_id}/"
    assert wait_until(lambda: client.get(url).json()["status"] in ("graded", "error"),
                      timeout=30), client.get(url).json()
    return client.get(url).json()


def test_submit_graded_by_the_worker_with_feedback_and_a_signed_webhook(
    celery_worker_process, alphabeta_set, student, instructor, receiver,  # noqa: F811
) -> None:
    problem_set, variant = alphabeta_set
    problem_set.feedback_policy = "full"  # the messages quote the reference search
    problem_set.save(update_fields=["feedback_policy"])
    secret = instructor[1].post("/api/v1/webhooks/", {"url": receiver.url},
                                format="json").json()["secret"]
    answer = {**correct_answer(VariantItem.objects.get(variant=variant)),
              "pruned_leaves": ["C3"]}
    response = submit(student[1], variant, answer)
    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    detail = graded(student[1], response.json()["id"])
    assert detail["status"] == "graded"
    assert 0 < detail["score"] < detail["max_score"] == 6
    pruned = next(p for p in detail["results"] if p["part"] == "pruned_leaves")
    assert pruned["verdict"] == "partial"
    assert pruned["messages"][0]["text"].startswith("You evaluated C2, but cutoff 1 happens")
    assert wait_until(lambda: len(receiver.received) == 1, timeout=15)
    event = assert_signed(receiver.received[0], secret)
    assert event["data"]["submission"]["id"] == detail["id"]
    assert event["data"]["submission"]["score"] == detail["score"]


def test_a_redelivered_task_grades_once(celery_worker_process, alphabeta_set, student,
                                        instructor, receiver) -> None:  # noqa: F811
    _, variant = alphabeta_set
    instructor[1].post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
    submission_id = submit(student[1], variant, {"value": 3}).json()["id"]
    first = graded(student[1], submission_id)
    for _ in range(3):
        grade_submission_task.delay(submission_id)
    # A worker killed mid-grading leaves its submission "running"; acks_late redelivers it.
    killed = Submission.objects.create(
        variant_item=VariantItem.objects.get(variant=variant), student=student[0],
        attempt_number=2, answer={"value": 4}, status="running", started_at=timezone.now(),
    )
    grade_submission_task.delay(killed.pk)
    grade_submission_task.delay(killed.pk)
    assert graded(student[1], killed.pk)["score"] == 0
    assert wait_until(lambda: len(receiver.received) == 2, timeout=15)
    time.sleep(1)  # room for any duplicate to (wrongly) grade again
    assert graded(student[1], submission_id)["graded_at"] == first["graded_at"]
    for pk in (submission_id, killed.pk):
        assert WebhookDelivery.objects.filter(submission_id=pk).count() == 1
    assert len(receiver.received) == 2


def test_idempotent_retries_over_http_with_a_real_worker(celery_worker_process, alphabeta_set,
                                                         student) -> None:
    _, variant = alphabeta_set
    ids = {submit(student[1], variant, {"value": 3}, HTTP_IDEMPOTENCY_KEY="retry-me").json()["id"]
           for _ in range(3)}
    assert len(ids) == 1
    assert graded(student[1], ids.pop())["attempt_number"] == 1
    assert Submission.objects.count() == 1


def test_a_submission_made_while_the_broker_is_down_is_graded_by_the_sweep(
    celery_worker_process, alphabeta_set, student, monkeypatch,
) -> None:
    _, variant = alphabeta_set

    def broker_down(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(grade_submission_task, "apply_async", broker_down)
    response = submit(student[1], variant, {"value": 3})
    assert response.status_code == 202
    stored = Submission.objects.get(pk=response.json()["id"])
    assert stored.status == "queued" and stored.enqueued_at is None
    monkeypatch.undo()
    later = timezone.now() + timedelta(minutes=1)
    assert requeue_stale_submissions(now=later) == [stored.pk]
    assert graded(student[1], stored.pk)["status"] == "graded"
    assert requeue_stale_submissions(now=later) == []


def worker_backends() -> set[int]:
    """Return the ids of the other PostgreSQL sessions on the test database (the worker's)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL sessions")
def test_the_worker_keeps_its_connection_and_replaces_one_the_database_dropped(
    celery_worker_process, alphabeta_set, student,
) -> None:
    _, variant = alphabeta_set
    for attempt in range(4):
        response = submit(student[1], variant, {"value": attempt})
        assert graded(student[1], response.json()["id"])["status"] == "graded"
    kept = worker_backends()
    # Celery's Django fixup would close the connection after every task (a new backend each).
    assert kept, "the worker closed its database connection after each task"
    with connection.cursor() as cursor:
        for pid in kept:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    for attempt in range(4):
        response = submit(student[1], variant, {"value": attempt})
        assert graded(student[1], response.json()["id"])["status"] == "graded"
    assert Submission.objects.filter(status="graded").count() == 8

"""The submission status long-poll (``GET /api/v1/submissions/{id}/?wait=``) and its wake-ups.

The waking tests commit for real (``transaction=True``): PostgreSQL sends a NOTIFY only when
the grade's transaction commits, and the grading runs in another thread with its own
connection, as a worker would.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from exercises.models import VariantItem
from grading import services
from grading.finished import listener
from grading.models import Submission
from tests.grading.conftest import correct_answer


def store(variant: Any, student: Any, attempt_number: int = 1) -> Submission:
    """Store a right answer to item 1 (queued: nothing grades it yet)."""
    variant_item = VariantItem.objects.get(variant=variant, position=1)
    return Submission.objects.create(variant_item=variant_item, student=student,
                                     attempt_number=attempt_number,
                                     answer=correct_answer(variant_item))


def wait_for_waiter(submission_id: int | None = None) -> int:
    """Block until a request waits for ``submission_id`` (None: any submission) on a
    listening listener (elsewhere than PostgreSQL, where a waiter polls: as soon as one is
    registered); return the submission waited for."""
    notified = connection.vendor == "postgresql"
    while True:
        with listener.lock:
            waiting = (next(iter(listener.waiters), None) if submission_id is None
                       else submission_id if submission_id in listener.waiters else None)
            if waiting is not None and (listener.listening.is_set() or not notified):
                return waiting
        listener.listening.wait(0.05)


def grade_in_thread(submission_id: int | None = None, fail: bool = False) -> threading.Thread:
    """Grade (or fail) the submission in another thread once its waiter is listening (None:
    the first submission a request waits for)."""

    def run() -> None:
        try:
            waited = wait_for_waiter(submission_id)
            if fail:
                Submission.objects.filter(pk=waited).update(
                    status=Submission.Status.RUNNING)
                from grading.finished import announce_finished

                Submission.objects.filter(pk=waited).update(
                    status=Submission.Status.ERROR, error_code="grading_failed")
                announce_finished(waited)
            else:
                services.grade_submission(waited)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_waiting_request_answers_once_the_worker_records_the_grade(
        alphabeta_set, student, stop_listener) -> None:
    _, variant = alphabeta_set
    submission = store(variant, student[0])
    grader = grade_in_thread(submission.pk)
    # 20 s is the bound; the notice ends the wait (a missed one would answer "queued").
    response = student[1].get(f"/api/v1/submissions/{submission.pk}/?wait=20")
    grader.join()
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "graded"
    assert body["score"] == body["max_score"] == 6


@pytest.mark.django_db(transaction=True)
def test_a_failed_grading_also_ends_the_wait(alphabeta_set, student, stop_listener) -> None:
    _, variant = alphabeta_set
    submission = store(variant, student[0])
    grader = grade_in_thread(submission.pk, fail=True)
    response = student[1].get(f"/api/v1/submissions/{submission.pk}/?wait=20")
    grader.join()
    assert response.json()["status"] == "error"
    assert response.json()["error_code"] == "grading_failed"


@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="the listener is PostgreSQL's LISTEN; elsewhere a waiter polls")
@pytest.mark.django_db(transaction=True)
def test_the_listener_reconnects_after_losing_its_connection(alphabeta_set, student,
                                                             stop_listener) -> None:
    _, variant = alphabeta_set
    listener.start()
    listener.listening.wait(20)
    lost = listener.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [lost])
    submission = store(variant, student[0])
    # The grader waits for a waiter on a listening listener: the reconnected one.
    grader = grade_in_thread(submission.pk)
    response = student[1].get(f"/api/v1/submissions/{submission.pk}/?wait=20")
    grader.join()
    assert response.json()["status"] == "graded"
    # Answered by the notice on the new connection, or by the re-read the lost one woke:
    # then the listener may still be reconnecting.
    assert listener.listening.wait(20)
    assert listener.backend_pid not in (None, lost)


def test_an_unfinished_submission_is_answered_as_it_is_when_the_wait_ends(
        alphabeta_set, student, stop_listener) -> None:
    _, variant = alphabeta_set
    submission = store(variant, student[0])
    response = student[1].get(f"/api/v1/submissions/{submission.pk}/?wait=0.2")
    assert response.status_code == 200
    assert response.json()["status"] == "queued"
    assert response["Retry-After"] == "1"


def test_a_finished_submission_is_answered_at_once(alphabeta_set, student, celery_eager,
                                                   django_capture_on_commit_callbacks,
                                                   stop_listener) -> None:
    _, variant = alphabeta_set
    submission = store(variant, student[0])
    services.grade_submission(submission.pk)
    with CaptureQueriesContext(connection) as queries:
        response = student[1].get(f"/api/v1/submissions/{submission.pk}/?wait=20")
    assert response.json()["status"] == "graded"
    # The token and the submission, read once (with the student's extension and the
    # submission's regrade requests, as any read): no waiting, no second read.
    assert len(queries.captured_queries) == 4
    assert not listener.waiters


def test_another_students_submission_is_404_without_waiting(alphabeta_set, student,
                                                            other_student) -> None:
    _, variant = alphabeta_set
    submission = store(variant, student[0])
    with CaptureQueriesContext(connection) as queries:
        response = other_student[1].get(f"/api/v1/submissions/{submission.pk}/?wait=20")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    # The token, the submission and the course-grader check: read once.
    assert len(queries.captured_queries) == 3


@pytest.mark.parametrize("wait", ["soon", "-1", "20.5", "nan"])
def test_a_bad_wait_is_a_400_naming_the_parameter(alphabeta_set, student, wait) -> None:
    _, variant = alphabeta_set
    submission = store(variant, student[0])
    response = student[1].get(f"/api/v1/submissions/{submission.pk}/?wait={wait}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "wait" in error["details"]
    assert error["message"].startswith("wait: ")


# --- POST …/submissions/?wait=: submitting and getting the grade in one request -----------


def submit_path(variant: Any, wait: str) -> str:
    """Return the path that submits an answer to item 1, waiting ``wait`` seconds."""
    return f"/api/v1/assignments/{variant.pk}/items/1/submissions/?wait={wait}"


@pytest.mark.django_db(transaction=True)
def test_a_submission_that_waits_is_answered_with_its_grade(alphabeta_set, student,
                                                            stop_listener) -> None:
    _, variant = alphabeta_set
    answer = correct_answer(VariantItem.objects.get(variant=variant, position=1))
    grader = grade_in_thread()
    response = student[1].post(submit_path(variant, "20"), {"answer": answer}, format="json",
                               HTTP_IDEMPOTENCY_KEY="first")
    grader.join()
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "graded"
    assert body["score"] == body["max_score"] == 6
    assert [result["verdict"] for result in body["results"]] == ["correct"] * len(body["results"])
    # A retry with the same key is the same submission, graded: no second attempt.
    again = student[1].post(submit_path(variant, "20"), {"answer": answer}, format="json",
                            HTTP_IDEMPOTENCY_KEY="first")
    assert again.json()["id"] == body["id"]
    assert again.json()["status"] == "graded"
    assert again["Idempotent-Replayed"] == "true"
    assert Submission.objects.filter(student=student[0]).count() == 1


def test_a_submission_not_graded_within_its_wait_is_answered_queued(alphabeta_set,
                                                                   student,
                                                                   stop_listener) -> None:
    _, variant = alphabeta_set
    answer = correct_answer(VariantItem.objects.get(variant=variant, position=1))
    response = student[1].post(submit_path(variant, "0.2"), {"answer": answer}, format="json")
    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    assert response["Retry-After"] == "1"
    assert response["Location"] == f"/api/v1/submissions/{response.json()['id']}/"


@pytest.mark.parametrize("wait", ["soon", "-1", "20.5", "nan"])
def test_a_submission_with_a_bad_wait_is_refused_before_it_is_stored(alphabeta_set, student,
                                                                     wait) -> None:
    _, variant = alphabeta_set
    answer = correct_answer(VariantItem.objects.get(variant=variant, position=1))
    response = student[1].post(submit_path(variant, wait), {"answer": answer}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert "wait" in error["details"]
    assert error["message"].startswith("wait: ")
    assert not Submission.objects.filter(student=student[0]).exists()


@pytest.mark.django_db(transaction=True)
def test_past_the_waiting_cap_a_long_poll_answers_at_once_with_retry_after(
        alphabeta_set, student, settings, stop_listener) -> None:
    from grading.finished import wait_slots

    settings.LONG_POLL_MAX_WAITING = 1
    wait_slots.semaphore = None  # made again from the setting
    _, variant = alphabeta_set
    waiting, other = store(variant, student[0]), store(variant, student[0], 2)
    answers: list[Any] = []

    def hold_the_only_slot() -> None:
        try:
            answers.append(student[1].get(f"/api/v1/submissions/{waiting.pk}/?wait=20"))
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_only_slot, daemon=True)
    holder.start()
    wait_for_waiter(waiting.pk)
    try:
        refused = student[1].get(f"/api/v1/submissions/{other.pk}/?wait=20")
        assert refused.status_code == 200
        assert refused.json()["status"] == "queued"
        assert refused["Retry-After"] == "1"
        assert holder.is_alive(), "answered while the only slot was still taken"
    finally:
        services.grade_submission(waiting.pk)
        holder.join()
        wait_slots.semaphore = None
    assert answers[0].json()["status"] == "graded"
    assert not answers[0].has_header("Retry-After")

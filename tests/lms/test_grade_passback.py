"""Assignment and Grade Services: after each graded submission the student's problem-set
score goes to the LMS line item, through Celery, retried, and logged."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from lms.models import LtiUserLink, ScorePassback
from tests.conftest import wait_until
from tests.lms.conftest import grade_submission, launch
from tests.lms.simulator import PlatformSimulator
from tests.lms.test_launch import bind_link

SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"


@pytest.fixture
def linked_student(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> Callable[..., tuple[Any, Any]]:
    """Return a function placing a link and launching it as learner-1: (problem set, user)."""

    def place(line_item: bool = True) -> tuple[Any, Any]:
        link = bind_link(platform, simulator, instructor[0])
        response = launch(
            Client(),
            simulator,
            "learner-1",
            ["Learner"],
            custom=link["custom"],
            line_item=simulator.add_line_item() if line_item else None,
        )
        assert response.status_code == 200, response.content
        return link["problem_set"], LtiUserLink.objects.get(subject="learner-1").user

    return place


def generated_variant_item(problem_set: Any, student: Any) -> Any:
    """Give ``student`` a variant of the set's one item, generated and keyed as publishing does."""
    from exercises.generation import generate_item
    from exercises.models import Variant, VariantItem

    item = problem_set.items.get()
    generated = generate_item(item.kind, item.params, "passback")
    variant = Variant.objects.create(problem_set=problem_set, student=student, seed="v")
    return VariantItem.objects.create(
        variant=variant, item=item, position=1, seed="s", problem=generated.problem,
        prompt=generated.prompt, answer_key=generated.answer_key,
        engine_version=generated.engine_version,
    )


@pytest.fixture
def eager_retries(celery_eager: None) -> Iterator[None]:
    """Run tasks inline and let Celery re-run retried ones inline (propagating would stop at
    the first retry)."""
    from config.celery_app import app

    app.conf.task_eager_propagates = False
    yield


@pytest.mark.django_db
def test_a_graded_submission_sends_the_problem_set_score_to_the_line_item(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    problem_set, student = linked_student()
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "7.5")
    [score] = simulator.scores
    assert score.content_type == SCORE_TYPE
    assert score.line_item in simulator.line_items
    body = score.body
    assert body["userId"] == "learner-1"
    assert (body["scoreGiven"], body["scoreMaximum"]) == (7.5, 10.0)
    assert (body["activityProgress"], body["gradingProgress"]) == ("Submitted", "FullyGraded")
    # The tool authenticated with a client assertion signed by its key, asking for AGS scopes.
    assert simulator.token_requests[0]["claims"]["iss"] == simulator.client_id
    passback = ScorePassback.objects.get()
    assert passback.status == ScorePassback.Status.SENT and passback.attempts == 1
    assert passback.score_given == 7.5 and passback.sent_at is not None

    # A worse later attempt keeps the best score (the set's policy): the LMS gets 7.5 again.
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "2")
    assert [s.body["scoreGiven"] for s in simulator.scores] == [7.5, 7.5]
    # The second passback reused the first one's access token.
    assert len(simulator.token_requests) == 1


@pytest.mark.django_db
def test_a_token_the_platform_stopped_accepting_is_replaced_without_a_failed_attempt(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    problem_set, student = linked_student()
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "3")
    simulator.revoke_tokens()
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "8")
    assert [s.body["scoreGiven"] for s in simulator.scores] == [3.0, 8.0]
    assert len(simulator.token_requests) == 2
    assert [(p.status, p.attempts) for p in ScorePassback.objects.order_by("pk")] == [
        (ScorePassback.Status.SENT, 1), (ScorePassback.Status.SENT, 1)]


@pytest.mark.django_db
@pytest.mark.parametrize("failures", [[503, 429], [409]], ids=["down", "same second"])
def test_a_platform_that_is_down_gets_the_score_after_retries(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    eager_retries: None,
    django_capture_on_commit_callbacks: Any,
    failures: list[int],
) -> None:
    problem_set, student = linked_student()
    # 409: Moodle refuses a score stamped in the second of the one it holds (two passbacks
    # of one student in one second); the retry reads the score again and stamps it anew.
    simulator.fail_next_scores = list(failures)
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "4")
    assert len(simulator.scores) == 1 and simulator.scores[0].body["scoreGiven"] == 4.0
    passback = ScorePassback.objects.get()
    assert passback.status == ScorePassback.Status.SENT
    assert passback.attempts == len(failures) + 1


@pytest.mark.django_db
def test_a_score_the_platform_refuses_is_logged_as_refused_without_retrying(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    problem_set, student = linked_student()
    simulator.fail_next_scores = [400]
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "4")
    passback = ScorePassback.objects.get()
    assert passback.status == ScorePassback.Status.REFUSED and passback.attempts == 1
    assert "400" in passback.last_error
    assert simulator.scores == []


@pytest.mark.django_db
def test_a_platform_down_for_good_leaves_a_failed_passback(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    eager_retries: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from lms.tasks import send_score_passback_task

    problem_set, student = linked_student()
    simulator.fail_next_scores = [503] * (send_score_passback_task.max_retries + 1)
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "4")
    passback = ScorePassback.objects.get()
    assert passback.status == ScorePassback.Status.FAILED
    assert passback.attempts == send_score_passback_task.max_retries + 1
    assert "503" in passback.last_error


def fail_for_good(
    simulator: PlatformSimulator, problem_set: Any, student: Any, score: str, capture: Any
) -> Any:
    """Grade a submission while the platform is down through every retry; return it."""
    from lms.tasks import send_score_passback_task

    simulator.fail_next_scores = [503] * (send_score_passback_task.max_retries + 1)
    with capture(execute=True):
        submission = grade_submission(problem_set, student, score)
    simulator.fail_next_scores = []
    return submission


@pytest.mark.django_db
def test_the_sweep_sends_failed_passbacks_again_with_the_latest_score(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    eager_retries: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from grading.models import Submission
    from lms.services import resend_failed_passbacks

    problem_set, student = linked_student()
    capture = django_capture_on_commit_callbacks
    submission = fail_for_good(simulator, problem_set, student, "4", capture)
    fail_for_good(simulator, problem_set, student, "5", capture)
    assert {p.status for p in ScorePassback.objects.all()} == {ScorePassback.Status.FAILED}
    Submission.objects.filter(pk=submission.pk).update(score=Decimal("9"))  # regraded since
    # Past the resend window nothing is sent.
    later = timezone.now() + timedelta(hours=25)
    assert resend_failed_passbacks(now=later) == 0 and simulator.scores == []
    with django_capture_on_commit_callbacks(execute=True):
        assert resend_failed_passbacks() == 1  # one per student and link: the newest
    assert [s.body["scoreGiven"] for s in simulator.scores] == [9.0]
    newest, older = ScorePassback.objects.order_by("-created_at", "-id")
    assert newest.status == ScorePassback.Status.SENT
    # The older one is superseded by the newer one sent: the next sweep leaves it.
    assert older.status == ScorePassback.Status.FAILED
    with django_capture_on_commit_callbacks(execute=True):
        assert resend_failed_passbacks() == 0


@pytest.mark.django_db
def test_instructors_resend_a_failed_passback(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    instructor: Any,
    other_instructor: Any,
    eager_retries: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    problem_set, student = linked_student()
    fail_for_good(simulator, problem_set, student, "6", django_capture_on_commit_callbacks)
    _, client = instructor
    [failed] = client.get("/api/v1/lti/passbacks/?status=failed").json()
    _, other = other_instructor
    assert other.post(f"/api/v1/lti/passbacks/{failed['id']}/resend/").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/v1/lti/passbacks/{failed['id']}/resend/")
    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert ScorePassback.objects.get(pk=failed["id"]).status == ScorePassback.Status.SENT
    assert [s.body["scoreGiven"] for s in simulator.scores] == [6.0]
    # Sent already: resending leaves it as it is.
    again = client.post(f"/api/v1/lti/passbacks/{failed['id']}/resend/")
    assert again.status_code == 202 and again.json()["status"] == "sent"


@pytest.mark.django_db
def test_no_score_is_sent_while_an_answer_awaits_grading(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from exercises.models import Item
    from grading.models import Submission
    from lms.services import queue_score_passbacks

    problem_set, student = linked_student()
    second = Item.objects.create(
        problem_set=problem_set, position=2, kind="minimax",
        params=problem_set.items.get(position=1).params, points=Decimal("5"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        graded = grade_submission(problem_set, student, "3")
    assert (simulator.scores[-1].body["activityProgress"],
            simulator.scores[-1].body["gradingProgress"]) == ("InProgress", "FullyGraded")
    # A new answer is queued for grading: a score marked Pending would blank Moodle's grade
    # (Canvas ignores it), so the platform keeps the last final one until that answer ends.
    Submission.objects.create(
        variant_item=graded.variant_item, student=student, attempt_number=2,
        answer={"value": 1}, status=Submission.Status.QUEUED,
    )
    with django_capture_on_commit_callbacks(execute=True):
        queue_score_passbacks(problem_set_id=problem_set.pk, student_id=student.pk)
    assert len(simulator.scores) == 1
    held = ScorePassback.objects.order_by("-id").first()
    assert held.status == ScorePassback.Status.SUPERSEDED and held.score_given == Decimal("3")
    # Every item answered and graded: the total is final.
    Submission.objects.filter(status=Submission.Status.QUEUED).delete()
    variant_item = graded.variant_item.variant.items.create(
        item=second, position=2, seed="vi2", problem={}
    )
    Submission.objects.create(
        variant_item=variant_item, student=student, attempt_number=1, answer={"value": 2},
        status=Submission.Status.GRADED, score=Decimal("5"), max_score=Decimal("5"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        queue_score_passbacks(problem_set_id=problem_set.pk, student_id=student.pk)
    body = simulator.scores[-1].body
    assert (body["activityProgress"], body["gradingProgress"]) == ("Submitted", "FullyGraded")
    assert body["scoreGiven"] == 8.0
    assert {score.body["gradingProgress"] for score in simulator.scores} == {"FullyGraded"}


@pytest.mark.django_db
@pytest.mark.parametrize("failure", ["grading_failed", "results_unsavable"])
def test_an_answer_ending_in_error_sends_the_score_held_back_while_it_was_graded(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
) -> None:
    from django.db import DataError

    from grading import services
    from grading.models import Submission

    problem_set, student = linked_student()
    generated_variant_item(problem_set, student)  # a real key, so only the failure fails
    with django_capture_on_commit_callbacks(execute=True):
        graded = grade_submission(problem_set, student, "3")
    broken = Submission.objects.create(
        variant_item=graded.variant_item, student=student, attempt_number=2,
        answer={"value": 1}, status=Submission.Status.QUEUED,
    )

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise DataError("cannot store") if failure == "results_unsavable" else RuntimeError

    if failure == "results_unsavable":
        monkeypatch.setattr(services, "record_announcing_finished", fail)
    else:
        monkeypatch.setattr(services, "grade_answer", fail)
    with django_capture_on_commit_callbacks(execute=True):
        services.grade_submission(broken.pk)
    broken.refresh_from_db()
    assert (broken.status, broken.error_code) == (Submission.Status.ERROR, failure)
    # The platform hears the total is final again (it was not told of the pending answer).
    assert [score.body["gradingProgress"] for score in simulator.scores] == [
        "FullyGraded", "FullyGraded"]
    assert simulator.scores[-1].body["scoreGiven"] == 3.0


@pytest.mark.django_db
def test_a_platform_taking_whole_maximums_gets_scores_scaled_exactly(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from exercises.models import Item
    from lms.models import Platform

    Platform.objects.update(integer_score_maximum=True)
    problem_set, student = linked_student(line_item=False)
    Item.objects.filter(problem_set=problem_set).update(points=Decimal("7.5"))
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "4")
    [item] = simulator.line_items.values()
    assert item["scoreMaximum"] == 15
    [score] = simulator.scores
    assert (score.body["scoreGiven"], score.body["scoreMaximum"]) == (8.0, 15.0)
    # The log keeps Cutoff's own points.
    passback = ScorePassback.objects.get()
    assert (passback.score_given, passback.score_maximum) == (Decimal("4"), Decimal("7.5"))


@pytest.mark.django_db
def test_without_a_line_item_from_the_launch_one_is_created_for_the_link(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    problem_set, student = linked_student(line_item=False)
    assert simulator.line_items == {}
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "6")
    [(url, item)] = simulator.line_items.items()
    assert item["resourceLinkId"] == "link-1" and item["scoreMaximum"] == 10.0
    assert item["label"] == problem_set.title
    assert [s.line_item for s in simulator.scores] == [url]


@pytest.mark.django_db(transaction=True)
def test_concurrent_passbacks_for_a_link_without_a_line_item_create_one(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.db import connection

    from lms.services import send_score_passback
    from lms.tasks import send_score_passback_task
    from tests.conftest import require

    require(connection.vendor == "postgresql", "row locks need PostgreSQL")
    problem_set, student = linked_student(line_item=False)
    # Two workers take the two passbacks of two submissions graded back to back.
    queued: list[int] = []
    monkeypatch.setattr(send_score_passback_task, "delay", queued.append)
    grade_submission(problem_set, student, "4")
    grade_submission(problem_set, student, "10")
    passbacks = list(ScorePassback.objects.filter(pk__in=queued).order_by("pk"))
    assert len(passbacks) == 2
    # Hold the first passback's line item lookup until the second one either asks the
    # platform too (two columns) or waits for the first (one column).
    release = threading.Event()
    simulator.before_line_item_list = lambda: release.wait(60)

    def send(passback_id: int) -> None:
        try:
            send_score_passback(passback_id=passback_id, final_attempt=True)
        finally:
            connection.close()

    def waiting_on_a_lock() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database()"
            )
            return bool(cursor.fetchone()[0])

    first = threading.Thread(target=send, args=(passbacks[0].pk,))
    first.start()
    assert wait_until(lambda: simulator.line_item_list_requests == 1)
    second = threading.Thread(target=send, args=(passbacks[1].pk,))
    second.start()
    assert wait_until(lambda: simulator.line_item_list_requests == 2 or waiting_on_a_lock())
    release.set()
    first.join(60)
    second.join(60)
    assert len(simulator.line_items) == 1
    [url] = simulator.line_items
    assert [s.line_item for s in simulator.scores] == [url, url]
    assert {p.status for p in ScorePassback.objects.all()} == {ScorePassback.Status.SENT}


@pytest.mark.django_db
def test_students_unknown_to_the_lms_get_no_passback(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    student: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    problem_set, _ = linked_student()
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student[0], "6")
    assert not ScorePassback.objects.exists() and simulator.scores == []


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_the_real_worker_sends_the_score(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_worker_process: Any,
) -> None:
    problem_set, student = linked_student()
    grade_submission(problem_set, student, "9")
    assert wait_until(lambda: len(simulator.scores) == 1, timeout=60)
    assert simulator.scores[0].body["scoreGiven"] == 9.0
    assert wait_until(
        lambda: ScorePassback.objects.filter(status=ScorePassback.Status.SENT).exists()
    )


@pytest.mark.django_db
def test_instructors_read_the_passback_log_of_their_courses(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    instructor: Any,
    other_instructor: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    problem_set, student = linked_student()
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "5")
    _, client = instructor
    response = client.get(f"/api/v1/lti/passbacks/?problem_set={problem_set.pk}&status=sent")
    assert response.status_code == 200
    [entry] = response.json()
    assert entry["student"] == student.username and entry["score_given"] == "5.000"
    assert entry["resource_link"] == "link-1" and entry["attempts"] == 1
    assert client.get("/api/v1/lti/passbacks/?status=failed").json() == []
    for bad in ("problem_set=x", "status=lost"):
        response = client.get(f"/api/v1/lti/passbacks/?{bad}")
        assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"
    _, other = other_instructor
    assert other.get("/api/v1/lti/passbacks/").json() == []

    # An LMS client with the grades:read scope reads it too; other scopes do not.
    from rest_framework.test import APIClient

    from lms.clients import create_api_client

    for scopes, expected in ((["grades:read"], 200), (["webhooks:write"], 403)):
        _, token = create_api_client(owner=instructor[0], name="LMS", scopes=scopes)
        lms = APIClient()
        lms.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        response = lms.get("/api/v1/lti/passbacks/")
        assert response.status_code == expected
        if expected == 200:
            assert [e["student"] for e in response.json()] == [student.username]


@pytest.mark.django_db
def test_the_score_changed_signal_queues_passbacks(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from grading.signals import score_recorded

    problem_set, student = linked_student()
    grade_submission(problem_set, student, "3")
    simulator.scores.clear()
    with django_capture_on_commit_callbacks(execute=True):
        score_recorded.send(
            sender=None, problem_set_id=problem_set.pk, student_id=student.pk
        )
    assert [s.body["scoreGiven"] for s in simulator.scores] == [3.0]


@pytest.mark.django_db
def test_grading_a_submission_through_grading_sends_the_score(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from grading.models import Submission
    from grading.services import grade_submission as grade_with_grading

    problem_set, student = linked_student()
    variant_item = generated_variant_item(problem_set, student)
    submission = Submission.objects.create(
        variant_item=variant_item,
        student=student,
        attempt_number=1,
        answer=variant_item.answer_key,
    )
    with django_capture_on_commit_callbacks(execute=True):
        grade_with_grading(submission.pk)
    assert Submission.objects.get().status == Submission.Status.GRADED
    assert len(simulator.scores) == 1


@pytest.mark.django_db
def test_a_new_score_rule_sends_every_students_new_total(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from exercises.services import update_problem_set

    problem_set, student = linked_student()
    grade_submission(problem_set, student, "7.5")
    grade_submission(problem_set, student, "2")
    simulator.scores.clear()
    # Best attempt counted so far (7.5); with the last one counted the total is 2.
    with django_capture_on_commit_callbacks(execute=True):
        update_problem_set(problem_set, changed_by=problem_set.created_by, score_policy="last")
    assert [s.body["scoreGiven"] for s in simulator.scores] == [2.0]


@pytest.mark.django_db
def test_new_points_send_the_new_maximum_to_students_without_a_changed_score(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    # A student who has not answered keeps a score of 0, but the total's maximum changed.
    from exercises.services import update_problem_set

    problem_set, student = linked_student()
    generated_variant_item(problem_set, student)
    with django_capture_on_commit_callbacks(execute=True):
        update_problem_set(problem_set, changed_by=problem_set.created_by,
                           items=[{"position": 1, "points": "4"}])
    assert [(s.body["userId"], s.body["scoreMaximum"]) for s in simulator.scores] == [
        ("learner-1", 4.0)]


@pytest.mark.django_db
def test_a_score_graded_while_the_broker_is_down_is_sent_by_the_sweep(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
    broker_refuses: Callable[..., None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The passback's task was published in a bare on_commit: its error ended the grading
    # task (or a request: an override answered 500) and left the passback queued, which no
    # sweep resends.
    from grading.models import Submission
    from grading.services import grade_submission as grade_with_grading
    from lms.services import BROKER_UNREACHABLE, resend_failed_passbacks
    from lms.tasks import send_score_passback_task

    problem_set, student = linked_student()
    variant_item = generated_variant_item(problem_set, student)
    submission = Submission.objects.create(
        variant_item=variant_item, student=student, attempt_number=1,
        answer=variant_item.answer_key)
    broker_refuses(send_score_passback_task)
    with django_capture_on_commit_callbacks(execute=True):
        grade_with_grading(submission.pk)
    assert Submission.objects.get().status == Submission.Status.GRADED
    [passback] = ScorePassback.objects.all()
    assert (passback.status, passback.last_error) == (ScorePassback.Status.FAILED,
                                                      BROKER_UNREACHABLE)
    assert simulator.scores == []
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        assert resend_failed_passbacks() == 1
    assert ScorePassback.objects.get().status == ScorePassback.Status.SENT
    assert len(simulator.scores) == 1


@pytest.mark.django_db
def test_an_override_while_the_broker_is_down_is_answered_and_its_passback_kept(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    instructor: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
    broker_refuses: Callable[..., None],
) -> None:
    from lms.tasks import send_score_passback_task

    problem_set, student = linked_student()
    submission = grade_submission(problem_set, student, "3")
    broker_refuses(send_score_passback_task)
    with django_capture_on_commit_callbacks(execute=True):
        response = instructor[1].post(f"/api/v1/submissions/{submission.pk}/override/",
                                      {"score": "5", "reason": "by hand"}, format="json")
    assert response.status_code == 200, response.content
    assert ScorePassback.objects.order_by("-id").first().status == ScorePassback.Status.FAILED


@pytest.mark.django_db
def test_an_item_whose_only_answer_ended_in_an_error_is_not_reported_answered(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Cutoff could not grade it: it earned nothing and uses no attempt. Reported
    # "Submitted", the LMS showed the set done at 0 while the student may still answer.
    from grading import services
    from grading.models import Submission

    problem_set, student = linked_student()
    variant_item = generated_variant_item(problem_set, student)
    broken = Submission.objects.create(
        variant_item=variant_item, student=student, attempt_number=1,
        answer=variant_item.answer_key, status=Submission.Status.QUEUED)

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError

    monkeypatch.setattr(services, "grade_answer", fail)
    with django_capture_on_commit_callbacks(execute=True):
        services.grade_submission(broken.pk)
    assert Submission.objects.get().status == Submission.Status.ERROR
    body = simulator.scores[-1].body
    assert (body["activityProgress"], body["gradingProgress"], body["scoreGiven"]) == (
        "InProgress", "FullyGraded", 0.0)


@pytest.mark.django_db
def test_a_platform_made_active_again_gets_the_scores_graded_while_it_was_not(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],
    platform: Any,
    instructor: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    # A deactivated platform gets no passback; reactivating it sent nothing, so the grades
    # recorded meanwhile never reached its gradebook.
    problem_set, student = linked_student()
    _, client = instructor
    assert client.post(f"/api/v1/lti/platforms/{platform.pk}/deactivate/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "7.5")
    assert simulator.scores == [] and not ScorePassback.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/api/v1/lti/platforms/{platform.pk}/activate/").status_code == 200
    assert [s.body["scoreGiven"] for s in simulator.scores] == [7.5]
    assert ScorePassback.objects.get().status == ScorePassback.Status.SENT
    # Already active: activating again sends nothing more.
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/api/v1/lti/platforms/{platform.pk}/activate/").status_code == 200
    assert len(simulator.scores) == 1

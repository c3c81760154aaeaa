"""What a student is told about time before answering: the quiz clock stops at a refusing due
date, an extension's limit is the one shown, the late policy is stated, answers in flight at
the due date count, refusals are in the reader's language."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from exercises.models import Extension, ProblemSet
from exercises.selectors import DEADLINE_GRACE
from grading.models import Submission
from tests.pages.conftest import make_problem_set, publish_now, variant_of_user

pytestmark = pytest.mark.django_db


def timed_set(instructor: Any, course: Any, *, due_in: timedelta, policy: str,
              minutes: int | None = 30) -> ProblemSet:
    """Return a published set of ``minutes`` (None: untimed) due ``due_in`` from now under the
    late ``policy``."""
    problem_set = publish_now(make_problem_set(instructor[0], course, time_limit_minutes=minutes))
    problem_set.due_at = timezone.now() + due_in
    problem_set.late_policy = policy
    problem_set.late_penalty = "0.125" if policy == "penalty" else 0
    problem_set.save(update_fields=["due_at", "late_policy", "late_penalty"])
    return problem_set


def browser_of(user: Any, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


@pytest.mark.parametrize(("policy", "capped"), [("refuse", True), ("penalty", False)])
def test_a_quiz_opened_near_the_due_date_closes_at_it_when_late_answers_are_refused(
    instructor: Any, student: Any, course: Any, policy: str, capped: bool,
) -> None:
    problem_set = timed_set(instructor, course, due_in=timedelta(minutes=5), policy=policy)
    variant = variant_of_user(problem_set, student[0])
    start = browser_of(student[0]).post(f"/assignments/{variant.pk}/items/1/",
                                        {"start_quiz": "1"})
    assert start.status_code == 302
    variant.refresh_from_db()
    closes = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()["closes_at"]
    limit_end = variant.opened_at + timedelta(minutes=30)
    expected = problem_set.due_at if capped else limit_end
    assert closes == expected.isoformat().replace("+00:00", "Z")
    page = browser_of(student[0]).get(f"/assignments/{variant.pk}/items/1/").content.decode()
    assert f'datetime="{expected.isoformat()}"' in page  # the countdown's end


def test_the_start_page_states_the_students_own_limit_the_due_date_and_the_late_rule(
    instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = timed_set(instructor, course, due_in=timedelta(hours=2), policy="refuse")
    Extension.objects.create(problem_set=problem_set, student=student[0],
                             time_limit_minutes=90)
    variant = variant_of_user(problem_set, student[0])
    browser = browser_of(student[0])
    start = browser.get(f"/assignments/{variant.pk}/items/1/").content.decode()
    assert "You have 90 minutes" in start and "30 minutes" not in start
    assert "Late answers are refused." in start
    assert "the quiz closes at the due date" in start
    listing = browser.get("/assignments/").content.decode()
    assert "Timed: 90 minutes" in listing and "Late answers are refused." in listing


def test_a_late_penalty_is_stated_on_the_item_page_and_in_the_api(
    instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = timed_set(instructor, course, due_in=timedelta(hours=2), policy="penalty",
                            minutes=None)
    variant = variant_of_user(problem_set, student[0])
    page = browser_of(student[0]).get(f"/assignments/{variant.pk}/items/1/").content.decode()
    assert "Late answers lose 12.5% of their score." in page
    portuguese = browser_of(student[0], "pt").get(f"/assignments/{variant.pk}/items/1/")
    assert "As respostas atrasadas perdem 12.5% da pontuação." in portuguese.content.decode()
    body = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()
    assert (body["late_policy"], body["late_penalty"]) == ("penalty", "0.125")
    listed = student[1].get("/api/v1/assignments/").json()[0]
    assert (listed["late_policy"], listed["late_penalty"]) == ("penalty", "0.125")


@pytest.mark.parametrize(("after", "accepted"), [
    (timedelta(seconds=0), True), (DEADLINE_GRACE - timedelta(seconds=1), True),
    (DEADLINE_GRACE + timedelta(seconds=1), False),
])
def test_an_answer_in_flight_at_the_due_date_is_on_time(
    instructor: Any, student: Any, course: Any, after: timedelta, accepted: bool,
) -> None:
    problem_set = publish_now(make_problem_set(instructor[0], course))
    variant = variant_of_user(problem_set, student[0])
    due = timezone.now() - after
    ProblemSet.objects.filter(pk=problem_set.pk).update(due_at=due, late_policy="refuse")
    response = student[1].post(f"/api/v1/assignments/{variant.pk}/items/1/submissions/",
                               {"answer": {"value": 1}}, format="json")
    assert response.status_code == (202 if accepted else 403), response.content
    if accepted:
        assert Submission.objects.get().is_late is False


def test_a_refusal_is_told_in_the_readers_language(
    instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = publish_now(make_problem_set(instructor[0], course, max_attempts=1))
    variant = variant_of_user(problem_set, student[0])
    browser = browser_of(student[0], "pt")
    url = f"/assignments/{variant.pk}/items/1/"
    first = browser.post(url, {"answer-tree-value-root": "1", "idempotency_key": "k1"})
    assert first.status_code == 302
    again = browser.post(url, {"answer-tree-value-root": "2", "idempotency_key": "k2"})
    text = again.content.decode()
    assert again.status_code == 403
    assert "Já usou todas as tentativas deste item." in text
    assert "attempts at this item are used" not in text


def test_submit_stays_open_for_answers_in_flight_at_the_quiz_end(
    instructor: Any, student: Any, course: Any,
) -> None:
    from pages.views.student import submit_blocked

    problem_set = timed_set(instructor, course, due_in=timedelta(minutes=5), policy="refuse")
    variant = variant_of_user(problem_set, student[0])
    variant.opened_at = timezone.now()
    variant.save(update_fields=["opened_at"])
    due = problem_set.due_at
    assert submit_blocked(variant, 0, due + DEADLINE_GRACE / 2) == ""
    assert submit_blocked(variant, 0, due + DEADLINE_GRACE * 2) != ""

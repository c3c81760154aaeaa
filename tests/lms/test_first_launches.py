"""First launches of students new to a published problem set, many at once: each gets a
variant generated (idempotently, whatever is already generating), a page that reloads
itself until it is there, and never a 500."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from django.test import Client

from exercises.models import ProblemSet, Variant
from lms.models import LtiUserLink
from tests.lms.conftest import launch
from tests.lms.simulator import PlatformSimulator
from tests.lms.test_launch import bind_link


def publish(problem_set: Any) -> None:
    """Mark the set published (ready), as if its first generation had finished."""
    ProblemSet.objects.filter(pk=problem_set.pk).update(status=ProblemSet.Status.READY)


@pytest.mark.django_db
def test_a_first_launch_while_the_set_is_generating_for_others_generates_the_variant(
    simulator: PlatformSimulator,
    platform: Any,
    instructor: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    problem_set = link["problem_set"]
    # Another newcomer's launch started a generation that is still running.
    ProblemSet.objects.filter(pk=problem_set.pk).update(status=ProblemSet.Status.GENERATING)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"])
    assert response.status_code == 200
    assert b"being generated" in response.content and b"not ready yet" not in response.content
    [waiting_url] = re.findall(r'url=(/lti/waiting/[^"]+)"', response.content.decode())
    still_waiting = Client().get(waiting_url)  # the page reloading itself, without cookies
    assert still_waiting.status_code == 200 and b"being generated" in still_waiting.content
    for callback in queued:
        callback()
    user = LtiUserLink.objects.get(subject="learner-1").user
    variant = Variant.objects.get(problem_set=problem_set, student=user)
    ready = Client().get(waiting_url)
    assert f'data-assignment="{variant.pk}"'.encode() in ready.content
    assert b'http-equiv="refresh"' not in ready.content
    assert ProblemSet.objects.get(pk=problem_set.pk).status == ProblemSet.Status.READY


@pytest.mark.django_db
def test_extending_a_set_from_a_stale_copy_while_it_generates_does_not_fail(
    simulator: PlatformSimulator, platform: Any, instructor: Any, student: Any
) -> None:
    from accounts.models import Role
    from accounts.services import enroll
    from lms.services import generate_missing_variants

    link = bind_link(platform, simulator, instructor[0])
    problem_set = link["problem_set"]
    publish(problem_set)
    enroll(course=problem_set.course, user=student[0], role=Role.STUDENT)  # a late student
    stale = ProblemSet.objects.get(pk=problem_set.pk)  # a roster sync read it as ready
    ProblemSet.objects.filter(pk=problem_set.pk).update(status=ProblemSet.Status.GENERATING)
    assert generate_missing_variants(stale) is True
    assert generate_missing_variants(stale) is True  # again: still idempotent
    problem_set.refresh_from_db()
    assert problem_set.status == ProblemSet.Status.GENERATING
    assert problem_set.progress_total == problem_set.progress_done + 1


@pytest.mark.django_db(transaction=True)
def test_eight_new_students_launching_at_once_all_get_their_variant(
    simulator: PlatformSimulator, platform: Any, instructor: Any, celery_eager: None
) -> None:
    from django.db import connection

    link = bind_link(platform, simulator, instructor[0])
    problem_set = link["problem_set"]
    publish(problem_set)
    pages: dict[str, Any] = {}
    errors: list[BaseException] = []

    def first_launch(subject: str) -> None:
        try:
            pages[subject] = launch(
                Client(), simulator, subject, ["Learner"], custom=link["custom"]
            )
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=first_launch, args=(f"learner-{n}",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert sorted(response.status_code for response in pages.values()) == [200] * 8
    for subject, response in pages.items():
        user = LtiUserLink.objects.get(subject=subject).user
        variant = Variant.objects.get(problem_set=problem_set, student=user)
        assert f'data-assignment="{variant.pk}"'.encode() in response.content, subject
    assert ProblemSet.objects.get(pk=problem_set.pk).status == ProblemSet.Status.READY

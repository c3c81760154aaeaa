"""Numbers typed into the pages' forms and query strings: a digit ``int`` refuses ("²" is a
digit to ``str.isdigit``) or a number too long for the database is a form error or a 404,
never a 500, and nothing is stored."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from tests.pages.conftest import variant_of_user

pytestmark = pytest.mark.django_db

NOT_WHOLE_NUMBERS = ["²", "9" * 30]
"""A superscript digit and a 30-digit number."""


def logged_in(user: Any) -> Client:
    """Return a test client with ``user``'s session."""
    client = Client()
    client.force_login(user)
    return client


def messages_of(response: Any) -> list[str]:
    """Return the flash messages a response carries."""
    return [str(message) for message in get_messages(response.wsgi_request)]


def stored_submission(problem_set: Any, student: Any) -> Any:
    """Store (ungraded) an attempt of ``student`` at item 1 and return it."""
    from grading.models import Submission

    variant_item = variant_of_user(problem_set, student).items.get(position=1)
    return Submission.objects.create(variant_item=variant_item, student=student,
                                     attempt_number=1, kind=Submission.Kind.ANSWER, answer={})


@pytest.mark.parametrize("course_text", NOT_WHOLE_NUMBERS)
def test_copy_and_import_refuse_a_course_that_is_no_whole_number(
    alphabeta_set: Any, instructor: Any, course_text: str,
) -> None:
    from exercises.models import ProblemSet
    from exercises.services import export_definition

    client = logged_in(instructor[0])
    copied = client.post(reverse("pages:copy_problem_set", args=[alphabeta_set.pk]),
                         {"course": course_text})
    assert copied.status_code == 302
    assert any(message.endswith("choose one of your courses")
               for message in messages_of(copied))
    definition = json.dumps(export_definition(alphabeta_set))
    imported = client.post(reverse("pages:import_problem_set"), {
        "course": course_text,
        "definition": SimpleUploadedFile("d.json", definition.encode(), "application/json"),
    })
    assert imported.status_code == 200
    assert any(message.endswith("choose one of your courses")
               for message in messages_of(imported))
    assert ProblemSet.objects.count() == 1


@pytest.mark.parametrize("item_text", NOT_WHOLE_NUMBERS)
def test_a_submissions_filter_that_is_no_item_position_filters_nothing(
    alphabeta_set: Any, instructor: Any, student: Any, item_text: str,
) -> None:
    stored_submission(alphabeta_set, student[0])
    response = logged_in(instructor[0]).get(
        reverse("pages:running_submissions", args=[alphabeta_set.pk]), {"item": item_text})
    assert response.status_code == 200
    assert response.context["item"] is None and len(response.context["page"]) == 1


@pytest.mark.parametrize("request_text", NOT_WHOLE_NUMBERS)
def test_resolving_a_regrade_request_that_is_no_whole_number_is_a_404(
    alphabeta_set: Any, instructor: Any, student: Any, request_text: str,
) -> None:
    submission = stored_submission(alphabeta_set, student[0])
    response = logged_in(instructor[0]).post(
        reverse("pages:running_submission", args=[submission.pk]),
        {"action": "resolve", "request": request_text, "reply": "ok"})
    assert response.status_code == 404


@pytest.mark.parametrize("field", ["extra_attempts", "time_limit_minutes"])
@pytest.mark.parametrize("value", NOT_WHOLE_NUMBERS)
def test_an_extension_form_with_no_whole_number_names_the_field_and_stores_nothing(
    alphabeta_set: Any, instructor: Any, student: Any, field: str, value: str,
) -> None:
    from exercises.models import Extension

    response = logged_in(instructor[0]).post(
        reverse("pages:running_extensions", args=[alphabeta_set.pk]),
        {"username": student[0].username, field: value})
    assert response.status_code == 302
    assert [message.split(":")[0] for message in messages_of(response)] == [field]
    assert not Extension.objects.exists()


def test_the_extension_form_still_grants_in_range_numbers(
    alphabeta_set: Any, instructor: Any, student: Any,
) -> None:
    from exercises.models import Extension

    response = logged_in(instructor[0]).post(
        reverse("pages:running_extensions", args=[alphabeta_set.pk]),
        {"username": student[0].username, "due_at": "2027-01-15T12:00",
         "extra_attempts": "2", "time_limit_minutes": "90"})
    assert response.status_code == 302
    extension = Extension.objects.get()
    assert (extension.extra_attempts, extension.time_limit_minutes) == (2, 90)
    assert extension.due_at is not None
    assert extension.due_at.isoformat() == "2027-01-15T12:00:00+00:00"


@pytest.mark.parametrize("attempt_text", NOT_WHOLE_NUMBERS)
def test_reopening_an_attempt_that_is_no_whole_number_reopens_none(
    alphabeta_set: Any, student: Any, attempt_text: str,
) -> None:
    stored_submission(alphabeta_set, student[0])
    variant = variant_of_user(alphabeta_set, student[0])
    response = logged_in(student[0]).get(reverse("pages:item", args=[variant.pk, 1]),
                                         {"attempt": attempt_text})
    assert response.status_code == 200 and response.context["viewing"] is None

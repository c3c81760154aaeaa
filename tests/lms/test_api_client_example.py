"""The documented example client runs end to end against a live server."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import REPO

EXAMPLE = REPO / "docs" / "api-client-example.py"


@pytest.mark.django_db(transaction=True)
def test_the_example_client_walks_create_publish_submit_grades(
    live_server: Any, celery_eager: None
) -> None:
    from accounts.models import Course
    from accounts.services import create_account

    # The example enrols sara in a new course: instructors enrol members of their courses.
    first_course = Course.objects.create(slug="first", title="First")
    _, instructor_token = create_account(username="ines", role="instructor", course=first_course)
    _, student_token = create_account(username="sara", role="student", course=first_course)
    result = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--base-url",
            live_server.url,
            "--instructor-token",
            instructor_token,
            "--student-token",
            student_token,
            "--student-username",
            "sara",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "with sara enrolled" in lines[0]
    assert lines[1].endswith("is ready")
    assert lines[2].endswith(": graded, 2.0/2.0")  # the example computes the right answer
    assert "sara" in result.stdout.split("\n", 3)[3]

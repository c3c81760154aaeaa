"""LMS users carry the names and e-mails their platform sends, and the gradebook export
says who each row is (name, e-mail, LMS user id), not only an opaque username."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client

from lms.models import LtiUserLink
from tests.lms.conftest import grade_submission, launch
from tests.lms.simulator import PlatformSimulator
from tests.lms.test_launch import bind_link

pytestmark = pytest.mark.django_db


def test_a_launch_with_only_a_full_name_keeps_it(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])

    def only_name(claims: dict[str, Any]) -> None:
        del claims["given_name"], claims["family_name"]
        claims["name"] = "Ana Lopes Vidal"

    response = launch(
        Client(), simulator, "learner-7", ["Learner"], custom=link["custom"], tamper=only_name
    )
    assert response.status_code == 200 and b"Ana Lopes Vidal" in response.content
    user = LtiUserLink.objects.get(subject="learner-7").user
    assert user.get_full_name() == "Ana Lopes Vidal"


def test_grades_csv_and_passback_log_name_lms_users(
    simulator: PlatformSimulator,
    platform: Any,
    instructor: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    launch(
        Client(),
        simulator,
        "learner-1",
        ["Learner"],
        custom=link["custom"],
        line_item=simulator.add_line_item(),
    )
    user = LtiUserLink.objects.get(subject="learner-1").user
    problem_set = link["problem_set"]
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, user, "6")
    _, client = instructor
    response = client.get(f"/api/v1/problem-sets/{problem_set.pk}/grades.csv")
    assert response.status_code == 200
    [row] = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert row["username"] == user.username and row["username"].startswith("lti-")
    assert row["name"] == "Learner-1 Tester"
    assert row["email"] == "learner-1@lms.example.edu"
    assert row["lms_user_id"] == "learner-1"
    assert row["item_1"].startswith("6")
    [entry] = client.get("/api/v1/lti/passbacks/").json()
    assert entry["student_name"] == "Learner-1 Tester"

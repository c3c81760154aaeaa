"""Which LMS roles get into Cutoff, and as what: context roles only, teaching assistants
as a configurable course role (grader by default), observers and administrators who are not
members of the course refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import Enrollment, Role
from lms.models import LtiUserLink
from lms.services import CLAIM, role_for_claims
from tests.lms.conftest import launch
from tests.lms.simulator import PlatformSimulator
from tests.lms.test_launch import bind_link

LIS = "http://purl.imsglobal.org/vocab/lis/v2/"
SYSTEM_USER = LIS + "system/person#User"


@pytest.mark.parametrize(
    ("roles", "expected"),
    [
        ([LIS + "membership#Learner", SYSTEM_USER], Role.STUDENT),
        ([LIS + "membership/Learner#Learner"], Role.STUDENT),
        (["Learner"], Role.STUDENT),
        ([LIS + "membership#Instructor", SYSTEM_USER], Role.INSTRUCTOR),
        ([LIS + "membership#ContentDeveloper"], Role.INSTRUCTOR),
        ([LIS + "membership#TeachingAssistant"], Role.GRADER),
        ([LIS + "membership#Instructor", LIS + "membership/Instructor#TeachingAssistant"],
         Role.GRADER),
        # Canvas sends system#User for every signed-in user: an observer, or an
        # administrator not enrolled in the course, is no learner.
        ([LIS + "membership#Mentor", SYSTEM_USER], None),
        ([LIS + "institution/person#Administrator", SYSTEM_USER], None),
        ([LIS + "institution/person#Student", SYSTEM_USER], None),
        ([SYSTEM_USER], None),
        ([], None),
    ],
)
def test_lms_roles_map_to_course_roles(roles: list[str], expected: str | None) -> None:
    assert role_for_claims({CLAIM + "roles": roles}) == expected


@pytest.mark.parametrize(
    ("setting", "expected"),
    [("grader", Role.GRADER), ("instructor", Role.INSTRUCTOR), ("student", Role.STUDENT),
     ("none", None)],
)
def test_the_teaching_assistant_role_is_configurable(
    settings: Any, setting: str, expected: str | None
) -> None:
    settings.LTI_TEACHING_ASSISTANT_ROLE = setting
    claims = {CLAIM + "roles": [LIS + "membership#TeachingAssistant"]}
    assert role_for_claims(claims) == expected


@pytest.mark.django_db
def test_a_teaching_assistant_launches_as_a_grader_not_an_instructor(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    response = launch(Client(), simulator, "ta-1", ["TeachingAssistant"], custom=link["custom"])
    assert response.status_code == 200 and b"You grade this course" in response.content
    user = LtiUserLink.objects.get(subject="ta-1").user
    assert user.role == Role.STUDENT and not user.is_instructor
    course = link["problem_set"].course
    assert Enrollment.objects.get(user=user, course=course).role == Role.GRADER


@pytest.mark.django_db
def test_an_observer_signed_in_to_canvas_is_refused(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])

    def as_observer(claims: dict[str, Any]) -> None:
        claims[CLAIM + "roles"] = [LIS + "membership#Mentor", SYSTEM_USER]

    response = launch(
        Client(), simulator, "observer-1", ["Mentor"], custom=link["custom"], tamper=as_observer
    )
    assert response.status_code == 403 and b"observers" in response.content
    assert not LtiUserLink.objects.filter(subject="observer-1").exists()

"""Enrolment never reveals whether a username exists: an account outside the instructor's
courses and a name no account has get the same answer, and neither is enrolled. (Asked to
create missing accounts, it shows which names are taken, as any sign-up does, and no more.)"""

from __future__ import annotations

from typing import Any

from accounts.models import Enrollment
from accounts.services import create_account


def test_foreign_and_unknown_accounts_get_the_same_answer_and_are_not_enrolled(
    instructor: Any, course: Any, other_course: Any, student: Any
) -> None:
    create_account(username="stranger", role="student", course=other_course)
    create_account(username="loner", role="student")
    url = f"/api/v1/courses/{course.id}/enrollments/"
    answers = {
        name: instructor[1].post(url, {"usernames": [name]}, format="json")
        for name in ("stranger", "loner", "nobody")
    }
    bodies = {name: (response.status_code, response.json()) for name, response in answers.items()}
    assert bodies["stranger"][0] == bodies["loner"][0] == bodies["nobody"][0] == 200
    shapes = {name: [(entry["reason"]) for entry in body["not_enrolled"]]
              for name, (_, body) in bodies.items()}
    assert shapes["stranger"] == shapes["loner"] == shapes["nobody"]
    assert all(body["enrolled"] == [] for _, body in bodies.values())
    assert not Enrollment.objects.filter(course=course, user__username__in=["stranger", "loner"])
    # Asking to create them: the free name is created, the taken ones are still not enrolled.
    created = instructor[1].post(
        url, {"usernames": ["stranger", "loner", "nobody"], "create_missing": True}, format="json"
    ).json()
    assert created["enrolled"] == [{"username": "nobody", "role": "student"}]
    assert [entry["username"] for entry in created["not_enrolled"]] == ["stranger", "loner"]
    assert not Enrollment.objects.filter(course=course, user__username__in=["stranger", "loner"])


def test_members_of_the_instructors_other_courses_are_enrolled(
    instructor: Any, course: Any, student: Any
) -> None:
    from accounts.services import create_course

    new_course = create_course(creator=instructor[0], slug="second", title="Second")
    response = instructor[1].post(f"/api/v1/courses/{new_course.id}/enrollments/",
                                  {"usernames": ["sara"]}, format="json")
    assert response.status_code == 200
    assert response.json() == {"enrolled": [{"username": "sara", "role": "student"}],
                               "not_enrolled": []}


def test_a_student_account_is_not_made_an_instructor_of_a_course(
    instructor: Any, course: Any, student: Any, other_instructor: Any
) -> None:
    from accounts.services import NOT_A_TEACHER_REASON, enroll

    enroll(course=course, user=other_instructor[0], role="student")
    url = f"/api/v1/courses/{course.id}/enrollments/"
    response = instructor[1].post(url, {"usernames": ["sara", other_instructor[0].username,
                                                      "newcomer"],
                                        "role": "instructor", "create_missing": True},
                                  format="json")

    assert response.status_code == 200
    body = response.json()
    # An instructor account teaches; a student account would half teach (it could edit the
    # set but not read its submissions); no account is created to teach.
    assert body["enrolled"] == [{"username": other_instructor[0].username, "role": "instructor"}]
    assert {entry["username"]: entry["reason"] for entry in body["not_enrolled"]}["sara"] \
        == NOT_A_TEACHER_REASON
    assert Enrollment.objects.get(course=course, user=student[0]).role == "student"
    assert not Enrollment.objects.filter(user__username="newcomer").exists()

"""Read-only queries about users, courses and enrolments."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db.models import QuerySet

from accounts.models import Course, Enrollment, Role, User
from config.plain_sql import quoted_column, quoted_table


def courses_taught_by(user: User) -> QuerySet[Course]:
    """Return the courses in which ``user`` is an instructor."""
    return Course.objects.filter(enrollments__user=user, enrollments__role=Role.INSTRUCTOR)


def is_course_instructor(user: User, course: Course | int) -> bool:
    """Return whether ``user`` teaches ``course`` (a course or its id)."""
    course_id = course if isinstance(course, int) else course.pk
    return Enrollment.objects.filter(
        user=user, course_id=course_id, role=Role.INSTRUCTOR
    ).exists()


def is_course_grader(user: User, course: Course | int) -> bool:
    """Return whether ``user`` may read the submissions of ``course`` (its instructors and
    graders)."""
    course_id = course if isinstance(course, int) else course.pk
    return Enrollment.objects.filter(
        user=user, course_id=course_id, role__in=(Role.INSTRUCTOR, Role.GRADER)
    ).exists()


def enrolled_course_ids(user: User) -> QuerySet[Enrollment, Any]:
    """Return the ids of the courses ``user`` is enrolled in (any role), as a subquery."""
    return Enrollment.objects.filter(user=user).values("course_id")


@cache
def enrolled_course_ids_sql() -> str:
    """Return :func:`enrolled_course_ids` as a plain-SQL subquery of one ``%s``: the user's
    id (for the hot paths' plain-SQL reads)."""
    course, user = (quoted_column(Enrollment, name) for name in ("course", "user"))
    return f"SELECT {course} FROM {quoted_table(Enrollment)} WHERE {user} = %s"


def course_students(course: Course) -> QuerySet[User]:
    """Return the students enrolled in ``course``, in a stable order."""
    return User.objects.filter(
        enrollments__course=course, enrollments__role=Role.STUDENT
    ).order_by("id")

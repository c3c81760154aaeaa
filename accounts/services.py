"""Create accounts, courses and enrolments; every write to this app goes through here."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from rest_framework.authtoken.models import Token

from accounts.models import ACCOUNT_ROLES, Course, Enrollment, Role, User
from accounts.selectors import courses_taught_by
from config.api import ApiError


def create_account(
    *, username: str, role: str, password: str | None = None, course: Course | None = None
) -> tuple[User, str]:
    """Create (or reuse) the account ``username`` with ``role``; return it and its API token.

    Running it again for the same username keeps the account and its token (idempotent), so
    set-up scripts can call it on every start.
    """
    if role not in ACCOUNT_ROLES:
        raise ApiError(
            f"role must be one of {', '.join(ACCOUNT_ROLES)}",
            code="invalid",
            details={"role": role},
        )
    with transaction.atomic():
        user, created = User.objects.get_or_create(username=username, defaults={"role": role})
        if not created and user.role != role:
            user.role = role
            user.save(update_fields=["role"])
        if password:
            user.set_password(password)
            user.save(update_fields=["password"])
        elif created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        token, _ = Token.objects.get_or_create(user=user)
        if course is not None:
            enroll(course=course, user=user, role=role)
    return user, token.key


def create_course(*, creator: User, slug: str, title: str) -> Course:
    """Create a course with ``creator`` as its first instructor."""
    if not creator.is_instructor:
        raise ApiError(
            "only instructors may create courses", code="permission_denied", status_code=403
        )
    with transaction.atomic():
        if Course.objects.filter(slug=slug).exists():
            raise ApiError(
                f"slug: a course with slug {slug!r} already exists; choose another slug",
                code="conflict",
                status_code=409,
                details={"slug": slug},
            )
        course = Course.objects.create(slug=slug, title=title)
        Enrollment.objects.create(course=course, user=creator, role=Role.INSTRUCTOR)
    return course


def enroll(*, course: Course, user: User, role: str) -> Enrollment:
    """Enrol ``user`` in ``course`` with ``role``; enrolling twice keeps one enrolment."""
    enrollment, created = Enrollment.objects.get_or_create(
        course=course, user=user, defaults={"role": role}
    )
    if not created and enrollment.role != role:
        enrollment.role = role
        enrollment.save(update_fields=["role"])
    return enrollment


NOT_ENROLLED_REASON = (
    "not enrolled: no account by this name is a member of a course you teach, and none was "
    "created (create_missing creates accounts whose name is free)"
)
"""The one reason given for every name not enrolled, whether an account has it or not, so
the answer never tells an instructor which usernames exist elsewhere (with create_missing,
a name not created is one some account has, and only that shows)."""


NOT_A_TEACHER_REASON = (
    "not enrolled: a student account cannot teach a course; enrol it as a grader, or give the "
    "person an instructor account"
)
"""Why an account of the instructor's own courses was not made an instructor: course staff
endpoints are for instructor accounts, so a student account made one would half teach."""


@dataclass(frozen=True)
class EnrolmentOutcome:
    """Who a bulk enrolment enrolled, and the names it did not: ``not_enrolled`` (one reason
    for all) and ``not_teachers`` (student accounts asked to teach)."""

    enrolled: list[Enrollment]
    not_enrolled: list[str]
    not_teachers: list[str]


def enroll_usernames(
    *, course: Course, usernames: list[str], role: str, create_missing: bool, by: User
) -> EnrolmentOutcome:
    """Enrol each named account that ``by`` already shares a course with; with
    ``create_missing``, create and enrol the names no account has.

    Any other name (no account and ``create_missing`` unset, or an account of someone else's
    courses only) is listed as not enrolled, for the same reason whichever it is: an
    instructor can neither enrol strangers nor learn from the answer whether they exist.
    With ``role`` instructor only instructor accounts are enrolled (none is created): a
    student account of ``by``'s courses is listed in ``not_teachers``.
    """
    known = {
        user.username: user
        for user in User.objects.filter(
            username__in=usernames, enrollments__course__in=courses_taught_by(by)
        ).distinct()
    }
    taken = set(User.objects.filter(username__in=usernames).values_list("username", flat=True))
    enrolled, not_enrolled, not_teachers = [], [], []
    teaching = role == Role.INSTRUCTOR
    with transaction.atomic():
        for name in dict.fromkeys(usernames):
            if name not in known and create_missing and name not in taken and not teaching:
                known[name], _ = create_account(username=name, role=Role.STUDENT)
            if name in known and teaching and not known[name].is_instructor:
                not_teachers.append(name)
            elif name in known:
                enrolled.append(enroll(course=course, user=known[name], role=role))
            else:
                not_enrolled.append(name)
    return EnrolmentOutcome(enrolled, not_enrolled, not_teachers)

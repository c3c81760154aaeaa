"""Create accounts, courses and enrolments; every write to this app goes through here."""

from __future__ import annotations

from django.db import transaction
from rest_framework.authtoken.models import Token

from accounts.models import ACCOUNT_ROLES, Course, Enrollment, Role, User
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


def enroll_usernames(
    *, course: Course, usernames: list[str], role: str, create_missing: bool
) -> list[Enrollment]:
    """Enrol each named user; create missing accounts only when ``create_missing`` is set."""
    existing = {u.username: u for u in User.objects.filter(username__in=usernames)}
    missing = [name for name in usernames if name not in existing]
    if missing and not create_missing:
        raise ApiError(
            "usernames: these accounts do not exist (set create_missing to create them): "
            + ", ".join(missing),
            code="not_found",
            details={"missing": missing},
        )
    with transaction.atomic():
        for name in missing:
            existing[name], _ = create_account(username=name, role=Role.STUDENT)
        return [enroll(course=course, user=existing[name], role=role) for name in usernames]

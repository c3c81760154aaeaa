"""Read-only queries about platforms, LTI links, passbacks, API clients and scores."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import connection
from django.db.models import Q, QuerySet, Sum
from django.utils import timezone

from accounts.models import User
from accounts.selectors import courses_taught_by
from config.plain_sql import quoted_column, quoted_table
from exercises.models import ProblemSet
from grading.models import Submission
from grading.selectors import counted_submission
from lms.models import ApiClient, LtiContext, LtiResourceLink, Platform, ScorePassback, ToolKey

AGS_SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def platforms_owned_by(user: User) -> QuerySet[Platform]:
    """Return the platforms ``user`` registered (every platform for a superuser)."""
    platforms = Platform.objects.select_related("tool_key").order_by("id")
    return platforms if user.is_superuser else platforms.filter(owner=user)


def tool_keys_in_use() -> QuerySet[ToolKey]:
    """Return the keys our JWKS must publish: those of active platforms, and those a
    rotation replaced less than ``LTI_TOOL_KEY_GRACE_HOURS`` ago (a platform may still
    hold a message we signed with one, or cache our old key set)."""
    grace_start = timezone.now() - timedelta(hours=settings.LTI_TOOL_KEY_GRACE_HOURS)
    return (
        ToolKey.objects.filter(
            Q(platforms__is_active=True) | Q(retired_at__gte=grace_start)
        )
        .distinct()
        .order_by("id")
    )


def contexts_visible_to(user: User) -> QuerySet[LtiContext]:
    """Return the LMS courses linked to courses ``user`` teaches."""
    return (
        LtiContext.objects.filter(course__in=courses_taught_by(user))
        .select_related("platform", "course")
        .order_by("id")
    )


def problem_sets_for_deep_linking(context: LtiContext) -> QuerySet[ProblemSet]:
    """Return the problem sets an instructor may place in ``context``'s LMS course."""
    return ProblemSet.objects.filter(course=context.course).order_by("-created_at", "-id")


def problem_set_max_score(problem_set: ProblemSet) -> Decimal:
    """Return the points a problem set is worth (the sum of its items' points)."""
    total = problem_set.items.aggregate(total=Sum("points"))["total"]
    return Decimal(total or 0)


def problem_set_score(problem_set: ProblemSet, student: User) -> Decimal:
    """Return ``student``'s total on ``problem_set`` as the gradebook counts it: per item, the
    submission the set's score policy picks (best or last), summed."""
    by_item: dict[int, list[Submission]] = {}
    submissions = Submission.objects.filter(
        student=student, variant_item__variant__problem_set=problem_set
    ).only("variant_item_id", "status", "score", "attempt_number")
    for submission in submissions:
        by_item.setdefault(submission.variant_item_id, []).append(submission)
    counted = [counted_submission(group, problem_set.score_policy) for group in by_item.values()]
    return sum(
        (chosen.score for chosen in counted if chosen is not None and chosen.score is not None),
        Decimal(0),
    )


def problem_set_progress(problem_set: ProblemSet, student: User) -> tuple[str, str]:
    """Return the AGS (activityProgress, gradingProgress) of ``student`` on ``problem_set``.

    While an answer awaits grading the total may still change: ``Submitted``/``Pending``
    (no passback is sent then, lms.services.send_score_passback).
    Otherwise the total is final (``FullyGraded``), and the activity ``Submitted`` once every
    item has an answer that counts, ``InProgress`` before: an answer that ended in an error
    (Cutoff could not grade it) earned nothing, uses no attempt, and may be sent again.
    """
    submissions = Submission.objects.filter(
        student=student, variant_item__variant__problem_set=problem_set
    )
    if submissions.filter(
        status__in=(Submission.Status.QUEUED, Submission.Status.RUNNING)
    ).exists():
        return "Submitted", "Pending"
    answered = submissions.exclude(status=Submission.Status.ERROR).order_by().values(
        "variant_item__item_id").distinct().count()
    if answered >= problem_set.items.count():
        return "Submitted", "FullyGraded"
    return "InProgress", "FullyGraded"


def has_resource_links(problem_set_id: int) -> bool:
    """Return whether ``problem_set_id`` is linked from any LMS at all.

    Asked for every grade, so it is one plain SQL EXISTS: Django builds the equivalent
    ``exists()`` query in about six times the CPU the query itself costs (bench/README.md).
    """
    # Only names from the model's own metadata are formatted in; the value is a parameter.
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT EXISTS (SELECT 1 FROM {quoted_table(LtiResourceLink)} WHERE "
            f"{quoted_column(LtiResourceLink, 'problem_set')} = %s)", [problem_set_id],
        )
        return bool(cursor.fetchone()[0])


def resource_links_for_passback(problem_set_id: int, student_id: int) -> list[LtiResourceLink]:
    """Return the LMS links of ``problem_set_id`` whose platform knows ``student_id`` and
    accepts scores."""
    if not has_resource_links(problem_set_id):
        return []  # most grades: the set is used outside any LMS
    links = LtiResourceLink.objects.filter(
        problem_set_id=problem_set_id,
        platform__is_active=True,
        platform__user_links__user_id=student_id,
    ).select_related("platform")
    # Filtered here: JSON containment lookups are not available on SQLite.
    return [link for link in links.distinct() if AGS_SCORE_SCOPE in link.ags_scopes]


def passbacks_visible_to(user: User) -> QuerySet[ScorePassback]:
    """Return the passbacks of problem sets in courses ``user`` teaches, newest first."""
    return ScorePassback.objects.filter(
        resource_link__problem_set__course__in=courses_taught_by(user)
    ).select_related("resource_link", "student")


def passbacks_to_look_at(problem_set: ProblemSet) -> QuerySet[ScorePassback]:
    """Return the problem set's failed and refused passbacks, newest first."""
    return (
        ScorePassback.objects.filter(
            resource_link__problem_set=problem_set,
            status__in=(ScorePassback.Status.FAILED, ScorePassback.Status.REFUSED),
        )
        .select_related("student")
        .order_by("-created_at", "-id")
    )


def api_clients_owned_by(user: User) -> QuerySet[ApiClient]:
    """Return the API clients ``user`` created, newest first."""
    return ApiClient.objects.filter(owner=user).order_by("-created_at", "-id")

"""Read-only queries about problem sets, variants and what a student may see."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Prefetch, QuerySet

from accounts.models import User
from accounts.selectors import course_students, courses_taught_by, enrolled_course_ids
from exercises.models import ProblemSet, Variant, VariantItem


def problem_sets_taught_by(user: User) -> QuerySet[ProblemSet]:
    """Return the problem sets of the courses ``user`` teaches."""
    return ProblemSet.objects.filter(course__in=courses_taught_by(user)).select_related("course")


def problem_set_with_answers(user: User, problem_set_id: int) -> ProblemSet | None:
    """Return the problem set with its items and every variant's keys, if ``user`` teaches it."""
    variant_items = VariantItem.objects.only(
        "id", "variant_id", "position", "answer_key", "engine_version"
    ).order_by("position")
    return (
        problem_sets_taught_by(user)
        .prefetch_related(
            "items",
            Prefetch(
                "variants",
                queryset=Variant.objects.select_related("student")
                .prefetch_related(Prefetch("items", queryset=variant_items))
                .order_by("student__username"),
            ),
        )
        .filter(pk=problem_set_id)
        .first()
    )


def students_missing_variants(problem_set: ProblemSet) -> list[int]:
    """Return the ids of the course's students who have no variant of ``problem_set`` yet."""
    return list(
        course_students(problem_set.course)
        .exclude(variants__problem_set=problem_set)
        .values_list("id", flat=True)
    )


def variants_of(student: User) -> QuerySet[Variant]:
    """Return ``student``'s variants (assignments), newest problem set first.

    Only in courses the student is still enrolled in: one who left (an LMS roster sync
    unenrols them) keeps their submissions but no longer sees or answers the assignments.
    """
    return (
        Variant.objects.filter(student=student,
                               problem_set__course_id__in=enrolled_course_ids(student))
        .select_related("problem_set", "problem_set__course")
        .order_by("-problem_set__created_at", "-id")
    )


def variant_of(student: User, variant_id: int) -> Variant | None:
    """Return ``student``'s variant ``variant_id`` with its items, or None if not theirs."""
    return (
        variants_of(student)
        .prefetch_related("items", "items__item")
        .filter(pk=variant_id)
        .first()
    )


def answers_visible(variant: Variant, now: datetime) -> bool:
    """Return whether the student may see the answer keys of ``variant`` at ``now``.

    Keys show once the due date has passed. Grading extends this with "the last attempt has
    been used", which needs submissions (see grading.selectors).
    """
    due_at = variant.problem_set.due_at
    return due_at is not None and now >= due_at

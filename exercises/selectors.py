"""Read-only queries about problem sets, variants and what a student may see."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from django.db.models import Prefetch, QuerySet

from accounts.models import User
from accounts.selectors import (
    course_students,
    courses_taught_by,
    enrolled_course_ids,
    enrolled_course_ids_sql,
)
from config.plain_sql import JoinedRead, MatchedRow, cache_prefetched
from exercises.models import Extension, ProblemSet, Variant, VariantItem


def problem_sets_taught_by(user: User) -> QuerySet[ProblemSet]:
    """Return the problem sets of the courses ``user`` teaches, archived ones included."""
    return ProblemSet.objects.filter(course__in=courses_taught_by(user)).select_related("course")


def problem_sets_listed_for(user: User, *, archived: bool = False) -> QuerySet[ProblemSet]:
    """Return the problem sets ``user`` teaches, archived ones or the others, newest first."""
    return problem_sets_taught_by(user).filter(archived_at__isnull=not archived).order_by(
        "-created_at", "-id"
    )


@dataclass(frozen=True)
class Rules:
    """The deadline, attempt limit and time limit that hold for one student's variant."""

    due_at: datetime | None
    max_attempts: int | None
    time_limit_minutes: int | None
    extended: bool = False


RULES_CACHE = "_cutoff_rules"
"""Attribute of a Variant instance holding its :class:`Rules`, computed once per request."""
EXTENSIONS_PREFETCHED = "student_extensions"
"""The attribute of a problem set holding the student's extensions, as read with the variant
(:func:`variants_of`, :func:`variant_of`), so :func:`rules_for` needs no query."""


def rules_for(variant: Variant) -> Rules:
    """Return the rules of ``variant``: its set's, with the student's extension applied.

    An extension's due date and time limit replace the set's; its extra attempts add to a
    limited set's attempts. Reads the extensions prefetched by :func:`variants_of` when
    present, else one query; the result is kept on the instance.
    """
    cached = getattr(variant, RULES_CACHE, None)
    if isinstance(cached, Rules):
        return cached
    problem_set = variant.problem_set
    prefetched = getattr(problem_set, EXTENSIONS_PREFETCHED, None)
    if prefetched is not None:
        extension = next((e for e in prefetched if e.student_id == variant.student_id), None)
    else:
        read, sql = _extension_read()
        extension = read.fetch_one(sql, [variant.problem_set_id, variant.student_id])
    rules = apply_extension(problem_set, extension)
    setattr(variant, RULES_CACHE, rules)
    return rules


def extension_beside(problem_set_path: str) -> MatchedRow:
    """Return the student's extension on the set at ``problem_set_path``, read beside a
    joined read (its parameter is the student) and cached as :func:`variants_of` caches it
    for :func:`rules_for`."""
    return MatchedRow(problem_set_path, EXTENSIONS_PREFETCHED, Extension,
                      on={"problem_set": problem_set_path, "student": None})


@cache
def _extension_read() -> tuple[JoinedRead, str]:
    """Return the plain-SQL read of a student's extension on a set (at most one: a unique
    constraint), which every submit runs."""
    read = JoinedRead(Extension)
    return read, read.select(f"{read.column('problem_set')} = %s"
                             f" AND {read.column('student')} = %s")


def apply_extension(problem_set: ProblemSet, extension: Extension | None) -> Rules:
    """Return ``problem_set``'s rules with ``extension`` (if any) applied."""
    if extension is None:
        return Rules(problem_set.due_at, problem_set.max_attempts,
                     problem_set.time_limit_minutes)
    attempts = problem_set.max_attempts
    return Rules(
        due_at=extension.due_at or problem_set.due_at,
        max_attempts=attempts + extension.extra_attempts if attempts else None,
        time_limit_minutes=extension.time_limit_minutes or problem_set.time_limit_minutes,
        extended=True,
    )


def extensions_of(problem_set: ProblemSet) -> QuerySet[Extension]:
    """Return the extensions granted on ``problem_set``, by username."""
    return problem_set.extensions.select_related("student", "granted_by").order_by(
        "student__username"
    )


def problem_set_with_answers(user: User, problem_set_id: int) -> ProblemSet | None:
    """Return the problem set with its items and every variant's keys, if ``user`` teaches it."""
    keyed_items = VariantItem.objects.only(
        "id", "variant_id", "position", "answer_key", "engine_version"
    ).order_by("position")
    return (
        problem_sets_taught_by(user)
        .prefetch_related(
            "items",
            Prefetch(
                "variants",
                queryset=Variant.objects.select_related("student")
                .prefetch_related(Prefetch("items", queryset=keyed_items))
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
    Archived sets are left out likewise. The student's extensions come along (see
    :func:`rules_for`).
    """
    return (
        Variant.objects.filter(student=student,
                               problem_set__course_id__in=enrolled_course_ids(student),
                               problem_set__archived_at__isnull=True)
        .select_related("problem_set", "problem_set__course")
        .prefetch_related(Prefetch("problem_set__extensions",
                                   queryset=Extension.objects.filter(student=student),
                                   to_attr=EXTENSIONS_PREFETCHED))
        .order_by("-problem_set__created_at", "-id")
    )


def variant_of(student: User, variant_id: int) -> Variant | None:
    """Return ``student``'s variant ``variant_id`` with its problem set, course, the student's
    extension and its items with their exercises (as :func:`variants_of` reads them; their
    traces are loaded on access), or None if not theirs. Plain SQL, two statements: every
    student of an exam opens it."""
    read, sql = _variant_read()
    variant: Variant | None = read.fetch_one(sql, [student.pk, variant_id, student.pk,
                                                   student.pk])
    if variant is None:
        return None
    cache_prefetched(variant, "items", variant_items(variant.pk))
    return variant


def variant_items(variant_id: int) -> list[VariantItem]:
    """Return variant ``variant_id``'s items by position, each with its exercise, without
    their grading traces (loaded on access)."""
    items_read, items_sql = _variant_items_read()
    items: list[VariantItem] = items_read.fetch(items_sql, [variant_id])
    return items


@cache
def _variant_read() -> tuple[JoinedRead, str]:
    """Return the plain-SQL read of one of a student's variants, as :func:`variants_of`
    filters them (enrolled, not archived), with the student's extension (the first
    parameter is the student)."""
    read = JoinedRead(Variant, related=("problem_set", "problem_set__course"),
                      matched=(extension_beside("problem_set"),))
    column = read.column
    return read, read.select(
        f"{column('id')} = %s AND {column('student')} = %s"
        f" AND {column('problem_set__archived_at')} IS NULL"
        f" AND {column('problem_set__course')} IN ({enrolled_course_ids_sql()})"
    )


@cache
def _variant_items_read() -> tuple[JoinedRead, str]:
    """Return the plain-SQL read of a variant's items with their exercises, by position."""
    # Without the grading trace (an alpha-beta item's is ~7 kB of JSON, eight times its
    # problem): an open never shows it; the item page's replay loads its one item's.
    read = JoinedRead(VariantItem, related=("item",), defer=("trace",))
    return read, read.select(f"{read.column('variant')} = %s", order_by=("position",))


DEADLINE_GRACE = timedelta(seconds=5)
"""Time past a due date or a quiz's limit still taken as on time: an answer sent at the last
second is in flight."""


def answers_visible(variant: Variant, now: datetime) -> bool:
    """Return whether the student may see the answer keys of ``variant`` at ``now``.

    Keys show once the due date (the student's own, with an extension) and its
    :data:`DEADLINE_GRACE` have passed and late answers are refused: while a late penalty
    takes them, a key shown would be copied into one. Grading extends this with "the last
    attempt has been used", which needs submissions (see grading.selectors).
    """
    due_at = rules_for(variant).due_at
    return (due_at is not None and now > due_at + DEADLINE_GRACE
            and variant.problem_set.late_policy == ProblemSet.LatePolicy.REFUSE)


def quiz_closes_at(variant: Variant) -> datetime | None:
    """Return when the student's timed quiz closes: when its time limit runs out, or at the
    due date if that comes first and late answers are refused (the countdown must not show
    time no answer can use); None if it is not timed or not opened yet."""
    rules = rules_for(variant)
    if not rules.time_limit_minutes or variant.opened_at is None:
        return None
    ends = variant.opened_at + timedelta(minutes=rules.time_limit_minutes)
    if (rules.due_at is not None
            and variant.problem_set.late_policy == ProblemSet.LatePolicy.REFUSE):
        return min(ends, rules.due_at)
    return ends


def items_closed_by_seen_keys(problem_set: ProblemSet, student_ids: Sequence[int]
                              ) -> dict[int, list[int]]:
    """Return, per student of ``student_ids``, the positions of their items of
    ``problem_set`` whose answer key (or replay) they were shown: those take no more of
    their attempts (``VariantItem.keys_seen_at``)."""
    closed: dict[int, list[int]] = {}
    rows = VariantItem.objects.filter(
        variant__problem_set=problem_set, variant__student_id__in=list(student_ids),
        keys_seen_at__isnull=False,
    ).order_by("position").values_list("variant__student_id", "position")
    for student_id, position in rows:
        closed.setdefault(student_id, []).append(position)
    return closed

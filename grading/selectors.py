"""Read-only queries about submissions, attempts, grades, regrades and webhooks."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache

from django.db import connection
from django.db.models import Count, Q, QuerySet

from accounts.models import User
from accounts.selectors import (
    course_students,
    courses_taught_by,
    enrolled_course_ids_sql,
    is_course_grader,
)
from config.plain_sql import JoinedRead, quoted_column, quoted_table, read_fields
from exercises.kinds import get_kind
from exercises.kinds.base import CHOICE_PART
from exercises.models import ProblemSet, Variant, VariantItem
from exercises.selectors import answers_visible as due_date_passed
from exercises.selectors import extension_beside, rules_for
from grading.feedback_policy import policy_in_force
from grading.finished import wait_until_finished
from grading.models import (
    CodeCheck,
    Draft,
    Regrade,
    RegradeRequest,
    ScoreChange,
    Submission,
    Webhook,
    WebhookDelivery,
)
from grading.statistics import Attempt, ItemStats, item_statistics


def attempts_used(variant_item: VariantItem) -> int:
    """Return how many attempts the student used on ``variant_item``.

    A submission that failed on our side (``error``) does not use an attempt.
    """
    return variant_item.submissions.exclude(status=Submission.Status.ERROR).count()


def last_attempt_used(variant: Variant) -> bool:
    """Return whether every item of ``variant`` has used its last allowed attempt."""
    limit = rules_for(variant).max_attempts
    if not limit:
        return False
    exhausted = (
        Submission.objects.filter(variant_item__variant=variant)
        .exclude(status=Submission.Status.ERROR)
        .values("variant_item")
        .annotate(used=Count("pk"))
        .filter(used__gte=limit)
        .count()
    )
    return exhausted > 0 and exhausted == variant.items.count()


def answers_visible(variant: Variant, now: datetime) -> bool:
    """Return whether the student may see the keys: the due date passed or attempts ran out.

    Extends :func:`exercises.selectors.answers_visible` (the due date) with the attempts rule.
    """
    return due_date_passed(variant, now) or last_attempt_used(variant)


@dataclass(frozen=True)
class FeedbackView:
    """How a submission's feedback is served to one reader: keys shown or not, and the policy."""

    answers_visible: bool
    policy: str


def feedback_view(submission: Submission, viewer: User | None, now: datetime) -> FeedbackView:
    """Return how ``viewer`` sees ``submission``'s feedback at ``now`` (``None``: as its student).

    The set's feedback policy holds while the student's answers are hidden; instructors and
    graders of the course read the full feedback (see :mod:`grading.feedback_policy`).
    """
    variant = submission.variant_item.variant
    visible = answers_visible(variant, now)
    course_staff = (
        viewer is not None and viewer.pk != submission.student_id
        and is_course_grader(viewer, variant.problem_set.course_id)
    )
    policy = policy_in_force(variant.problem_set, answers_visible=visible, instructor=course_staff)
    return FeedbackView(visible, policy)


VARIANT_ITEM_BULK = ("problem", "prompt", "answer_key", "trace")
"""A variant item's generated JSON columns: large, and not needed to show a submission."""


def submission_for(user: User, submission_id: int) -> Submission | None:
    """Return submission ``submission_id`` if ``user`` owns it, teaches or grades its
    course."""
    read, sql = _submission_read()
    submission: Submission | None = read.fetch_one(sql, [submission_id])
    if submission is None:
        return None
    if submission.student_id == user.pk or is_course_grader(
        user, submission.variant_item.variant.problem_set.course_id
    ):
        return submission
    return None


@cache
def _submission_read() -> tuple[JoinedRead, str]:
    """Return the plain-SQL read of :func:`submission_for` (every status request runs it)."""
    # The course row is not needed (its id is on the problem set), nor the variant item's
    # generated JSON (problem, key, trace: tens of kilobytes).
    read = JoinedRead(Submission, related=("variant_item", "variant_item__item",
                                           "variant_item__variant",
                                           "variant_item__variant__problem_set"),
                      defer=[f"variant_item__{name}" for name in VARIANT_ITEM_BULK])
    return read, read.select(f"{read.column('id')} = %s")


def is_finished(submission: Submission) -> bool:
    """Return whether ``submission`` will not change any more without a regrade."""
    return submission.status in (Submission.Status.GRADED, Submission.Status.ERROR)


def submission_for_when_finished(user: User, submission_id: int, seconds: float
                                 ) -> Submission | None:
    """Return :func:`submission_for` once the submission is graded or failed, or after
    ``seconds`` (0: at once) as it is then; None at once if it is not ``user``'s to see."""
    if not seconds:
        return submission_for(user, submission_id)
    return wait_until_finished(submission_id, seconds,
                               read=lambda: submission_for(user, submission_id),
                               finished=lambda found: found is None or is_finished(found))


GRADE_FIELDS = ("status", "started_at", "graded_at", "raw_score", "score", "max_score",
                "results", "error_code", "graded_engine_version", "overridden")
"""The columns grading writes: what a waiting request re-reads once the grade is in."""


def with_grade_when_finished(submission: Submission, seconds: float) -> Submission:
    """Return ``submission`` once it is graded or failed, its grade re-read; or after
    ``seconds`` at most, as it is then.

    Only the grade columns are read (once, and again on each notice): the rest of the row
    and its joined item do not change.
    """
    latest = wait_until_finished(
        submission.pk, seconds,
        read=lambda: read_fields(Submission, submission.pk, GRADE_FIELDS),
        finished=lambda latest: latest is None or latest.status in (Submission.Status.GRADED,
                                                                    Submission.Status.ERROR),
    )
    if latest is not None:
        for name in GRADE_FIELDS:
            setattr(submission, name, getattr(latest, name))
    return submission


def submission_to_grade(submission_id: int) -> Submission:
    """Return submission ``submission_id`` with its item's key, exercise, variant and
    problem set: what grading reads (each grading task runs this)."""
    read, sql = _submission_to_grade_read()
    found: Submission | None = read.fetch_one(sql, [submission_id])
    if found is None:
        raise Submission.DoesNotExist(f"no submission {submission_id}")
    return found


@cache
def _submission_to_grade_read() -> tuple[JoinedRead, str]:
    """Return the plain-SQL read of :func:`submission_to_grade`."""
    read = grading_read()
    return read, read.select(f"{read.column('id')} = %s")


@cache
def grading_read() -> JoinedRead:
    """Return the read of a submission with what grading needs (:func:`submission_to_grade`),
    for statements that read it so."""
    # The student and course rows are read only when a webhook event needs them.
    return JoinedRead(Submission, related=("variant_item", "variant_item__item",
                                           "variant_item__variant",
                                           "variant_item__variant__problem_set"))


def submission_by_idempotency_key(student: User, key: str) -> Submission | None:
    """Return the submission ``student`` made with ``key``, if any."""
    if not key:
        return None
    read, sql = _idempotency_key_read()
    found: Submission | None = read.fetch_one(sql, [student.pk, key])
    return found


@cache
def _idempotency_key_read() -> tuple[JoinedRead, str]:
    """Return the plain-SQL read of a student's submission by its key (unique per student)."""
    read = JoinedRead(Submission)
    return read, read.select(f"{read.column('student')} = %s"
                             f" AND {read.column('idempotency_key')} = %s")


def attempt_counts(variant_item_id: int) -> tuple[int, int]:
    """Return (attempts used, highest attempt number) of the item's submissions, 0 if none.

    A submission that failed on our side (``error``) does not use an attempt, but keeps its
    number. Every submit runs this under the item's lock: plain SQL.
    """
    with connection.cursor() as cursor:
        cursor.execute(_attempt_counts_sql(), [Submission.Status.ERROR, variant_item_id])
        used, last = cursor.fetchone()
    return int(used or 0), int(last or 0)


@cache
def _attempt_counts_sql() -> str:
    """Return the SELECT of :func:`attempt_counts`."""
    def column(name: str) -> str:
        return quoted_column(Submission, name)

    return (f"SELECT SUM(CASE WHEN {column('status')} <> %s THEN 1 ELSE 0 END),"
            f" MAX({column('attempt_number')}) FROM {quoted_table(Submission)}"
            f" WHERE {column('variant_item')} = %s")


def student_variant_item(student: User, variant_id: int, position: int) -> VariantItem | None:
    """Return item ``position`` of ``student``'s variant ``variant_id`` (None if not theirs,
    if they are no longer enrolled in its course, or if the set is archived), with its
    exercise, variant, problem set and the student's extension on it, in one statement."""
    read, sql = _student_variant_item_read()
    found: VariantItem | None = read.fetch_one(
        sql, [student.pk, variant_id, student.pk, position, student.pk])
    return found


@cache
def _student_variant_item_read() -> tuple[JoinedRead, str]:
    """Return the plain-SQL read of :func:`student_variant_item` (every submit runs it)."""
    # Validating and storing an answer needs the problem (for its node names), not the key
    # or the trace: those are read by the grading task.
    # With the student's extension (their due date and attempts), for rules_for.
    read = JoinedRead(VariantItem, related=("item", "variant", "variant__problem_set"),
                      defer=("answer_key", "trace"),
                      matched=(extension_beside("variant__problem_set"),))
    column = read.column
    return read, read.select(
        f"{column('variant')} = %s AND {column('variant__student')} = %s"
        f" AND {column('position')} = %s"
        f" AND {column('variant__problem_set__archived_at')} IS NULL"
        f" AND {column('variant__problem_set__course')} IN ({enrolled_course_ids_sql()})"
    )


def draft_of(variant_item: VariantItem, student: User) -> Draft | None:
    """Return ``student``'s draft of ``variant_item``, if one was saved."""
    return Draft.objects.filter(variant_item=variant_item, student=student).first()


def drafted_positions(variant: Variant) -> set[int]:
    """Return the positions of the variant's items that have a saved draft."""
    return set(Draft.objects.filter(variant_item__variant=variant)
               .values_list("variant_item__position", flat=True))


def item_submissions(variant_item: VariantItem) -> QuerySet[Submission]:
    """Return every attempt at ``variant_item``, first attempt first, ready to be shown."""
    return (
        variant_item.submissions.select_related("variant_item__item",
                                                "variant_item__variant__problem_set")
        .defer(*(f"variant_item__{name}" for name in VARIANT_ITEM_BULK))
        .order_by("attempt_number")
    )


def problem_set_taught_by(user: User, problem_set_id: int) -> ProblemSet | None:
    """Return problem set ``problem_set_id`` if ``user`` teaches its course."""
    return (
        ProblemSet.objects.filter(pk=problem_set_id, course__in=courses_taught_by(user))
        .select_related("course")
        .first()
    )


def regrade_for(user: User, regrade_id: int) -> Regrade | None:
    """Return regrade ``regrade_id`` if ``user`` teaches the problem set's course."""
    return (
        Regrade.objects.filter(
            pk=regrade_id, problem_set__course__in=courses_taught_by(user)
        ).first()
    )


def webhooks_of(user: User) -> QuerySet[Webhook]:
    """Return the webhooks ``user`` registered."""
    return Webhook.objects.filter(owner=user)


def deliveries_of(webhook: Webhook) -> QuerySet[WebhookDelivery]:
    """Return a webhook's deliveries, newest first."""
    return webhook.deliveries.order_by("-id")


def may_have_webhooks(course_id: int) -> bool:
    """Return whether any active webhook could hear about ``course_id`` (its own or an
    every-course one): a superset of :func:`webhooks_for_submission`'s condition.

    Asked for every grade, so it is one plain SQL EXISTS: Django builds the equivalent
    ``exists()`` query in about six times the CPU the query itself costs (bench/README.md).
    """
    # Only names from the model's own metadata are formatted in; the value is a parameter.
    course, active = quoted_column(Webhook, "course"), quoted_column(Webhook, "is_active")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT EXISTS (SELECT 1 FROM {quoted_table(Webhook)} WHERE {active} "
            f"AND ({course} = %s OR {course} IS NULL))", [course_id],
        )
        return bool(cursor.fetchone()[0])


def webhooks_for_submission(submission: Submission) -> QuerySet[Webhook]:
    """Return the active webhooks that hear about ``submission``: its course's instructors'."""
    course_id = submission.variant_item.variant.problem_set.course_id
    return Webhook.objects.filter(
        is_active=True,
        owner__in=User.objects.filter(
            enrollments__course_id=course_id, enrollments__role="instructor"
        ),
    ).filter(Q(course__isnull=True) | Q(course_id=course_id))


@dataclass(frozen=True)
class GradeRow:
    """One student's grades in a problem set: the score counted per item, total, lateness."""

    username: str
    item_scores: list[Decimal | None]
    total: Decimal
    late: bool
    name: str = ""
    email: str = ""
    lms_user_ids: tuple[str, ...] = ()
    """The student's user ids (``sub``) on the LMS platforms they came from."""


def counted_submission(
    submissions: list[Submission], score_policy: str
) -> Submission | None:
    """Return the graded submission that counts: the best score, or the last one graded."""
    graded = [s for s in submissions if s.status == Submission.Status.GRADED]
    if not graded:
        return None
    if score_policy == ProblemSet.ScorePolicy.LAST:
        return max(graded, key=lambda s: s.attempt_number)
    # Ties go to the earlier attempt, so a later equal score never makes a set look late.
    return max(graded, key=lambda s: (s.score or 0, -s.attempt_number))


def grade_rows(problem_set: ProblemSet) -> Iterator[GradeRow]:
    """Yield one row per student of the course, in username order."""
    positions = list(problem_set.items.values_list("position", flat=True))
    by_student: dict[int, dict[int, list[Submission]]] = {}
    submissions = Submission.objects.filter(
        variant_item__variant__problem_set=problem_set
    ).select_related("variant_item").only(
        "student_id", "status", "score", "attempt_number", "is_late", "variant_item__position"
    )
    for submission in submissions:
        by_position = by_student.setdefault(submission.student_id, {})
        by_position.setdefault(submission.variant_item.position, []).append(submission)
    students = course_students(problem_set.course).prefetch_related("lti_links")
    for student in students.order_by("username"):
        chosen = [
            counted_submission(by_student.get(student.id, {}).get(position, []),
                               problem_set.score_policy)
            for position in positions
        ]
        scores = [None if s is None else s.score for s in chosen]
        yield GradeRow(
            username=student.username,
            item_scores=scores,
            total=sum((score for score in scores if score is not None), Decimal(0)),
            late=any(s is not None and s.is_late for s in chosen),
            name=student.get_full_name(),
            email=student.email,
            lms_user_ids=tuple(sorted(link.subject for link in student.lti_links.all())),
        )


def set_submissions(
    problem_set: ProblemSet, *, student: str | None = None, item: int | None = None
) -> QuerySet[Submission]:
    """Return every submission of ``problem_set`` (optionally one student's, by username, or
    one item's, by position), in order: student, item, attempt."""
    submissions = Submission.objects.filter(
        variant_item__variant__problem_set=problem_set
    ).select_related("student", "variant_item__item", "variant_item__variant__problem_set"
                     ).defer(*(f"variant_item__{name}" for name in VARIANT_ITEM_BULK))
    if student is not None:
        submissions = submissions.filter(student__username=student)
    if item is not None:
        submissions = submissions.filter(variant_item__position=item)
    return submissions.order_by("student__username", "variant_item__position",
                                "attempt_number")


def submission_taught_by(user: User, submission_id: int) -> Submission | None:
    """Return submission ``submission_id`` (its tree and key included) if ``user`` teaches
    its course."""
    return (
        Submission.objects.filter(
            pk=submission_id,
            variant_item__variant__problem_set__course__in=courses_taught_by(user),
        )
        .select_related("student", "variant_item__item", "variant_item__variant__problem_set")
        .first()
    )


def submission_owned_by(user: User, submission_id: int) -> Submission | None:
    """Return submission ``submission_id`` if ``user`` made it."""
    return Submission.objects.filter(pk=submission_id, student=user).select_related(
        "variant_item__variant__problem_set").first()


def score_history(submission: Submission) -> QuerySet[ScoreChange]:
    """Return the score changes of ``submission`` (regrades and overrides), oldest first."""
    return submission.score_changes.select_related("changed_by").order_by("id")


def regrade_requests_of(problem_set: ProblemSet, status: str | None = None
                        ) -> QuerySet[RegradeRequest]:
    """Return the regrade requests on ``problem_set``'s submissions (open or resolved ones,
    given ``status``), oldest first."""
    requests = RegradeRequest.objects.filter(
        submission__variant_item__variant__problem_set=problem_set
    ).select_related("student", "resolved_by", "submission__variant_item")
    if status is not None:
        requests = requests.filter(status=status)
    return requests.order_by("id")


def regrade_request_taught_by(user: User, request_id: int) -> RegradeRequest | None:
    """Return regrade request ``request_id`` if ``user`` teaches its course."""
    return RegradeRequest.objects.filter(
        pk=request_id,
        submission__variant_item__variant__problem_set__course__in=courses_taught_by(user),
    ).select_related("submission", "student").first()


def regrade_requests_on(submission: Submission) -> list[RegradeRequest]:
    """Return the regrade requests on ``submission``, oldest first.

    Every read of a graded submission runs this (a long-poll's answer included), so it is
    one plain-SQL statement rather than the ORM's (about 1 ms of a web process's CPU less).
    """
    read, sql = _regrade_requests_read()
    requests: list[RegradeRequest] = read.fetch(sql, [submission.pk])
    return requests


@cache
def _regrade_requests_read() -> tuple[JoinedRead, str]:
    """Return the plain-SQL read of a submission's regrade requests, oldest first."""
    read = JoinedRead(RegradeRequest)
    return read, read.select(f"{read.column('submission')} = %s", order_by=("id",))


def problem_set_statistics(problem_set: ProblemSet) -> list[ItemStats]:
    """Return the statistics of each item of ``problem_set`` (see :mod:`grading.statistics`).

    Three queries whatever the number of students: items, graded submissions, nothing else.
    """
    items = list(problem_set.items.all())
    rows = Submission.objects.filter(
        variant_item__variant__problem_set=problem_set, status=Submission.Status.GRADED
    ).values_list("student_id", "variant_item__position", "attempt_number", "score",
                  "max_score", "results", "answer")
    attempts: dict[int, dict[int, list[Attempt]]] = {}
    for student_id, position, number, score, max_score, results, answer in rows:
        choice = (answer or {}).get(CHOICE_PART) if isinstance(answer, dict) else None
        attempts.setdefault(position, {}).setdefault(student_id, []).append(Attempt(
            student_id, number, float(score or 0), float(max_score or 0), results or [],
            str(choice) if choice is not None else None,
        ))
    students = sorted({sid for by_student in attempts.values() for sid in by_student})
    described = []
    for item in items:
        kind = get_kind(item.kind)
        described.append((item.position, item.kind, float(item.points),
                          kind.is_multiple_choice(item.params),
                          [part.name for part in kind.answer_parts(item.params)]))
    return item_statistics(described, attempts, students, problem_set.score_policy)


def check_for(user: User, check_id: int) -> CodeCheck | None:
    """Return code check ``check_id`` if ``user`` is its student (checks are private)."""
    return CodeCheck.objects.select_related("variant_item").filter(
        pk=check_id, student_id=user.pk).first()

"""Submit and grade code submissions; every write code grading makes is here.

A code submission follows the typed answer's life (``grading.services``): stored ``queued``
before the request is answered, graded once on a worker (here on the ``sandbox`` queue), its
row the task's only state. Deadlines, attempts and idempotency keys follow the same rules and
reuse the same checks.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime, timedelta
from fractions import Fraction

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from accounts.models import User
from config.api import ApiError
from config.jsonsafe import storable
from exercises.kinds.engine_bridge import engine_version
from exercises.models import Variant, VariantItem
from exercises.selectors import rules_for, variant_of
from exercises.services import open_variant
from grading.code.contract import CONTRACTS, starter_source
from grading.code.grader import CodeGrade, check_code, grade_code
from grading.code.runs import HOST_FAILURES, Budget, SandboxFailed
from grading.code.sandboxing import (
    grading_budget_seconds,
    limits_for,
    sandbox_config,
    stated_limits,
)
from grading.code.scheduling import (
    REGRADE_PRIORITY,
    Claim,
    claim_run,
    defer,
    in_flight_window,
)
from grading.models import CodeCheck, Regrade, ScoreChange, Submission
from grading.sandbox import SandboxUnavailable
from grading.selectors import attempts_used
from grading.services import (
    as_decimal,
    check_deadlines,
    end_in_error,
    enqueue_submission,
    finish_code_regrade,
    record_grade,
    replace_grade,
    replay_of,
)

logger = logging.getLogger(__name__)

MAX_SOURCE_CHARACTERS = 64 * 1024
"""Longer sources are refused: a search function is a page of code, not a library."""


def code_item_of(student: User, variant_id: int, position: int) -> VariantItem:
    """Return item ``position`` of the student's variant ``variant_id`` if it is a code item.

    Raise a 404 :class:`ApiError` for a variant or item that is not theirs and a 400 for an
    item that takes typed answers.
    """
    variant = variant_of(student, variant_id)
    if variant is None:
        raise ApiError("no such assignment", code="not_found", status_code=404)
    variant_item = next((vi for vi in variant.items.all() if vi.position == position), None)
    if variant_item is None:
        raise ApiError(f"assignment {variant_id} has no item {position}", code="not_found",
                       status_code=404)
    if variant_item.item.kind not in CONTRACTS:
        raise ApiError(
            f"item {position} takes typed answers, not code: submit them to "
            f"/api/v1/assignments/{variant_id}/items/{position}/submissions/",
            code="not_a_code_item",
        )
    return variant_item


def starter_file(student: User, variant_id: int, position: int) -> str:
    """Return the starter file of a code item of the student's variant.

    The starter file is the item's content (its task and contract), so on a timed quiz
    reading it starts the clock, like any other view of the content (open_variant).
    """
    variant_item = code_item_of(student, variant_id, position)
    open_variant(variant_item.variant, timezone.now())
    item = variant_item.item
    return starter_source(item.kind, item.params, stated_limits(item.kind, item.params))


def check_source(source: str) -> None:
    """Refuse source that is too long or is not Python (400, no attempt used)."""
    if len(source) > MAX_SOURCE_CHARACTERS:
        raise ApiError(f"source: at most {MAX_SOURCE_CHARACTERS} characters",
                       code="invalid_source", details={"source": ["too long"]})
    try:
        # Compiling never runs the code; the parser's own limits bound nesting.
        compile(source, "solution.py", "exec", dont_inherit=True)
    except SyntaxError as error:
        where = f"line {error.lineno}: " if error.lineno else ""
        raise ApiError(f"source: {where}{error.msg}", code="invalid_source",
                       details={"source": [f"{where}{error.msg}"], "line": error.lineno}) from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise ApiError(f"source: not valid Python ({type(error).__name__})",
                       code="invalid_source", details={"source": [str(error)[:200]]}) from None


def submit_code(*, student: User, variant_id: int, position: int, source: str,
                idempotency_key: str = "", now: datetime | None = None
                ) -> tuple[Submission, bool]:
    """Store a student's code for item ``position`` of their variant; return it and created.

    A retried request with the same ``idempotency_key`` returns the first submission (created
    False). Raise 404 for a variant or item that is not the student's, 400 for source that is
    not Python or not a code item (no attempt used), 403 past the due date (refuse policy),
    after the quiz's time limit or with no attempts left, and 409 when the key was used for
    another request.
    """
    now = now or timezone.now()
    variant_item = code_item_of(student, variant_id, position)
    replay = replay_of(student, idempotency_key, variant_item, {"source": source})
    if replay is not None:
        return replay, False
    check_source(source)
    try:
        submission = _store(variant_item.variant, variant_item, student, source,
                            idempotency_key, now)
    except IntegrityError:
        # A concurrent request with the same key won the race; answer as its replay.
        replay = replay_of(student, idempotency_key, variant_item, {"source": source})
        if replay is None:
            raise
        return replay, False
    return submission, True


def _store(variant: Variant, variant_item: VariantItem, student: User, source: str,
           idempotency_key: str, now: datetime) -> Submission:
    """Check the deadlines and attempts under the item's lock, then store the submission."""
    with transaction.atomic():
        # Serialises concurrent submissions to one item, so attempts are counted exactly.
        locked = VariantItem.objects.select_for_update().get(pk=variant_item.pk)
        replay = replay_of(student, idempotency_key, locked, {"source": source})
        if replay is not None:
            return replay
        is_late, penalty = check_deadlines(variant, now)
        limit = rules_for(variant).max_attempts
        used = attempts_used(locked)
        if limit and used >= limit:
            raise ApiError(
                f"all {limit} attempts at this item are used", code="attempts_exhausted",
                status_code=403, details={"max_attempts": limit, "used": used},
            )
        last = locked.submissions.aggregate(last=Max("attempt_number"))["last"] or 0
        submission = Submission.objects.create(
            variant_item=locked, student=student, attempt_number=last + 1,
            kind=Submission.Kind.CODE, source=source, idempotency_key=idempotency_key,
            is_late=is_late, late_penalty=penalty,
        )
        transaction.on_commit(lambda: enqueue_submission(submission.pk, Submission.Kind.CODE))
    return submission


def grade_code_submission(submission_id: int) -> Submission | None:
    """Run and grade a code submission once: queued/running → running → graded (or error).

    Safe to run again for the same submission (a redelivered task): a graded or failed
    submission is left alone, and of two concurrent runs only the first records the grade
    (each transition is one conditional UPDATE). While its student or item has too many runs
    in flight it stays queued and its task is sent again later
    (:func:`grading.code.scheduling.claim_run`). A host too busy to time its runs fairly
    queues it again (``CUTOFF_CODE_BUSY_RETRIES`` times); a sandbox that cannot run marks it
    ``error`` (``sandbox_unavailable``, ``sandbox_busy`` or ``sandbox_failed``), which uses
    no attempt.
    """
    if claim_run(submission_id) is not Claim.CLAIMED:
        # Graded already, or deferred: its student or item has too many runs in flight.
        return Submission.objects.filter(pk=submission_id).first()
    submission = Submission.objects.select_related(
        "student", "variant_item__item", "variant_item__variant__problem_set__course"
    ).get(pk=submission_id)
    variant_item, item = submission.variant_item, submission.variant_item.item
    try:
        grade = grade_code(item.kind, item.params, variant_item.seed, submission.source,
                           limits=limits_for(item.kind, item.params),
                           budget_seconds=grading_budget_seconds(), config=sandbox_config())
    except (SandboxUnavailable, SandboxFailed) as error:
        host_failed = isinstance(error, SandboxFailed) and error.ending in HOST_FAILURES
        if host_failed and submission.host_retries < settings.CUTOFF_CODE_BUSY_RETRIES:
            logger.warning("the host failed a run of code submission %s (%s); it runs again "
                           "later", submission_id, error)
            return _run_again_later(submission_id)
        logger.error("sandbox could not run code submission %s: %s", submission_id, error)
        return _fail(submission_id, _error_code(error))
    except Exception:
        logger.exception("grading code submission %s failed", submission_id)
        return _fail(submission_id, "grading_failed")
    _apply_code_grade(submission, item.points, grade)
    record_grade(submission)
    return submission


def _apply_code_grade(submission: Submission, item_points: object, grade: CodeGrade) -> None:
    """Set a code submission's scores and test reports from a grade, with its late penalty."""
    points = Fraction(str(item_points))
    raw = points * grade.fraction
    submission.raw_score = as_decimal(raw)
    submission.score = as_decimal(raw * (1 - Fraction(str(submission.late_penalty))))
    submission.max_score = as_decimal(points)
    submission.results = storable(grade.tests)
    submission.graded_engine_version = engine_version()


def regrade_code_submission(submission_id: int, regrade_id: int | None) -> ScoreChange | None:
    """Run a graded code submission again for a regrade and record what changed.

    The hidden tests, the reference and the points are the item's current ones (the tests
    come from the variant item's seed, so they are the same tests unless the engine or the
    item's params changed). Like a typed answer's regrade (``grading.services``) the new
    grade replaces the old one in place and a changed score or maximum is kept in a
    :class:`ScoreChange` (reason ``regrade``) with the old test reports. A submission that
    is no longer graded is left alone, and when the sandbox cannot run it its tests' outcome
    stays, on the item's current points (logged, listed as failed in the regrade's report).
    The regrade hears of every outcome (:func:`grading.services.finish_code_regrade`).
    Return the change, or None.
    """
    submission = Submission.objects.filter(
        pk=submission_id, kind=Submission.Kind.CODE, status=Submission.Status.GRADED,
    ).select_related("variant_item__item").first()
    if submission is None:
        if regrade_id is not None:
            finish_code_regrade(regrade_id, submission_id, None)
        return None
    item = submission.variant_item.item
    try:
        grade = grade_code(item.kind, item.params, submission.variant_item.seed,
                           submission.source, limits=limits_for(item.kind, item.params),
                           budget_seconds=grading_budget_seconds(), config=sandbox_config())
    except (SandboxUnavailable, SandboxFailed) as error:
        logger.error("sandbox could not regrade code submission %s: %s; its grade stays",
                     submission_id, error)
        regrade = Regrade.objects.filter(pk=regrade_id).first() if regrade_id else None
        # Its tests' outcome stays, on the item's points now: kept on the old maximum, the
        # set's total could pass its new maximum (and the LMS's).
        change = replace_grade(
            submission_id, lambda locked: _rescale_code_grade(locked, item.points), regrade)
        if regrade_id is not None:
            finish_code_regrade(regrade_id, submission_id, change, failed=True)
        return change
    regrade = Regrade.objects.filter(pk=regrade_id).first() if regrade_id else None
    change = replace_grade(submission_id,
                           lambda locked: _apply_code_grade(locked, item.points, grade), regrade)
    if regrade_id is not None:
        finish_code_regrade(regrade_id, submission_id, change)
    return change


def _rescale_code_grade(submission: Submission, item_points: object) -> None:
    """Set a code submission's scores to the same share of the item's points ``item_points``
    (its tests not run again: their reports stay)."""
    points = Fraction(str(item_points))
    if submission.max_score is None or submission.raw_score is None or not submission.max_score:
        return
    raw = points * Fraction(str(submission.raw_score)) / Fraction(str(submission.max_score))
    submission.raw_score = as_decimal(raw)
    submission.score = as_decimal(raw * (1 - Fraction(str(submission.late_penalty))))
    submission.max_score = as_decimal(points)


def _error_code(error: SandboxUnavailable | SandboxFailed) -> str:
    """Return the error code of a run the sandbox could not do: ``sandbox_unavailable`` (the
    host cannot run a sandbox), ``sandbox_busy`` (too busy to time it fairly) or
    ``sandbox_failed``."""
    if isinstance(error, SandboxUnavailable):
        return "sandbox_unavailable"
    return "sandbox_busy" if error.ending == "host_busy" else "sandbox_failed"


def _run_again_later(submission_id: int) -> Submission:
    """Queue a running submission again, ``CUTOFF_CODE_BUSY_RETRY_SECONDS`` from now."""
    Submission.objects.filter(pk=submission_id, status=Submission.Status.RUNNING).update(
        status=Submission.Status.QUEUED, host_retries=F("host_retries") + 1)
    defer(submission_id, settings.CUTOFF_CODE_BUSY_RETRY_SECONDS)
    return Submission.objects.get(pk=submission_id)


def _fail(submission_id: int, error_code: str) -> Submission:
    end_in_error(submission_id, error_code)
    return Submission.objects.get(pk=submission_id)



class CheckRateLimited(ApiError):
    """A check refused by one of the ``CUTOFF_CODE_CHECK_RATES``; ``retry_after`` in seconds."""

    def __init__(self, count: int, seconds: int, retry_after: int) -> None:
        super().__init__(
            f"at most {count} checks per {seconds} s: retry in {retry_after} s",
            code="check_rate_limited", status_code=429,
            details={"limit": {"checks": count, "seconds": seconds}, "retry_after": retry_after},
        )
        self.retry_after = retry_after


def request_check(*, student: User, variant_id: int, position: int, source: str,
                  now: datetime | None = None) -> CodeCheck:
    """Store a check of the student's code on a code item's public tests and enqueue its run.

    A check uses no attempt, so it is allowed after the attempts are used up; it is refused
    like a submission past a refusing due date (403 ``past_due``) and after a timed quiz's
    end (403 ``time_limit_exceeded``). Raise 404 for a variant or item not the student's,
    400 ``invalid_source``, and 429 :class:`CheckRateLimited` past any of
    ``CUTOFF_CODE_CHECK_RATES``.
    """
    now = now or timezone.now()
    variant_item = code_item_of(student, variant_id, position)
    check_source(source)
    with transaction.atomic():
        # Serialises one student's checks, so the rate limits count exactly.
        list(User.objects.select_for_update().filter(pk=student.pk).values_list("pk"))
        check_deadlines(variant_item.variant, now)
        _check_rates(student, now)
        check = CodeCheck.objects.create(variant_item=variant_item, student=student,
                                         source=source, created_at=now)
        transaction.on_commit(lambda: send_check_task(check.pk))
    return check


def _check_rates(student: User, now: datetime) -> None:
    """Raise :class:`CheckRateLimited` when the student used up a check rate's window."""
    for count, seconds in settings.CUTOFF_CODE_CHECK_RATES:
        since = now - timedelta(seconds=seconds)
        recent = list(CodeCheck.objects.filter(student=student, created_at__gt=since)
                      .order_by("-created_at").values_list("created_at", flat=True)[:count])
        if len(recent) >= count:
            # The window frees a slot when its oldest counted check leaves it.
            retry_after = max(1, math.ceil((recent[-1] - since).total_seconds()))
            raise CheckRateLimited(count, seconds, retry_after)


def run_code_check(check_id: int) -> CodeCheck | None:
    """Run a check on its item's public tests once: queued → running → done (or error).

    With ``CUTOFF_CODE_CHECKS_PER_STUDENT`` of the student's checks running it stays queued
    and its task is sent again ``CUTOFF_CODE_DEFER_SECONDS`` later. A redelivered task of a
    finished check does nothing.
    """
    claim = claim_check(check_id)
    if claim is not Claim.CLAIMED:
        if claim is Claim.DEFERRED:
            send_check_task(check_id, countdown=settings.CUTOFF_CODE_DEFER_SECONDS)
        return CodeCheck.objects.filter(pk=check_id).first()
    check = CodeCheck.objects.select_related("variant_item__item").get(pk=check_id)
    item = check.variant_item.item
    limits = limits_for(item.kind, item.params)
    budget = Budget.of(min(grading_budget_seconds(), limits.wall_seconds + 1))
    try:
        checked = check_code(item.kind, item.params, check.source, limits=limits,
                             budget=budget, config=sandbox_config())
    except (SandboxUnavailable, SandboxFailed) as error:
        logger.error("sandbox could not run code check %s: %s", check_id, error)
        return _finish_check(check_id, status=CodeCheck.Status.ERROR,
                             error_code=_error_code(error))
    outputs = checked.records
    cap = settings.CUTOFF_CODE_CHECK_OUTPUT_BYTES
    stdout, stdout_cut = _bounded("".join(r.stdout for r in outputs), cap)
    stderr, stderr_cut = _bounded("".join(r.stderr for r in outputs), cap)
    return _finish_check(
        check_id, status=CodeCheck.Status.DONE, results=storable(checked.reports),
        stdout=stdout, stderr=stderr, wall_seconds=sum(r.wall_seconds for r in outputs),
        stdout_truncated=stdout_cut or any(r.stdout_truncated for r in outputs),
        stderr_truncated=stderr_cut or any(r.stderr_truncated for r in outputs))


def claim_check(check_id: int, now: datetime | None = None) -> Claim:
    """Mark a queued check ``running`` if its student has room for one more check in flight."""
    now = now or timezone.now()
    with transaction.atomic():
        check = CodeCheck.objects.filter(
            pk=check_id, status__in=(CodeCheck.Status.QUEUED, CodeCheck.Status.RUNNING)).first()
        if check is None:
            return Claim.FINISHED
        list(User.objects.select_for_update().filter(pk=check.student_id).values_list("pk"))
        running = CodeCheck.objects.filter(
            student_id=check.student_id, status=CodeCheck.Status.RUNNING,
            started_at__gte=in_flight_window(now)).exclude(pk=check_id).count()
        if running >= settings.CUTOFF_CODE_CHECKS_PER_STUDENT:
            return Claim.DEFERRED
        claimed = CodeCheck.objects.filter(
            pk=check_id, status__in=(CodeCheck.Status.QUEUED, CodeCheck.Status.RUNNING),
        ).update(status=CodeCheck.Status.RUNNING, started_at=now)
    return Claim.CLAIMED if claimed else Claim.FINISHED


def send_check_task(check_id: int, countdown: float | None = None) -> None:
    """Publish a check's run on the sandbox queue at the lowest priority (after submissions
    and regrades); a broker that refuses it leaves the check queued (logged)."""
    from grading.code.tasks import run_code_check as task

    try:
        task.apply_async(args=[check_id], priority=REGRADE_PRIORITY, countdown=countdown)
    except Exception:  # kombu raises transport-specific errors; every one means "not sent"
        logger.warning("broker unavailable; code check %s not sent", check_id, exc_info=True)


def _bounded(text: str, max_bytes: int) -> tuple[str, bool]:
    """Return ``text`` cut to ``max_bytes`` of UTF-8, and whether it was cut."""
    data = text.encode()
    if len(data) <= max_bytes:
        return text, False
    return data[:max_bytes].decode(errors="ignore"), True


def _finish_check(check_id: int, **fields: object) -> CodeCheck:
    CodeCheck.objects.filter(pk=check_id, status=CodeCheck.Status.RUNNING).update(
        finished_at=timezone.now(), **fields)
    return CodeCheck.objects.get(pk=check_id)

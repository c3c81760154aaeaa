"""Submit, grade, regrade and requeue submissions; every write to grading's models is here.

A submission's life: :func:`submit_answer` validates and stores it (``queued``) and enqueues
its grading once the transaction commits; the worker's :func:`grade_submission` moves it to
``running`` then ``graded`` (or ``error``). The row is the only state, so a task delivered
twice (a worker killed mid-grading, ``acks_late``) grades once. If the broker is down at
submit time the row stays ``queued`` with no ``enqueued_at`` and
:func:`requeue_stale_submissions` (the ``requeue_stale_submissions`` command or beat task)
enqueues it later.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import cache
from typing import Any

from django.db import DataError, IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from rest_framework import status

from accounts.models import User
from config.api import ApiError
from config.jsonsafe import storable
from config.plain_sql import Increment, insert_row, lock_row, update_rows, update_statement
from config.publishing import published
from exercises.kinds import get_kind
from exercises.kinds.engine_bridge import engine_version
from exercises.models import ProblemSet, Variant, VariantItem
from exercises.selectors import DEADLINE_GRACE, rules_for, variants_of
from exercises.services import open_variant, resolve_item
from grading.answers import AnswerFormatError, check_draft_part, part_label, validate_answer
from grading.code.contract import CONTRACTS
from grading.finished import announce_finished, record_announcing_finished
from grading.grader import GradingContext, grade_answer
from grading.models import (
    Draft,
    Regrade,
    RegradeRequest,
    ScoreChange,
    Submission,
    WorkerHeartbeat,
)
from grading.selectors import (
    attempt_counts,
    grading_read,
    may_have_webhooks,
    student_variant_item,
    submission_by_idempotency_key,
    submission_to_grade,
)
from grading.signals import score_recorded
from grading.webhooks import queue_webhook_events

logger = logging.getLogger(__name__)
UNSAVABLE_ERRORS = (DataError, UnicodeEncodeError)
"""What the database driver raises for results it cannot store (storable() prevents them;
a grade that still fails is ended, not retried forever)."""

STALE_QUEUED = timedelta(minutes=5)
"""A queued submission whose task was accepted this long ago is assumed lost and re-sent."""
STALE_RUNNING = timedelta(minutes=10)
"""A running submission older than this had its worker die; it is graded again."""
MAX_GRADING_RUNS = 5
"""Runs of one submission's grading whose workers died (killed, out of memory) before it ends
as an error: one that takes every worker down with it is not sent again forever (and its
student's LMS score, held back while it is graded, is sent)."""
UNSENT_GRACE = timedelta(seconds=10)
"""Submissions younger than this may still be enqueued by their own request's on_commit."""
UNLISTED_GRACE = timedelta(seconds=5)
"""A living worker lists a task in its heartbeat within ``config.heartbeat.GATHER_SECONDS``
of receiving it (plus one database write): a submission started longer ago than this that no
living worker lists is held by none."""

SCORE_PLACES = Decimal("0.0001")


def as_decimal(value: Fraction) -> Decimal:
    """Return an exact score as a Decimal with four places."""
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
        SCORE_PLACES, rounding=ROUND_HALF_UP
    )


# --- submitting ---------------------------------------------------------------------------


def submit_answer(
    *,
    student: User,
    variant_id: int,
    position: int,
    answer: Any,
    idempotency_key: str = "",
    now: datetime | None = None,
) -> tuple[Submission, bool]:
    """Store a student's answer to item ``position`` of their variant; return it and created.

    A retried request with the same ``idempotency_key`` returns the first submission (created
    False). Raise 404 for a variant or item that is not the student's, 400 for a malformed
    answer (no attempt used), 403 past the due date (refuse policy), after the quiz's time
    limit or with no attempts left, and 409 when the key was used for another request.
    """
    now = now or timezone.now()
    variant_item = student_variant_item(student, variant_id, position)
    if variant_item is None:
        if not variants_of(student).filter(pk=variant_id).exists():
            raise ApiError("no such assignment", code="not_found", status_code=404)
        raise ApiError(f"assignment {variant_id} has no item {position}", code="not_found",
                       status_code=404)
    variant = variant_item.variant
    kind = get_kind(variant_item.item.kind)
    parts = kind.answer_parts(variant_item.item.params)
    if not parts:
        raise ApiError(
            f"item {position} is answered with code: POST the Python source to "
            f"/api/v1/assignments/{variant_id}/items/{position}/code-submissions/",
            code="invalid", details={"item": position},
        )
    try:
        cleaned = validate_answer(answer, parts, variant_item.problem,
                                  kind.legal_moves(variant_item.problem))
    except AnswerFormatError as error:
        raise ApiError(
            f"{error.part}: {error.rule}", code="invalid_answer",
            details={"part": error.part, "rule": error.rule,
                     "label": part_label(error.part, parts)},
        ) from None
    try:
        return _store(variant, variant_item, student, cleaned, idempotency_key, now)
    except IntegrityError:
        # The key was used before (a retry, or the key reused for another answer: 409), or
        # a concurrent request with the same key won the race; or, on a database without row
        # locks (SQLite), another attempt took the same number.
        replay = replay_of(student, idempotency_key, variant_item, {"answer": cleaned})
        if replay is None:
            raise ApiError(
                "another submission to this item was stored at the same moment; send it again",
                code="conflict", status_code=status.HTTP_409_CONFLICT,
            ) from None
        return replay, False


def replay_of(
    student: User, key: str, variant_item: VariantItem, sent: dict[str, Any]
) -> Submission | None:
    """Return the submission an earlier request with ``key`` made, if it was this request.

    ``sent`` holds the fields the request carried (``answer`` or ``source``); a stored
    submission under the same key with other values is a reused key, refused with 409.
    """
    check_idempotency_key(key)
    existing = submission_by_idempotency_key(student, key)
    if existing is None:
        return None
    same = existing.variant_item_id == variant_item.pk and all(
        getattr(existing, field) == value for field, value in sent.items()
    )
    if not same:
        raise ApiError(
            "Idempotency-Key: this key was already used for a different submission; "
            "use a new key for a new submission",
            code="idempotency_key_reused", status_code=status.HTTP_409_CONFLICT,
            details={"submission": existing.pk},
        )
    return existing


def check_idempotency_key(key: str) -> None:
    """Refuse (400) an ``Idempotency-Key`` PostgreSQL cannot store or even compare."""
    if "\x00" in key:
        raise ApiError("Idempotency-Key: may not contain NUL characters",
                       details={"Idempotency-Key": ["contains a NUL character"]})


def check_deadlines(variant: Variant, now: datetime) -> tuple[bool, Decimal]:
    """Return (late, penalty) for a submission at ``now``; raise 403 when it is refused.

    The quiz clock starts when the student first opens the set (or first submits). The
    student's extension, if any, sets the due date and time limit (:func:`rules_for`).
    """
    problem_set = variant.problem_set
    rules = rules_for(variant)
    if rules.time_limit_minutes:
        open_variant(variant, now)
        assert variant.opened_at is not None  # open_variant started the clock
        ends = variant.opened_at + timedelta(minutes=rules.time_limit_minutes)
        if now > ends + DEADLINE_GRACE:
            raise ApiError(
                f"the quiz's time limit of {rules.time_limit_minutes} minutes ended at "
                f"{ends.isoformat()}", code="time_limit_exceeded", status_code=403,
                details={"ended_at": ends.isoformat()},
            )
    if rules.due_at is None or now <= rules.due_at + DEADLINE_GRACE:
        return False, Decimal(0)
    if problem_set.late_policy == ProblemSet.LatePolicy.REFUSE:
        raise ApiError(
            f"the due date ({rules.due_at.isoformat()}) has passed and late submissions "
            "are refused", code="past_due", status_code=403,
            details={"due_at": rules.due_at.isoformat()},
        )
    return True, Decimal(problem_set.late_penalty)


def _store(
    variant: Variant,
    variant_item: VariantItem,
    student: User,
    answer: dict[str, Any],
    idempotency_key: str,
    now: datetime,
) -> tuple[Submission, bool]:
    """Check deadlines and attempts under the item's lock, then store the submission.

    Return the submission and whether it is new (False: a replay of an earlier request). A
    replay is found when the rules refuse the request, or when its key's unique constraint
    refuses the INSERT (the caller reads the replay then): the usual submission, with a new
    key, spends no statement looking for one.
    """
    check_idempotency_key(idempotency_key)
    with transaction.atomic():
        # Serialises concurrent submissions to one item, so attempts are counted exactly.
        # Plain SQL throughout: every answer of an exam runs this (bench/README.md).
        lock_row(VariantItem, variant_item.pk)
        try:
            is_late, penalty = check_deadlines(variant, now)
            limit = rules_for(variant).max_attempts
            used, last = attempt_counts(variant_item.pk)
            if limit and used >= limit:
                raise ApiError(
                    f"all {limit} attempts at this item are used", code="attempts_exhausted",
                    status_code=403, details={"max_attempts": limit, "used": used},
                )
            if variant_item.keys_seen_at is not None:
                # Keys show only once no attempt is left; an extension or a change of the
                # set's rules since then must not let the student submit the key.
                seen = variant_item.keys_seen_at.isoformat()
                raise ApiError(
                    f"you were shown this item's answer key at {seen}: it takes no more "
                    "attempts", code="answers_seen", status_code=403,
                    details={"keys_seen_at": seen})
        except ApiError:
            # A retry of a request that was stored gets its submission, whatever the
            # deadlines and attempts say now.
            replay = replay_of(student, idempotency_key, variant_item, {"answer": answer})
            if replay is not None:
                return replay, False
            raise
        submission = Submission(
            variant_item=variant_item, student=student, attempt_number=last + 1,
            kind=Submission.Kind.ANSWER, answer=answer, idempotency_key=idempotency_key,
            is_late=is_late, late_penalty=penalty,
        )
        insert_row(submission)
        transaction.on_commit(lambda: enqueue_submission(submission.pk, submission.kind))
    return submission, True


CODE_SUBMISSION_TASK = "grading.code.tasks.run_code_submission"
"""Code submissions run in the sandbox (a task of its own, routed to the sandbox queue)."""


def enqueue_submission(submission_id: int, kind: str = Submission.Kind.ANSWER) -> bool:
    """Send the grading task of a submission to the broker; return whether it was accepted.

    When the broker is down the submission stays queued without ``enqueued_at``, for
    :func:`requeue_stale_submissions` to send later; the request that stored it still
    succeeds.
    """
    from grading.code.scheduling import send_code_task
    from grading.tasks import grade_submission_task

    try:
        if kind == Submission.Kind.CODE:
            send_code_task(submission_id)
        else:
            grade_submission_task.apply_async(args=[submission_id])
    except Exception:  # kombu raises transport-specific errors; every one means "not sent"
        logger.warning("broker unavailable; submission %s stays queued", submission_id,
                       exc_info=True)
        return False
    update_rows(Submission, where={"id": submission_id}, values={"enqueued_at": timezone.now()})
    return True


def requeue_stale_submissions(
    now: datetime | None = None, broker_lost_at: datetime | None = None
) -> list[int]:
    """Enqueue again the submissions whose grading task was never sent or was lost.

    That is queued ones never accepted by the broker, queued ones accepted long ago, running
    ones whose worker died long ago, those held by a worker whose heartbeat stopped
    (:func:`requeue_stranded_submissions`) and, given ``broker_lost_at`` (a worker just got
    the broker back), every queued one accepted before that loss. Return their ids.
    """
    now = now or timezone.now()
    end_runaway_gradings()
    lost = Q(status=Submission.Status.QUEUED, enqueued_at__isnull=True,
             created_at__lt=now - UNSENT_GRACE)
    lost |= Q(status=Submission.Status.QUEUED, enqueued_at__lt=now - STALE_QUEUED)
    lost |= Q(status=Submission.Status.RUNNING, started_at__lt=now - STALE_RUNNING)
    if broker_lost_at is not None:
        # The outage may have taken the messages sent before it; those stored during it were
        # never sent (no grace needed: their requests failed to send them).
        lost |= Q(status=Submission.Status.QUEUED, enqueued_at__lt=broker_lost_at)
        lost |= Q(status=Submission.Status.QUEUED, enqueued_at__isnull=True)
    stale = Submission.objects.filter(lost).values_list("pk", "kind")
    sent = [pk for pk, kind in stale if enqueue_submission(pk, kind)]
    sent += [pk for pk in requeue_stranded_submissions(now) if pk not in sent]
    if sent:
        logger.info("requeued stale submissions %s", sorted(sent))
    return sent


def end_runaway_gradings() -> list[int]:
    """End as errors the unfinished submissions whose grading started
    :data:`MAX_GRADING_RUNS` times (each run's worker died); return their ids."""
    runaway = list(Submission.objects.filter(
        status__in=(Submission.Status.QUEUED, Submission.Status.RUNNING),
        # Runs a busy sandbox host sent back (host_retries) are not deaths.
        grading_runs__gte=F("host_retries") + MAX_GRADING_RUNS).values_list("pk", flat=True))
    for pk in runaway:
        # end_in_error ends running ones: a queued one is marked running first.
        Submission.objects.filter(pk=pk, status=Submission.Status.QUEUED).update(
            status=Submission.Status.RUNNING)
        if end_in_error(pk, "grading_failed"):
            logger.error("submission %s: %s grading runs ended without a grade; it ends as "
                         "an error", pk, MAX_GRADING_RUNS)
    return runaway


def requeue_stranded_submissions(now: datetime | None = None) -> list[int]:
    """Enqueue again the unfinished submissions held by workers whose heartbeat stopped.

    A worker killed outright (``kill -9``, out of memory, a lost machine) leaves its running
    and prefetched submissions behind; its heartbeat lists them
    (:mod:`config.heartbeat`). A worker whose network went down may hold one it could not
    list, so every submission still queued that was sent before it stopped goes again too,
    and every one still running that was started before then, more than
    :data:`UNLISTED_GRACE` ago (unless a living worker lists it). Once every one of them is
    sent again its heartbeat is deleted; if the broker refuses some, the heartbeat stays for
    the next sweep. Return the ids sent.
    """
    from config.heartbeat import ALIVE_WITHIN

    now = now or timezone.now()
    end_runaway_gradings()
    sent: list[int] = []
    alive = WorkerHeartbeat.objects.filter(beat_at__gte=now - ALIVE_WITHIN)
    held_by_the_living = {pk for holding in alive.values_list("holding", flat=True)
                          for pk in holding}
    for gone in WorkerHeartbeat.objects.filter(beat_at__lt=now - ALIVE_WITHIN):
        # Besides what it listed, it may have fetched a message it could not list any more
        # (its network went down before the heartbeat reached the database): any still
        # queued that was sent before it stopped, or started (its grading's first write
        # arrived, the listing did not) before then. One still in the broker, or still being
        # graded by a living worker, is graded once.
        stopped_by = gone.beat_at + ALIVE_WITHIN
        stranded = Submission.objects.filter(
            Q(pk__in=gone.holding,
              status__in=[Submission.Status.QUEUED, Submission.Status.RUNNING])
            | Q(status=Submission.Status.QUEUED, enqueued_at__lt=stopped_by)
            | Q(status=Submission.Status.RUNNING,
                started_at__lt=min(stopped_by, now - UNLISTED_GRACE)),
        ).exclude(pk__in=held_by_the_living).values_list("pk", "kind")
        resent = [pk for pk, kind in stranded if enqueue_submission(pk, kind)]
        if len(resent) == len(stranded):
            gone.delete()
        if resent:
            logger.info("worker %s is gone; requeued its submissions %s", gone.name, resent)
        sent += resent
    return sent


# --- drafts -------------------------------------------------------------------------------

MAX_DRAFT_CHARACTERS = 64 * 1024
"""Largest draft kept, as JSON: a code item's longest source, or a big tree's typed parts."""


def check_draft_shape(answer: Any, parts: list[Any], is_code: bool) -> dict[str, Any]:
    """Refuse a draft that is not an object of this item's parts (``{"source"}`` for code) or
    is too large; return it. Values are kept as typed: a draft is never graded."""
    if not isinstance(answer, dict):
        raise ApiError("answer: must be an object of part name → value", code="invalid_draft",
                       details={"part": "answer", "rule": "must be an object"})
    allowed = ["source"] if is_code else [part.name for part in parts]
    unknown = [str(name) for name in answer if name not in allowed]
    if unknown:
        rule = f"is not a part of this item; its parts are: {', '.join(allowed)}"
        raise ApiError(f"{unknown[0][:100]}: {rule}", code="invalid_draft",
                       details={"part": unknown[0][:100], "rule": rule})
    if is_code and "source" in answer and not isinstance(answer["source"], str):
        raise ApiError("source: must be a string", code="invalid_draft",
                       details={"part": "source", "rule": "must be a string"})
    by_name = {part.name: part for part in parts}
    for name, value in answer.items():
        if name in by_name:
            try:
                check_draft_part(by_name[name], value)
            except AnswerFormatError as error:
                raise ApiError(f"{error.part}: {error.rule}", code="invalid_draft",
                               details={"part": error.part, "rule": error.rule}) from None
    size = len(json.dumps(answer, ensure_ascii=False))
    if size > MAX_DRAFT_CHARACTERS:
        rule = f"must be at most {MAX_DRAFT_CHARACTERS} characters of JSON (got {size})"
        raise ApiError(f"answer: {rule}", code="invalid_draft",
                       details={"part": "answer", "rule": rule})
    return answer


def save_draft(*, student: User, variant_id: int, position: int, answer: Any) -> Draft:
    """Keep ``answer`` as the student's draft of item ``position``, replacing any earlier one.

    No attempt is used and nothing is graded, so a draft is accepted at any time; 404 for an
    item that is not the student's, 400 for a draft of the wrong shape or size.
    """
    variant_item = student_variant_item(student, variant_id, position)
    if variant_item is None:
        raise ApiError(f"assignment {variant_id} has no item {position} of yours",
                       code="not_found", status_code=404)
    kind = variant_item.item.kind
    parts = list(get_kind(kind).answer_parts(variant_item.item.params))
    cleaned = check_draft_shape(answer, parts, is_code=kind in CONTRACTS)
    draft, _created = Draft.objects.update_or_create(
        variant_item=variant_item, student=student, defaults={"answer": cleaned}
    )
    return draft


# --- grading ------------------------------------------------------------------------------


def grading_context(variant_item: VariantItem) -> GradingContext:
    """Return the grading context of a variant item under its current key."""
    return GradingContext(variant_item.item, variant_item.problem,
                          variant_item.answer_key or {}, variant_item.trace)


def grade_submission(submission_id: int) -> Submission | None:
    """Grade a typed-answer submission once: queued/running → running → graded (or error).

    Safe to run again for the same submission (a redelivered task): a graded or failed
    submission is left alone, and of two concurrent runs only the first records the grade
    (each transition is one conditional UPDATE, atomic in the database).
    """
    submission = start_grading(submission_id)
    if submission is None:
        return Submission.objects.filter(pk=submission_id).first()
    variant_item = submission.variant_item
    try:
        result = grade_answer(grading_context(variant_item), submission.answer or {})
    except Exception:
        logger.exception("grading submission %s failed", submission_id)
        end_in_error(submission_id, "grading_failed")
        return Submission.objects.get(pk=submission_id)
    _apply_grade(submission, result, variant_item.engine_version)
    record_grade(submission)
    return submission


def start_grading(submission_id: int) -> Submission | None:
    """Mark typed-answer submission ``submission_id`` running (from queued or running) and
    return it with what grading reads; return None when it is not to be graded (finished,
    or not a typed answer).

    On PostgreSQL one statement does both (an UPDATE in a ``WITH`` query, read with its
    joined rows as :func:`grading.selectors.submission_to_grade` reads them); elsewhere two.
    """
    where = {"id": submission_id, "kind": Submission.Kind.ANSWER,
             "status": (Submission.Status.QUEUED, Submission.Status.RUNNING)}
    values = {"status": Submission.Status.RUNNING, "started_at": timezone.now(),
              "grading_runs": Increment()}
    if connection.vendor != "postgresql":
        if not update_rows(Submission, where, values):
            return None
        return submission_to_grade(submission_id)
    update, params = update_statement(Submission, where, values)
    started: Submission | None = grading_read().fetch_one(_started_read_sql(update), params)
    return started


@cache
def _started_read_sql(update: str) -> str:
    """Return the statement of :func:`start_grading` around the UPDATE ``update``."""
    return f"WITH started AS ({update} RETURNING *) {grading_read().select('TRUE', root='started')}"


def record_grade(submission: Submission) -> bool:
    """Record ``submission``'s computed grade once; return whether this call recorded it.

    The update only applies while the submission is still ``running``, so a task delivered
    twice (a worker killed after grading, before acknowledging) records, notifies webhooks and
    announces the score exactly once.
    """
    submission.status = Submission.Status.GRADED
    submission.graded_at = timezone.now()
    where, values = _grade_update(submission)
    try:
        # One transaction: the webhook events and LMS passbacks are an outbox, stored with
        # the grade or not at all. The UPDATE sends the waiters' notice (at the commit).
        with transaction.atomic():
            recorded = record_announcing_finished(Submission, where, values, submission.pk)
            if recorded:
                queue_webhook_events(submission, "submission.graded")
                announce_score(submission)
    except UNSAVABLE_ERRORS:
        # Re-running would fail the same way: end it as an error (which uses no attempt).
        logger.exception("the grade of submission %s cannot be stored", submission.pk)
        end_in_error(submission.pk, "results_unsavable")
        submission.status = Submission.Status.ERROR
        return False
    return bool(recorded)


def _grade_update(submission: Submission) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the WHERE and the SET of the UPDATE that records ``submission``'s grade."""
    where = {"id": submission.pk, "status": Submission.Status.RUNNING}
    values = {"status": submission.status, "graded_at": submission.graded_at,
              "raw_score": submission.raw_score, "score": submission.score,
              "max_score": submission.max_score, "results": submission.results,
              "graded_engine_version": submission.graded_engine_version,
              "grades_recorded": Increment()}
    return where, values


def grading_statements() -> list[Callable[[], object]]:
    """Return grading's statements as calls that find no row (``NO_SUCH_ROW``), for a
    worker process to run before it grades (:mod:`config.warmup`): starting, recording (its
    parameters of the same types as a real grade's, so the same prepared statement) and the
    two questions each grade asks (webhooks, LMS links)."""
    from config.warmup import NO_SUCH_ROW
    from lms.selectors import has_resource_links

    unrecorded = Submission(pk=NO_SUCH_ROW, status=Submission.Status.GRADED,
                            graded_at=timezone.now(), raw_score=Decimal(0), score=Decimal(0),
                            max_score=Decimal(1), results=[], graded_engine_version="")
    where, values = _grade_update(unrecorded)
    return [
        lambda: start_grading(NO_SUCH_ROW),
        lambda: record_announcing_finished(Submission, where, values, NO_SUCH_ROW),
        lambda: may_have_webhooks(NO_SUCH_ROW),
        lambda: has_resource_links(NO_SUCH_ROW),
    ]


def end_in_error(submission_id: int, error_code: str) -> bool:
    """End running submission ``submission_id`` as an error (which uses no attempt) and tell
    its waiters; return whether this call ended it.

    The student's total is no longer pending, so the score's receivers hear of it too: an
    LMS passback held back while the answer was graded is sent now (lms.services).
    """
    with transaction.atomic():
        ended = Submission.objects.filter(
            pk=submission_id, status=Submission.Status.RUNNING
        ).update(status=Submission.Status.ERROR, error_code=error_code)
        if ended:
            owner = Submission.objects.filter(pk=submission_id).values(
                "student_id", "variant_item__variant__problem_set_id").get()
            score_recorded.send(
                sender=Submission, student_id=owner["student_id"],
                problem_set_id=owner["variant_item__variant__problem_set_id"])
    announce_finished(submission_id)
    return bool(ended)


def announce_score(submission: Submission) -> None:
    """Tell receivers (the LMS passback) that ``submission``'s problem-set score may change."""
    score_recorded.send(
        sender=Submission,
        problem_set_id=submission.variant_item.variant.problem_set_id,
        student_id=submission.student_id,
    )


NO_LONGER_LATE = "no longer late: the due date moved"
"""The reason kept in the score history of a submission whose late penalty was taken off."""


def excuse_late_submissions(problem_set: ProblemSet, *, student_ids: Iterable[int] | None = None,
                            changed_by: User | None = None) -> list[int]:
    """Take the late penalty off the set's submissions (of ``student_ids``, or everyone's)
    that are on time under the due date that now applies to their student (the set's, or
    their extension's); return their ids.

    Lateness is only taken away, never added: an answer sent before its due date was moved
    earlier (or an extension shortened) was sent under the deadline its student was shown.
    A graded submission's score becomes its raw score (unless an instructor overrode it: the
    override stands), kept in its score history; the LMS and webhooks hear of the new totals.
    """
    late = Submission.objects.filter(
        variant_item__variant__problem_set=problem_set, is_late=True,
    ).select_related("variant_item__variant__problem_set")
    if student_ids is not None:
        late = late.filter(student_id__in=list(student_ids))
    excused: list[int] = []
    students: set[int] = set()
    with transaction.atomic():
        for submission in late.select_for_update(of=("self",)):
            due_at = rules_for(submission.variant_item.variant).due_at
            if due_at is not None and submission.created_at > due_at + DEADLINE_GRACE:
                continue
            old_score = submission.score
            submission.is_late, submission.late_penalty = False, Decimal(0)
            fields = ["is_late", "late_penalty"]
            if (submission.status == Submission.Status.GRADED and not submission.overridden
                    and submission.raw_score != submission.score):
                submission.score = submission.raw_score
                fields.append("score")
                ScoreChange.objects.create(
                    submission=submission, old_score=old_score, new_score=submission.score,
                    old_max_score=submission.max_score, new_max_score=submission.max_score,
                    old_results=submission.results, source=ScoreChange.Source.REGRADE,
                    changed_by=changed_by, reason=NO_LONGER_LATE)
                students.add(submission.student_id)
            submission.save(update_fields=fields)
            excused.append(submission.pk)
        for student_id in sorted(students):
            score_recorded.send(sender=Submission, problem_set_id=problem_set.pk,
                                student_id=student_id)
    return excused


def announce_problem_set_scores(problem_set_id: int, *, already: Iterable[int] = ()) -> None:
    """Tell receivers that every student's score on a problem set may have changed (its
    score rule or an item's points changed), but the students in ``already``."""
    told = set(already)
    for student_id in Variant.objects.filter(problem_set_id=problem_set_id).order_by(
            "student_id").values_list("student_id", flat=True):
        if student_id not in told:
            score_recorded.send(sender=Submission, problem_set_id=problem_set_id,
                                student_id=student_id)


def _apply_grade(submission: Submission, result: Any, key_version: str) -> None:
    """Set a submission's scores and results from a grade, applying its late penalty."""
    penalty = Fraction(str(submission.late_penalty))
    submission.raw_score = as_decimal(result.raw_score)
    submission.score = as_decimal(result.raw_score * (1 - penalty))
    submission.max_score = as_decimal(result.max_score)
    submission.results = storable(result.results)
    submission.graded_engine_version = key_version


# --- regrading ----------------------------------------------------------------------------


def request_regrade(
    problem_set: ProblemSet, requested_by: User | None, *, enqueue: bool = True
) -> Regrade:
    """Record a regrade of ``problem_set``; with ``enqueue``, run it on a worker once committed.

    Without ``enqueue`` the caller runs it (:func:`run_regrade`), as the command does.
    """
    with transaction.atomic():
        regrade = Regrade.objects.create(problem_set=problem_set, requested_by=requested_by)
        if enqueue:
            transaction.on_commit(lambda: send_regrade(regrade.pk))
    return regrade


REGRADE_NOT_SENT = "the task queue was unreachable; request the regrade again"
"""A regrade's ``failure_reason`` when its task could not be queued."""


def send_regrade(regrade_id: int) -> bool:
    """Queue a regrade's task; when the broker refuses it, mark the regrade failed (its
    instructor sees why and asks again) and return False."""
    from grading.tasks import run_regrade_task

    if not published(run_regrade_task, regrade_id, what=f"regrade {regrade_id}"):
        Regrade.objects.filter(pk=regrade_id, status=Regrade.Status.QUEUED).update(
            status=Regrade.Status.FAILED, failure_reason=REGRADE_NOT_SENT,
            finished_at=timezone.now())
        return False
    return True


def run_regrade(regrade_id: int) -> Regrade:
    """Recompute every key of the set with the engine, regrade its submissions, report.

    Keys are recomputed under the items' current conventions and the current engine; each
    graded submission is graded again with its item's current points, and every score that
    changes is kept in a :class:`ScoreChange`; scores an instructor overrode are kept as
    they are (listed as ``overridden_kept``). Graded code submissions are listed in the
    report as ``code_submissions_pending`` and sent to the sandbox queue to run again
    (:func:`enqueue_code_regrade`); each one that finishes leaves that list (its change, if
    any, joins ``scores_changed``) and the regrade is ``done`` after the last. Running it
    twice changes nothing the second time.
    """
    regrade = Regrade.objects.select_related("problem_set").get(pk=regrade_id)
    if regrade.status == Regrade.Status.DONE:
        return regrade
    Regrade.objects.filter(pk=regrade_id).update(status=Regrade.Status.RUNNING)
    try:
        report = _regrade_problem_set(regrade)
    except Exception as error:
        logger.exception("regrade %s failed", regrade_id)
        Regrade.objects.filter(pk=regrade_id).update(
            status=Regrade.Status.FAILED, failure_reason=repr(error)[:2000],
            finished_at=timezone.now(),
        )
        raise
    code_ids = report["code_submissions_pending"]
    regrade.report = report
    regrade.status = Regrade.Status.RUNNING if code_ids else Regrade.Status.DONE
    regrade.finished_at = None if code_ids else timezone.now()
    # Saved before the code runs are sent, so that each one finds itself pending.
    regrade.save(update_fields=["report", "status", "finished_at"])
    not_sent = [pk for pk in code_ids if not enqueue_code_regrade(pk, regrade.pk)]
    if not_sent:
        # They stay pending: the stale-work sweep sends them again once the broker is back.
        with transaction.atomic():
            locked = Regrade.objects.select_for_update().get(pk=regrade.pk)
            locked.report["code_submissions_not_sent"] = not_sent
            locked.save(update_fields=["report"])
    regrade.refresh_from_db()
    return regrade


def _regrade_problem_set(regrade: Regrade) -> dict[str, Any]:
    problem_set = regrade.problem_set
    items_report = []
    for item in problem_set.items.all():
        variant_items = item.variant_items.all()
        outdated = variant_items.exclude(engine_version=engine_version()).count()
        items_report.append({
            "position": item.position, "kind": item.kind,
            "keys_recomputed": variant_items.count(),
            "keys_from_older_engine": outdated,
            "keys_changed": resolve_item(item.pk),
        })
    changes = []
    # An instructor's override stands: its submission is left out (and listed), its score
    # only rescaled to new points (below).
    kept = list(Submission.objects.filter(
        variant_item__variant__problem_set=problem_set, overridden=True,
    ).order_by("pk").values_list("pk", flat=True))
    for submission_id in kept:
        change = rescale_override(submission_id, regrade)
        if change is not None:
            changes.append(score_change_entry(change.submission, change))
    submissions = Submission.objects.filter(
        variant_item__variant__problem_set=problem_set, kind=Submission.Kind.ANSWER,
        status=Submission.Status.GRADED, overridden=False,
    ).select_related("variant_item__item", "student").order_by("pk")
    regraded = 0
    for submission in submissions.iterator(chunk_size=200):
        regraded += 1
        change = regrade_submission(submission, regrade)
        if change is not None:
            changes.append(score_change_entry(submission, change))
    code_ids = list(Submission.objects.filter(
        variant_item__variant__problem_set=problem_set, kind=Submission.Kind.CODE,
        status=Submission.Status.GRADED, overridden=False,
    ).order_by("pk").values_list("pk", flat=True))
    # New points change every total's maximum, also of students whose scores did not
    # change (or who have not answered that item): the LMS hears of every student's.
    announce_problem_set_scores(problem_set.pk, already={
        student_id for student_id in Submission.objects.filter(
            pk__in=[change["submission"] for change in changes]).values_list(
            "student_id", flat=True)})
    return {
        "overridden_kept": kept,
        "engine_version": engine_version(),
        "items": items_report,
        "submissions_regraded": regraded,
        "scores_changed": changes,
        "code_submissions_requeued": code_ids,
        "code_submissions_pending": list(code_ids),
        "code_submissions_failed": [],
        "code_submissions_not_sent": [],
        "code_sent_at": timezone.now().isoformat(),
    }


def rescale_override(submission_id: int, regrade: Regrade | None) -> ScoreChange | None:
    """Rescale an overridden score to its item's new points; return the change, if any.

    The instructor gave a share of the item's points (2 of 2): after the item's points
    change the override keeps that share (1 of 1), so no score exceeds its item's maximum.
    """
    with transaction.atomic():
        locked = Submission.objects.select_for_update().select_related(
            "variant_item__variant", "variant_item__item", "student").get(pk=submission_id)
        points = Decimal(locked.variant_item.item.points)
        if (not locked.overridden or locked.max_score is None or locked.score is None
                or locked.max_score == points):
            return None
        old_score, old_max = locked.score, locked.max_score
        share = Fraction(old_score) / Fraction(old_max) if old_max else Fraction(0)
        locked.score = as_decimal(share * Fraction(points))
        locked.max_score = points
        locked.save(update_fields=["score", "max_score"])
        change = ScoreChange.objects.create(
            submission=locked, regrade=regrade, old_score=old_score, new_score=locked.score,
            old_max_score=old_max, new_max_score=points, old_results=locked.results,
            reason="the item's points changed; the override keeps its share",
        )
        queue_webhook_events(locked, "submission.regraded")
        announce_score(locked)
    return change


def score_change_entry(submission: Submission, change: ScoreChange) -> dict[str, Any]:
    """Return how a regrade report lists one changed score."""
    return {
        "submission": submission.pk, "kind": submission.kind,
        "student": submission.student.username, "item": submission.variant_item.position,
        "attempt": submission.attempt_number,
        "old_score": _float(change.old_score), "new_score": _float(change.new_score),
        "old_max_score": _float(change.old_max_score),
        "new_max_score": _float(change.new_max_score),
    }


def enqueue_code_regrade(submission_id: int, regrade_id: int) -> bool:
    """Send a graded code submission to the sandbox queue to be run again for a regrade.

    It is graded there by :func:`grading.code.services.regrade_code_submission`, which keeps
    any score change in a :class:`ScoreChange` of ``regrade_id`` and reports back with
    :func:`finish_code_regrade`. Return whether the broker accepted the task.
    """
    from grading.code.scheduling import send_code_task

    try:
        send_code_task(submission_id, regrade_id=regrade_id)
    except Exception:  # kombu raises transport-specific errors; every one means "not sent"
        logger.warning("broker unavailable; code submission %s not sent for regrade %s",
                       submission_id, regrade_id, exc_info=True)
        return False
    return True


def finish_code_regrade(regrade_id: int, submission_id: int,
                        change: ScoreChange | None, *, failed: bool = False) -> None:
    """Record that one pending code submission of a regrade ran again (or could not).

    Its change, if any, joins the report's ``scores_changed``; a sandbox that could not run
    it lists it in ``code_submissions_failed`` (its tests' outcome stays, on the item's
    current points). After the last pending
    one the regrade is ``done``. A second report for the same submission (a redelivered
    task) is ignored.
    """
    with transaction.atomic():
        regrade = Regrade.objects.select_for_update().filter(pk=regrade_id).first()
        if regrade is None:
            return
        report = regrade.report
        pending = report.get("code_submissions_pending", [])
        if submission_id not in pending:
            return
        pending.remove(submission_id)
        if change is not None:
            report["scores_changed"].append(score_change_entry(change.submission, change))
        if failed:
            report.setdefault("code_submissions_failed", []).append(submission_id)
        fields = ["report"]
        if not pending and regrade.status == Regrade.Status.RUNNING:
            regrade.status = Regrade.Status.DONE
            regrade.finished_at = timezone.now()
            fields += ["status", "finished_at"]
        regrade.save(update_fields=fields)


def requeue_stale_code_regrades(now: datetime | None = None) -> list[int]:
    """Send again the pending code runs of regrades that have waited too long for them.

    Their task was not accepted by the broker or was lost with a worker; running one twice
    is harmless (the second run changes nothing and its report is ignored). Return the ids
    of the submissions sent.
    """
    now = now or timezone.now()
    sent: list[int] = []
    for regrade in Regrade.objects.filter(status=Regrade.Status.RUNNING).exclude(report={}):
        pending = regrade.report.get("code_submissions_pending") or []
        sent_at = datetime.fromisoformat(regrade.report.get("code_sent_at", now.isoformat()))
        if not pending or now - sent_at < STALE_RUNNING:
            continue
        resent = [pk for pk in pending if enqueue_code_regrade(pk, regrade.pk)]
        if resent:
            with transaction.atomic():
                locked = Regrade.objects.select_for_update().get(pk=regrade.pk)
                locked.report["code_sent_at"] = now.isoformat()
                locked.save(update_fields=["report"])
        sent += resent
    return sent


def regrade_submission(submission: Submission, regrade: Regrade | None) -> ScoreChange | None:
    """Grade a graded submission again under its item's current key and points.

    Return the :class:`ScoreChange` recorded when its score or maximum changed (None when
    they did not; feedback is refreshed either way).
    """
    variant_item = VariantItem.objects.select_related("item").get(pk=submission.variant_item_id)
    result = grade_answer(grading_context(variant_item), submission.answer or {})
    return replace_grade(
        submission.pk, lambda locked: _apply_grade(locked, result, variant_item.engine_version),
        regrade,
    )


def replace_grade(submission_id: int, apply: Callable[[Submission], None],
                  regrade: Regrade | None) -> ScoreChange | None:
    """Replace a graded submission's grade in place, under its row lock; return the change.

    ``apply`` sets the new scores and results on the locked row. When the score or maximum
    changed, a :class:`ScoreChange` keeps the old ones (and the old results), and webhooks
    and the LMS hear of it; otherwise return None. A submission no longer graded is left
    alone, and so is one an instructor overrode since the regrade listed it (a code
    regrade runs later, on the sandbox queue): the override stands. Typed answers and code
    submissions are regraded through here alike.
    """
    try:
        with transaction.atomic():
            locked = Submission.objects.select_for_update().select_related(
                "variant_item__variant").get(pk=submission_id)
            if locked.status != Submission.Status.GRADED or locked.overridden:
                return None
            old = (locked.score, locked.max_score, locked.results)
            apply(locked)
            locked.save(update_fields=["raw_score", "score", "max_score", "results",
                                       "graded_engine_version"])
            if (locked.score, locked.max_score) == old[:2]:
                return None
            change = ScoreChange.objects.create(
                submission=locked, regrade=regrade, old_score=old[0], new_score=locked.score,
                old_max_score=old[1], new_max_score=locked.max_score, old_results=old[2],
                reason="regrade",
            )
            queue_webhook_events(locked, "submission.regraded")
            announce_score(locked)
    except UNSAVABLE_ERRORS:
        # The old grade stays; the regrade goes on with the next submission.
        logger.exception("the new grade of submission %s cannot be stored; the old one stays",
                         submission_id)
        return None
    return change


def _float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


# --- overrides and regrade requests -------------------------------------------------------


def override_score(
    submission: Submission, *, score: Decimal, reason: str, changed_by: User
) -> ScoreChange:
    """Set a graded submission's score by hand; return the :class:`ScoreChange` kept.

    The history keeps who, when, the old and new score and the reason; the submission is
    marked ``overridden`` so later regrades keep the instructor's score. Webhooks hear
    ``submission.overridden`` and the LMS passback re-sends the student's set score (the
    grades CSV reads the new score). Raise 422 naming ``score`` when the submission is not
    graded or the score is outside 0..max_score; nothing changes then.
    """
    with transaction.atomic():
        locked = Submission.objects.select_for_update().select_related(
            "variant_item__variant").get(pk=submission.pk)
        if locked.status != Submission.Status.GRADED or locked.max_score is None:
            raise _refused("score", "only a graded submission's score can be overridden")
        if not Decimal(0) <= score <= locked.max_score:
            raise _refused("score", f"must be between 0 and the maximum {locked.max_score}")
        change = ScoreChange.objects.create(
            submission=locked, old_score=locked.score, new_score=score,
            old_max_score=locked.max_score, new_max_score=locked.max_score,
            old_results=locked.results, source=ScoreChange.Source.OVERRIDE,
            changed_by=changed_by, reason=reason,
        )
        locked.score = score
        locked.overridden = True
        locked.save(update_fields=["score", "overridden"])
        queue_webhook_events(locked, "submission.overridden")
        announce_score(locked)
    submission.refresh_from_db()
    return change


def _refused(field: str, message: str) -> ApiError:
    return ApiError(f"{field}: {message}", code="unprocessable",
                    status_code=status.HTTP_422_UNPROCESSABLE_ENTITY,
                    details={field: [message]})


def request_score_review(submission: Submission, *, student: User, message: str
                         ) -> RegradeRequest:
    """Record a student's regrade request on their graded submission; return it.

    Raise 422 naming ``submission`` when it is not graded yet or its problem set is archived
    (hidden from its students, so closed to their requests), and 409 while an earlier request
    on it is still open.
    """
    if submission.status != Submission.Status.GRADED:
        raise _refused("submission", "only a graded submission can be reviewed")
    if submission.variant_item.variant.problem_set.archived_at is not None:
        raise _refused("submission", "its problem set is archived: regrade requests are closed")
    try:
        with transaction.atomic():
            return RegradeRequest.objects.create(submission=submission, student=student,
                                                 message=message)
    except IntegrityError:
        raise ApiError("a regrade request on this submission is already open",
                       code="conflict", status_code=status.HTTP_409_CONFLICT) from None


def resolve_regrade_request(
    regrade_request: RegradeRequest, *, resolved_by: User, reply: str,
    score: Decimal | None = None,
) -> RegradeRequest:
    """Answer an open regrade request with ``reply`` (the student reads it), overriding the
    submission's score to ``score`` when given (:func:`override_score`, the reply as its
    reason). Raise 409 when it is already resolved."""
    with transaction.atomic():
        locked = RegradeRequest.objects.select_for_update().get(pk=regrade_request.pk)
        if locked.status != RegradeRequest.Status.OPEN:
            raise ApiError("this regrade request is already resolved", code="conflict",
                           status_code=status.HTTP_409_CONFLICT)
        if score is not None:
            locked.score_change = override_score(
                locked.submission, score=score, reason=reply or "regrade request",
                changed_by=resolved_by,
            )
        locked.status = RegradeRequest.Status.RESOLVED
        locked.reply = reply
        locked.resolved_by = resolved_by
        locked.resolved_at = timezone.now()
        locked.save(update_fields=["status", "reply", "resolved_by", "resolved_at",
                                   "score_change"])
    return locked

"""Write operations on problem sets: create, publish, generate variants, update items."""

from __future__ import annotations

import json
import logging
import math
import secrets
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.db import OperationalError, transaction
from django.db.models import Count
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError
from rest_framework import status

from accounts.models import Course, User
from config.api import ApiError
from exercises.generation import (
    GeneratedItem,
    GenerationError,
    check_generates,
    generate_item,
    item_seed,
    variant_seed,
)
from exercises.kinds import get_kind
from exercises.kinds.authored import is_authored
from exercises.kinds.base import CHOICE_PART, Kind
from exercises.kinds.engine_bridge import EngineFailure, as_json, engine_version
from exercises.kinds.params import ParamError
from exercises.models import Extension, Item, ProblemSet, Variant, VariantItem
from exercises.selectors import rules_for, students_missing_variants

logger = logging.getLogger(__name__)

STUDENTS_PER_TASK = 25
"""Students whose variants one Celery task generates: few tasks, yet both cores kept busy."""

STORE_RETRY_DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2)
"""Seconds to wait before each new attempt at storing a chunk on a locked database."""

STALE_GENERATION = timedelta(minutes=10)
"""A set generating without progress for this long has lost its tasks: it may be republished."""


def validate_item(kind_name: Any, params: Any, *, prefix: str = "",
                  sample_unless: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return ``params`` validated for kind ``kind_name`` with every default explicit.

    Raise a 400 :class:`ApiError` naming the field as the request spells it, ``prefix``
    first (``items[1].params.depth``, ``params.depth``, an instructor's tree's node as
    ``params.tree.children[0]``), and the rule it breaks. Params are also tried on a sample
    of problems (:func:`~exercises.generation.check_generates`), unless they equal
    ``sample_unless`` (an item's stored params, which an edit re-sends unchanged): ones that
    meet their kind's constraints too rarely for every student's variant to generate
    (alpha-beta trees too small to cut ``min_cuts`` times) are a 422 ``generation_failed``
    naming ``params`` now, not a set failing for some students after publishing; an
    instructor's tree that its kind's rules never accept is a 400 on ``params.tree``.
    """
    try:
        cleaned = get_kind(kind_name).clean_params(params)
    except ParamError as error:
        where = prefix + {"kind": "kind", "params": "params"}.get(
            error.field, f"params.{error.field}"
        )
        raise ApiError(
            f"{where}: {error.message}", code="invalid", details={where: [error.message]}
        ) from error
    if sample_unless is not None and cleaned == _cleaned_or_none(kind_name, sample_unless):
        return cleaned
    try:
        check_generates(kind_name, cleaned)
    except GenerationError as error:
        where = prefix + error.param_path
        if is_authored(cleaned):
            raise ApiError(f"{where}: {error.message}", code="invalid",
                           details={where: [error.message]}) from error
        raise ApiError(
            f"{where}: {error.message}", code="generation_failed",
            status_code=status.HTTP_422_UNPROCESSABLE_ENTITY, details={where: [error.message]},
        ) from error
    return cleaned


def _cleaned_or_none(kind_name: Any, params: dict[str, Any]) -> dict[str, Any] | None:
    """Return stored ``params`` with today's defaults filled in, or None if they no longer
    validate."""
    try:
        return get_kind(kind_name).clean_params(params)
    except ParamError:
        return None


def split_points(kind_name: str, params: dict[str, Any], points: Decimal) -> dict[str, str]:
    """Return answer part → points (decimal strings), in proportion to the parts' weights.

    Shares are in cents, rounded by largest remainder (ties to the earlier part), so they add
    up exactly to ``points``.
    """
    parts = get_kind(kind_name).answer_parts(params)
    if not parts:
        return {}  # e.g. code items: the answer is a program, scored as a whole
    total_weight = sum((Fraction(part.points) for part in parts), Fraction(0))
    exact = [Fraction(points) * 100 * Fraction(part.points) / total_weight for part in parts]
    cents = [math.floor(share) for share in exact]
    leftover = round(Fraction(points) * 100) - sum(cents)
    by_remainder = sorted(range(len(parts)), key=lambda i: (cents[i] - exact[i], i))
    for index in by_remainder[:leftover]:
        cents[index] += 1
    return {
        part.name: str((Decimal(c) / 100).quantize(Decimal("0.01")))
        for part, c in zip(parts, cents, strict=True)
    }


def create_problem_set(
    *,
    creator: User,
    course: Course,
    title: str,
    items: Sequence[dict[str, Any]],
    seed: str = "",
    **settings: Any,
) -> ProblemSet:
    """Create a draft problem set with validated items; ``settings`` are ProblemSet fields.

    Each item is ``{"kind", "params", "points"}``; params are stored with every default
    filled in, so the conventions an item was generated and graded with are always explicit.
    """
    cleaned = [
        (item["kind"], validate_item(item["kind"], item.get("params"), prefix=f"items[{index}]."),
         item["points"])
        for index, item in enumerate(items)
    ]
    with transaction.atomic():
        problem_set = ProblemSet.objects.create(
            course=course,
            title=title,
            seed=seed or secrets.token_hex(16),
            created_by=creator,
            **settings,
        )
        Item.objects.bulk_create(
            Item(
                problem_set=problem_set,
                position=position,
                kind=kind,
                params=params,
                points=points,
                part_points=split_points(kind, params, points),
            )
            for position, (kind, params, points) in enumerate(cleaned, start=1)
        )
    return problem_set


def publish_problem_set(problem_set: ProblemSet) -> ProblemSet:
    """Start generating the variants of every enrolled student who has none yet.

    The set goes to ``generating`` with its progress reset to (variants done, students), and
    one task per chunk of students is queued once the transaction commits; with nobody
    missing it is ``ready`` at once. Raise a 409 :class:`ApiError` while generation runs,
    unless it has made no progress for :data:`STALE_GENERATION` (its tasks were lost), and a
    422 (see :func:`check_generation`) when an item's params meet their constraints too
    rarely or the first missing variant cannot be generated, or when the set is archived.
    """
    check_generation(problem_set, sample=not problem_set.variants.exists())
    with transaction.atomic():
        locked = ProblemSet.objects.select_for_update().get(pk=problem_set.pk)
        if (
            locked.status == ProblemSet.Status.GENERATING
            and timezone.now() - locked.updated_at < STALE_GENERATION
        ):
            raise ApiError(
                "the problem set is already being generated; wait until it is ready or failed",
                code="conflict", status_code=status.HTTP_409_CONFLICT,
            )
        if not locked.items.exists():
            raise ApiError("items: a problem set needs at least one item to be published",
                           details={"items": ["at least one item is required"]})
        if locked.archived_at is not None:
            # Its students cannot see it: variants made now would wait unseen.
            raise _unprocessable("archived", "an archived set is not published; unarchive it "
                                 "first (PATCH {\"archived\": false})")
        missing = students_missing_variants(locked)
        done = locked.variants.count()
        locked.progress_done = done
        locked.progress_total = done + len(missing)
        locked.failure_reason = ""
        locked.published_at = timezone.now()
        locked.status = ProblemSet.Status.GENERATING if missing else ProblemSet.Status.READY
        locked.save(update_fields=["progress_done", "progress_total", "failure_reason",
                                   "published_at", "status", "updated_at"])
        chunks = [
            missing[start:start + STUDENTS_PER_TASK]
            for start in range(0, len(missing), STUDENTS_PER_TASK)
        ]
        if chunks:
            transaction.on_commit(lambda: _enqueue_generation(locked.pk, chunks))
    locked.refresh_from_db()
    return locked


def generate_late_variants(
    problem_set: ProblemSet, student_ids: Sequence[int] | None = None
) -> bool:
    """Start generating the variants of students enrolled after ``problem_set`` was
    published (all such students, or those of ``student_ids``); return whether any of them
    is being generated.

    Idempotent and safe to run concurrently (first LMS launches, roster syncs): under the
    set's row lock it extends a ``ready`` or ``generating`` set, queueing the missing
    students' generation again whatever is in flight (stored variants are skipped). Drafts
    and failed sets are left for the instructor to publish. Raise the 422 of
    :func:`check_generation` when the first of these students' variants cannot be generated.
    """
    if problem_set.status not in (ProblemSet.Status.READY, ProblemSet.Status.GENERATING):
        return False
    check_generation(problem_set, student_ids)
    with transaction.atomic():
        locked = ProblemSet.objects.select_for_update().get(pk=problem_set.pk)
        if locked.status not in (ProblemSet.Status.READY, ProblemSet.Status.GENERATING):
            return False
        missing = students_missing_variants(locked)
        missing_wanted = _among(missing, student_ids)
        if not missing_wanted:
            return False
        locked.progress_done = locked.variants.count()
        locked.progress_total = locked.progress_done + len(missing)
        locked.status = ProblemSet.Status.GENERATING
        locked.save(update_fields=["progress_done", "progress_total", "status", "updated_at"])
        chunks = [
            missing_wanted[start:start + STUDENTS_PER_TASK]
            for start in range(0, len(missing_wanted), STUDENTS_PER_TASK)
        ]
        transaction.on_commit(lambda: _enqueue_generation(locked.pk, chunks))
    return True


def check_generation(problem_set: ProblemSet, student_ids: Sequence[int] | None = None, *,
                     sample: bool = False) -> None:
    """Generate the first missing student's variant (of ``student_ids``, when given), unstored,
    to refuse impossible params now, after trying each item's params on the sample problems
    params are tried on when stored (:func:`check_generates`).

    With ``sample`` (publishing a set that has no variants yet) params stored before they
    were sampled must pass the sample as new ones do. Otherwise (publishing again for
    newcomers, a newcomer's first LMS launch: their classmates' variants exist) one sample
    problem meeting the constraints is enough; none in 1,000 refuses params that never
    generate rather than spending a seed's 20,000 attempts in the request.

    Raise a 422 :class:`ApiError` (code ``generation_failed``) whose details name the item's
    param (``items[0].params.options``) and the constraint no attempt met; nothing changes.
    """
    missing = _among(students_missing_variants(problem_set), student_ids)
    if not missing:
        return
    items = list(problem_set.items.all())
    try:
        for item in items:
            try:
                check_generates(item.kind, item.params, needed=None if sample else 1)
            except GenerationError as error:
                raise _naming_item(item, error) from error
        _generate_variant_items(problem_set.seed, items, missing[0])
    except GenerationError as error:
        raise ApiError(
            f"{error.field}: {error.message}", code="generation_failed",
            status_code=status.HTTP_422_UNPROCESSABLE_ENTITY,
            details={error.field: [error.message]},
        ) from error


def _among(student_ids: list[int], wanted: Sequence[int] | None) -> list[int]:
    """Return those of ``student_ids`` that are ``wanted`` (all of them when ``wanted`` is
    None), in their order."""
    if wanted is None:
        return student_ids
    wanted_set = set(wanted)
    return [student_id for student_id in student_ids if student_id in wanted_set]


def _enqueue_generation(problem_set_id: int, chunks: list[list[int]]) -> None:
    """Queue one generation task per chunk; an unreachable broker fails the set, to retry."""
    from exercises.tasks import generate_variants_task

    try:
        for chunk in chunks:
            generate_variants_task.delay(problem_set_id, chunk)
    except BrokerError as error:
        logger.warning("could not queue generation of problem set %s: %s", problem_set_id, error)
        fail_problem_set(
            problem_set_id, f"the task queue is unreachable ({error}); publish again"
        )


def generate_variants(problem_set_id: int, student_ids: Sequence[int]) -> int:
    """Generate and store the variants of ``student_ids`` that do not exist yet; return how many.

    Safe to run twice (a redelivered task): existing variants are skipped. A generation
    error, or any other, marks the whole set ``failed`` with the reason, so it never stays
    ``generating``; the set turns ``ready`` when the last variant is stored.
    """
    problem_set = ProblemSet.objects.get(pk=problem_set_id)
    if problem_set.status != ProblemSet.Status.GENERATING:
        return 0
    existing = set(
        problem_set.variants.filter(student_id__in=student_ids).values_list("student_id", flat=True)
    )
    items = list(problem_set.items.all())
    try:
        generated = {
            student_id: _generate_variant_items(problem_set.seed, items, student_id)
            for student_id in student_ids
            if student_id not in existing
        }
        return _store_with_retries(problem_set, generated)
    except GenerationError as error:
        fail_problem_set(problem_set_id, str(error))
        return 0
    except Exception as error:
        logger.exception("generating problem set %s failed", problem_set_id)
        fail_problem_set(problem_set_id, f"internal error while generating: {error!r}")
        raise


def _store_with_retries(
    problem_set: ProblemSet, generated: dict[int, list[tuple[Item, str, GeneratedItem]]]
) -> int:
    """Store the variants, retrying when the database is momentarily locked.

    SQLite (local runs) lets one writer in at a time and refuses a second one at once rather
    than make it wait, so concurrent chunks take turns here.
    """
    for delay in STORE_RETRY_DELAYS:
        try:
            return _store_variants(problem_set, generated)
        except OperationalError:
            time.sleep(delay)
    return _store_variants(problem_set, generated)


def _generate_variant_items(
    set_seed: str, items: list[Item], student_id: int
) -> list[tuple[Item, str, GeneratedItem]]:
    """Return (item, seed, generated item) for each item of one student's variant."""
    entries = []
    for item in items:
        seed = item_seed(set_seed, student_id, item.position)
        try:
            entries.append((item, seed, generate_item(item.kind, item.params, seed)))
        except GenerationError as error:
            raise _naming_item(item, error) from error
    return entries


def _naming_item(item: Item, error: GenerationError) -> GenerationError:
    """Return ``error`` restated for ``item``: ``item 2: …`` on ``items[1].params…``."""
    where = f"items[{item.position - 1}].{error.param_path}"
    return GenerationError(f"item {item.position}: {error.message}", field=where)


def _store_variants(
    problem_set: ProblemSet, generated: dict[int, list[tuple[Item, str, GeneratedItem]]]
) -> int:
    """Insert the generated variants and advance the progress, under the set's row lock."""
    now = timezone.now()
    with transaction.atomic():
        locked = ProblemSet.objects.select_for_update().get(pk=problem_set.pk)
        # A concurrent run of the same chunk may have stored some of them meanwhile.
        already = set(
            locked.variants.filter(student_id__in=generated).values_list("student_id", flat=True)
        )
        fresh = {sid: entries for sid, entries in generated.items() if sid not in already}
        variants = Variant.objects.bulk_create(
            Variant(problem_set=locked, student_id=sid, seed=variant_seed(locked.seed, sid))
            for sid in fresh
        )
        VariantItem.objects.bulk_create(
            VariantItem(
                variant=variant,
                item=item,
                position=item.position,
                seed=seed,
                problem=result.problem,
                prompt=result.prompt,
                answer_key=result.answer_key,
                trace=result.trace,
                engine_version=result.engine_version,
                generation_attempt=result.attempt,
                generated_at=now,
            )
            for variant in variants
            for item, seed, result in fresh[variant.student_id]
        )
        locked.progress_done = locked.variants.count()
        fields = ["progress_done", "updated_at"]
        if (
            locked.status == ProblemSet.Status.GENERATING
            and locked.progress_done >= locked.progress_total
        ):
            locked.status = ProblemSet.Status.READY
            fields.append("status")
        locked.save(update_fields=fields)
    return len(fresh)


def fail_problem_set(problem_set_id: int, reason: str) -> None:
    """Mark the problem set ``failed`` with ``reason`` (kept if it already failed)."""
    with transaction.atomic():
        locked = ProblemSet.objects.select_for_update().get(pk=problem_set_id)
        if locked.status == ProblemSet.Status.FAILED:
            return
        locked.status = ProblemSet.Status.FAILED
        locked.failure_reason = reason
        locked.save(update_fields=["status", "failure_reason", "updated_at"])


def open_variant(variant: Variant, now: datetime) -> Variant:
    """Start the quiz clock when a timed variant is first opened; return the variant.

    Timed by the set's limit or the student's extension (:func:`rules_for`).
    """
    if rules_for(variant).time_limit_minutes and variant.opened_at is None:
        updated = Variant.objects.filter(pk=variant.pk, opened_at__isnull=True).update(
            opened_at=now
        )
        if updated:
            variant.opened_at = now
        else:
            variant.refresh_from_db(fields=["opened_at"])
    return variant


FROZEN_SHAPE = ("shapes the students' problems, which are already generated; only "
                "conventions and points can change now")
FROZEN_CHOICE = ("the options of this multiple-choice item were drawn under its conventions, "
                 "so the new key may be none of them; only points can change now (add a new "
                 "item for other conventions)")


def note_keys_seen(variant_item_ids: Iterable[int], now: datetime) -> None:
    """Record that the student was shown these items' answer keys (or replays), the first
    time only: from then on grading refuses their attempts at them, whatever an extension or
    a change of the set's rules reopens (``VariantItem.keys_seen_at``)."""
    VariantItem.objects.filter(pk__in=list(variant_item_ids), keys_seen_at__isnull=True) \
        .update(keys_seen_at=now)


def frozen_changes(
    kind_name: str, params: dict[str, Any], changed: Iterable[str]
) -> list[tuple[str, str]]:
    """Return the changed params that may not change once variants exist, each with why.

    Conventions change keys, not problems, so a worker recomputes the keys; but a
    multiple-choice item's options are part of its problems, and none of them may show
    the key under new conventions: its conventions are frozen too.
    """
    kind = get_kind(kind_name)
    choice = kind.is_multiple_choice(params)
    conventions = kind.convention_names()
    return [(name, FROZEN_SHAPE if name not in conventions else FROZEN_CHOICE)
            for name in sorted(changed) if choice or name not in conventions]


def check_convention_change(item: Item, params: dict[str, Any], field: str) -> None:
    """Refuse (422 on ``field``) conventions under which some of ``item``'s published variant
    items' prompts would state something false (:meth:`Kind.false_premises`).

    Their problems were drawn under the old conventions: under new ones an alpha-beta
    prompt may name as a cut node one that no longer cuts (and ask for a bound where the
    value is exact), or ask the window of a node no longer entered; MCTS statistics may fit
    no history under a new draw reward. A key recomputed for such a prompt would mark wrong
    the student who believes it, so nothing is changed. Rules that only make problems
    interesting (``min_cuts``, say) may break: the keys stay right.
    """
    kind = get_kind(item.kind)
    conventions = {name: params[name] for name in kind.convention_names()}
    broken, first_rule, total = 0, "", 0
    issues_of: dict[str, list[str]] = {}
    for problem in item.variant_items.values_list("problem", flat=True):
        total += 1
        problem = {**problem, "params": {**problem.get("params", {}), **conventions}}
        same = _same_problem(problem)
        if same not in issues_of:
            issues_of[same] = _false_premises_under(kind, problem, params)
        issues = issues_of[same]
        if issues:
            broken += 1
            first_rule = first_rule or issues[0]
    if broken:
        raise _unprocessable(
            field, f"under the new conventions the prompts of {broken} of the {total} "
            f"students' items would state something false (first: {first_rule}), so their "
            "keys could not stay right; keep the conventions, or make a new set with them")


def _same_problem(problem: dict[str, Any]) -> str:
    """Return what ``problem`` is, as a key: students' variants may share a problem (a
    tree_size item draws from a few branching factors and depths, and its searches of
    10^4 leaves take a fifth of a second), so each distinct one is solved once."""
    return json.dumps(problem, sort_keys=True)


def _false_premises_under(kind: Kind, problem: dict[str, Any], params: dict[str, Any]
                          ) -> list[str]:
    """Return what ``problem``'s prompt would state falsely under ``params``' conventions."""
    try:
        return kind.false_premises(problem, kind.solve(problem), params)
    except EngineFailure as failure:
        return [f"the engine cannot solve it: {failure}"]


def resolve_item(item_id: int) -> int:
    """Recompute with the engine every variant key of an item under its current conventions.

    Return how many keys changed. Used after a convention change, and by regrading.
    """
    item = Item.objects.get(pk=item_id)
    kind = get_kind(item.kind)
    conventions = {name: item.params[name] for name in kind.convention_names()}
    variant_items = list(item.variant_items.all())
    changed = 0
    solved: dict[str, tuple[dict[str, Any], dict[str, Any], Any]] = {}
    for variant_item in variant_items:
        problem = {**variant_item.problem}
        problem["params"] = {**problem.get("params", {}), **conventions}
        same = _same_problem(problem)
        if same not in solved:
            answer = kind.solve(problem)
            solved[same] = (answer, kind.project(problem, answer),
                            kind.misconception_parts(problem))
        answer, key, misconceptions = solved[same]
        if kind.is_multiple_choice(item.params):
            # is_multiple_choice: the kind has a choice_part.
            key = _option_holding(problem, key[kind.choice_part])  # type: ignore[index]
        changed += key != variant_item.answer_key
        variant_item.problem = problem
        # The prompt states the conventions: it must state the ones the new key follows.
        variant_item.prompt = {"kind": kind.name,
                               "args": as_json(kind.prompt_args(problem, item.params))}
        variant_item.answer_key = key
        variant_item.trace = {**(variant_item.trace or {}), "answer": answer,
                              "misconceptions": misconceptions}
        variant_item.engine_version = engine_version()
    VariantItem.objects.bulk_update(
        variant_items, ["problem", "prompt", "answer_key", "trace", "engine_version"],
        batch_size=500,
    )
    return changed


def _option_holding(problem: dict[str, Any], value: Any) -> dict[str, str]:
    """Return the choice key of the option showing ``value``.

    Raise :class:`RuntimeError` if none does: a key the students cannot choose must never
    be stored (:func:`frozen_changes` keeps a multiple-choice item's conventions fixed).
    """
    for option in problem.get("options", []):
        if option["value"] == value:
            return {CHOICE_PART: option["id"]}
    raise RuntimeError(f"no option shows the engine's answer {value!r}; the item's "
                       f"options no longer hold its key")


# --- running a course: editing, archiving, copying, portable definitions, extensions -------

SETTING_FIELDS = (
    "title", "due_at", "max_attempts", "late_policy", "late_penalty", "score_policy",
    "feedback_policy", "time_limit_minutes",
)
"""Problem-set fields an instructor may change at any time, published or not."""

DEFINITION_FORMAT = "cutoff-problem-set/1"
"""Format version of a portable problem-set definition (see docs/course-running.md)."""


def _unprocessable(field: str, message: str) -> ApiError:
    return ApiError(f"{field}: {message}", code="unprocessable",
                    status_code=status.HTTP_422_UNPROCESSABLE_ENTITY,
                    details={field: [message]})


def update_problem_set(
    problem_set: ProblemSet,
    *,
    changed_by: User,
    items: Sequence[dict[str, Any]] = (),
    archived: bool | None = None,
    **settings: Any,
) -> tuple[ProblemSet, list[str], int | None]:
    """Change a problem set's settings and items, published or not; return the set, the
    fields whose change alters keys or scores, and the id of the regrade queued for them.

    ``settings`` are :data:`SETTING_FIELDS`; ``items`` are ``{"position", "params"?,
    "points"?}`` (params merged over the stored ones). Once variants exist an item's
    conventions and points may change (a regrade then recomputes every key and score), not
    the params that shape its problems. Everything is checked before anything is written:
    a refused change (422 naming the field) alters nothing. ``archived`` archives or
    unarchives the set.
    """
    from grading.services import (
        announce_problem_set_scores,
        excuse_late_submissions,
        request_regrade,
    )

    by_position = {item.position: item for item in problem_set.items.all()}
    has_variants = problem_set.variants.exists()
    planned: list[tuple[Item, dict[str, Any], Decimal]] = []
    key_changes: list[str] = []
    for index, change in enumerate(items):
        where = f"items[{index}]"
        item = by_position.get(change["position"])
        if item is None:
            raise _unprocessable(f"{where}.position", f"the set has no item {change['position']}")
        params = item.params
        if change.get("params") is not None:
            params = validate_item(item.kind, {**item.params, **change["params"]},
                                   prefix=f"{where}.", sample_unless=item.params)
            changed = sorted(name for name in params if params[name] != item.params.get(name))
            frozen = frozen_changes(item.kind, params, changed)
            if frozen and has_variants:
                name, rule = frozen[0]
                raise _unprocessable(f"{where}.params.{name}", rule)
            conventions = [name for name in changed
                           if name in get_kind(item.kind).convention_names()]
            if conventions and has_variants:
                check_convention_change(item, params, f"{where}.params.{conventions[0]}")
            key_changes += [f"{where}.params.{name}" for name in changed]
        points = Decimal(change["points"]) if change.get("points") is not None else item.points
        if points != item.points:
            key_changes.append(f"{where}.points")
        planned.append((item, params, points))
    limit: int | None = settings.get("max_attempts", problem_set.max_attempts)
    if "max_attempts" in settings and limit and (
            problem_set.max_attempts is None or limit < problem_set.max_attempts):
        # Only a lower limit can fall below what a student already used.
        most_used = _most_attempts_used(problem_set)
        if most_used > limit:
            raise _unprocessable(
                "max_attempts", f"a student already used {most_used} attempts at an item "
                f"beyond their extra attempts; the limit cannot go below that",
            )
    with transaction.atomic():
        locked = ProblemSet.objects.select_for_update().get(pk=problem_set.pk)
        for name, value in settings.items():
            setattr(locked, name, value)
        if archived is not None:
            locked.archived_at = (locked.archived_at or timezone.now()) if archived else None
        locked.save()
        for item, params, points in planned:
            item.params, item.points = params, points
            item.part_points = split_points(item.kind, params, points)
            item.save(update_fields=["params", "points", "part_points"])
        regrade_id = None
        if key_changes and has_variants:
            regrade_id = request_regrade(locked, changed_by).pk
        if settings.get("score_policy", problem_set.score_policy) != problem_set.score_policy:
            # Another attempt counts now: every total may change, and the LMS must hear of it.
            announce_problem_set_scores(locked.pk)
        if "due_at" in settings and settings["due_at"] != problem_set.due_at:
            excuse_late_submissions(locked, changed_by=changed_by)
    return locked, (key_changes if has_variants else []), regrade_id


def _most_attempts_used(problem_set: ProblemSet) -> int:
    """Return the most attempts any student used at one item of ``problem_set``, less the
    student's extra attempts (an extension's): what the set's own limit must still allow."""
    from grading.models import Submission  # grading builds on exercises, not the reverse

    extra = dict(problem_set.extensions.values_list("student_id", "extra_attempts"))
    counts = (
        Submission.objects.filter(variant_item__variant__problem_set=problem_set)
        .exclude(status=Submission.Status.ERROR)
        .values("variant_item", "student_id").annotate(used=Count("pk"))
    )
    return max((row["used"] - extra.get(row["student_id"], 0) for row in counts), default=0)


def archive_problem_set(problem_set: ProblemSet) -> ProblemSet:
    """Archive ``problem_set``: students no longer see it; variants, grades, submissions stay."""
    if problem_set.archived_at is None:
        problem_set.archived_at = timezone.now()
        problem_set.save(update_fields=["archived_at", "updated_at"])
    return problem_set


def export_definition(problem_set: ProblemSet) -> dict[str, Any]:
    """Return the portable definition of ``problem_set``: items with their explicit params
    (instructor trees included) and points, its policies, and the format version."""
    return {
        "format": DEFINITION_FORMAT,
        "title": problem_set.title,
        "seed": problem_set.seed,
        "policies": {
            "due_at": problem_set.due_at.isoformat() if problem_set.due_at else None,
            "max_attempts": problem_set.max_attempts,
            "late_policy": problem_set.late_policy,
            "late_penalty": str(problem_set.late_penalty),
            "score_policy": problem_set.score_policy,
            "feedback_policy": problem_set.feedback_policy,
            "time_limit_minutes": problem_set.time_limit_minutes,
        },
        "items": [
            {"kind": item.kind, "params": item.params, "points": str(item.points)}
            for item in problem_set.items.all()
        ],
    }


def copy_problem_set(
    problem_set: ProblemSet, *, course: Course, creator: User, title: str = ""
) -> ProblemSet:
    """Create a draft copy of ``problem_set`` in ``course``: same items and policies, a new
    seed (other students, other variants), no variants or submissions."""
    definition = export_definition(problem_set)
    items = [
        {"kind": item.kind, "params": item.params, "points": item.points}
        for item in problem_set.items.all()
    ]
    policies = {**definition["policies"], "due_at": problem_set.due_at,
                "late_penalty": problem_set.late_penalty}
    return create_problem_set(creator=creator, course=course, title=title or problem_set.title,
                              items=items, **policies)


def import_definition(
    *, course: Course, creator: User, definition: dict[str, Any]
) -> ProblemSet:
    """Create a draft problem set in ``course`` from a portable definition.

    ``definition`` is already checked for shape (:class:`exercises.apis.DefinitionSerializer`);
    each item's params are validated by its kind here. Raise a 400 :class:`ApiError`, as
    creating the set directly would (a broken tree is a 400 in the problem format's
    contract), whose details name the path of the bad field
    (``definition.items[1].params.depth``, ``definition.items[0].params.tree.children[1]``).

    The definition's seed is kept (an export imported on another server poses the same
    problems), unless a set on this server already has it: its students' variants derive
    from the seed and their ids, so a student taking the course again would meet the very
    problems, and keys, they saw before. The set then gets a new seed.
    """
    seed = definition.get("seed", "")
    if seed and ProblemSet.objects.filter(seed=seed).exists():
        seed = ""  # create_problem_set draws a new one
    try:
        return create_problem_set(
            creator=creator, course=course, title=definition["title"],
            seed=seed, items=definition["items"], **definition["policies"],
        )
    except ApiError as error:
        paths = error.details if isinstance(error.details, dict) else {}
        field = next(iter(paths), "definition")
        where, message = f"definition.{field}", "; ".join(paths.get(field, [error.message]))
        raise ApiError(f"{where}: {message}", code=error.error_code,
                       status_code=error.status_code, details={where: [message]}) from error


def grant_extension(
    problem_set: ProblemSet, *, username: str, granted_by: User, **rules: Any
) -> Extension:
    """Give one student of the set's course their own due date, extra attempts or time limit.

    ``rules`` holds those of ``due_at``, ``extra_attempts``, ``time_limit_minutes`` given;
    they replace the student's earlier extension's values, the others are kept. Raise 422
    naming ``username`` when it is not a student of the course.
    """
    from accounts.selectors import course_students
    from grading.services import excuse_late_submissions  # grading builds on exercises

    student = course_students(problem_set.course).filter(username=username).first()
    if student is None:
        raise _unprocessable("username", "not a student of this problem set's course")
    with transaction.atomic():
        extension, _ = Extension.objects.select_for_update().get_or_create(
            problem_set=problem_set, student=student, defaults={"granted_by": granted_by}
        )
        for name, value in rules.items():
            setattr(extension, name, value)
        extension.granted_by = granted_by
        extension.save()
        if "due_at" in rules:
            excuse_late_submissions(problem_set, student_ids=[student.pk],
                                    changed_by=granted_by)
    return extension

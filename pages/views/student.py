"""Student pages: the assignment list, an item with its tree, submitting, feedback, replay.

Everything is read through exercises' and grading's selectors and written through their
services, so a page answer is stored, limited and graded exactly like an API answer.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from accounts.requests import AuthenticatedHttpRequest
from config.api import ApiError
from exercises.kinds import get_kind
from exercises.models import Variant, VariantItem
from exercises.selectors import rules_for, variant_of, variants_of
from exercises.services import open_variant
from grading.code.contract import CONTRACTS
from grading.code.feedback import render_tests
from grading.code.grader import summarise
from grading.code.services import starter_file, submit_code
from grading.feedback_policy import FULL, SCORE_ONLY, served_tests
from grading.models import Submission
from grading.selectors import (
    answers_visible,
    counted_submission,
    feedback_view,
    regrade_requests_on,
    submission_for,
)
from grading.services import submit_answer
from pages.answer_form import WIDGET_HELP, decorate_tree, part_fields, read_answer
from pages.feedback_view import paint_expected, paint_feedback, rendered_results
from pages.replay import replay_open, replay_steps
from pages.tree_drawing import lay_out


@dataclass
class ItemRow:
    """One item of an assignment as listed: attempts left and the score that counts."""

    variant_item: VariantItem
    title: str
    attempts_used: int
    attempts_left: int | None  # None: unlimited
    score: Decimal | None
    points: Decimal
    status: str  # status of the latest submission, "" if none


@dataclass
class AssignmentRow:
    """One assignment (variant) as listed, with its items."""

    variant: Variant
    items: list[ItemRow]

    @property
    def due_at(self) -> datetime | None:
        """Return the student's due date (their extension's, if any)."""
        return rules_for(self.variant).due_at

    @property
    def score(self) -> Decimal | None:
        """Return the sum of the counted scores, or None before anything is graded."""
        scores = [row.score for row in self.items if row.score is not None]
        return sum(scores, Decimal(0)) if scores else None

    @property
    def points(self) -> Decimal:
        """Return the assignment's total points."""
        return sum((row.points for row in self.items), Decimal(0))


def item_rows(variant: Variant) -> list[ItemRow]:
    """Return the listed rows of a variant's items, from the student's submissions."""
    problem_set = variant.problem_set
    rows = []
    for variant_item in variant.items.all():
        submissions = list(variant_item.submissions.all())
        used = sum(1 for s in submissions if s.status != Submission.Status.ERROR)
        counted = counted_submission(submissions, problem_set.score_policy)
        rows.append(
            ItemRow(
                variant_item=variant_item,
                title=str(get_kind(variant_item.item.kind).title),
                attempts_used=used,
                attempts_left=(
                    max(0, limit - used) if (limit := rules_for(variant).max_attempts) else None
                ),
                score=counted.score if counted else None,
                points=variant_item.item.points,
                status=submissions[-1].status if submissions else "",
            )
        )
    return rows


@login_required
@require_GET
def assignment_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """List the student's assignments with due dates, attempts left and scores."""
    variants = variants_of(request.user).prefetch_related(
        "items__item", "items__submissions"
    )
    rows = [AssignmentRow(variant, item_rows(variant)) for variant in variants]
    return render(request, "pages/assignments.html", {"assignments": rows, "now": timezone.now()})


def _variant_item(request: AuthenticatedHttpRequest, variant_id: int, position: int
                  ) -> tuple[Variant, VariantItem]:
    variant = variant_of(request.user, variant_id)
    if variant is None:
        raise Http404
    variant_item = next((vi for vi in variant.items.all() if vi.position == position), None)
    if variant_item is None:
        raise Http404
    return variant, variant_item


@login_required
@require_http_methods(["GET", "POST"])
def item_page(request: AuthenticatedHttpRequest, variant_id: int, position: int) -> HttpResponse:
    """Show an item's tree with its answer inputs; on POST submit the answer via grading."""
    variant, variant_item = _variant_item(request, variant_id, position)
    now = timezone.now()
    variant = open_variant(variant, now)
    if variant_item.item.kind in CONTRACTS:
        return code_item_page(request, variant, variant_item)
    kind = get_kind(variant_item.item.kind)
    parts = kind.answer_parts(variant_item.item.params)
    problem = variant_item.problem
    submissions = list(variant_item.submissions.order_by("-attempt_number"))
    latest = submissions[0] if submissions else None
    players = (problem.get("params") or {}).get("players") or ()
    drawing = lay_out(problem["tree"], players) if problem.get("tree") else None
    error: ApiError | None = None
    given = latest.answer if latest else None
    if request.method == "POST":
        answer = read_answer(part_fields(parts, problem, drawing), request.POST)
        try:
            submission, _created = submit_answer(
                student=request.user, variant_id=variant.pk, position=position, answer=answer,
                idempotency_key=request.POST.get("idempotency_key", "")[:255],
            )
        except ApiError as refused:
            error, given, latest = refused, answer, None
        else:
            return redirect(
                reverse("pages:item", args=[variant.pk, position]) + f"#submission-{submission.pk}"
            )
    fields = part_fields(parts, problem, drawing, given)
    visible = answers_visible(variant, now)
    results = []
    expected_drawing = None
    if latest is not None and latest.status == Submission.Status.GRADED:
        view = feedback_view(latest, request.user, now)
        results = rendered_results(latest, parts, show_expected=visible, policy=view.policy)
        if drawing is not None:
            paint_feedback(drawing, fields, results)
            if visible:
                expected_drawing = lay_out(problem["tree"], players)
                if not paint_expected(expected_drawing, fields, results):
                    expected_drawing = None
    if drawing is not None:
        decorate_tree(drawing, fields)
    steps = replay_steps(variant_item) if drawing is not None else None
    problem_set = variant.problem_set
    used = sum(1 for s in submissions if s.status != Submission.Status.ERROR)
    replay_shown = steps is not None and replay_open(variant, used, now)
    context: dict[str, Any] = {
        "variant": variant,
        "variant_item": variant_item,
        "problem_set": problem_set,
        "due_at": rules_for(variant).due_at,
        "kind": kind,
        "prompt": kind.render_prompt(variant_item.prompt["args"]),
        "problem": problem,
        "drawing": drawing,
        "tree_fields": [f for f in fields if f.on_tree],
        "other_fields": [f for f in fields if not f.on_tree],
        "widget_help": WIDGET_HELP,
        "submissions": submissions,
        "latest": latest,
        "results": results,
        "error": error,
        "attempts_used": used,
        "attempts_left": (
            max(0, limit - used) if (limit := rules_for(variant).max_attempts) else None
        ),
        "answers_visible": visible,
        "regrade_requests": (
            regrade_requests_on(latest)
            if latest is not None and latest.status == Submission.Status.GRADED else []
        ),
        "idempotency_key": uuid.uuid4().hex,
        "has_replay": steps is not None,
        "replay": steps if replay_shown else None,
        "replay_drawing": lay_out(problem["tree"], players) if replay_shown else None,
        "expected_drawing": expected_drawing,
        "next_item": next(
            (vi.position for vi in variant.items.all() if vi.position > position), None
        ),
    }
    status = 200 if error is None else error.status_code
    return render(request, "pages/item.html", context, status=status)


def code_item_page(request: AuthenticatedHttpRequest, variant: Variant, variant_item: VariantItem
                   ) -> HttpResponse:
    """Show a code item: the editor with the starter file, submitting, the per-test report."""
    position = variant_item.position
    submissions = list(variant_item.submissions.order_by("-attempt_number"))
    latest = submissions[0] if submissions else None
    error: ApiError | None = None
    source = latest.source if latest else starter_file(request.user, variant.pk, position)
    if request.method == "POST":
        source = request.POST.get("source", "")
        try:
            submission, _created = submit_code(
                student=request.user, variant_id=variant.pk, position=position, source=source,
                idempotency_key=request.POST.get("idempotency_key", "")[:255],
            )
        except ApiError as refused:
            error, latest = refused, None
        else:
            return redirect(
                reverse("pages:item", args=[variant.pk, position]) + f"#submission-{submission.pk}"
            )
    kind = get_kind(variant_item.item.kind)
    problem_set = variant.problem_set
    used = sum(1 for s in submissions if s.status != Submission.Status.ERROR)
    graded = latest is not None and latest.status == Submission.Status.GRADED
    policy = (
        feedback_view(latest, request.user, timezone.now()).policy  # type: ignore[arg-type]
        if graded else FULL
    )
    context: dict[str, Any] = {
        "variant": variant,
        "variant_item": variant_item,
        "problem_set": problem_set,
        "due_at": rules_for(variant).due_at,
        "kind": kind,
        "prompt": kind.render_prompt(variant_item.prompt["args"]),
        "source": source,
        "submissions": submissions,
        "latest": latest,
        # graded implies there is a latest submission.
        "tests": (
            render_tests(served_tests(latest.results, policy), verdict_labels=True)  # type: ignore[union-attr]
            if graded else []
        ),
        "summary": (
            summarise(latest.results)  # type: ignore[union-attr]
            if graded and policy != SCORE_ONLY else None
        ),
        "error": error,
        "attempts_used": used,
        "attempts_left": (
            max(0, limit - used) if (limit := rules_for(variant).max_attempts) else None
        ),
        "idempotency_key": uuid.uuid4().hex,
    }
    status = 200 if error is None else error.status_code
    return render(request, "pages/code_item.html", context, status=status)


@login_required
@require_GET
def submission_status(request: AuthenticatedHttpRequest, submission_id: int) -> JsonResponse:
    """Return a submission's status as JSON, for the item page's polling loop."""
    submission = submission_for(request.user, submission_id)
    if submission is None:
        raise Http404
    return JsonResponse({"id": submission.pk, "status": submission.status})

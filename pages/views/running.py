"""Pages for running a course: every submission of a set, one student's submission drawn on
its tree with overrides and regrade requests, extensions, statistics; and the student's
regrade request.

Reads go through exercises' and grading's selectors and writes through their services, so a
page does exactly what the REST API does (same checks, same history, same passback).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.requests import AuthenticatedHttpRequest
from config.api import ApiError, whole_number
from exercises.apis import ExtensionListCreateApi, first_error_path
from exercises.kinds import get_kind
from exercises.selectors import extensions_of
from exercises.services import grant_extension
from grading.feedback import misconception_text
from grading.feedback_policy import FULL
from grading.models import RegradeRequest
from grading.selectors import (
    problem_set_statistics,
    regrade_requests_of,
    regrade_requests_on,
    score_history,
    set_submissions,
    submission_owned_by,
    submission_taught_by,
)
from grading.services import override_score, request_score_review, resolve_regrade_request
from pages.answer_form import decorate_tree, part_fields
from pages.feedback_view import paint_feedback, rendered_results
from pages.statistics_plots import item_plots
from pages.tree_drawing import lay_out
from pages.views.instructor import _taught_set, instructor_required

SUBMISSIONS_PER_PAGE = 50
REASONS = {
    "too_few_students": gettext_lazy("undefined: fewer than two students"),
    "item_zero_variance": gettext_lazy("undefined: everyone or no one got full marks"),
    "rest_zero_variance": gettext_lazy("undefined: every rest-of-set score is equal"),
    "no_rest_of_set": gettext_lazy("undefined: the set has no other item"),
}
"""Why a discrimination is undefined, in words (grading.statistics.point_biserial)."""


@instructor_required
@require_GET
def submission_list(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """List every submission of a set, filtered by student and item, 50 a page."""
    problem_set = _taught_set(request, problem_set_id)
    student = request.GET.get("student", "").strip() or None
    # Anything but an item position (a number) filters nothing, as an empty choice does.
    item = whole_number(request.GET.get("item", "").strip())
    rows = set_submissions(problem_set, student=student, item=item)
    page = Paginator(rows, SUBMISSIONS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "pages/running/submissions.html", {
        "problem_set": problem_set, "page": page, "student": student or "",
        "item": item, "positions": list(problem_set.items.values_list("position", flat=True)),
        "open_requests": regrade_requests_of(problem_set, RegradeRequest.Status.OPEN).count(),
    })


def _score(text: str) -> Decimal:
    try:
        return Decimal(text.strip())
    except InvalidOperation:
        raise ApiError(_("score: must be a number"), details={"score": ["not a number"]}
                       ) from None


@instructor_required
@require_http_methods(["GET", "POST"])
def submission_page(request: AuthenticatedHttpRequest, submission_id: int) -> HttpResponse:
    """Show one student's submission with their answer drawn on the tree and the full
    feedback; POST overrides its score or answers a regrade request."""
    submission = submission_taught_by(request.user, submission_id)
    if submission is None:
        raise Http404
    if request.method == "POST":
        try:
            _handle_submission_form(request, submission)
        except ApiError as refused:
            messages.error(request, refused.message)
        return redirect("pages:running_submission", submission.pk)
    variant_item = submission.variant_item
    item = variant_item.item
    kind = get_kind(item.kind)
    parts = kind.answer_parts(item.params)
    problem = variant_item.problem
    players = (problem.get("params") or {}).get("players") or ()
    drawing = lay_out(problem["tree"], players) if problem.get("tree") else None
    fields = part_fields(parts, problem, drawing, submission.answer or {})
    results = rendered_results(submission, parts, show_expected=True, policy=FULL) if (
        submission.status == submission.Status.GRADED) else []
    if drawing is not None:
        paint_feedback(drawing, fields, results)
        decorate_tree(drawing, fields)
    return render(request, "pages/running/submission.html", {
        "submission": submission, "problem_set": variant_item.variant.problem_set,
        "kind": kind, "drawing": drawing, "results": results,
        "off_tree": [f for f in fields if not f.on_tree],
        "history": list(score_history(submission)),
        "requests": regrade_requests_on(submission),
    })


def _handle_submission_form(request: AuthenticatedHttpRequest, submission: Any) -> None:
    action = request.POST.get("action")
    if action == "override":
        override_score(submission, score=_score(request.POST.get("score", "")),
                       reason=request.POST.get("reason", "").strip()[:1000] or _("by hand"),
                       changed_by=request.user)
        messages.success(request, _("Score overridden; the LMS gets the new score."))
    elif action == "resolve":
        request_id = whole_number(request.POST.get("request", ""))
        regrade_request = (submission.regrade_requests.filter(pk=request_id).first()
                           if request_id is not None else None)
        if regrade_request is None:
            raise Http404
        score_text = request.POST.get("score", "").strip()
        resolve_regrade_request(
            regrade_request, resolved_by=request.user,
            reply=request.POST.get("reply", "").strip()[:4000],
            score=_score(score_text) if score_text else None,
        )
        messages.success(request, _("Regrade request answered; the student sees your reply."))
    else:
        raise Http404


@instructor_required
@require_GET
def regrade_request_list(request: AuthenticatedHttpRequest, problem_set_id: int
                         ) -> HttpResponse:
    """List the regrade requests on a set, open ones first, each linked to its submission."""
    problem_set = _taught_set(request, problem_set_id)
    rows = sorted(regrade_requests_of(problem_set),
                  key=lambda r: (r.status != RegradeRequest.Status.OPEN, r.pk))
    return render(request, "pages/running/regrade_requests.html",
                  {"problem_set": problem_set, "requests": rows})


def _optional_datetime(text: str) -> datetime | None:
    text = text.strip()
    if not text:
        return None
    parsed = parse_datetime(text)
    if parsed is None:
        raise ApiError(_("due date: not a date and time"), details={"due_at": ["invalid"]})
    # A datetime-local input sends no zone: the page says it is UTC.
    return parsed.replace(tzinfo=UTC) if timezone.is_naive(parsed) else parsed


def _posted_extension(request: AuthenticatedHttpRequest) -> dict[str, Any]:
    """Return the extension the form posts, read by the API's own input serializer (so the
    page refuses what the API refuses, naming the field); empty inputs keep their value."""
    posted: dict[str, Any] = {"username": request.POST.get("username", "").strip()}
    due_at = _optional_datetime(request.POST.get("due_at", ""))
    if due_at is not None:
        posted["due_date"] = due_at
    for name in ("extra_attempts", "time_limit_minutes"):
        text = request.POST.get(name, "").strip()
        if text:
            posted[name] = text
    data = ExtensionListCreateApi.InputSerializer(data=posted)
    if not data.is_valid():
        path, message = first_error_path(data.errors, "")
        field = path.lstrip(".")
        raise ApiError(f"{field}: {message}", details={field: [message]})
    return dict(data.validated_data)


@instructor_required
@require_http_methods(["GET", "POST"])
def extensions_page(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """List a set's extensions and grant one student a later due date, more attempts or a
    longer time limit."""
    problem_set = _taught_set(request, problem_set_id)
    if request.method == "POST":
        try:
            rules = _posted_extension(request)
            grant_extension(problem_set, username=rules.pop("username"),
                            granted_by=request.user, **rules)
        except ApiError as refused:
            messages.error(request, refused.message)
        else:
            messages.success(request, _("Extension saved."))
        return redirect("pages:running_extensions", problem_set.pk)
    students = problem_set.course.enrollments.filter(role="student").select_related(
        "user").order_by("user__username")
    return render(request, "pages/running/extensions.html", {
        "problem_set": problem_set, "extensions": list(extensions_of(problem_set)),
        "students": [enrollment.user for enrollment in students],
    })


@instructor_required
@require_GET
def statistics_page(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Show the item statistics with SVG bar plots drawn on the server."""
    problem_set = _taught_set(request, problem_set_id)
    items = problem_set_statistics(problem_set)
    item_params = dict(problem_set.items.values_list("position", "params"))
    plots = item_plots(items, {
        "mean": _("Mean score (fraction of the points)"),
        "first": _("Right at the first attempt (fraction of the students)"),
        "discrimination": _("Discrimination (point-biserial, −1 to 1)"),
    })
    labels = {
        item.position: {part.name: part.label for part in get_kind(item.kind).answer_parts(
            item_params[item.position])}
        for item in items
    }
    rows = [{
        "stats": item, "title": get_kind(item.kind).title,
        "reason": REASONS.get(item.discrimination.reason or "", ""),
        "parts": [(part, labels[item.position].get(part.name, part.name),
                   REASONS.get(part.discrimination.reason or "", ""))
                  for part in item.parts],
        "misconceptions": [(code, misconception_text(code), count)
                           for code, count in item.misconceptions.items()],
    } for item in items]
    return render(request, "pages/running/statistics.html",
                  {"problem_set": problem_set, "rows": rows, "plots": plots})


@require_POST
def student_regrade_request(request: AuthenticatedHttpRequest, submission_id: int
                            ) -> HttpResponse:
    """Ask the instructors to look again at one of my graded submissions."""
    if not request.user.is_authenticated:
        raise Http404
    submission = submission_owned_by(request.user, submission_id)
    if submission is None:
        raise Http404
    text = request.POST.get("message", "").strip()[:4000]
    variant_item = submission.variant_item
    try:
        if not text:
            raise ApiError(_("message: write what should be looked at again"),
                           details={"message": ["required"]})
        request_score_review(submission, student=request.user, message=text)
    except ApiError as refused:
        messages.error(request, refused.message)
    else:
        messages.success(request, _("Regrade request sent to your instructors."))
    return redirect("pages:item", variant_item.variant_id, variant_item.position)

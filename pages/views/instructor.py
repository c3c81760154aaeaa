"""Instructor pages: build a problem set, preview a kind, publish with progress, dashboard.

Problem sets are created, previewed and published through exercises' services and read
through exercises' and grading's selectors; only instructors of the course see any of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal, InvalidOperation
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.requests import AuthenticatedHttpRequest
from accounts.selectors import courses_taught_by
from config.api import ApiError
from exercises.generation import GenerationError, check_generates, derive_seed, generate_item
from exercises.kinds import get_kind
from exercises.kinds.authored import is_authored
from exercises.kinds.params import ParamError
from exercises.models import MOST_ATTEMPTS, ProblemSet
from exercises.selectors import problem_sets_taught_by
from exercises.services import create_problem_set, publish_problem_set
from exercises.tree_text import print_tree_text
from grading.code.contract import CONTRACTS, starter_source
from grading.code.sandboxing import stated_limits
from grading.selectors import problem_set_taught_by
from lms.selectors import passbacks_to_look_at
from lms.services import resend_score_passback
from pages.answer_form import WIDGET_HELP, decorate_tree, part_fields
from pages.builder_form import (
    BuilderError,
    builder_rows,
    kind_choices,
    preview_row,
    read_items,
    read_params,
    row_action,
)
from pages.dashboard import dashboard_data
from pages.param_labels import param_label
from pages.tree_drawing import lay_out

View = Callable[..., HttpResponse]
MAX_ATTEMPTS = MOST_ATTEMPTS


def instructor_required(view: View) -> View:
    """Let only logged-in instructors through; anyone else gets a 404, as for a stranger's set."""

    @login_required
    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not getattr(request.user, "is_instructor", False):
            raise Http404
        return view(request, *args, **kwargs)

    return guarded


def _taught_set(request: AuthenticatedHttpRequest, problem_set_id: int) -> ProblemSet:
    problem_set = problem_set_taught_by(request.user, problem_set_id)
    if problem_set is None:
        raise Http404
    return problem_set


@instructor_required
@require_GET
def problem_set_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """List the problem sets of the courses the instructor teaches."""
    problem_sets = problem_sets_taught_by(request.user).order_by("-created_at")
    return render(request, "pages/problem_sets.html", {"problem_sets": problem_sets})


def _optional_int(data: Any, name: str) -> int | None:
    text = data.get(name, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise BuilderError(name, _("must be a whole number")) from None
    if not 1 <= value <= MAX_ATTEMPTS:
        raise BuilderError(name, _("must be between 1 and %(most)d") % {"most": MAX_ATTEMPTS})
    return value


def _due_at(data: Any) -> datetime | None:
    text = data.get("due_at", "").strip()
    if not text:
        return None
    parsed = parse_datetime(text)
    if parsed is None:
        raise BuilderError("due_at", _("must be a date and time"))
    return timezone.make_aware(parsed) if timezone.is_naive(parsed) else parsed


def _feedback_policy(data: Any) -> str:
    value = str(data.get("feedback_policy", ProblemSet.FeedbackPolicy.VERDICTS))
    if value not in ProblemSet.FeedbackPolicy.values:
        raise BuilderError("feedback_policy", _("choose one of the feedback policies"))
    return value


def _choice(data: Any, name: str, choices: Any) -> str:
    value = str(data.get(name, choices.values[0]))
    if value not in choices.values:
        raise BuilderError(name, _("choose one of the listed options"))
    return value


def _late_penalty(data: Any) -> Decimal:
    text = data.get("late_penalty", "").strip() or "0"
    try:
        percent = Decimal(text)
    except InvalidOperation:
        raise BuilderError("late_penalty", _("must be a number")) from None
    if not percent.is_finite() or not 0 <= percent <= 100:
        raise BuilderError("late_penalty", _("must be between 0 and %(most)d") % {"most": 100})
    return (percent / 100).quantize(Decimal("0.001"))


def _time_limit(data: Any) -> int | None:
    text = data.get("time_limit_minutes", "").strip()
    if not text:
        return None
    try:
        minutes = int(text)
    except ValueError:
        raise BuilderError("time_limit_minutes", _("must be a whole number")) from None
    if not 1 <= minutes <= MOST_MINUTES:
        raise BuilderError("time_limit_minutes",
                           _("must be between 1 and %(most)d") % {"most": MOST_MINUTES})
    return minutes


MOST_MINUTES = 24 * 60
LATE_POLICY_LABELS = (
    (ProblemSet.LatePolicy.REFUSE, gettext_lazy("refused after the due date")),
    (ProblemSet.LatePolicy.PENALTY, gettext_lazy("accepted with a penalty")),
)
SCORE_POLICY_LABELS = (
    (ProblemSet.ScorePolicy.BEST, gettext_lazy("the best attempt counts")),
    (ProblemSet.ScorePolicy.LAST, gettext_lazy("the last attempt counts")),
)


FEEDBACK_POLICY_LABELS = (
    (ProblemSet.FeedbackPolicy.VERDICTS, gettext_lazy(
        "verdicts: which parts are right, the first wrong step, the misconception")),
    (ProblemSet.FeedbackPolicy.FULL, gettext_lazy("full: every message, expected values too")),
    (ProblemSet.FeedbackPolicy.SCORE_ONLY, gettext_lazy("score only")),
)
"""The builder's feedback policy choices, the default first."""


@instructor_required
@require_http_methods(["GET", "POST"])
def builder(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Show the builder; on POST create the draft set and go to its publish page."""
    courses = list(courses_taught_by(request.user).order_by("title"))
    error = ""
    data = request.POST if request.method == "POST" else None
    try:
        rows = builder_rows(data)
    except BuilderError as refused:
        rows, error = builder_rows(), f"{refused.field}: {refused.message}"
    if data is not None and not error and not row_action(data):
        try:
            course = next(
                (c for c in courses if str(c.pk) == request.POST.get("course", "")), None
            )
            if course is None:
                raise BuilderError("course", _("choose one of your courses"))
            title = request.POST.get("title", "").strip()[:200]
            seed = request.POST.get("seed", "").strip()[:64]
            if not title:
                raise BuilderError("title", _("give the problem set a title"))
            for name, text in (("title", title), ("seed", seed)):
                if "\x00" in text:  # PostgreSQL cannot store it
                    raise BuilderError(name, _("may not contain NUL characters"))
            items = read_items(request.POST)
            if not items:
                raise BuilderError("items", _("include at least one item"))
            problem_set = create_problem_set(
                creator=request.user,
                course=course,
                title=title,
                items=items,
                seed=seed,
                due_at=_due_at(request.POST),
                max_attempts=_optional_int(request.POST, "max_attempts"),
                feedback_policy=_feedback_policy(request.POST),
                late_policy=_choice(request.POST, "late_policy", ProblemSet.LatePolicy),
                late_penalty=_late_penalty(request.POST),
                score_policy=_choice(request.POST, "score_policy", ProblemSet.ScorePolicy),
                time_limit_minutes=_time_limit(request.POST),
            )
        except BuilderError as refused:
            error = f"{refused.field}: {refused.message}"
        except ApiError as refused:
            error = refused.message
        else:
            return redirect("pages:problem_set", problem_set.pk)
    context = {
        "courses": courses,
        "rows": rows,
        "kinds": kind_choices(),
        "feedback_policies": FEEDBACK_POLICY_LABELS,
        "late_policies": LATE_POLICY_LABELS,
        "score_policies": SCORE_POLICY_LABELS,
        "error": error,
        "values": request.POST,
    }
    return render(request, "pages/builder.html", context, status=400 if error else 200)


@instructor_required
@require_POST
def preview(request: HttpRequest) -> HttpResponse:
    """Return an HTML fragment: one generated variant of a builder row, key and student view.

    The engine computes the key here, synchronously: trees are at most 200 nodes (the
    ``params.tree`` limit) or drawn under the kinds' small bounds. An instructor's tree comes
    back in its text form and as JSON, for the tree editor; an error names the row's input,
    the node's path and the rule.
    """
    try:
        kind, prefix = preview_row(request.POST)
        params = kind.clean_params(read_params(kind, request.POST, prefix))
        seed = derive_seed("cutoff/preview", request.POST.get("preview_seed", "preview")[:64])
        # Params refused when the set is saved are refused here too, and sooner than after
        # every attempt a seed may take.
        check_generates(kind.name, params)
        item = generate_item(kind.name, params, seed)
    except BuilderError as refused:
        return render(request, "pages/preview.html",
                      {"error": f"{refused.field}: {refused.message}"}, status=400)
    except ParamError as refused:
        label = param_label(refused.field.split(".")[0].split("[")[0])
        return render(request, "pages/preview.html",
                      {"error": f"{label} ({refused.field}): {refused.message}"}, status=400)
    except GenerationError as refused:
        return render(request, "pages/preview.html", {"error": str(refused)}, status=422)
    problem = item.problem
    players = (problem.get("params") or {}).get("players") or ()
    drawing = lay_out(problem["tree"], players) if problem.get("tree") else None
    parts = kind.answer_parts(params)
    student_drawing = lay_out(problem["tree"], players) if problem.get("tree") else None
    student_fields = part_fields(parts, problem, student_drawing)
    if student_drawing is not None:
        decorate_tree(student_drawing, student_fields)
    context = {
        "kind": kind,
        "prompt": kind.prompt_text(item.prompt["args"], params),
        "problem": problem,
        "drawing": drawing,
        "student_drawing": student_drawing,
        "tree_fields": [f for f in student_fields if f.on_tree],
        "other_fields": [f for f in student_fields if not f.on_tree],
        "widget_help": WIDGET_HELP,
        "parts": part_fields(parts, problem, drawing, item.answer_key),
        "starter": starter_source(kind.name, params, stated_limits(kind.name, params))
        if kind.name in CONTRACTS else "",
        "authored": _authored_forms(params),
    }
    return render(request, "pages/preview.html", context)


def _authored_forms(params: dict[str, Any]) -> dict[str, str] | None:
    """Return an instructor's tree as text form and JSON, for the editor; None without one."""
    if not is_authored(params):
        return None
    try:
        text = print_tree_text(params["tree"])
    except ValueError:
        text = ""  # a JSON tree whose numbers the text form cannot write: JSON only
    return {"text": text, "json": json.dumps(params["tree"], ensure_ascii=False)}


@instructor_required
@require_GET
def problem_set_page(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Show a problem set's items and status, with the publish button and progress bar."""
    problem_set = _taught_set(request, problem_set_id)
    return render(request, "pages/problem_set.html", {
        "problem_set": problem_set,
        "items": [(item, get_kind(item.kind).title) for item in problem_set.items.all()],
        "students": problem_set.course.enrollments.filter(role="student").count(),
        "courses": courses_taught_by(request.user).order_by("title"),
    })


@instructor_required
@require_POST
def publish(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Start generating the variants (via exercises' publish service) and show the progress."""
    problem_set = _taught_set(request, problem_set_id)
    try:
        publish_problem_set(problem_set)
    except ApiError as refused:
        messages.error(request, refused.message)
    return redirect("pages:problem_set", problem_set.pk)


@instructor_required
@require_GET
def problem_set_status(request: AuthenticatedHttpRequest, problem_set_id: int) -> JsonResponse:
    """Return status and progress as JSON, for the progress bar's polling loop."""
    problem_set = _taught_set(request, problem_set_id)
    return JsonResponse({
        "status": problem_set.status,
        "status_label": _status_label(problem_set.status),
        "done": problem_set.progress_done,
        "total": problem_set.progress_total,
        "failure_reason": problem_set.failure_reason,
    })


def _status_label(status: str) -> str:
    labels: dict[str, str] = {
        ProblemSet.Status.DRAFT: _("draft"),
        ProblemSet.Status.GENERATING: _("generating"),
        ProblemSet.Status.READY: _("ready"),
        ProblemSet.Status.FAILED: _("failed"),
    }
    return labels.get(status, status)


@instructor_required
@require_GET
def dashboard(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Show the score histogram, item means and completion, misconceptions and attempts."""
    problem_set = _taught_set(request, problem_set_id)
    return render(request, "pages/dashboard.html", {
        "problem_set": problem_set, "data": dashboard_data(problem_set),
        "passbacks": list(passbacks_to_look_at(problem_set)[:PASSBACKS_SHOWN]),
    })


PASSBACKS_SHOWN = 50


@instructor_required
@require_POST
def resend_passback(
    request: AuthenticatedHttpRequest, problem_set_id: int, passback_id: int
) -> HttpResponse:
    """Send a failed or refused LMS grade passback of the set again (lti's resend service)."""
    problem_set = _taught_set(request, problem_set_id)
    passback = passbacks_to_look_at(problem_set).filter(pk=passback_id).first()
    if passback is None:
        raise Http404
    resend_score_passback(passback=passback)
    messages.success(request, _("Queued again: the student's latest score is sent to the LMS."))
    return redirect("pages:dashboard", problem_set.pk)


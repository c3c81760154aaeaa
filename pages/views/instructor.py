"""Instructor pages: build a problem set, preview a kind, publish with progress, dashboard.

Problem sets are created, previewed and published through exercises' services and read
through exercises' and grading's selectors; only instructors of the course see any of it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
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
from exercises.generation import GenerationError, derive_seed, generate_item
from exercises.kinds import get_kind
from exercises.kinds.params import ParamError
from exercises.models import MOST_ATTEMPTS, ProblemSet
from exercises.selectors import problem_sets_taught_by
from exercises.services import create_problem_set, publish_problem_set
from grading.code.contract import CONTRACTS, starter_source
from grading.selectors import problem_set_taught_by
from lms.selectors import passbacks_to_look_at
from lms.services import resend_score_passback
from pages.answer_form import part_fields
from pages.builder_form import BuilderError, kind_inputs, preview_kind, read_items, read_params
from pages.dashboard import dashboard_data
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
    if request.method == "POST":
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
            )
        except BuilderError as refused:
            error = f"{refused.field}: {refused.message}"
        except ApiError as refused:
            error = refused.message
        else:
            return redirect("pages:problem_set", problem_set.pk)
    context = {
        "courses": courses,
        "kinds": kind_inputs(request.POST if request.method == "POST" else None),
        "feedback_policies": FEEDBACK_POLICY_LABELS,
        "error": error,
        "values": request.POST,
    }
    return render(request, "pages/builder.html", context, status=400 if error else 200)


@instructor_required
@require_POST
def preview(request: HttpRequest) -> HttpResponse:
    """Return an HTML fragment: one generated variant of a kind with the posted params."""
    try:
        kind = preview_kind(request.POST)
        params = kind.clean_params(read_params(kind, request.POST))
        seed = derive_seed("cutoff/preview", request.POST.get("preview_seed", "preview")[:64])
        item = generate_item(kind.name, params, seed)
    except (ParamError, BuilderError) as refused:
        return render(request, "pages/preview.html",
                      {"error": f"{refused.field}: {refused.message}"}, status=400)
    except GenerationError as refused:
        return render(request, "pages/preview.html", {"error": str(refused)}, status=422)
    problem = item.problem
    drawing = lay_out(problem["tree"]) if problem.get("tree") else None
    context = {
        "kind": kind,
        "prompt": kind.render_prompt(item.prompt["args"]),
        "problem": problem,
        "drawing": drawing,
        "parts": part_fields(kind.answer_parts(params), problem, drawing, item.answer_key),
        "starter": starter_source(kind.name, params) if kind.name in CONTRACTS else "",
    }
    return render(request, "pages/preview.html", context)


@instructor_required
@require_GET
def problem_set_page(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Show a problem set's items and status, with the publish button and progress bar."""
    problem_set = _taught_set(request, problem_set_id)
    return render(request, "pages/problem_set.html", {
        "problem_set": problem_set,
        "items": [(item, get_kind(item.kind).title) for item in problem_set.items.all()],
        "students": problem_set.course.enrollments.filter(role="student").count(),
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


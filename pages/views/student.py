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
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from accounts.requests import AuthenticatedHttpRequest
from config.api import ApiError, whole_number
from exercises.kinds import get_kind
from exercises.models import Variant, VariantItem
from exercises.selectors import DEADLINE_GRACE, quiz_closes_at, rules_for, variant_of, variants_of
from exercises.services import note_keys_seen, open_variant
from grading.apis import WaitQuerySerializer, suggest_retry_if_unfinished
from grading.code.contract import CONTRACTS
from grading.code.feedback import render_tests
from grading.code.grader import summarise
from grading.code.sandboxing import stated_limits
from grading.code.services import starter_file, submit_code
from grading.feedback_policy import FULL, SCORE_ONLY, served_tests
from grading.models import Draft, Submission
from grading.selectors import (
    answers_visible,
    counted_submission,
    draft_of,
    drafted_positions,
    feedback_view,
    regrade_requests_on,
    submission_for_when_finished,
)
from grading.services import submit_answer
from pages.answer_form import WIDGET_HELP, PartField, decorate_tree, part_fields, read_answer
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
    def time_limit_minutes(self) -> int | None:
        """Return the student's time limit (their extension's, if any)."""
        return rules_for(self.variant).time_limit_minutes

    @property
    def ends_at(self) -> Any:
        """Return when a timed assignment's clock runs out (None: untimed or not opened)."""
        return quiz_closes_at(self.variant)

    @property
    def points(self) -> Decimal:
        """Return the assignment's total points."""
        return sum((row.points for row in self.items), Decimal(0))


def attempts_left(variant: Variant, variant_item: VariantItem, used: int) -> int | None:
    """Return the attempts the student has left at an item (None: unlimited); none once they
    were shown its key (grading refuses them, whatever the rules allow)."""
    if variant_item.keys_seen_at is not None:
        return 0
    limit = rules_for(variant).max_attempts
    return max(0, limit - used) if limit else None


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
                attempts_left=attempts_left(variant, variant_item, used),
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
    """Show an item's tree with its answer inputs; on POST submit the answer via grading.

    A timed quiz not opened yet shows only what opening means; its content (and the clock)
    starts when the student confirms.
    """
    variant, variant_item = _variant_item(request, variant_id, position)
    now = timezone.now()
    rules = rules_for(variant)  # the student's extension included
    if rules.time_limit_minutes and variant.opened_at is None:
        if request.method == "POST" and "start_quiz" in request.POST:
            open_variant(variant, now)
            return redirect(reverse("pages:item", args=[variant.pk, position]))
        return render(request, "pages/start_quiz.html",
                      {"variant": variant, "problem_set": variant.problem_set,
                       "position": position, "time_limit_minutes": rules.time_limit_minutes,
                       "due_at": rules.due_at})
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
    draft = draft_of(variant_item, request.user)
    viewing = reopened_attempt(request, submissions)
    given = answer_shown(latest, draft, viewing)
    if viewing is not None:
        latest = viewing
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
    # Only what the page shows: the expected answers beside a graded attempt, or the replay.
    if ((visible and results) or replay_shown) and variant_item.keys_seen_at is None:
        note_keys_seen([variant_item.pk], now)
    context: dict[str, Any] = {
        "variant": variant,
        "variant_item": variant_item,
        "problem_set": problem_set,
        "due_at": rules_for(variant).due_at,
        "kind": kind,
        "prompt": kind.prompt_text(variant_item.prompt["args"], variant_item.item.params),
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
        "attempts_left": attempts_left(variant, variant_item, used),
        "answers_visible": visible,
        "regrade_requests": (
            regrade_requests_on(latest)
            if latest is not None and latest.status == Submission.Status.GRADED else []
        ),
        "idempotency_key": uuid.uuid4().hex,
        "viewing": viewing,
        "quiz_ends_at": quiz_closes_at(variant),
        "draft": draft,
        "blocked": submit_blocked(variant, used, now),
        "panel": question_panel(variant, position),
        "answer_script": answer_script(variant, variant_item, fields, parts),
        "has_replay": steps is not None,
        "replay": steps if replay_shown else None,
        "replay_drawing": lay_out(problem["tree"], players) if replay_shown else None,
        "expected_drawing": expected_drawing,
        "next_item": next(
            (vi.position for vi in variant.items.all() if vi.position > position), None
        ),
    }
    context["refusal_at"] = refusal_moment(error)
    context["refusal_text"] = refusal_texts().get(error.error_code, "") if error else ""
    status = 200 if error is None else error.status_code
    return render(request, "pages/item.html", context, status=status)


def refusal_texts() -> dict[str, str]:
    """Return, in the reader's language, what the page says for each refusal grading gives
    in English for API clients (the deadline refusals are :func:`refusal_moment`'s)."""
    return {
        "attempts_exhausted": str(_("All your attempts at this item are used.")),
        "answers_seen": str(_("You were shown this item's answer key, so it takes no more "
                              "attempts.")),
        "conflict": str(_("Another answer to this item was stored at the same moment: press "
                          "Submit again.")),
        "idempotency_key_reused": str(_(
            "Your earlier answer reached the server and was stored as an attempt (shown on "
            "this page); press Submit again to send this answer as a new attempt.")),
    }


def refusal_moment(error: ApiError | None) -> dict[str, Any] | None:
    """Return a deadline refusal's moment for the page to show in the reader's time zone: its
    translated text around ``{when}`` and the ISO instant (None for other refusals)."""
    if error is None or not isinstance(error.details, dict):
        return None
    iso = error.details.get("due_at") or error.details.get("ended_at")
    texts = {
        "past_due": _("The due date ({when}) has passed and late answers are refused."),
        "time_limit_exceeded": _("The quiz's time limit ended at {when}."),
    }
    if not iso or error.error_code not in texts:
        return None
    before, _marker, after = texts[error.error_code].partition("{when}")
    return {"before": before, "after": after,
            "moment": timezone.localtime(datetime.fromisoformat(iso))}


def reopened_attempt(request: AuthenticatedHttpRequest, submissions: list[Submission]
                     ) -> Submission | None:
    """Return the earlier attempt ``?attempt=N`` asks to reopen (read-only), if any."""
    wanted = whole_number(request.GET.get("attempt", ""))
    return next((s for s in submissions if wanted is not None
                 and s.attempt_number == wanted), None)


def answer_shown(latest: Submission | None, draft: Draft | None, viewing: Submission | None
                 ) -> Any:
    """Return the answer the inputs show: a reopened attempt's, else the newest of the draft
    and the latest attempt (a draft typed after submitting is the student's current work)."""
    if viewing is not None:
        return viewing.answer
    if draft is not None and (latest is None or draft.updated_at >= latest.created_at):
        return draft.answer
    return latest.answer if latest else None


def submit_blocked(variant: Variant, used: int, now: Any) -> str:
    """Return why the student may not submit now ("" when they may), in their language."""
    problem_set = variant.problem_set
    rules = rules_for(variant)  # the student's extension included
    if rules.max_attempts and used >= rules.max_attempts:
        return str(_("No attempts left."))
    if (rules.due_at is not None and now > rules.due_at + DEADLINE_GRACE
            and problem_set.late_policy == problem_set.LatePolicy.REFUSE):
        return str(_("The due date has passed and late answers are refused."))
    ends = quiz_closes_at(variant)
    if ends is not None and now > ends + DEADLINE_GRACE:
        return str(_("The time limit of this quiz is over."))
    return ""


@dataclass
class PanelEntry:
    """One item of the question panel: where it is, and how far the student got."""

    position: int
    title: str
    state: str  # "not_started", "draft", "submitted" (not graded yet) or "graded"
    score: Decimal | None
    points: Decimal
    current: bool


def question_panel(variant: Variant, current: int) -> list[PanelEntry]:
    """Return every item of the variant with its state: not started, draft, submitted, graded."""
    drafted = drafted_positions(variant)
    entries = []
    for row in item_rows(variant):
        position = row.variant_item.position
        state = ("graded" if row.score is not None else "submitted" if row.attempts_used
                 else "draft" if position in drafted else "not_started")
        entries.append(PanelEntry(position, row.title, state, row.score, row.points,
                                  position == current))
    return entries


def answer_script(variant: Variant, variant_item: VariantItem, fields: list[PartField],
                  parts: list[Any]) -> dict[str, Any]:
    """Return what the page's answer script needs: the fields, the API URLs, the texts."""
    base = f"/api/v1/assignments/{variant.pk}/items/{variant_item.position}"
    return {
        "fields": [{"part": f.part.name, "widget": f.widget, "name": f.name, "rows": f.rows,
                    "columns": list(f.columns), "node_values": f.part.type == "node_values",
                    "none_box": f.none_box, "label": str(f.part.label)} for f in fields],
        "submit_url": f"{base}/submissions/",
        "draft_url": f"{base}/draft/",
        "unanswered": {
            str(count): ngettext(
                "%(count)d part unanswered: submit anyway?",
                "%(count)d parts unanswered: submit anyway?", count) % {"count": count}
            for count in range(1, len(parts) + 1)
        },
        "texts": {
            "saved": str(_("Draft saved")),
            "saving": str(_("Saving draft…")),
            "unsaved": str(_("Draft not saved yet")),
            "offline": str(_("You are offline: your answer is kept on this page and will be "
                             "sent when the connection is back.")),
            "failed": str(_("The server could not take your answer just now; it is kept on "
                            "this page. Press Submit to try again.")),
            "session": str(_("Your session has ended: log in again in another tab, then "
                             "press Submit; your answer is kept on this page.")),
            "refused": str(_("Your answer was not accepted:")),
            "sending": str(_("Sending your answer…")),
            "grading": str(_("Your answer is being graded…")),
            # {when} becomes the moment in the reader's time zone, written by the page.
            "past_due": str(_("The due date ({when}) has passed and late answers are "
                              "refused.")),
            "time_limit_exceeded": str(_("The quiz's time limit ended at {when}.")),
            "refusals": refusal_texts(),
        },
    }


def code_item_page(request: AuthenticatedHttpRequest, variant: Variant, variant_item: VariantItem
                   ) -> HttpResponse:
    """Show a code item: the editor with the starter file, submitting, the per-test report.

    ``?attempt=N`` reopens attempt N: its code read-only (the editor keeps the current code)
    and its report, with its regrade requests.
    """
    position = variant_item.position
    submissions = list(variant_item.submissions.order_by("-attempt_number"))
    latest = submissions[0] if submissions else None
    error: ApiError | None = None
    draft = draft_of(variant_item, request.user)
    if draft is not None and isinstance(draft.answer.get("source"), str) and (
            latest is None or draft.updated_at >= latest.created_at):
        source = draft.answer["source"]
    else:
        source = latest.source if latest else starter_file(request.user, variant.pk, position)
    viewing = reopened_attempt(request, submissions)
    if viewing is not None:
        latest = viewing
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
        "prompt": kind.prompt_text(variant_item.prompt["args"], variant_item.item.params),
        "limits": stated_limits(variant_item.item.kind, variant_item.item.params),
        "source": source,
        "submissions": submissions,
        "latest": latest,
        # graded implies there is a latest submission.
        "tests": (
            render_tests(served_tests(latest.results, policy), verdict_labels=True)  # type: ignore[union-attr]
            if graded else []
        ),
        "panel": question_panel(variant, position),
        "quiz_ends_at": quiz_closes_at(variant),
        "draft": draft,
        "summary": (
            summarise(latest.results)  # type: ignore[union-attr]
            if graded and policy != SCORE_ONLY else None
        ),
        "error": error,
        "attempts_used": used,
        "attempts_left": attempts_left(variant, variant_item, used),
        "idempotency_key": uuid.uuid4().hex,
        "viewing": viewing,
        # graded implies there is a latest submission.
        "regrade_requests": regrade_requests_on(latest) if graded else [],  # type: ignore[arg-type]
    }
    status = 200 if error is None else error.status_code
    return render(request, "pages/code_item.html", context, status=status)


@login_required
@require_GET
def submission_status(request: AuthenticatedHttpRequest, submission_id: int) -> JsonResponse:
    """Return a submission's status as JSON, for the item page's polling loop; with
    ``?wait=SECONDS`` (0–20) once it is finished or the wait is over, as the API's status
    long-poll does."""
    query = WaitQuerySerializer(data=request.GET)
    if not query.is_valid():
        rule = "; ".join(str(message) for message in query.errors["wait"])
        return JsonResponse({"error": {"code": "invalid", "message": f"wait: {rule}",
                                       "details": query.errors}}, status=400)
    wait = query.validated_data["wait"]
    submission = submission_for_when_finished(request.user, submission_id, wait)
    if submission is None:
        raise Http404
    response = JsonResponse({"id": submission.pk, "status": submission.status})
    if wait:
        suggest_retry_if_unfinished(response, submission)
    return response

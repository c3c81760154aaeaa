"""Submission, grades, regrade and webhook endpoints: one API class per operation."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from django.http import HttpResponse, HttpResponseBase
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import renderers, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Course, User
from accounts.permissions import IsInstructor
from accounts.requests import AuthenticatedRequest
from config.api import ApiError, represented, whole_number
from exercises.kinds import get_kind
from exercises.models import ProblemSet, VariantItem
from exercises.services import note_keys_seen
from grading import services, webhooks
from grading.code.apis import CodeSubmissionOutputSerializer, code_submission_output
from grading.code.feedback import render_tests
from grading.feedback import render_results
from grading.feedback_policy import FEEDBACK_POLICY_SERVED_HELP, served_results
from grading.grader import all_or_nothing_sets
from grading.models import Regrade, RegradeRequest, ScoreChange, Submission, Webhook
from grading.selectors import (
    deliveries_of,
    draft_of,
    feedback_view,
    grade_rows,
    is_finished,
    item_submissions,
    problem_set_statistics,
    problem_set_taught_by,
    regrade_for,
    regrade_request_taught_by,
    regrade_requests_of,
    regrade_requests_on,
    score_history,
    set_submissions,
    student_variant_item,
    submission_for,
    submission_for_when_finished,
    submission_owned_by,
    submission_taught_by,
    webhooks_of,
    with_grade_when_finished,
)
from lms.clients.authentication import HasScope

MAX_IDEMPOTENCY_KEY_LENGTH = 255
ERROR_EXAMPLE_ANSWER = {
    "error": {
        "code": "invalid_answer",
        "message": 'pruned_leaves: "X9" is not a node of this tree',
        "details": {"part": "pruned_leaves", "rule": '"X9" is not a node of this tree'},
    }
}
SUBMISSION_EXAMPLE = {
    "id": 42, "assignment": 7, "item": 1, "attempt_number": 1, "status": "graded",
    "score": 4.0, "raw_score": 4.0, "max_score": 6.0, "is_late": False, "late_penalty": 0.0,
    "error_code": "", "answer": {"value": 3, "move": "B", "pruned_leaves": ["C3"]},
    "answers_visible": False, "feedback_policy": "full",
    "results": [
        {"part": "value", "label": "minimax value of the root", "type": "number",
         "verdict": "correct", "points": 1.0, "max_points": 1.0, "messages": [],
         "misconception": None, "misconception_text": None, "trace_step": None},
        {"part": "pruned_leaves", "label": "leaves that are pruned", "type": "set",
         "verdict": "wrong", "points": 0.0, "max_points": 2.0,
         "messages": [{
             "code": "pruned_too_early_min",
             "params": {"pruned": "C3", "node": "C", "alpha": "3", "beta": "∞",
                        "child": "C1", "value": "5"},
             "text": "You pruned C3, but at C the window was α=3, β=∞ and C1=5 does not "
                     "reach α; MIN only stops when its value ≤ α.",
         }],
         "misconception": "cut_too_early",
         "misconception_text": "You cut as soon as a MIN node's value was above alpha (or a "
                               "MAX node's below beta); the test is on the other side.",
         "trace_step": {"index": 9, "event": "enter", "node": "C"}},
    ],
    "created_at": "2026-11-29T22:00:00Z", "graded_at": "2026-11-29T22:00:00.050000Z",
    "overridden": False, "regrade_requests": [],
}


@extend_schema_field(OpenApiTypes.OBJECT)
class JsonObjectField(serializers.JSONField):
    """A JSON value documented as an object."""


@extend_schema_field(OpenApiTypes.ANY)
class JsonAnyField(serializers.JSONField):
    """Any JSON value."""


class SubmissionOutputSerializer(serializers.Serializer):
    """A submission with its feedback rendered in the reader's language: the documented
    shape, which :func:`submission_output` writes out by hand (tests hold them equal)."""

    class ResultSerializer(serializers.Serializer):
        class MessageSerializer(serializers.Serializer):
            code = serializers.CharField()
            params = JsonObjectField()
            text = serializers.CharField()

        part = serializers.CharField()
        # A field named like a Field attribute (DRF moves declared fields off the class).
        label = serializers.CharField()  # type: ignore[assignment]
        type = serializers.CharField()
        verdict = serializers.ChoiceField(choices=["correct", "partial", "wrong", "missing"])
        points = serializers.FloatField()
        max_points = serializers.FloatField()
        messages = MessageSerializer(many=True)
        misconception = serializers.CharField(
            allow_null=True,
            help_text="the engine misconception whose own answer explains the whole answer "
                      "(it agrees with every right part and reproduces more than half of the "
                      "wrong ones), on the wrong parts it reproduces; null when none does or "
                      "two tie",
        )
        misconception_text = serializers.CharField(allow_null=True)
        trace_step = JsonObjectField(allow_null=True)
        expected = JsonAnyField(
            required=False,
            help_text="only once answers are visible; a name part's key may be a list of "
            "every accepted name (equally good moves), a cutoff marked optional is a cut "
            "at a node's last child that may be listed or left out",
        )

    id = serializers.IntegerField()
    assignment = serializers.IntegerField(source="variant_item.variant_id")
    item = serializers.IntegerField(source="variant_item.position")
    attempt_number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Submission.Status.choices)
    score = serializers.DecimalField(max_digits=9, decimal_places=4, coerce_to_string=False,
                                     allow_null=True)
    raw_score = serializers.DecimalField(max_digits=9, decimal_places=4,
                                         coerce_to_string=False, allow_null=True)
    max_score = serializers.DecimalField(max_digits=9, decimal_places=4,
                                         coerce_to_string=False, allow_null=True)
    is_late = serializers.BooleanField()
    late_penalty = serializers.DecimalField(max_digits=4, decimal_places=3,
                                            coerce_to_string=False)
    error_code = serializers.CharField(help_text=(
        "why a submission in status error was not graded (it uses no attempt): grading_failed, "
        "results_unsavable; for code, sandbox_unavailable, sandbox_busy (the host was too busy "
        "to time it fairly, after CUTOFF_CODE_BUSY_RETRIES runs) or sandbox_failed"))
    answer = JsonObjectField(allow_null=True)
    answers_visible = serializers.SerializerMethodField()
    feedback_policy = serializers.SerializerMethodField()
    results = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    graded_at = serializers.DateTimeField(allow_null=True)
    overridden = serializers.BooleanField(help_text="the score was set by an instructor")
    regrade_requests = serializers.SerializerMethodField(
        help_text="the student's regrade requests on it, with the instructors' replies"
    )

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_regrade_requests(self, submission: Submission) -> list[dict[str, Any]]:
        """Return the regrade requests on the submission: message, status, reply, dates."""
        if submission.status != Submission.Status.GRADED or self.context.get("just_created"):
            # Only graded ones can have any, and none yet when this request stored it.
            return []
        return regrade_requests_shown(submission)

    @extend_schema_field(serializers.BooleanField())
    def get_answers_visible(self, submission: Submission) -> bool:
        """Return whether the keys may be shown (due date passed or last attempt used)."""
        return bool(self.context["answers_visible"])

    @extend_schema_field(serializers.ChoiceField(
        choices=ProblemSet.FeedbackPolicy.choices, help_text=FEEDBACK_POLICY_SERVED_HELP))
    def get_feedback_policy(self, submission: Submission) -> str:
        """Return the feedback policy these results are served under."""
        return str(self.context["feedback_policy"])

    @extend_schema_field(ResultSerializer(many=True))
    def get_results(self, submission: Submission) -> list[dict[str, Any]]:
        """Return the part results rendered in the reader's language."""
        return self.context["results"]


def any_submission(*, many: bool = False) -> PolymorphicProxySerializer:
    """Return the documented shape of an endpoint that shows typed and code submissions:
    one or the other (a code submission has ``kind`` and per-test ``tests``)."""
    return PolymorphicProxySerializer(
        component_name="AnySubmission",
        serializers=[SubmissionOutputSerializer, CodeSubmissionOutputSerializer],
        resource_type_field_name=None, many=many,
    )


def submission_output(submission: Submission, viewer: User, just_created: bool = False
                      ) -> dict[str, Any]:
    """Return a submission as ``viewer`` may see it: feedback rendered under the set's
    feedback policy, keys hidden until the answers are visible. ``just_created``: this
    request stored it, so it has no regrade requests yet (their query is skipped)."""
    if submission.kind == Submission.Kind.CODE:
        # Code submissions carry per-test reports, not per-part results.
        return code_submission_output(submission, viewer)
    item = submission.variant_item.item
    now = timezone.now()
    view = feedback_view(submission, viewer, now)
    labels = {part.name: str(part.label) for part in get_kind(item.kind).answer_parts(item.params)}
    served = served_results(submission.results, view.policy,
                            all_or_nothing=all_or_nothing_sets(item))
    results = render_results(served, labels=labels, show_expected=view.answers_visible)
    if view.answers_visible and viewer.pk == submission.student_id \
            and submission.variant_item.keys_seen_at is None:
        note_keys_seen([submission.variant_item_id], now)
    regrade_requests = ([] if submission.status != Submission.Status.GRADED or just_created
                        else regrade_requests_shown(submission))
    return {
        "id": submission.pk,
        "assignment": submission.variant_item.variant_id,
        "item": submission.variant_item.position,
        "attempt_number": submission.attempt_number,
        "status": str(submission.status),
        "score": represented(SCORE_FIELD, submission.score),
        "raw_score": represented(SCORE_FIELD, submission.raw_score),
        "max_score": represented(SCORE_FIELD, submission.max_score),
        "is_late": bool(submission.is_late),
        "late_penalty": represented(PENALTY_FIELD, submission.late_penalty),
        "error_code": str(submission.error_code),
        "answer": submission.answer,
        "answers_visible": bool(view.answers_visible),
        "feedback_policy": str(view.policy),
        "results": results,
        "created_at": represented(MOMENT_FIELD, submission.created_at),
        "graded_at": represented(MOMENT_FIELD, submission.graded_at),
        "overridden": bool(submission.overridden),
        "regrade_requests": regrade_requests,
    }


# What SubmissionOutputSerializer would make of these values, without building a serializer
# per answer (its fields are deep-copied for every instance: 1-1.5 ms of a web process's CPU
# per answer). SubmissionOutputSerializer stays the documented shape; a test holds the two
# equal over every status, policy and viewer.
SCORE_FIELD = SubmissionOutputSerializer().fields["score"]
PENALTY_FIELD = SubmissionOutputSerializer().fields["late_penalty"]
MOMENT_FIELD = SubmissionOutputSerializer().fields["created_at"]


def regrade_requests_shown(submission: Submission) -> list[dict[str, Any]]:
    """Return the regrade requests on ``submission``: message, status, reply, dates."""
    return [
        {"id": r.pk, "message": r.message, "status": r.status, "reply": r.reply,
         "created_at": r.created_at.isoformat(),
         "resolved_at": r.resolved_at.isoformat() if r.resolved_at else None}
        for r in regrade_requests_on(submission)
    ]


MAX_WAIT_SECONDS = 20
"""The longest a submission request may be held open for its grade (``?wait=``)."""


class WaitQuerySerializer(serializers.Serializer):
    """The long-poll query parameter of the submission endpoints."""

    wait = serializers.FloatField(
        required=False, default=0, min_value=0, max_value=MAX_WAIT_SECONDS,
        help_text="long-poll: seconds (0–20) to hold the answer while the submission is "
        "queued or running; it is sent as soon as the submission is graded or failed",
    )


def retry_after_header(status_code: int) -> OpenApiParameter:
    """Return the OpenAPI description of a long-poll's ``Retry-After`` on ``status_code``."""
    return OpenApiParameter(
        "Retry-After", int, OpenApiParameter.HEADER, response=[status_code],
        description="on an answer to `wait` whose submission is still `queued` or `running` "
        "(the wait ended, or the server already holds its most waiting requests): seconds "
        "before asking again",
    )


class SubmissionListCreateApi(APIView):
    """List the caller's attempts at one item of their assignment, or submit a new answer
    (graded asynchronously)."""

    throttle_scope = "submissions"

    class InputSerializer(serializers.Serializer):
        answer = JsonObjectField(
            help_text="part name → value, per the item's answer parts (see the assignment); "
            "names are stored and graded without surrounding spaces"
        )

    @extend_schema(
        tags=["submissions"],
        summary="My attempts at an item",
        description=(
            "Every attempt at the item (typed answers and code), first attempt first, each "
            "with its answer (or source) and its feedback exactly as "
            "`GET /api/v1/submissions/{id}/` (or `/api/v1/code-submissions/{id}/`) shows it: "
            "redacted by the set's feedback policy, keys only once answers are visible. Only "
            "the student whose assignment it is may list it; anyone else gets 404."
        ),
        responses={200: any_submission(many=True),
                   404: OpenApiResponse(description="not your assignment, or no such item")},
        examples=[OpenApiExample("one attempt", value=[SUBMISSION_EXAMPLE], response_only=True)],
    )
    def get(self, request: AuthenticatedRequest, variant_id: int, position: int) -> Response:
        """Return the caller's attempts at the item, each as its own detail endpoint shows it."""
        variant_item = owned_variant_item(request, variant_id, position)
        return Response([submission_output(submission, request.user)
                         for submission in item_submissions(variant_item)])

    @extend_schema(
        tags=["submissions"],
        summary="Submit an answer",
        description=(
            "Stores the answer before answering 202. With `?wait=SECONDS` (0–20) the 202 "
            "is held until the submission is `graded` or `error` (or the wait ends) and "
            "carries its score and feedback, so one request submits and gets the grade; "
            "without it, or while `status` is still `queued` or `running`, "
            "`GET /api/v1/submissions/{id}/?wait=10` (a long-poll) until it is finished, "
            "after the `Retry-After` seconds an unfinished answer to a wait carries. "
            "The answer is stored before any waiting: a client that gives up waiting "
            "loses nothing. Send an `Idempotency-Key` header to make "
            "retries safe: the same key returns the same submission. A malformed answer is "
            "refused with 400 naming the part and the rule and uses no attempt; names are "
            "stored without surrounding spaces. 403 codes: "
            "`past_due`, `time_limit_exceeded`, `attempts_exhausted`."
        ),
        parameters=[
            OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                             description="any unique string per intended submission"),
            WaitQuerySerializer,
            retry_after_header(202),
        ],
        request=InputSerializer,
        responses={
            202: SubmissionOutputSerializer,
            400: OpenApiResponse(description="malformed answer, or `wait` not 0–20 seconds"),
            403: OpenApiResponse(description="refused: past due, time up, no attempts left"),
            404: OpenApiResponse(description="not your assignment, or no such item"),
            409: OpenApiResponse(description="idempotency key reused for another answer"),
            429: OpenApiResponse(description="too many submissions; retry after a while"),
        },
        examples=[
            OpenApiExample(
                "alpha-beta answer", request_only=True,
                value={"answer": {"value": 3, "move": "B", "evaluated_count": 7,
                                  "pruned_leaves": ["C2", "C3"],
                                  "cutoffs": [{"node": "C", "pruned": ["C2", "C3"]}]}},
            ),
            OpenApiExample(
                "queued", response_only=True, status_codes=["202"],
                value={**SUBMISSION_EXAMPLE, "status": "queued", "score": None,
                       "raw_score": None, "max_score": None, "results": [],
                       "graded_at": None},
            ),
            OpenApiExample("malformed", response_only=True, status_codes=["400"],
                           value=ERROR_EXAMPLE_ANSWER),
        ],
    )
    def post(self, request: AuthenticatedRequest, variant_id: int, position: int) -> Response:
        """Validate and store the answer, enqueue its grading, answer 202 (once graded, if
        asked to wait)."""
        query = WaitQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = request.headers.get("Idempotency-Key", "").strip()
        if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
            raise ApiError(
                f"Idempotency-Key: at most {MAX_IDEMPOTENCY_KEY_LENGTH} characters",
                details={"Idempotency-Key": ["too long"]},
            )
        submission, created = services.submit_answer(
            student=request.user, variant_id=variant_id, position=position,
            answer=data.validated_data["answer"], idempotency_key=key,
        )
        if not created:
            # Loaded by its key alone; load what the output shows.
            # The student's own submission, just stored: never None.
            submission = submission_for(request.user, submission.pk)  # type: ignore[assignment]
        if query.validated_data["wait"]:
            submission = with_grade_when_finished(submission, query.validated_data["wait"])
        response = Response(submission_output(submission, request.user, just_created=created),
                            status=status.HTTP_202_ACCEPTED)
        response["Location"] = f"/api/v1/submissions/{submission.pk}/"
        if query.validated_data["wait"]:
            suggest_retry_if_unfinished(response, submission)
        if not created:
            response["Idempotent-Replayed"] = "true"
        return response


def owned_variant_item(request: AuthenticatedRequest, variant_id: int, position: int
                       ) -> VariantItem:
    """Return item ``position`` of the caller's assignment ``variant_id``; 404 for anyone else."""
    variant_item = student_variant_item(request.user, variant_id, position)
    if variant_item is None:
        raise ApiError(f"assignment {variant_id} has no item {position} of yours",
                       code="not_found", status_code=404)
    return variant_item


class DraftApi(APIView):
    """Read or save the caller's unsent answer to one item: never graded, no attempt used."""

    class InputSerializer(serializers.Serializer):
        answer = JsonObjectField(
            help_text="part name → value as typed (not checked beyond its shape: only the "
            "item's parts, at most 64 KiB of JSON); for a code item `{\"source\": \"...\"}`"
        )

    class OutputSerializer(serializers.Serializer):
        answer = JsonObjectField(allow_null=True, help_text="null: no draft saved yet")
        updated_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(
        tags=["submissions"], summary="My draft of an item",
        description="The answer last saved with PUT, or `null` when none was saved.",
        responses={200: OutputSerializer,
                   404: OpenApiResponse(description="not your assignment, or no such item")},
        examples=[OpenApiExample("saved", response_only=True, value={
            "answer": {"value": "3", "pruned_leaves": ["C2"]},
            "updated_at": "2026-12-01T10:00:00Z"})],
    )
    def get(self, request: AuthenticatedRequest, variant_id: int, position: int) -> Response:
        """Return the caller's draft of the item (answer null when there is none)."""
        draft = draft_of(owned_variant_item(request, variant_id, position), request.user)
        return Response(self.OutputSerializer(
            draft or {"answer": None, "updated_at": None}).data)

    @extend_schema(
        tags=["submissions"], summary="Save my draft of an item",
        description=(
            "Replaces the draft. Nothing is graded and no attempt is used, so a draft is "
            "accepted also after the due date. 400 `invalid_draft` names the part and the "
            "rule when the answer is not an object of the item's parts or is too large."
        ),
        request=InputSerializer,
        responses={200: OutputSerializer,
                   400: OpenApiResponse(description="not an object of the item's parts, or "
                                                    "too large"),
                   404: OpenApiResponse(description="not your assignment, or no such item")},
        examples=[OpenApiExample("typed so far", request_only=True,
                                 value={"answer": {"value": "0,5", "move": "B"}})],
    )
    def put(self, request: AuthenticatedRequest, variant_id: int, position: int) -> Response:
        """Save the answer as the caller's draft and return it."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        draft = services.save_draft(student=request.user, variant_id=variant_id,
                                    position=position, answer=data.validated_data["answer"])
        return Response(self.OutputSerializer(draft).data)


class SubmissionDetailApi(APIView):
    """Show a submission to its student or to an instructor of its course."""

    permission_classes = [IsAuthenticated, HasScope("grades:read")]  # type: ignore[list-item]
    InputSerializer = WaitQuerySerializer

    @extend_schema(
        tags=["submissions"],
        summary="A submission, its score and feedback",
        description=(
            "With `?wait=SECONDS` (long-poll, at most 20) a queued or running submission is "
            "answered as soon as it is `graded` or `error`, or after the wait with its "
            "status then; a finished one is answered at once. Clients waiting for a grade "
            "send it again while the status is `queued` or `running` instead of polling, "
            "after the `Retry-After` seconds such an answer carries (also sent at once, "
            "without waiting, when this server already holds its most waiting requests)."
        ),
        parameters=[InputSerializer, retry_after_header(200)],
        responses={200: any_submission(),
                   400: OpenApiResponse(description="`wait` is not a number of seconds 0–20"),
                   404: OpenApiResponse(description="not found")},
        examples=[OpenApiExample("graded", value=SUBMISSION_EXAMPLE, response_only=True)],
    )
    def get(self, request: AuthenticatedRequest, submission_id: int) -> Response:
        """Return the submission, once finished if asked to wait; anyone else gets 404."""
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        wait = data.validated_data["wait"]
        submission = submission_for_when_finished(request.user, submission_id, wait)
        if submission is None:
            raise ApiError("no such submission", code="not_found", status_code=404)
        response = Response(submission_output(submission, request.user))
        if wait:
            suggest_retry_if_unfinished(response, submission)
        return response


RETRY_AFTER_SECONDS = 1
"""When a client whose wait ended (or found no free waiting slot) should ask again."""


def suggest_retry_if_unfinished(response: HttpResponseBase, submission: Submission) -> None:
    """Add ``Retry-After`` to a long-poll's answer about a submission still unfinished."""
    if not is_finished(submission):
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text: str) -> str:
    """Return ``text`` as a CSV cell a spreadsheet shows as text, never runs as a formula.

    A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula
    to Excel, LibreOffice and Google Sheets (CSV injection); a leading ``'`` keeps it text.
    """
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


class CsvRenderer(renderers.BaseRenderer):
    """Let clients ask for text/csv; errors still come as the JSON envelope."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Any = None) -> bytes:
        """Return ``data`` (an error envelope here) as JSON bytes."""
        return json.dumps(data).encode()


class ProblemSetGradesCsvApi(APIView):
    """Export a problem set's grades: one row per student, one column per item."""

    permission_classes = [IsInstructor, HasScope("grades:read")]  # type: ignore[list-item]
    renderer_classes = [renderers.JSONRenderer, CsvRenderer]

    @extend_schema(
        tags=["grades"],
        summary="Grades as CSV",
        description=(
            "Columns: `username`, `name` and `email` (as the LMS sent them, for LMS "
            "users), `lms_user_id` (the user's id on the LMS, `sub`; several separated by "
            "spaces), `item_1` … `item_n` (the counted score: best or last attempt per the "
            "set's score policy, late penalty applied; empty when nothing was graded), "
            "`total`, `max_total`, `late` (a counted submission was late)."
        ),
        responses={(200, "text/csv"): OpenApiTypes.STR},
        examples=[OpenApiExample(
            "two students", response_only=True,
            value="username,name,email,lms_user_id,item_1,item_2,total,max_total,late\r\n"
                  "sara,Sara Costa,sara@uni.example,2f9c1e,4.0000,1.5000,5.5000,8.0000,no\r\n"
                  "tomas,,,,,2.0000,2.0000,8.0000,yes\r\n",
        )],
    )
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> HttpResponse:
        """Return the CSV; other instructors' and unknown sets are 404."""
        problem_set = problem_set_taught_by(request.user, problem_set_id)
        if problem_set is None:
            raise ApiError("no such problem set", code="not_found", status_code=404)
        items = list(problem_set.items.all())
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["username", "name", "email", "lms_user_id",
                         *(f"item_{item.position}" for item in items), "total", "max_total",
                         "late"])
        max_total = sum((item.points for item in items), 0)
        for row in grade_rows(problem_set):
            writer.writerow([
                spreadsheet_text(row.username), spreadsheet_text(row.name),
                spreadsheet_text(row.email), spreadsheet_text(" ".join(row.lms_user_ids)),
                *("" if score is None else score for score in row.item_scores),
                row.total, max_total, "yes" if row.late else "no",
            ])
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="problem-set-{problem_set.pk}-grades.csv"'
        )
        return response


class RegradeOutputSerializer(serializers.Serializer):
    """A regrade run and, when done, its report."""

    id = serializers.IntegerField()
    problem_set = serializers.IntegerField(source="problem_set_id")
    status = serializers.ChoiceField(choices=Regrade.Status.choices)
    report = JsonObjectField()
    failure_reason = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


REGRADE_REPORT_EXAMPLE = {
    "id": 3, "problem_set": 12, "status": "done", "failure_reason": "",
    "created_at": "2026-11-29T22:00:00Z", "finished_at": "2026-11-29T22:00:02Z",
    "report": {
        "engine_version": "1.0.0",
        "items": [{"position": 1, "kind": "alphabeta", "keys_recomputed": 30,
                   "keys_from_older_engine": 0, "keys_changed": 4}],
        "submissions_regraded": 41,
        "scores_changed": [{"submission": 42, "kind": "answer", "student": "sara", "item": 1,
                            "attempt": 1, "old_score": 4.0, "new_score": 6.0,
                            "old_max_score": 6.0, "new_max_score": 6.0},
                           {"submission": 57, "kind": "code", "student": "ravi", "item": 2,
                            "attempt": 3, "old_score": 2.0, "new_score": 3.0,
                            "old_max_score": 3.0, "new_max_score": 3.0}],
        "code_submissions_requeued": [57],
        "code_submissions_pending": [],
        "code_submissions_failed": [],
        "code_submissions_not_sent": [],
        "code_sent_at": "2026-11-29T22:00:01Z",
    },
}


class ProblemSetRegradeApi(APIView):
    """Recompute a problem set's keys and regrade its submissions, on a worker."""

    permission_classes = [IsInstructor]

    @extend_schema(
        tags=["grades"],
        summary="Regrade a problem set",
        description=(
            "Recomputes every answer key with the engine under the items' current conventions "
            "and points, regrades every graded submission, keeps each old score "
            "(`ScoreChange`) and reports what changed. Poll `GET /api/v1/regrades/{id}/`: "
            "typed answers are regraded first; graded code submissions then run again in the "
            "sandbox, listed in `code_submissions_pending` until each finishes (its change "
            "joins `scores_changed`, with `kind: code`; a run the sandbox could not do is in "
            "`code_submissions_failed` and keeps its tests' outcome, on the item's current "
            "points). The status is `done` once "
            "nothing is pending."
        ),
        request=None,
        responses={202: RegradeOutputSerializer, 404: OpenApiResponse(description="not found")},
        examples=[OpenApiExample(
            "queued", response_only=True, status_codes=["202"],
            value={**REGRADE_REPORT_EXAMPLE, "status": "queued", "report": {},
                   "finished_at": None},
        )],
    )
    def post(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Queue the regrade and answer 202 with its id."""
        problem_set = problem_set_taught_by(request.user, problem_set_id)
        if problem_set is None:
            raise ApiError("no such problem set", code="not_found", status_code=404)
        regrade = services.request_regrade(problem_set, request.user)
        regrade.refresh_from_db()  # failed already if the broker refused its task
        response = Response(RegradeOutputSerializer(regrade).data,
                            status=status.HTTP_202_ACCEPTED)
        response["Location"] = f"/api/v1/regrades/{regrade.pk}/"
        return response


class RegradeDetailApi(APIView):
    """Show a regrade run and its report."""

    permission_classes = [IsInstructor]

    @extend_schema(
        tags=["grades"], summary="A regrade and its report",
        responses={200: RegradeOutputSerializer, 404: OpenApiResponse(description="not found")},
        examples=[OpenApiExample("done", value=REGRADE_REPORT_EXAMPLE, response_only=True)],
    )
    def get(self, request: AuthenticatedRequest, regrade_id: int) -> Response:
        """Return the regrade if the caller teaches its course."""
        regrade = regrade_for(request.user, regrade_id)
        if regrade is None:
            raise ApiError("no such regrade", code="not_found", status_code=404)
        return Response(RegradeOutputSerializer(regrade).data)


class WebhookOutputSerializer(serializers.Serializer):
    """A registered webhook (its secret is shown only when it is created)."""

    id = serializers.IntegerField()
    url = serializers.URLField()
    course = serializers.IntegerField(source="course_id", allow_null=True)
    is_active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


WEBHOOK_EXAMPLE = {"id": 5, "url": "https://lms.example.edu/cutoff/events", "course": 1,
                   "is_active": True, "created_at": "2026-11-29T22:00:00Z"}


class WebhookListCreateApi(APIView):
    """List the caller's webhooks, or register a new one."""

    permission_classes = [IsInstructor, HasScope("webhooks:write")]  # type: ignore[list-item]

    class InputSerializer(serializers.Serializer):
        url = serializers.URLField(max_length=500)
        course = serializers.IntegerField(
            required=False, allow_null=True,
            help_text="only events of this course (default: every course you teach)",
        )

    class CreatedSerializer(WebhookOutputSerializer):
        secret = serializers.CharField(
            help_text="HMAC-SHA256 key of X-Cutoff-Signature; shown only now"
        )

    @extend_schema(
        tags=["webhooks"], summary="My webhooks",
        responses={200: WebhookOutputSerializer(many=True)},
        examples=[OpenApiExample("one", value=[WEBHOOK_EXAMPLE], response_only=True)],
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        """Return the caller's webhooks."""
        return Response(WebhookOutputSerializer(webhooks_of(request.user), many=True).data)

    @extend_schema(
        tags=["webhooks"], summary="Register a webhook",
        description=(
            "On each graded (or regraded) submission of the courses you teach, Cutoff POSTs "
            'a JSON event `{"id", "type", "created_at", "data": {"submission": ...}}` with '
            "headers `X-Cutoff-Event`, `X-Cutoff-Delivery` (the event id) and "
            "`X-Cutoff-Signature: t=<unix>,v1=<hex>` where v1 = HMAC-SHA256(secret, "
            '"<t>." + raw body). Non-2xx answers are retried with exponential backoff.'
        ),
        request=InputSerializer,
        responses={201: CreatedSerializer, 400: OpenApiResponse(description="invalid url")},
        examples=[
            OpenApiExample("register", request_only=True,
                           value={"url": "https://lms.example.edu/cutoff/events", "course": 1}),
            OpenApiExample("registered", response_only=True, status_codes=["201"],
                           value={**WEBHOOK_EXAMPLE, "secret": "whsec_3q2-…"}),
        ],
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        """Register the webhook and return it with its secret."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = None
        if data.validated_data.get("course") is not None:
            course = Course.objects.filter(pk=data.validated_data["course"]).first()
            if course is None:
                raise ApiError("course: no such course among the courses you teach",
                               details={"course": ["not one of your courses"]})
        webhook = webhooks.create_webhook(owner=request.user, url=data.validated_data["url"],
                                          course=course)
        return Response(self.CreatedSerializer(webhook).data, status=status.HTTP_201_CREATED)


def owned_webhook(request: AuthenticatedRequest, webhook_id: int) -> Webhook:
    """Return the caller's webhook ``webhook_id``; 404 for anyone else's."""
    webhook = webhooks_of(request.user).filter(pk=webhook_id).first()
    if webhook is None:
        raise ApiError("no such webhook", code="not_found", status_code=404)
    return webhook


class WebhookDeleteApi(APIView):
    """Remove one of the caller's webhooks."""

    permission_classes = [IsInstructor, HasScope("webhooks:write")]  # type: ignore[list-item]

    @extend_schema(tags=["webhooks"], summary="Delete a webhook",
                   responses={204: None, 404: OpenApiResponse(description="not found")})
    def delete(self, request: AuthenticatedRequest, webhook_id: int) -> Response:
        """Delete the webhook and its delivery log."""
        webhooks.delete_webhook(owned_webhook(request, webhook_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveryListApi(APIView):
    """Show the delivery log of one of the caller's webhooks, newest first."""

    permission_classes = [IsInstructor, HasScope("webhooks:write")]  # type: ignore[list-item]
    MAX_LIMIT = 200

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        event_id = serializers.UUIDField()
        event_type = serializers.CharField()
        submission = serializers.IntegerField(source="submission_id", allow_null=True)
        status = serializers.CharField()
        attempt_count = serializers.IntegerField()
        attempts = JsonAnyField(help_text="[{at, status_code, error, duration_ms}]")
        next_attempt_at = serializers.DateTimeField(allow_null=True)
        created_at = serializers.DateTimeField()
        delivered_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(
        tags=["webhooks"], summary="A webhook's delivery log",
        parameters=[OpenApiParameter("limit", int, description="at most 200 (default 50)")],
        responses={200: OutputSerializer(many=True),
                   404: OpenApiResponse(description="not found")},
        examples=[OpenApiExample("retried once", response_only=True, value=[{
            "id": 9, "event_id": "1f0c5c1e-8a43-4f7b-9d1e-0b7c2f1d2a11",
            "event_type": "submission.graded", "submission": 42, "status": "succeeded",
            "attempt_count": 2,
            "attempts": [
                {"at": "2026-11-29T22:00:00Z", "status_code": 500, "error": "HTTP 500",
                 "duration_ms": 12},
                {"at": "2026-11-29T22:00:10Z", "status_code": 200, "error": "",
                 "duration_ms": 9},
            ],
            "next_attempt_at": None, "created_at": "2026-11-29T22:00:00Z",
            "delivered_at": "2026-11-29T22:00:10Z",
        }])],
    )
    def get(self, request: AuthenticatedRequest, webhook_id: int) -> Response:
        """Return the latest deliveries."""
        webhook = owned_webhook(request, webhook_id)
        try:
            limit = min(int(request.query_params.get("limit", 50)), self.MAX_LIMIT)
        except ValueError:
            raise ApiError("limit: must be an integer",
                           details={"limit": ["must be an integer"]}) from None
        deliveries = deliveries_of(webhook)[: max(limit, 1)]
        return Response(self.OutputSerializer(deliveries, many=True).data)


# --- running a course: every submission, overrides, regrade requests, statistics ----------

PAGE_SIZE, MOST_PAGE_SIZE = 50, 200


def page_of(request: AuthenticatedRequest, rows: Any) -> tuple[list[Any], dict[str, Any]]:
    """Return the page ``?page=`` (1-based) of ``rows`` with ``?page_size=`` rows (default
    50, at most 200) and the count/page/page_size/pages fields of the response."""
    numbers = {}
    for name, default, most in (("page", 1, None), ("page_size", PAGE_SIZE, MOST_PAGE_SIZE)):
        number = whole_number(request.query_params.get(name, str(default)))
        if number is None or number < 1 or (most is not None and number > most):
            rule = f"a whole number from 1 to {most}" if most else "a whole number from 1"
            raise ApiError(f"{name}: must be {rule}", details={name: [rule]})
        numbers[name] = number
    count = rows.count()
    size = numbers["page_size"]
    start = (numbers["page"] - 1) * size
    # A page past the last is empty; not asked of the database (its offset may not fit).
    return list(rows[start:start + size]) if start < count else [], {
        "count": count, "page": numbers["page"], "page_size": size,
        "pages": max(1, -(-count // size)),
    }


class SetSubmissionSerializer(serializers.Serializer):
    """One submission in the instructor's list: who, which item and attempt, the grade."""

    id = serializers.IntegerField()
    student = serializers.CharField(source="student.username")
    item = serializers.IntegerField(source="variant_item.position")
    kind = serializers.CharField(source="variant_item.item.kind")
    attempt_number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Submission.Status.choices)
    score = serializers.DecimalField(max_digits=9, decimal_places=4, coerce_to_string=False,
                                     allow_null=True)
    max_score = serializers.DecimalField(max_digits=9, decimal_places=4,
                                         coerce_to_string=False, allow_null=True)
    overridden = serializers.BooleanField()
    is_late = serializers.BooleanField()
    answer = JsonObjectField(allow_null=True)
    # A field named like a Field attribute (DRF moves declared fields off the class).
    source = serializers.CharField(  # type: ignore[assignment]
        help_text="code submissions: the program; else empty"
    )
    results = JsonAnyField(help_text="the full per-part feedback as stored: message codes "
                           "and their parameters (instructors see it all)")
    feedback = serializers.SerializerMethodField(
        help_text="the same feedback rendered in the reader's language, as the submission's own "
        "page shows it to instructors: each message's text, the parts' labels and expected "
        "values (a code submission: each test's name and messages' text)")
    created_at = serializers.DateTimeField()
    graded_at = serializers.DateTimeField(allow_null=True)

    @extend_schema_field(serializers.JSONField())
    def get_feedback(self, submission: Submission) -> list[dict[str, Any]]:
        """Return the stored feedback rendered for an instructor."""
        if submission.kind == Submission.Kind.CODE:
            return render_tests(submission.results)
        item = submission.variant_item.item
        labels = {part.name: str(part.label)
                  for part in get_kind(item.kind).answer_parts(item.params)}
        return render_results(submission.results, labels=labels, show_expected=True)


class ProblemSetSubmissionListApi(APIView):
    """List every submission of a problem set, for its instructors."""

    permission_classes = [IsInstructor, HasScope("grades:read")]  # type: ignore[list-item]

    class OutputSerializer(serializers.Serializer):
        count = serializers.IntegerField()
        page = serializers.IntegerField()
        page_size = serializers.IntegerField()
        pages = serializers.IntegerField()
        results = SetSubmissionSerializer(many=True)

    @extend_schema(
        tags=["grades"], summary="Every submission of a problem set",
        parameters=[
            OpenApiParameter("student", str, required=False, description="a username"),
            OpenApiParameter("item", int, required=False, description="an item position"),
            OpenApiParameter("page", int, required=False, description="1-based (default 1)"),
            OpenApiParameter("page_size", int, required=False,
                             description=f"default {PAGE_SIZE}, at most {MOST_PAGE_SIZE}"),
        ],
        responses={200: OutputSerializer},
    )
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Return a page of submissions ordered by student, item and attempt."""
        problem_set = problem_set_taught_by(request.user, problem_set_id)
        if problem_set is None:
            raise ApiError("no such problem set", code="not_found", status_code=404)
        item = request.query_params.get("item")
        position = None if item is None else whole_number(item)
        if item is not None and position is None:
            raise ApiError("item: must be an item position (a whole number)",
                           details={"item": ["must be a whole number"]})
        rows = set_submissions(problem_set, student=request.query_params.get("student"),
                               item=position)
        results, page = page_of(request, rows)
        return Response(self.OutputSerializer({**page, "results": results}).data)


class ScoreChangeSerializer(serializers.Serializer):
    """One entry of a submission's score history."""

    id = serializers.IntegerField()
    # A field named like a Field attribute (DRF moves declared fields off the class).
    source = serializers.ChoiceField(choices=ScoreChange.Source.choices)  # type: ignore[assignment]
    changed_by = serializers.CharField(source="changed_by.username", allow_null=True)
    old_score = serializers.DecimalField(max_digits=9, decimal_places=4,
                                         coerce_to_string=False, allow_null=True)
    new_score = serializers.DecimalField(max_digits=9, decimal_places=4,
                                         coerce_to_string=False, allow_null=True)
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class SubmissionOverrideApi(APIView):
    """Set a graded submission's score by hand, with a reason kept in its history."""

    permission_classes = [IsInstructor]

    class InputSerializer(serializers.Serializer):
        score = serializers.DecimalField(max_digits=9, decimal_places=4)
        reason = serializers.CharField(max_length=1000)

    class OutputSerializer(serializers.Serializer):
        submission = serializers.IntegerField(source="submission_id")
        score = serializers.DecimalField(source="new_score", max_digits=9, decimal_places=4,
                                         coerce_to_string=False)
        history = ScoreChangeSerializer(many=True)

    @extend_schema(
        tags=["grades"], summary="Override a submission's score",
        description="The score (0..max_score) replaces the graded one in the grades CSV and "
        "is passed back to the LMS; webhooks get `submission.overridden`; later regrades "
        "keep it. The history lists every change: who, when, old, new, reason.",
        request=InputSerializer,
        responses={200: OutputSerializer, 422: OpenApiResponse(
            description="`unprocessable`: `score` out of range or the submission not graded")},
        examples=[OpenApiExample("partial credit", request_only=True,
                                 value={"score": "3.5", "reason": "right idea, slip in C"})],
    )
    def post(self, request: AuthenticatedRequest, submission_id: int) -> Response:
        """Override; 404 unless the caller teaches the submission's course."""
        submission = submission_taught_by(request.user, submission_id)
        if submission is None:
            raise ApiError("no such submission", code="not_found", status_code=404)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        change = services.override_score(submission, changed_by=request.user,
                                         **data.validated_data)
        return Response(self.OutputSerializer({
            "submission_id": submission.pk, "new_score": change.new_score,
            "history": score_history(submission),
        }).data)


class SubmissionHistoryApi(APIView):
    """Read a submission's score history: every regrade and override, oldest first."""

    permission_classes = [IsInstructor, HasScope("grades:read")]  # type: ignore[list-item]

    class OutputSerializer(serializers.Serializer):
        submission = serializers.IntegerField(source="pk")
        score = serializers.DecimalField(max_digits=9, decimal_places=4, coerce_to_string=False,
                                         allow_null=True)
        overridden = serializers.BooleanField()
        history = ScoreChangeSerializer(many=True)

    @extend_schema(tags=["grades"], summary="A submission's score history",
                   responses={200: OutputSerializer})
    def get(self, request: AuthenticatedRequest, submission_id: int) -> Response:
        """Return the history; 404 unless the caller teaches the submission's course."""
        submission = submission_taught_by(request.user, submission_id)
        if submission is None:
            raise ApiError("no such submission", code="not_found", status_code=404)
        submission.history = list(score_history(submission))  # type: ignore[attr-defined]
        return Response(self.OutputSerializer(submission).data)


class RegradeRequestSerializer(serializers.Serializer):
    """A regrade request and its answer."""

    id = serializers.IntegerField()
    submission = serializers.IntegerField(source="submission_id")
    student = serializers.CharField(source="student.username")
    item = serializers.IntegerField(source="submission.variant_item.position")
    message = serializers.CharField()
    status = serializers.ChoiceField(choices=RegradeRequest.Status.choices)
    reply = serializers.CharField()
    resolved_by = serializers.CharField(source="resolved_by.username", allow_null=True)
    new_score = serializers.DecimalField(source="score_change.new_score", max_digits=9,
                                         decimal_places=4, coerce_to_string=False,
                                         allow_null=True)
    created_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)


class RegradeRequestCreateApi(APIView):
    """Ask the instructors to look again at one of my graded submissions."""

    class InputSerializer(serializers.Serializer):
        message = serializers.CharField(max_length=4000)

    @extend_schema(
        tags=["submissions"], summary="Request a regrade of my submission",
        request=InputSerializer,
        responses={201: RegradeRequestSerializer,
                   409: OpenApiResponse(description="a request on it is already open"),
                   422: OpenApiResponse(description="the submission is not graded yet")},
        examples=[OpenApiExample("a student's doubt", request_only=True,
                                 value={"message": "I think C2 is not pruned: 4 > 3."})],
    )
    def post(self, request: AuthenticatedRequest, submission_id: int) -> Response:
        """Record the request; 404 unless the caller made the submission."""
        submission = submission_owned_by(request.user, submission_id)
        if submission is None:
            raise ApiError("no such submission", code="not_found", status_code=404)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = services.request_score_review(submission, student=request.user,
                                                message=data.validated_data["message"])
        return Response(RegradeRequestSerializer(created).data, status=status.HTTP_201_CREATED)


class RegradeRequestListApi(APIView):
    """List the regrade requests on a problem set's submissions, for its instructors."""

    permission_classes = [IsInstructor]

    @extend_schema(
        tags=["grades"], summary="Regrade requests on a problem set",
        parameters=[OpenApiParameter("status", str, required=False,
                                     enum=RegradeRequest.Status.values)],
        responses={200: RegradeRequestSerializer(many=True)},
    )
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Return the requests, oldest first (``?status=open`` for those to answer)."""
        problem_set = problem_set_taught_by(request.user, problem_set_id)
        if problem_set is None:
            raise ApiError("no such problem set", code="not_found", status_code=404)
        wanted = request.query_params.get("status")
        if wanted is not None and wanted not in RegradeRequest.Status.values:
            raise ApiError("status: must be open or resolved",
                           details={"status": ["must be open or resolved"]})
        rows = regrade_requests_of(problem_set, wanted).select_related("score_change")
        return Response(RegradeRequestSerializer(rows, many=True).data)


class RegradeRequestResolveApi(APIView):
    """Answer a regrade request, with or without overriding the score."""

    permission_classes = [IsInstructor]

    class InputSerializer(serializers.Serializer):
        reply = serializers.CharField(max_length=4000, help_text="shown to the student")
        score = serializers.DecimalField(
            max_digits=9, decimal_places=4, required=False, allow_null=True, default=None,
            help_text="a new score (an override, the reply as its reason); null keeps it",
        )

    @extend_schema(
        tags=["grades"], summary="Resolve a regrade request", request=InputSerializer,
        responses={200: RegradeRequestSerializer,
                   409: OpenApiResponse(description="already resolved"),
                   422: OpenApiResponse(description="`score` out of range")},
        examples=[OpenApiExample("accepted", request_only=True,
                                 value={"reply": "You are right: full marks.", "score": "6"})],
    )
    def post(self, request: AuthenticatedRequest, request_id: int) -> Response:
        """Resolve; 404 unless the caller teaches the submission's course."""
        regrade_request = regrade_request_taught_by(request.user, request_id)
        if regrade_request is None:
            raise ApiError("no such regrade request", code="not_found", status_code=404)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        resolved = services.resolve_regrade_request(
            regrade_request, resolved_by=request.user, **data.validated_data
        )
        return Response(RegradeRequestSerializer(resolved).data)


class DiscriminationSerializer(serializers.Serializer):
    """A point-biserial correlation, null with the reason when it is undefined."""

    value = serializers.FloatField(allow_null=True)
    reason = serializers.ChoiceField(
        choices=["too_few_students", "item_zero_variance", "rest_zero_variance",
                 "no_rest_of_set"], allow_null=True,
    )


class PartStatisticsSerializer(serializers.Serializer):
    """Statistics of one answer part."""

    name = serializers.CharField()
    students = serializers.IntegerField()
    attempts = serializers.IntegerField()
    mean = serializers.FloatField(allow_null=True, help_text="mean points on counted attempts")
    max_points = serializers.FloatField(allow_null=True)
    right_at_first_attempt = serializers.IntegerField()
    misconceptions = serializers.DictField(child=serializers.IntegerField())
    discrimination = DiscriminationSerializer()


class ItemStatisticsSerializer(serializers.Serializer):
    """Statistics of one item and its parts."""

    position = serializers.IntegerField()
    kind = serializers.CharField()
    points = serializers.FloatField()
    multiple_choice = serializers.BooleanField()
    students = serializers.IntegerField(help_text="students with a graded attempt")
    attempts = serializers.IntegerField(help_text="graded attempts")
    mean = serializers.FloatField(allow_null=True, help_text="mean counted score")
    right_at_first_attempt = serializers.IntegerField(
        help_text="students whose first attempt got full marks")
    misconceptions = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="misconception code → graded attempts diagnosed with it")
    options = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="multiple choice: option id → graded attempts choosing it; else empty")
    discrimination = DiscriminationSerializer()
    parts = PartStatisticsSerializer(many=True)


class ProblemSetStatisticsApi(APIView):
    """Item statistics of a problem set, for its instructors."""

    permission_classes = [IsInstructor, HasScope("grades:read")]  # type: ignore[list-item]

    class OutputSerializer(serializers.Serializer):
        items = ItemStatisticsSerializer(many=True)

    @extend_schema(
        tags=["grades"], summary="Item statistics of a problem set",
        description="Per item and part: students, attempts, mean, right at the first "
        "attempt, misconception counts (from the stored diagnosis), option counts for "
        "multiple choice, and discrimination: the point-biserial correlation of full marks "
        "on the item (or part) with the student's score on the rest of the set (every other "
        "item, counted as in the grades CSV), over the students with a graded attempt; "
        "null with a reason when undefined. Definitions: docs/course-running.md.",
        responses={200: OutputSerializer},
    )
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Return the statistics of every item."""
        problem_set = problem_set_taught_by(request.user, problem_set_id)
        if problem_set is None:
            raise ApiError("no such problem set", code="not_found", status_code=404)
        return Response(self.OutputSerializer(
            {"items": problem_set_statistics(problem_set)}).data)

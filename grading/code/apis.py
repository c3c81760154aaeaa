"""Code item endpoints: the starter file, submitting code, and a code submission's report."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import renderers, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from accounts.requests import AuthenticatedRequest
from config.api import ApiError
from exercises.models import ProblemSet
from grading.code import services
from grading.code.feedback import render_tests
from grading.code.grader import summarise
from grading.feedback_policy import FEEDBACK_POLICY_SERVED_HELP, SCORE_ONLY, served_tests
from grading.models import CodeCheck, Submission
from grading.sandbox import VERDICTS
from grading.selectors import check_for, feedback_view, submission_for

MAX_IDEMPOTENCY_KEY_LENGTH = 255
TEST_VERDICTS = ("passed", "wrong", *(v for v in VERDICTS if v not in ("ok", "sandbox_error")))

TEST_EXAMPLE = {
    "test": "textbook tree", "verdict": "wrong", "score": 0.7167, "max_score": 1.0,
    "checks": {"value": True, "decision": True, "generated": 0.5, "evaluated": 0.5556},
    "messages": [
        {"code": "evaluated_differs", "params": {"n": 5, "yours": "B2", "reference": "C1"},
         "text": "Your 5th evaluated state was B2; the reference evaluates C1 there."},
        {"code": "generated_extra", "params": {"states": "B2, B3, C2, C3"},
         "text": "You generated B2, B3, C2, C3, which the reference never generates (pruned "
                 "or beyond the depth limit)."},
        {"code": "matches_misconception", "params": {"misconception": "root_alpha_not_raised"},
         "text": "Your search matches a known mistake: You did not narrow the root's window "
                 "between its children (a MAX root raises alpha, a MIN root lowers beta), so "
                 "you searched every root child with the full window."},
    ],
    "misconceptions": ["root_alpha_not_raised", "no_pruning"],
}
CODE_SUBMISSION_EXAMPLE = {
    "id": 43, "assignment": 7, "item": 2, "kind": "code", "attempt_number": 1,
    "status": "graded", "score": 2.4, "raw_score": 2.4, "max_score": 3.0, "is_late": False,
    "late_penalty": 0.0, "error_code": "", "feedback_policy": "full",
    "source": "def alphabeta_decision(game, state, depth):\n    ...\n",
    "summary": {
        "passed": 4, "tests": 6, "verdicts": {"passed": 4, "wrong": 1, "runtime_error": 1},
        "misconception": {"code": "root_alpha_not_raised", "tests": 1,
                          "explanation": "You did not narrow the root's window between its "
                                         "children (a MAX root raises alpha, a MIN root lowers "
                                         "beta), so you searched every root child with the "
                                         "full window."},
    },
    "tests": [
        {"test": "three-ply tree", "verdict": "passed", "score": 1.0, "max_score": 1.0,
         "checks": {"value": True, "decision": True, "generated": 1.0, "evaluated": 1.0},
         "messages": [], "misconceptions": []},
        TEST_EXAMPLE,
        {"test": "Connect Four after 4522 (1-based columns), X to move",
         "verdict": "runtime_error", "score": 0.0, "max_score": 1.0,
         "messages": [{"code": "run_raised", "params": {"exception": "IndexError"},
                       "text": "Your code raised IndexError."}],
         "misconceptions": [],
         "traceback": 'Traceback (most recent call last):\n  File "solution.py", line 9, in '
                      "alphabeta_decision\n    return moves[7], 0\nIndexError: list index out "
                      "of range\n"},
    ],
    "created_at": "2026-11-29T22:00:00Z", "graded_at": "2026-11-29T22:00:00.400000Z",
}


@extend_schema_field(OpenApiTypes.OBJECT)
class JsonObjectField(serializers.JSONField):
    """A JSON value documented as an object."""


class CodeSubmissionOutputSerializer(serializers.Serializer):
    """A code submission with its report: one entry per hidden test, and a summary."""

    class TestSerializer(serializers.Serializer):
        class MessageSerializer(serializers.Serializer):
            code = serializers.CharField()
            params = JsonObjectField()
            text = serializers.CharField(help_text="in the reader's language")

            class Meta:
                ref_name = "CodeTestMessage"

        test = serializers.CharField(help_text="what the test plays: a tree, a position, a "
                                               "series (in English, the same for every reader)")
        test_label = serializers.CharField(required=False,
                                           help_text="the test's name in the reader's language")
        verdict = serializers.ChoiceField(choices=TEST_VERDICTS)
        verdict_label = serializers.CharField(
            required=False, help_text="the verdict in the reader's language (checks only)")
        score = serializers.FloatField(help_text="fraction of the test earned, 0 to 1")
        max_score = serializers.FloatField()
        checks = JsonObjectField(
            required=False,
            help_text="decision and value (true/false), generated states and evaluation order "
                      "(0 to 1)",
        )
        messages = MessageSerializer(many=True, help_text="the first divergence first")
        misconceptions = serializers.ListField(child=serializers.CharField(),
                                               help_text="named mistakes the trace matches")
        traceback = serializers.CharField(required=False,
                                          help_text="your code's frames only")

        class Meta:
            ref_name = "CodeTestResult"

    id = serializers.IntegerField()
    assignment = serializers.IntegerField(source="variant_item.variant_id")
    item = serializers.IntegerField(source="variant_item.position")
    kind = serializers.CharField()
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
        "on error (no attempt used): sandbox_unavailable, sandbox_busy (the host was too busy "
        "to time the code fairly, after CUTOFF_CODE_BUSY_RETRIES runs), sandbox_failed or "
        "grading_failed"))
    # A field named like a Field attribute (DRF moves declared fields off the class).
    source = serializers.CharField()  # type: ignore[assignment]
    summary = serializers.SerializerMethodField()
    feedback_policy = serializers.SerializerMethodField()
    tests = TestSerializer(many=True, source="results")
    created_at = serializers.DateTimeField()
    graded_at = serializers.DateTimeField(allow_null=True)

    @extend_schema_field({"type": "object", "nullable": True})
    def get_summary(self, submission: Submission) -> dict[str, Any] | None:
        """Return verdict counts and the main misconception once graded (else null; null
        too under the ``score_only`` feedback policy)."""
        summary: dict[str, Any] | None = self.context["summary"]
        return summary

    @extend_schema_field(serializers.ChoiceField(
        choices=ProblemSet.FeedbackPolicy.choices, help_text=FEEDBACK_POLICY_SERVED_HELP))
    def get_feedback_policy(self, submission: Submission) -> str:
        """Return the feedback policy these tests are served under."""
        return str(self.context["feedback_policy"])


def code_submission_output(submission: Submission, viewer: User) -> dict[str, Any]:
    """Return a code submission as ``viewer`` may see it: the tests' feedback in the reader's
    language, under the set's feedback policy while the answers are hidden."""
    view = feedback_view(submission, viewer, timezone.now())
    stored = submission.results
    submission.results = render_tests(served_tests(stored, view.policy))
    summary = (
        summarise(stored) if submission.status == Submission.Status.GRADED
        and view.policy != SCORE_ONLY else None
    )
    return CodeSubmissionOutputSerializer(
        submission, context={"feedback_policy": view.policy, "summary": summary}
    ).data


class PythonSourceRenderer(renderers.BaseRenderer):
    """Let clients ask for ``text/x-python``; errors still come as the JSON envelope."""

    media_type = "text/x-python"
    format = "py"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Any = None) -> bytes:
        """Return ``data`` (an error envelope here) as JSON bytes."""
        return json.dumps(data).encode()


class SourceInputSerializer(serializers.Serializer):
    """The student's whole Python file, as a submission and a check take it."""

    # A field named like a Field attribute (DRF moves declared fields off the class).
    source = serializers.CharField(  # type: ignore[assignment]
        trim_whitespace=False, max_length=services.MAX_SOURCE_CHARACTERS,
        help_text="the whole Python file defining the item's function",
    )


Owned = TypeVar("Owned")


def owned_or_404(found: Owned | None, what: str) -> Owned:
    """Return what the owner-filtered selector ``found``; None (not there, or someone else's)
    is a 404, as if it did not exist."""
    if found is None:
        raise ApiError(f"no such {what}", code="not_found", status_code=404)
    return found


def accepted(body: dict[str, Any], location: str) -> Response:
    """Return a 202 with ``body`` and the ``Location`` to poll."""
    response = Response(body, status=status.HTTP_202_ACCEPTED)
    response["Location"] = location
    return response


def retrieve_schema(operation_id: str, summary: str, output: type[serializers.Serializer],
                    not_found: str, example: OpenApiExample) -> Any:
    """Return the OpenAPI schema of a code endpoint showing one record to its owner only."""
    return extend_schema(
        tags=["code"], operation_id=operation_id, summary=summary,
        responses={200: output, 404: OpenApiResponse(description=not_found)},
        examples=[example],
    )


class StarterFileApi(APIView):
    """Serve the starter file of a code item: the contract as a docstring and a stub."""

    renderer_classes = [renderers.JSONRenderer, PythonSourceRenderer]

    @extend_schema(
        tags=["code"],
        operation_id="code_starter_file",
        summary="Starter file of a code item",
        description=(
            "The Python file to start from: the game interface, the function to write, what it "
            "returns and the conventions the hidden tests use (for alpha-beta: depth in plies "
            "from 0, cut on equality, root raises alpha, children left to right, first best "
            "move). 400 `not_a_code_item` for items with typed answers."
        ),
        responses={
            (200, "text/x-python"): OpenApiTypes.STR,
            400: OpenApiResponse(description="not a code item"),
            404: OpenApiResponse(description="not your assignment, or no such item"),
        },
        examples=[OpenApiExample(
            "alpha-beta", response_only=True, media_type="text/x-python",
            value='"""Write alphabeta_decision(game, state, depth). ..."""\n\nimport math\n\n\n'
                  "def alphabeta_decision(game, state, depth):\n    raise NotImplementedError\n",
        )],
    )
    def get(self, request: AuthenticatedRequest, variant_id: int, position: int) -> HttpResponse:
        """Return the starter file as ``text/x-python``."""
        source = services.starter_file(request.user, variant_id, position)
        response = HttpResponse(source, content_type="text/x-python; charset=utf-8")
        response["Content-Disposition"] = f'inline; filename="item-{position}-starter.py"'
        return response


class CodeSubmissionCreateApi(APIView):
    """Submit Python code for a code item of the caller's assignment; it runs in the sandbox."""

    throttle_scope = "code_runs"

    class InputSerializer(SourceInputSerializer):
        class Meta:
            ref_name = "CodeSubmissionInput"

    @extend_schema(
        tags=["code"],
        operation_id="code_submission_create",
        summary="Submit code",
        description=(
            "Stores the code before answering 202 and runs it in the sandbox on the item's "
            "hidden tests; poll `GET /api/v1/code-submissions/{id}/` until `status` is "
            "`graded` or `error`. Send an `Idempotency-Key` header to make retries safe: the "
            "same key returns the same submission. Source that is not Python is refused with "
            "400 `invalid_source` naming the line, and uses no attempt. 403 codes: `past_due`, "
            "`time_limit_exceeded`, `attempts_exhausted`."
        ),
        parameters=[
            OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                             description="any unique string per intended submission"),
        ],
        request=InputSerializer,
        responses={
            202: CodeSubmissionOutputSerializer,
            400: OpenApiResponse(description="not Python, too long, or not a code item"),
            403: OpenApiResponse(description="refused: past due, time up, no attempts left"),
            404: OpenApiResponse(description="not your assignment, or no such item"),
            409: OpenApiResponse(description="idempotency key reused for other code"),
            429: OpenApiResponse(description="too many code runs; retry after a while"),
        },
        examples=[
            OpenApiExample(
                "alpha-beta", request_only=True,
                value={"source": "import math\n\n\ndef alphabeta_decision(game, state, depth):"
                                 "\n    ...\n"},
            ),
            OpenApiExample(
                "queued", response_only=True, status_codes=["202"],
                value={**CODE_SUBMISSION_EXAMPLE, "status": "queued", "score": None,
                       "raw_score": None, "max_score": None, "summary": None, "tests": [],
                       "graded_at": None},
            ),
            OpenApiExample(
                "not Python", response_only=True, status_codes=["400"],
                value={"error": {"code": "invalid_source",
                                 "message": "source: line 3: expected ':'",
                                 "details": {"source": ["line 3: expected ':'"], "line": 3}}},
            ),
        ],
    )
    def post(self, request: AuthenticatedRequest, variant_id: int, position: int) -> Response:
        """Check and store the code, enqueue its run, answer 202."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = request.headers.get("Idempotency-Key", "").strip()
        if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
            raise ApiError(
                f"Idempotency-Key: at most {MAX_IDEMPOTENCY_KEY_LENGTH} characters",
                details={"Idempotency-Key": ["too long"]},
            )
        submission, created = services.submit_code(
            student=request.user, variant_id=variant_id, position=position,
            source=data.validated_data["source"], idempotency_key=key,
        )
        stored = owned_or_404(submission_for(request.user, submission.pk), "code submission")
        response = accepted(code_submission_output(stored, request.user),
                            f"/api/v1/code-submissions/{submission.pk}/")
        if not created:
            response["Idempotent-Replayed"] = "true"
        return response


class CodeSubmissionDetailApi(APIView):
    """Show a code submission and its per-test report to its student or the course's staff."""

    @retrieve_schema("code_submission_retrieve", "A code submission and its report",
                     CodeSubmissionOutputSerializer, "not found",
                     OpenApiExample("graded", value=CODE_SUBMISSION_EXAMPLE, response_only=True))
    def get(self, request: AuthenticatedRequest, submission_id: int) -> Response:
        """Return the submission; anyone else gets 404, as if it did not exist."""
        submission = submission_for(request.user, submission_id)
        if submission is not None and submission.kind != Submission.Kind.CODE:
            submission = None
        return Response(code_submission_output(owned_or_404(submission, "code submission"),
                                               request.user))


CODE_CHECK_EXAMPLE = {
    "id": 12, "assignment": 7, "item": 2, "status": "done", "error_code": "",
    "tests": [{"test": "textbook tree", "verdict": "passed", "score": 1.0, "max_score": 1.0,
               "checks": {"value": True, "decision": True, "generated": 1.0, "evaluated": 1.0},
               "messages": [], "misconceptions": []}],
    "stdout": "root 3\n", "stderr": "", "stdout_truncated": False, "stderr_truncated": False,
    "wall_seconds": 0.081, "created_at": "2026-12-01T14:00:00Z",
    "finished_at": "2026-12-01T14:00:00.300000Z",
}


class CodeCheckOutputSerializer(serializers.Serializer):
    """A check of a student's code on the item's public example tests (no attempt used)."""

    id = serializers.IntegerField()
    assignment = serializers.IntegerField(source="variant_item.variant_id")
    item = serializers.IntegerField(source="variant_item.position")
    status = serializers.ChoiceField(choices=CodeCheck.Status.choices)
    error_code = serializers.CharField(
        help_text="sandbox_unavailable, sandbox_busy or sandbox_failed on error")
    tests = CodeSubmissionOutputSerializer.TestSerializer(
        many=True, source="results", help_text="one report per public test")
    stdout = serializers.CharField(help_text="what the code printed (bounded, 8 KiB default)")
    stderr = serializers.CharField()
    stdout_truncated = serializers.BooleanField()
    stderr_truncated = serializers.BooleanField()
    wall_seconds = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "CodeCheck"


def code_check_output(check: CodeCheck) -> dict[str, Any]:
    """Return a check with its tests' names, verdicts and messages in the reader's language."""
    check.results = render_tests(check.results, verdict_labels=True)
    return CodeCheckOutputSerializer(check).data


class CodeCheckCreateApi(APIView):
    """Run the caller's code on a code item's public example tests: no attempt is used."""

    class InputSerializer(SourceInputSerializer):
        class Meta:
            ref_name = "CodeCheckInput"

    @extend_schema(
        tags=["code"],
        operation_id="code_check_create",
        summary="Check code on the public tests (no attempt used)",
        description=(
            "Stores a check and answers 202; the code runs in the sandbox, after every "
            "submission and regrade, on the item's public example test only: one of its hidden "
            "tests, the same for every student, named in the starter file and graded as in a "
            "submission (the search items' first fixed tree; UCB1's \"a child never "
            "visited\"; backpropagation's \"a path where MIN wins\"; the tic-tac-toe agent as "
            "X against every opponent; the Connect Four agent's game as X against the depth-2 "
            "searcher). Poll `GET /api/v1/code-checks/{id}/` until "
            "`status` is `done` or `error`. A check uses no attempt, never counts in a grade and "
            "is allowed after the attempts are used up; it is refused past a refusing due date "
            "(403 `past_due`) and after a timed quiz's end (403 `time_limit_exceeded`). Rate "
            "limited per student (`CUTOFF_CODE_CHECK_RATES`, default 1 per 10 s and 20 per "
            "hour): 429 `check_rate_limited` with `Retry-After` and the limit in `details`. "
            "Every code item has a public example test."
        ),
        request=InputSerializer,
        responses={
            202: CodeCheckOutputSerializer,
            400: OpenApiResponse(description="not Python, too long, or not a code item"),
            403: OpenApiResponse(description="refused: past due or the quiz's time is up"),
            404: OpenApiResponse(description="not your assignment, or no such item"),
            429: OpenApiResponse(description="too many checks; retry after Retry-After seconds"),
        },
        examples=[
            OpenApiExample("queued", response_only=True, status_codes=["202"],
                           value={**CODE_CHECK_EXAMPLE, "status": "queued", "tests": [],
                                  "stdout": "", "wall_seconds": None, "finished_at": None}),
            OpenApiExample("rate limited", response_only=True, status_codes=["429"],
                           value={"error": {"code": "check_rate_limited",
                                            "message": "at most 1 checks per 10 s: retry in 7 s",
                                            "details": {"limit": {"checks": 1, "seconds": 10},
                                                        "retry_after": 7}}}),
        ],
    )
    def post(self, request: AuthenticatedRequest, variant_id: int, position: int) -> Response:
        """Check the source, store the check, enqueue its run, answer 202."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        check = services.request_check(student=request.user, variant_id=variant_id,
                                       position=position, source=data.validated_data["source"])
        stored = owned_or_404(check_for(request.user, check.pk), "code check")
        return accepted(code_check_output(stored), f"/api/v1/code-checks/{check.pk}/")


class CodeCheckDetailApi(APIView):
    """Show a check, its public tests' reports and its printed output to its student."""

    @retrieve_schema("code_check_retrieve", "A check and its output", CodeCheckOutputSerializer,
                     "not found (only its student sees it)",
                     OpenApiExample("done", value=CODE_CHECK_EXAMPLE, response_only=True))
    def get(self, request: AuthenticatedRequest, check_id: int) -> Response:
        """Return the check; anyone but its student gets 404, as if it did not exist."""
        return Response(code_check_output(owned_or_404(check_for(request.user, check_id),
                                                       "code check")))

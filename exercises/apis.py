"""Exercise endpoints: kinds, problem sets for instructors, assignments for students.

One API class per operation, each with nested Input/Output serializers.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from functools import lru_cache
from typing import Any, cast

from django.conf import settings
from django.http import Http404
from django.urls import reverse
from django.utils import timezone, translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Course
from accounts.permissions import IsInstructor
from accounts.requests import AuthenticatedRequest
from accounts.selectors import courses_taught_by
from config.api import ApiError, OnlyKnownFields, represented
from exercises.generation import GenerationError, derive_seed, generate_item
from exercises.kinds import all_kinds, get_kind
from exercises.kinds.base import AnswerPart, Kind
from exercises.kinds.params import ParamError
from exercises.models import MOST_ATTEMPTS, Extension, Item, ProblemSet, Variant, VariantItem
from exercises.selectors import (
    extensions_of,
    items_closed_by_seen_keys,
    problem_set_with_answers,
    problem_sets_listed_for,
    problem_sets_taught_by,
    quiz_closes_at,
    rules_for,
    variant_of,
    variants_of,
)
from exercises.services import (
    DEFINITION_FORMAT,
    archive_problem_set,
    copy_problem_set,
    create_problem_set,
    export_definition,
    grant_extension,
    import_definition,
    note_keys_seen,
    open_variant,
    publish_problem_set,
    update_problem_set,
    validate_item,
)
from exercises.tree_library import library_trees
from grading.feedback_policy import FEEDBACK_POLICY_HELP
from grading.selectors import answers_visible
from lms.clients.authentication import HasScope

LANG_PARAMETER = OpenApiParameter(
    "lang", str, enum=[code for code, _ in settings.LANGUAGES], required=False,
    description="language of prompts and labels (default: from Accept-Language)",
)


GENERATION_FAILED = (
    "`generation_failed`: the params meet their kind's constraints too rarely for every "
    "student's variant to generate: in fewer than 3 of 1,000 sample problems (checked "
    "whenever params are stored, changed or previewed, and for every item when a set without "
    "variants is published; for newcomers, in none of them), or in none of the first new "
    "student's seed's attempts. `details` names the param (`params`, "
    "`params.options`; for a set `items[i].params...`) and the message the last unmet "
    "constraint. Nothing is stored."
)


def requested_language(request: Request) -> str:
    """Return the language asked by ``?lang=`` or, failing that, negotiated by the middleware."""
    lang = request.query_params.get("lang")
    codes = [code for code, _ in settings.LANGUAGES]
    if lang is None:
        return translation.get_language() or settings.LANGUAGE_CODE
    lang = lang.lower()  # language tags are case-insensitive: pt-BR is pt-br
    if lang not in codes:
        raise ApiError(f"lang: must be one of {', '.join(codes)}, got {lang!r}",
                       details={"lang": ["unknown language"]})
    return lang


@extend_schema_field(OpenApiTypes.OBJECT)
class JsonField(serializers.JSONField):
    """Accept any JSON, documented as an object."""


@extend_schema_serializer(component_name="KindAnswerPart")
class AnswerPartSerializer(serializers.Serializer):
    """Describe one answer part: what to fill in and how it is scored."""

    name = serializers.CharField()
    type = serializers.CharField()
    # A field named like a Field attribute (DRF moves declared fields off the class).
    label = serializers.CharField(  # type: ignore[assignment]
        help_text="what to fill in, in the active language; number parts end with how they "
        "are graded: (exact) or (within ±tolerance)"
    )
    points = serializers.SerializerMethodField()
    tolerance = serializers.SerializerMethodField()
    # A field named like a Serializer attribute (DRF moves declared fields off the class).
    fields = serializers.ListField(  # type: ignore[assignment]
        child=serializers.CharField(),
        help_text="records parts: the fields each row has (any other is refused); else empty",
    )
    choices = serializers.SerializerMethodField(
        help_text="records parts: field → the words it holds instead of a number (a "
        "transposition table entry's flag: exact, lower, upper); else empty",
    )
    length = serializers.SerializerMethodField(
        help_text="vector parts: how many numbers the list must hold (one per player, one "
        "per iteration; a list of another length is a 400); else null",
    )

    def get_points(self, part: AnswerPart) -> str:
        """Return the part's default weight as an exact string."""
        return str(part.points)

    @extend_schema_field(
        serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    )
    def get_choices(self, part: AnswerPart) -> dict[str, list[str]]:
        """Return the word fields of a records part and the words each allows."""
        return {name: list(words) for name, words in part.options.get("choices", {}).items()}

    def get_length(self, part: AnswerPart) -> int | None:
        """Return how many numbers a vector part holds, else null."""
        length = part.options.get("length")
        return None if length is None else int(length)

    def get_tolerance(self, part: AnswerPart) -> str | None:
        """Return the absolute tolerance of a float part as an exact string, else null."""
        return None if part.tolerance is None else str(part.tolerance)


def parts_of(kind_name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the serialized answer parts of an item (labels in the active language)."""
    # Every student of an exam opens the same few items: serialised once per process, per
    # item params and language (about 0.5 ms of CPU per item and request otherwise); a copy,
    # so no caller can change what the next one gets.
    try:
        params_json = json.dumps(params, sort_keys=True)
    except TypeError:  # params that are not JSON (no stored item's are): serialised uncached
        return _serialize_parts(kind_name, params)
    return copy.deepcopy(_serialized_parts(kind_name, params_json, translation.get_language()))


@lru_cache(maxsize=1024)
def _serialized_parts(kind_name: str, params_json: str, language: str | None
                      ) -> list[dict[str, Any]]:
    """Return the answer parts of an item with these params, serialized in ``language``."""
    with translation.override(language):
        return _serialize_parts(kind_name, json.loads(params_json))


def _serialize_parts(kind_name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the answer parts of an item serialized in the active language."""
    # many=True: a ReturnList of dicts (drf-stubs types .data as one dict).
    return [dict(part) for part in cast(list[dict[str, Any]], AnswerPartSerializer(
        get_kind(kind_name).answer_parts(params), many=True).data)]


def render_prompt(prompt: dict[str, Any], params: dict[str, Any]) -> str:
    """Return the stored prompt data of an item with ``params`` in the active language."""
    return get_kind(prompt["kind"]).prompt_text(prompt["args"], params)


# --- kinds --------------------------------------------------------------------------------


class KindListApi(APIView):
    """List the exercise kinds with their params schema and answer parts."""

    @extend_schema_serializer(component_name="ExerciseKind")
    class OutputSerializer(serializers.Serializer):
        name = serializers.CharField()
        title = serializers.CharField()
        description = serializers.CharField()
        params_schema = JsonField(source="schema")
        defaults = JsonField()
        conventions = serializers.ListField(child=serializers.CharField())
        multiple_choice = serializers.BooleanField()
        answer_parts = AnswerPartSerializer(many=True)

    @staticmethod
    def describe(kind: Kind) -> dict[str, Any]:
        """Return what the listing says about ``kind``."""
        defaults = kind.clean_params({})
        return {
            "name": kind.name,
            "title": str(kind.title),
            "description": str(kind.description),
            "schema": kind.params_schema(),
            "defaults": defaults,
            "conventions": sorted(kind.convention_names()),
            "multiple_choice": kind.choice_part is not None,
            "answer_parts": kind.answer_parts(defaults),
        }

    @extend_schema(
        responses={200: OutputSerializer(many=True)}, parameters=[LANG_PARAMETER],
        tags=["exercises"], summary="List exercise kinds",
    )
    def get(self, request: Request) -> Response:
        """Return every kind, its params (JSON Schema with defaults) and answer parts."""
        with translation.override(requested_language(request)):
            data = [self.describe(kind) for kind in all_kinds()]
            return Response(self.OutputSerializer(data, many=True).data)


class TreeLibraryApi(APIView):
    """List the library's named trees, ready to pose as an item's ``params.tree``."""

    permission_classes = [IsInstructor]

    @extend_schema_serializer(component_name="LibraryTree")
    class OutputSerializer(serializers.Serializer):
        id = serializers.CharField()
        title = serializers.CharField()
        # A field named like a Field attribute (DRF moves declared fields off the class).
        source = serializers.CharField(  # type: ignore[assignment]
            help_text="the teaching material the tree comes from")
        note = serializers.CharField()
        kinds = serializers.ListField(child=serializers.CharField(),
                                      help_text="the kinds whose params.tree it suits")
        text = serializers.CharField(help_text="the tree in the board text form "
                                     "(docs/tree-text.md); params.tree takes it as it is")
        tree = JsonField(help_text="the tree as gametree/1 JSON")
        params = JsonField(help_text="params the tree needs besides itself (a vector "
                           "tree's number of players)")

    @extend_schema(
        responses={200: OutputSerializer(many=True)},
        parameters=[
            LANG_PARAMETER,
            OpenApiParameter("kind", str, required=False,
                             description="only the trees suiting this kind"),
        ],
        tags=["exercises"], summary="List the library of named trees",
        examples=[OpenApiExample(
            "the two-MIN-node tree", response_only=True,
            value=[{"id": "two-by-two", "title": "Two MIN nodes, leaves 3, 5 and 2, 9",
                    "source": "Jogos e Minimax (pt-PT summary)",
                    "note": "Leaf 5 is read but changes nothing; only 9 is cut.",
                    "kinds": ["minimax", "alphabeta", "move_ordering"],
                    "text": "raiz: MAX(MIN(3, 5), MIN(2, 9))", "tree": {"name": "raiz"},
                    "params": {}}],
        )],
    )
    def get(self, request: Request) -> Response:
        """Return the named trees (all, or those of ``?kind=``) with their text and JSON."""
        kind = request.query_params.get("kind")
        if kind is not None:
            try:
                get_kind(kind)
            except ParamError as error:
                raise ApiError(f"kind: {error.message}",
                               details={"kind": [error.message]}) from error
        with translation.override(requested_language(request)):
            data = [
                {"id": entry.id, "title": str(entry.title), "source": entry.source,
                 "note": str(entry.note), "kinds": list(entry.kinds), "text": entry.text,
                 "tree": entry.tree, "params": entry.params}
                for entry in library_trees(kind)
            ]
            return Response(self.OutputSerializer(data, many=True).data)


class KindPreviewApi(APIView):
    """Generate one item of a kind synchronously, answers included, without storing it."""

    permission_classes = [IsInstructor]

    @extend_schema_serializer(component_name="KindPreview")
    class InputSerializer(serializers.Serializer):
        params = JsonField(required=False, default=dict)
        seed = serializers.CharField(max_length=64, required=False, default="preview")

    @extend_schema_serializer(component_name="KindPreviewResult")
    class OutputSerializer(serializers.Serializer):
        kind = serializers.CharField()
        params = JsonField()
        problem = JsonField()
        prompt = serializers.CharField()
        answer_parts = serializers.ListField(child=JsonField())
        answer_key = JsonField()
        engine_version = serializers.CharField()
        generation_attempt = serializers.IntegerField()

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer, 422: OpenApiResponse(description=GENERATION_FAILED)},
        parameters=[LANG_PARAMETER], tags=["exercises"], summary="Preview a kind",
        examples=[
            OpenApiExample(
                "alpha-beta without cut on equality",
                value={"params": {"depth": 3, "cut_on_equality": False, "min_cuts": 2},
                       "seed": "try-1"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request, kind: str) -> Response:
        """Return a generated problem, its prompt and the engine's key for the given params."""
        try:
            get_kind(kind)
        except ParamError as error:
            raise ApiError(error.message, code="not_found",
                           status_code=status.HTTP_404_NOT_FOUND) from error
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        params = validate_item(kind, data.validated_data["params"])
        seed = derive_seed("cutoff/preview", data.validated_data["seed"])
        try:
            item = generate_item(kind, params, seed)
        except GenerationError as error:
            raise ApiError(f"{error.param_path}: {error.message}", code="generation_failed",
                           status_code=status.HTTP_422_UNPROCESSABLE_ENTITY,
                           details={error.param_path: [error.message]}) from error
        with translation.override(requested_language(request)):
            body = {
                "kind": kind,
                "params": params,
                "problem": item.problem,
                "prompt": render_prompt(item.prompt, params),
                "answer_parts": parts_of(kind, params),
                "answer_key": item.answer_key,
                "engine_version": item.engine_version,
                "generation_attempt": item.attempt,
            }
            return Response(self.OutputSerializer(body).data)


# --- problem sets -------------------------------------------------------------------------


@extend_schema_serializer(component_name="ProblemSetItem")
class ItemOutputSerializer(serializers.Serializer):
    """Show an item as instructors see it: kind, explicit params, points and parts."""

    position = serializers.IntegerField()
    kind = serializers.CharField()
    params = JsonField()
    points = serializers.DecimalField(max_digits=7, decimal_places=2)
    part_points = JsonField()
    answer_parts = serializers.SerializerMethodField()

    @extend_schema_field(AnswerPartSerializer(many=True))
    def get_answer_parts(self, item: Item) -> list[dict[str, Any]]:
        """Return the item's answer parts."""
        return parts_of(item.kind, item.params)


@extend_schema_serializer(component_name="ProblemSet")
class ProblemSetOutputSerializer(serializers.Serializer):
    """Show a problem set as its instructors see it, with every variant's answer keys."""

    @extend_schema_serializer(component_name="ProblemSetProgress")
    class ProgressSerializer(serializers.Serializer):
        done = serializers.IntegerField(source="progress_done")
        total = serializers.IntegerField(source="progress_total")

    @extend_schema_serializer(component_name="VariantAnswerKeys")
    class VariantKeysSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="VariantItemAnswerKey")
        class ItemKeySerializer(serializers.Serializer):
            position = serializers.IntegerField()
            answer_key = JsonField()
            engine_version = serializers.CharField()

        id = serializers.IntegerField()
        student = serializers.CharField(source="student.username")
        opened_at = serializers.DateTimeField(allow_null=True)
        items = ItemKeySerializer(many=True)

    id = serializers.IntegerField()
    course = serializers.IntegerField(source="course_id")
    title = serializers.CharField()
    seed = serializers.CharField()
    status = serializers.CharField()
    failure_reason = serializers.CharField()
    progress = ProgressSerializer(source="*")
    due_at = serializers.DateTimeField(allow_null=True)
    max_attempts = serializers.IntegerField(allow_null=True)
    late_policy = serializers.CharField()
    late_penalty = serializers.DecimalField(max_digits=4, decimal_places=3)
    score_policy = serializers.CharField()
    feedback_policy = serializers.ChoiceField(
        choices=ProblemSet.FeedbackPolicy.choices, help_text=FEEDBACK_POLICY_HELP
    )
    time_limit_minutes = serializers.IntegerField(allow_null=True)
    published_at = serializers.DateTimeField(allow_null=True)
    archived_at = serializers.DateTimeField(
        allow_null=True, help_text="set when archived: hidden from its students")
    items = ItemOutputSerializer(many=True)
    variants = VariantKeysSerializer(many=True)


@extend_schema_serializer(component_name="ProblemSetSummary")
class ProblemSetSummarySerializer(serializers.Serializer):
    """Summarise a problem set in an instructor's list."""

    id = serializers.IntegerField()
    course = serializers.IntegerField(source="course_id")
    title = serializers.CharField()
    status = serializers.CharField()
    due_at = serializers.DateTimeField(allow_null=True)
    published_at = serializers.DateTimeField(allow_null=True)
    archived_at = serializers.DateTimeField(allow_null=True)


ARCHIVED_PARAMETER = OpenApiParameter(
    "archived", bool, required=False,
    description="true: only archived sets; false (default): only the others",
)


PROBLEM_SET_EXAMPLE = {
    "course": 1,
    "title": "Week 3: alpha-beta",
    "seed": "2026-week-3",
    "due_at": "2026-12-01T23:59:00Z",
    "max_attempts": 3,
    "feedback_policy": "verdicts",
    "items": [
        {"kind": "minimax", "params": {"depth": 2}, "points": "2"},
        {"kind": "alphabeta", "params": {"depth": 3, "min_cuts": 2, "cut_on_equality": True},
         "points": "4"},
        {"kind": "ucb1", "params": {"c": "2", "form": "sqrt(c*ln N/n)"}, "points": "2"},
    ],
}
AUTHORED_TREES_EXAMPLE = {
    "course": 1,
    "title": "Lecture 4: the trees from the slides",
    "items": [
        {"kind": "alphabeta", "params": {"tree": "MAX(A: MIN(3, 5), B: MIN(2, 9))"},
         "points": "2"},
        {"kind": "expectiminimax", "params": {
            "tree": {"name": "root", "type": "max", "children": [
                {"name": "L", "type": "chance", "probabilities": ["1/3", "2/3"],
                 "children": [{"name": "L1", "value": 4}, {"name": "L2", "value": 9}]},
                {"name": "R", "value": 6}]},
            "randomize_values": True, "max_value": 12}, "points": "3"},
    ],
}
"""Items posing an instructor's tree: in the board text form, and as gametree/1 JSON with
fresh leaf values per student (grading/README.md, "Instructors' own trees")."""


class ProblemSetCreateApi(APIView):
    """Create a draft problem set in a course the caller teaches (GET: list the caller's)."""

    permission_classes = [IsInstructor, HasScope("problem_sets:write")]  # type: ignore[list-item]

    @extend_schema_serializer(component_name="ProblemSetCreate")
    class InputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="ProblemSetItemSpec")
        class ItemSerializer(serializers.Serializer):
            kind = serializers.CharField(max_length=32)
            params = JsonField(required=False, default=dict)
            points = serializers.DecimalField(
                max_digits=7, decimal_places=2, min_value=0, default=Decimal(1)
            )

        course = serializers.IntegerField()
        title = serializers.CharField(max_length=200)
        seed = serializers.CharField(max_length=64, required=False, default="")
        # many=True hands max_length to the ListSerializer (drf-stubs leaves it out).
        items = ItemSerializer(many=True, allow_empty=False, max_length=50)  # type: ignore[call-arg]
        due_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
        max_attempts = serializers.IntegerField(
            required=False, allow_null=True, default=None, min_value=1,
            max_value=MOST_ATTEMPTS,
        )
        late_policy = serializers.ChoiceField(
            choices=ProblemSet.LatePolicy.choices, default=ProblemSet.LatePolicy.REFUSE
        )
        late_penalty = serializers.DecimalField(
            max_digits=4, decimal_places=3, min_value=0, max_value=1, default=Decimal(0)
        )
        score_policy = serializers.ChoiceField(
            choices=ProblemSet.ScorePolicy.choices, default=ProblemSet.ScorePolicy.BEST
        )
        feedback_policy = serializers.ChoiceField(
            choices=ProblemSet.FeedbackPolicy.choices,
            default=ProblemSet.FeedbackPolicy.VERDICTS, help_text=FEEDBACK_POLICY_HELP,
        )
        time_limit_minutes = serializers.IntegerField(
            required=False, allow_null=True, default=None, min_value=1, max_value=24 * 60
        )

    @extend_schema(
        responses={200: ProblemSetSummarySerializer(many=True)},
        parameters=[ARCHIVED_PARAMETER], tags=["problem sets"], summary="List my problem sets",
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        """Return the sets of the courses the caller teaches (``?archived=true``: archived)."""
        archived = request.query_params.get("archived", "false").lower()
        if archived not in ("true", "false"):
            raise ApiError("archived: must be true or false",
                           details={"archived": ["must be true or false"]})
        sets = problem_sets_listed_for(request.user, archived=archived == "true")
        return Response(ProblemSetSummarySerializer(sets, many=True).data)

    @extend_schema(
        request=InputSerializer, responses={
            201: ProblemSetOutputSerializer, 422: OpenApiResponse(description=GENERATION_FAILED)},
        tags=["problem sets"], summary="Create a problem set",
        description="Each item's params are validated against its kind; a tree kind's "
        "`params.tree` poses the instructor's own tree (a gametree/1 object or the board text "
        "form of docs/tree-text.md), and a tree breaking a rule is a 400 whose `details` key "
        "is the node's path, e.g. `items[0].params.tree.children[1]`.",
        examples=[
            OpenApiExample("three items", value=PROBLEM_SET_EXAMPLE, request_only=True),
            OpenApiExample("instructors' own trees", value=AUTHORED_TREES_EXAMPLE,
                           request_only=True),
        ],
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        """Validate every item's params against its kind and store the draft set."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        course = Course.objects.filter(
            pk=fields.pop("course"), pk__in=courses_taught_by(request.user).values("pk")
        ).first()
        if course is None:
            raise ApiError("course: no course with this id that you teach",
                           details={"course": ["not one of your courses"]})
        created = create_problem_set(creator=request.user, course=course, **fields)
        problem_set = problem_set_with_answers(request.user, created.pk)
        return Response(
            ProblemSetOutputSerializer(problem_set).data, status=status.HTTP_201_CREATED
        )


class ProblemSetDetailApi(APIView):
    """Show a problem set to an instructor of its course: status, progress, items, keys.

    Everyone else, students included, gets 404: the set's existence is not revealed.
    """

    permission_classes = [IsAuthenticated, HasScope("problem_sets:write")]  # type: ignore[list-item]

    @extend_schema(
        responses={200: ProblemSetOutputSerializer}, parameters=[LANG_PARAMETER],
        tags=["problem sets"], summary="Get a problem set with answers",
    )
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Return the set; 404 unless the caller teaches its course."""
        problem_set = problem_set_with_answers(request.user, problem_set_id)
        if problem_set is None:
            raise Http404
        with translation.override(requested_language(request)):
            return Response(ProblemSetOutputSerializer(problem_set).data)

    @extend_schema_serializer(component_name="ProblemSetUpdate")
    class UpdateInputSerializer(OnlyKnownFields):
        @extend_schema_serializer(component_name="ProblemSetItemChange")
        class ItemChangeSerializer(OnlyKnownFields):
            position = serializers.IntegerField(min_value=1)
            params = JsonField(required=False, help_text="merged over the stored params")
            points = serializers.DecimalField(
                max_digits=7, decimal_places=2, min_value=0, required=False
            )

            def validate_params(self, value: Any) -> Any:
                """Require a JSON object."""
                if not isinstance(value, dict):
                    raise serializers.ValidationError("must be a JSON object")
                return value

        title = serializers.CharField(max_length=200, required=False)
        due_at = serializers.DateTimeField(required=False, allow_null=True)
        due_date = serializers.DateTimeField(
            required=False, allow_null=True,
            help_text="the API outline's name of due_at (as in extensions); when both are "
            "given they must be equal")
        max_attempts = serializers.IntegerField(
            required=False, allow_null=True, min_value=1, max_value=MOST_ATTEMPTS
        )
        late_policy = serializers.ChoiceField(choices=ProblemSet.LatePolicy.choices,
                                              required=False)
        late_penalty = serializers.DecimalField(
            max_digits=4, decimal_places=3, min_value=0, max_value=1, required=False,
            help_text="applies to submissions made after the change",
        )
        score_policy = serializers.ChoiceField(choices=ProblemSet.ScorePolicy.choices,
                                               required=False)
        feedback_policy = serializers.ChoiceField(
            choices=ProblemSet.FeedbackPolicy.choices, required=False,
            help_text=FEEDBACK_POLICY_HELP,
        )
        time_limit_minutes = serializers.IntegerField(
            required=False, allow_null=True, min_value=1, max_value=24 * 60
        )
        archived = serializers.BooleanField(
            required=False, help_text="false unarchives an archived set (DELETE archives)"
        )
        # many=True hands max_length to the ListSerializer (drf-stubs leaves it out).
        items = ItemChangeSerializer(many=True, required=False, max_length=50)  # type: ignore[call-arg]

        def validate_items(self, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
            """Refuse two changes of one item (which one would hold?)."""
            seen: set[int] = set()
            for index, change in enumerate(value):
                if change["position"] in seen:
                    raise serializers.ValidationError(
                        {f"{index}.position": [f"item {change['position']} is changed twice"]})
                seen.add(change["position"])
            return value

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            """Return the changes with the due date under the model's name, ``due_at``."""
            return due_date_as_due_at(attrs)

    @extend_schema_serializer(component_name="ProblemSetUpdateResult")
    class UpdateOutputSerializer(serializers.Serializer):
        problem_set = ProblemSetOutputSerializer()
        archived_at = serializers.DateTimeField(source="problem_set.archived_at",
                                                allow_null=True)
        regraded = serializers.ListField(
            child=serializers.CharField(),
            help_text="the changed fields that alter keys or scores (empty: nothing regraded)",
        )
        regrade = serializers.IntegerField(
            allow_null=True, help_text="id of the regrade run queued for them: "
            "GET /api/v1/regrades/{id}/ for its report",
        )

    @extend_schema(
        request=UpdateInputSerializer,
        responses={200: UpdateOutputSerializer, 400: OpenApiResponse(
            description="`invalid`: a field is malformed, or is not one this endpoint "
            "changes (`course`, `seed`, an item's `kind`): `details` names it. Nothing is "
            "changed."), 422: OpenApiResponse(
            description="`unprocessable`: the change cannot apply; `details` names the field "
            "(e.g. `items[0].params.depth` once variants exist, `max_attempts` below the "
            "attempts already used). Nothing is changed. Also " + GENERATION_FAILED)},
        tags=["problem sets"], summary="Edit a problem set (also after publishing)",
        examples=[OpenApiExample(
            "a later due date and a convention change",
            value={"due_at": "2026-12-08T23:59:00Z",
                   "items": [{"position": 2, "params": {"cut_on_equality": False}}]},
            request_only=True,
        )],
    )
    def patch(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Change settings and items; a change of keys or points queues a regrade."""
        problem_set = problem_sets_taught_by(request.user).filter(pk=problem_set_id).first()
        if problem_set is None:
            raise Http404
        data = self.UpdateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        _, regraded, regrade_id = update_problem_set(
            problem_set, changed_by=request.user, **data.validated_data
        )
        updated = problem_set_with_answers(request.user, problem_set_id)
        with translation.override(requested_language(request)):
            return Response(self.UpdateOutputSerializer(
                {"problem_set": updated, "regraded": regraded, "regrade": regrade_id}
            ).data)

    @extend_schema(
        request=None, responses={204: None}, tags=["problem sets"],
        summary="Archive a problem set",
        description="Hides the set from its students (their lists, pages and submitting); "
        "variants, submissions and grades are kept. List archived sets with "
        "GET /api/v1/problem-sets/?archived=true; PATCH {\"archived\": false} unarchives.",
    )
    def delete(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Archive the set; 404 unless the caller teaches its course."""
        problem_set = problem_sets_taught_by(request.user).filter(pk=problem_set_id).first()
        if problem_set is None:
            raise Http404
        archive_problem_set(problem_set)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProblemSetCopyApi(APIView):
    """Copy a problem set into a course the caller teaches, as a new draft."""

    permission_classes = [IsAuthenticated, HasScope("problem_sets:write")]  # type: ignore[list-item]

    @extend_schema_serializer(component_name="ProblemSetCopy")
    class InputSerializer(serializers.Serializer):
        course = serializers.IntegerField(help_text="a course you teach (the same one or another)")
        title = serializers.CharField(max_length=200, required=False, default="",
                                      help_text="default: the original's title")

    @extend_schema(
        request=InputSerializer, responses={
            201: ProblemSetOutputSerializer, 422: OpenApiResponse(description=GENERATION_FAILED)},
        tags=["problem sets"], summary="Copy a problem set as a draft",
        examples=[OpenApiExample("into next year's course", value={"course": 4},
                                 request_only=True)],
    )
    def post(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Create the copy (new seed, no variants); 404 unless the caller teaches the set."""
        problem_set = problem_sets_taught_by(request.user).filter(pk=problem_set_id).first()
        if problem_set is None:
            raise Http404
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = taught_course(request.user, data.validated_data["course"])
        copy = copy_problem_set(problem_set, course=course, creator=request.user,
                                title=data.validated_data["title"])
        return Response(ProblemSetOutputSerializer(problem_set_with_answers(request.user, copy.pk)
                                                   ).data, status=status.HTTP_201_CREATED)


def taught_course(user: Any, course_id: int) -> Course:
    """Return course ``course_id`` if ``user`` teaches it; else raise 422 naming ``course``."""
    course = Course.objects.filter(
        pk=course_id, pk__in=courses_taught_by(user).values("pk")
    ).first()
    if course is None:
        raise ApiError("course: no course with this id that you teach", code="unprocessable",
                       status_code=status.HTTP_422_UNPROCESSABLE_ENTITY,
                       details={"course": ["not one of your courses"]})
    return course


@extend_schema_serializer(component_name="ProblemSetDefinition")
class DefinitionSerializer(serializers.Serializer):
    """Check the shape of a portable problem-set definition (format ``cutoff-problem-set/1``)."""

    @extend_schema_serializer(component_name="ProblemSetDefinitionPolicies")
    class PoliciesSerializer(serializers.Serializer):
        due_at = serializers.DateTimeField(allow_null=True, default=None)
        max_attempts = serializers.IntegerField(allow_null=True, default=None, min_value=1,
                                                max_value=MOST_ATTEMPTS)
        late_policy = serializers.ChoiceField(choices=ProblemSet.LatePolicy.choices,
                                              default=ProblemSet.LatePolicy.REFUSE)
        late_penalty = serializers.DecimalField(max_digits=4, decimal_places=3, min_value=0,
                                                max_value=1, default=Decimal(0))
        score_policy = serializers.ChoiceField(choices=ProblemSet.ScorePolicy.choices,
                                               default=ProblemSet.ScorePolicy.BEST)
        feedback_policy = serializers.ChoiceField(choices=ProblemSet.FeedbackPolicy.choices,
                                                  default=ProblemSet.FeedbackPolicy.VERDICTS)
        time_limit_minutes = serializers.IntegerField(allow_null=True, default=None,
                                                      min_value=1, max_value=24 * 60)

    format = serializers.ChoiceField(choices=[DEFINITION_FORMAT])
    title = serializers.CharField(max_length=200)
    seed = serializers.CharField(max_length=64, required=False, default="")
    policies = PoliciesSerializer()
    items = ProblemSetCreateApi.InputSerializer.ItemSerializer(  # type: ignore[call-arg]
        many=True, allow_empty=False, max_length=50
    )


class ProblemSetExportApi(APIView):
    """Return a problem set's portable definition, to import elsewhere."""

    permission_classes = [IsAuthenticated, HasScope("problem_sets:write")]  # type: ignore[list-item]

    @extend_schema(
        responses={200: DefinitionSerializer}, tags=["problem sets"],
        summary="Export a problem set's definition",
        examples=[OpenApiExample("one item", response_only=True, value={
            "format": DEFINITION_FORMAT, "title": "Week 3", "seed": "2026-week-3",
            "policies": {"due_at": None, "max_attempts": 3, "late_policy": "refuse",
                         "late_penalty": "0.000", "score_policy": "best",
                         "feedback_policy": "verdicts", "time_limit_minutes": None},
            "items": [{"kind": "minimax", "params": {"depth": 2}, "points": "2.00"}],
        })],
    )
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Return items (explicit params, instructor trees included), points and policies."""
        problem_set = problem_sets_taught_by(request.user).filter(pk=problem_set_id).first()
        if problem_set is None:
            raise Http404
        return Response(export_definition(problem_set))


class ProblemSetImportApi(APIView):
    """Create a draft problem set from an exported definition."""

    permission_classes = [IsInstructor, HasScope("problem_sets:write")]  # type: ignore[list-item]

    @extend_schema_serializer(component_name="ProblemSetImport")
    class InputSerializer(serializers.Serializer):
        course = serializers.IntegerField()
        definition = JsonField(help_text="as GET /problem-sets/{id}/export.json returns it")

    @extend_schema(
        request=InputSerializer,
        responses={
            201: ProblemSetOutputSerializer,
            400: OpenApiResponse(
                description="`invalid`: an item's kind or params break the kind's rules, "
                "as when creating a set (a broken tree included); `details` names the path, "
                "e.g. `definition.items[0].kind`, `definition.items[1].params.depth` or "
                "`definition.items[0].params.tree.children[1]`. Nothing is stored."),
            422: OpenApiResponse(
                description="`unprocessable`: the definition's shape is wrong; `details` "
                "names the path of the bad field, e.g. `definition.format`, "
                "`definition.items[1].points` or `definition.policies.late_policy`. "
                "Nothing is stored. Also " + GENERATION_FAILED.replace("items[i]",
                                                                       "definition.items[i]")),
        },
        tags=["problem sets"], summary="Import a problem set definition",
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        """Validate the definition (shape, then each item's params) and store a draft."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = taught_course(request.user, data.validated_data["course"])
        definition = DefinitionSerializer(data=data.validated_data["definition"])
        if not definition.is_valid():
            path, message = first_error_path(definition.errors, "definition")
            raise ApiError(f"{path}: {message}", code="unprocessable",
                           status_code=status.HTTP_422_UNPROCESSABLE_ENTITY,
                           details={path: [message]})
        created = import_definition(course=course, creator=request.user,
                                    definition=dict(definition.validated_data))
        return Response(
            ProblemSetOutputSerializer(problem_set_with_answers(request.user, created.pk)).data,
            status=status.HTTP_201_CREATED,
        )


def first_error_path(errors: Any, path: str) -> tuple[str, str]:
    """Return the dotted path (``definition.items[1].kind``) and message of the first error."""
    if isinstance(errors, dict):
        for name, inner in errors.items():
            if inner:
                # A list serializer reports its children's errors by index.
                inner_path = (path if name == "non_field_errors" else
                              f"{path}[{name}]" if isinstance(name, int) else f"{path}.{name}")
                return first_error_path(inner, inner_path)
    if isinstance(errors, list):
        for index, inner in enumerate(errors):
            if isinstance(inner, dict | list) and inner:
                if isinstance(inner, dict):
                    return first_error_path(inner, f"{path}[{index}]")
                return first_error_path(inner, path)
            if inner:
                return path, str(inner)
    return path, str(errors)


def due_date_as_due_at(attrs: dict[str, Any]) -> dict[str, Any]:
    """Return validated input with the API outline's ``due_date`` under the model's name,
    ``due_at``; refuse a ``due_at`` that contradicts ``due_date``."""
    if "due_date" in attrs:
        due_date = attrs.pop("due_date")
        if attrs.get("due_at", due_date) != due_date:
            raise serializers.ValidationError(
                {"due_at": ["is an alias of due_date and must equal it when both are given"]})
        attrs["due_at"] = due_date
    return attrs


@extend_schema_serializer(component_name="Extension")
class ExtensionOutputSerializer(serializers.Serializer):
    """Show one student's extension on a problem set."""

    username = serializers.CharField(source="student.username")
    due_date = serializers.DateTimeField(source="due_at", allow_null=True,
                                         help_text="null: the set's due date")
    due_at = serializers.DateTimeField(allow_null=True,
                                       help_text="the same as due_date (its earlier name)")
    extra_attempts = serializers.IntegerField()
    time_limit_minutes = serializers.IntegerField(allow_null=True)
    granted_by = serializers.CharField(source="granted_by.username", allow_null=True)
    updated_at = serializers.DateTimeField()
    closed_items = serializers.SerializerMethodField(
        help_text="positions of the items whose answer key (or replay) the student was shown "
        "already: they take no more of the student's attempts, whatever the extension allows")

    def get_closed_items(self, extension: Extension) -> list[int]:
        """Return the positions of the student's items closed by a key they saw."""
        return list(self.context["closed_items"].get(extension.student_id, []))


class ExtensionListCreateApi(APIView):
    """List a set's extensions, or grant one student theirs."""

    permission_classes = [IsAuthenticated, HasScope("problem_sets:write")]  # type: ignore[list-item]

    @extend_schema_serializer(component_name="ExtensionGrant")
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        due_date = serializers.DateTimeField(required=False, allow_null=True,
                                             help_text="null: the set's due date")
        due_at = serializers.DateTimeField(
            required=False, allow_null=True,
            help_text="accepted alias of due_date; when both are given they must be equal",
        )
        extra_attempts = serializers.IntegerField(required=False, min_value=0,
                                                  max_value=MOST_ATTEMPTS)
        time_limit_minutes = serializers.IntegerField(
            required=False, allow_null=True, min_value=1, max_value=24 * 60,
            help_text="null: the set's time limit",
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            """Return the rules with the due date under the model's name, ``due_at``."""
            return due_date_as_due_at(attrs)

    @extend_schema(responses={200: ExtensionOutputSerializer(many=True)},
                   tags=["problem sets"], summary="List a problem set's extensions")
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Return every extension granted on the set, by username."""
        problem_set = problem_sets_taught_by(request.user).filter(pk=problem_set_id).first()
        if problem_set is None:
            raise Http404
        extensions = list(extensions_of(problem_set))
        closed = items_closed_by_seen_keys(problem_set, [e.student_id for e in extensions])
        return Response(ExtensionOutputSerializer(
            extensions, many=True, context={"closed_items": closed}).data)

    @extend_schema(
        request=InputSerializer,
        responses={
            200: ExtensionOutputSerializer,
            400: OpenApiResponse(description="`invalid`: `details` names the field, e.g. "
                                 "`extra_attempts` out of range, or `due_at` (the alias) "
                                 "differing from `due_date`. Nothing is changed."),
            422: OpenApiResponse(
                description="`unprocessable`: `username` is not a student of the course"),
        },
        tags=["problem sets"], summary="Grant a student an extension",
        examples=[OpenApiExample("two more days and one more attempt",
                                 value={"username": "sara", "due_date": "2026-12-03T23:59:00Z",
                                        "extra_attempts": 1}, request_only=True)],
    )
    def post(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Create or update the student's extension (fields left out keep their value)."""
        problem_set = problem_sets_taught_by(request.user).filter(pk=problem_set_id).first()
        if problem_set is None:
            raise Http404
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rules = dict(data.validated_data)
        extension = grant_extension(problem_set, username=rules.pop("username"),
                                    granted_by=request.user, **rules)
        closed = items_closed_by_seen_keys(problem_set, [extension.student_id])
        return Response(ExtensionOutputSerializer(
            extension, context={"closed_items": closed}).data)


class ProblemSetPublishApi(APIView):
    """Generate the missing variants (one per enrolled student) on Celery workers."""

    permission_classes = [IsAuthenticated, HasScope("problem_sets:write")]  # type: ignore[list-item]

    @extend_schema_serializer(component_name="ProblemSetPublication")
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        status = serializers.CharField()
        progress = ProblemSetOutputSerializer.ProgressSerializer(source="*")
        failure_reason = serializers.CharField()

    @extend_schema(
        request=None,
        responses={202: OutputSerializer, 422: OpenApiResponse(description=GENERATION_FAILED)},
        tags=["problem sets"],
        summary="Publish a problem set",
        examples=[
            OpenApiExample(
                "generation queued",
                value={"id": 7, "status": "generating", "progress": {"done": 0, "total": 30},
                       "failure_reason": ""},
                response_only=True, status_codes=["202"],
            )
        ],
    )
    def post(self, request: AuthenticatedRequest, problem_set_id: int) -> Response:
        """Queue generation; poll GET /problem-sets/{id}/ until ``ready`` or ``failed``."""
        problem_set = problem_sets_taught_by(request.user).filter(pk=problem_set_id).first()
        if problem_set is None:
            raise Http404
        problem_set = publish_problem_set(problem_set)
        return Response(self.OutputSerializer(problem_set).data, status=status.HTTP_202_ACCEPTED)


class ItemUpdateApi(APIView):
    """Change an item's params (merged over the stored ones) and/or points."""

    permission_classes = [IsAuthenticated, HasScope("problem_sets:write")]  # type: ignore[list-item]

    @extend_schema_serializer(component_name="ItemUpdate")
    class InputSerializer(OnlyKnownFields):
        params = JsonField(required=False)
        points = serializers.DecimalField(
            max_digits=7, decimal_places=2, min_value=0, required=False
        )

        def validate_params(self, value: Any) -> Any:
            """Require a JSON object."""
            if not isinstance(value, dict):
                raise serializers.ValidationError("must be a JSON object")
            return value

    @extend_schema(
        request=InputSerializer,
        responses={200: ItemOutputSerializer, 400: OpenApiResponse(
            description="`invalid`: a field is malformed, or is not `params` or `points` "
            "(`details` names it); nothing is changed"), 422: OpenApiResponse(
            description="`unprocessable`: `details` names the param that may not change once "
            "variants exist, e.g. `params.depth`. Also " + GENERATION_FAILED)},
        tags=["problem sets"], summary="Update an item's params or points",
    )
    def patch(self, request: AuthenticatedRequest, problem_set_id: int, position: int) -> Response:
        """Update the item as ``PATCH /problem-sets/{id}/`` with this one item would: once
        variants exist only conventions and points may change (only points for a
        multiple-choice item, whose options follow its conventions), and a change that
        alters keys or scores queues a regrade (its URL in ``Location``). A refused change
        is a 422 naming ``params.<name>``."""
        problem_set = problem_sets_taught_by(request.user).filter(pk=problem_set_id).first()
        item = problem_set.items.filter(position=position).first() if problem_set else None
        if problem_set is None or item is None:
            raise Http404
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            _, _, regrade_id = update_problem_set(
                problem_set, changed_by=request.user,
                items=[{"position": position, **data.validated_data}])
        except ApiError as refused:
            raise _about_this_item(refused) from refused
        item.refresh_from_db()
        response = Response(ItemOutputSerializer(item).data)
        if regrade_id is not None:
            response["Location"] = reverse("regrade-detail", args=[regrade_id])
        return response


def _about_this_item(refused: ApiError) -> ApiError:
    """Return the set update's refusal of ``items[0]`` as this item's (``params.depth``)."""
    prefix = "items[0]."
    details = {field.removeprefix(prefix): reasons for field, reasons in
               (refused.details.items() if isinstance(refused.details, dict) else [])}
    return ApiError(refused.message.removeprefix(prefix), code=refused.error_code,
                    status_code=refused.status_code, details=details)


# --- assignments --------------------------------------------------------------------------


@extend_schema_serializer(component_name="AssignmentSummary")
class AssignmentSummarySerializer(serializers.Serializer):
    """Summarise a student's variant in a list: which set, when due, whether timed."""

    id = serializers.IntegerField()
    problem_set = serializers.IntegerField(source="problem_set_id")
    title = serializers.CharField(source="problem_set.title")
    course = serializers.CharField(source="problem_set.course.slug")
    due_at = serializers.DateTimeField(
        source="rules.due_at", allow_null=True, help_text="the student's own (extension) if any"
    )
    max_attempts = serializers.IntegerField(
        source="rules.max_attempts", allow_null=True,
        help_text="with the student's extra attempts, if any",
    )
    time_limit_minutes = serializers.IntegerField(
        source="rules.time_limit_minutes", allow_null=True,
        help_text="the student's own (extension) if any",
    )
    feedback_policy = serializers.ChoiceField(
        source="problem_set.feedback_policy", choices=ProblemSet.FeedbackPolicy.choices,
        help_text=FEEDBACK_POLICY_HELP,
    )
    late_policy = serializers.ChoiceField(
        source="problem_set.late_policy", choices=ProblemSet.LatePolicy.choices,
        help_text="after due_at (and 5 s for answers in flight): refuse, answers are refused; "
        "penalty, they are taken and their score loses late_penalty",
    )
    late_penalty = serializers.DecimalField(
        source="problem_set.late_penalty", max_digits=4, decimal_places=3,
        help_text="the fraction of a late answer's score it loses (penalty policy)",
    )
    opened_at = serializers.DateTimeField(allow_null=True)


def assignment_fields(variant: Variant) -> dict[str, Any]:
    """Return what :class:`AssignmentSummarySerializer` reads of a variant, its rules included."""
    return {
        "id": variant.pk,
        "problem_set_id": variant.problem_set_id,
        "problem_set": variant.problem_set,
        "opened_at": variant.opened_at,
        "rules": rules_for(variant),
    }


class AssignmentListApi(APIView):
    """List the caller's assignments (their variants of published problem sets)."""

    @extend_schema(
        responses={200: AssignmentSummarySerializer(many=True)}, tags=["assignments"],
        summary="List my assignments",
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        """Return the caller's variants, newest first."""
        rows = [assignment_fields(variant) for variant in variants_of(request.user)]
        return Response(AssignmentSummarySerializer(rows, many=True).data)


class AssignmentDetailApi(APIView):
    """Show the caller's own variant: prompts, trees and what is asked; keys only when allowed."""

    @extend_schema_serializer(component_name="Assignment")
    class OutputSerializer(AssignmentSummarySerializer):
        @extend_schema_serializer(component_name="AssignmentItem")
        class ItemSerializer(serializers.Serializer):
            position = serializers.IntegerField()
            kind = serializers.CharField(source="item.kind")
            points = serializers.DecimalField(
                source="item.points", max_digits=7, decimal_places=2
            )
            prompt = serializers.SerializerMethodField()
            problem = JsonField()
            answer_parts = serializers.SerializerMethodField()
            answer_key = serializers.SerializerMethodField()
            explanation = serializers.SerializerMethodField()

            def get_prompt(self, variant_item: VariantItem) -> str:
                """Return the prompt in the active language."""
                return render_prompt(variant_item.prompt, variant_item.item.params)

            @extend_schema_field(AnswerPartSerializer(many=True))
            def get_answer_parts(self, variant_item: VariantItem) -> list[dict[str, Any]]:
                """Return the parts to answer."""
                return parts_of(variant_item.item.kind, variant_item.item.params)

            @extend_schema_field({"type": "object", "nullable": True})
            def get_answer_key(self, variant_item: VariantItem) -> dict[str, Any] | None:
                """Return the key only when the context allows it (else null)."""
                return variant_item.answer_key if self.context["answers_visible"] else None

            def get_explanation(self, variant_item: VariantItem) -> str | None:
                """Return the worked explanation once keys are visible (null otherwise)."""
                if not self.context["answers_visible"]:
                    return None
                return get_kind(variant_item.item.kind).explanation(variant_item.problem)

        closes_at = serializers.DateTimeField(allow_null=True)
        answers_visible = serializers.BooleanField()
        items = ItemSerializer(many=True)

    @extend_schema(
        responses={200: OutputSerializer}, parameters=[LANG_PARAMETER], tags=["assignments"],
        summary="Get my assignment",
        examples=[
            OpenApiExample(
                "before the due date",
                value={
                    "id": 12, "problem_set": 7, "title": "Week 3: alpha-beta",
                    "course": "ia-2026", "due_at": "2026-12-01T23:59:00Z", "max_attempts": 3,
                    "time_limit_minutes": None, "feedback_policy": "verdicts",
                    "late_policy": "refuse", "late_penalty": "0.000",
                    "opened_at": None, "closes_at": None,
                    "answers_visible": False,
                    "items": [{
                        "position": 1, "kind": "minimax", "points": "2.00",
                        "prompt": "MAX moves at the root of this game tree and the players "
                                  "alternate. Compute the minimax value of the root and the "
                                  "decision (the leftmost best child).",
                        "problem": {"format": "gametree/1", "kind": "minimax", "tree": {
                            "name": "root", "type": "max", "children": [
                                {"name": "A", "type": "min", "children": [
                                    {"name": "A1", "value": 3}, {"name": "A2", "value": 5}]},
                                {"name": "B", "type": "min", "children": [
                                    {"name": "B1", "value": 2}, {"name": "B2", "value": 9}]},
                            ]}, "params": {}, "ask": {"node_values": []}},
                        "answer_parts": [
                            {"name": "value", "type": "number",
                             "label": "minimax value of the root (exact)", "points": "1",
                             "tolerance": None, "fields": []},
                            {"name": "move", "type": "name",
                             "label": "decision at the root (child name)", "points": "1",
                             "tolerance": None, "fields": []},
                        ],
                        "answer_key": None,
                        "explanation": None,
                    }],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: AuthenticatedRequest, variant_id: int) -> Response:
        """Return the variant (404 unless it is the caller's); opening starts a timed quiz."""
        variant = variant_of(request.user, variant_id)
        if variant is None:
            raise Http404
        now = timezone.now()
        variant = open_variant(variant, now)
        visible = answers_visible(variant, now)
        with translation.override(requested_language(request)):
            body = assignment_output(variant, visible)
        if visible:
            note_keys_seen((item.pk for item in variant.items.all() if item.keys_seen_at is None),
                           now)
        return Response(body)


def assignment_output(variant: Variant, visible: bool) -> dict[str, Any]:
    """Return what ``AssignmentDetailApi.OutputSerializer`` makes of ``variant``, written out.

    Every student of an exam opens their assignment in its first seconds, when the cores are
    busiest: building the serializer (its fields deep-copied, per item too) took about half
    of the view's CPU (bench/README.md). The serializer stays the documented shape; a test
    holds the two equal over every kind, policy and language, timed, extended, keys hidden
    and shown.
    """
    rules = rules_for(variant)
    problem_set = variant.problem_set
    items = []
    for variant_item in variant.items.all():
        item = variant_item.item
        items.append({
            "position": int(variant_item.position),
            "kind": str(item.kind),
            "points": ASSIGNMENT_POINTS_FIELD.to_representation(item.points),
            "prompt": render_prompt(variant_item.prompt, item.params),
            "problem": variant_item.problem,
            "answer_parts": parts_of(item.kind, item.params),
            "answer_key": variant_item.answer_key if visible else None,
            "explanation": (get_kind(item.kind).explanation(variant_item.problem)
                            if visible else None),
        })
    return {
        "id": variant.pk,
        "problem_set": variant.problem_set_id,
        "title": str(problem_set.title),
        "course": str(problem_set.course.slug),
        "due_at": represented(ASSIGNMENT_MOMENT_FIELD, rules.due_at),
        "max_attempts": rules.max_attempts,
        "time_limit_minutes": rules.time_limit_minutes,
        "feedback_policy": ASSIGNMENT_POLICY_FIELD.to_representation(problem_set.feedback_policy),
        "late_policy": ASSIGNMENT_LATE_POLICY_FIELD.to_representation(problem_set.late_policy),
        "late_penalty": ASSIGNMENT_PENALTY_FIELD.to_representation(problem_set.late_penalty),
        "opened_at": represented(ASSIGNMENT_MOMENT_FIELD, variant.opened_at),
        "closes_at": represented(ASSIGNMENT_MOMENT_FIELD, quiz_closes_at(variant)),
        "answers_visible": bool(visible),
        "items": items,
    }


# The serializer's own fields, for the values whose rendering they define (decimal places,
# time zone and format, choices).
ASSIGNMENT_POINTS_FIELD = AssignmentDetailApi.OutputSerializer.ItemSerializer().fields["points"]
ASSIGNMENT_POLICY_FIELD = AssignmentDetailApi.OutputSerializer().fields["feedback_policy"]
ASSIGNMENT_LATE_POLICY_FIELD = AssignmentDetailApi.OutputSerializer().fields["late_policy"]
ASSIGNMENT_PENALTY_FIELD = AssignmentDetailApi.OutputSerializer().fields["late_penalty"]
ASSIGNMENT_MOMENT_FIELD = AssignmentDetailApi.OutputSerializer().fields["opened_at"]

"""LMS-facing API: platform registration, LMS courses and roster syncs, grade passback log,
API clients. One API class per operation."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsInstructor
from accounts.requests import AuthenticatedRequest
from config.api import ApiError, whole_number
from exercises.selectors import problem_sets_taught_by
from lms import clients, exports, services
from lms.clients.authentication import HasScope
from lms.models import ApiClient, Platform, ScorePassback
from lms.selectors import (
    api_clients_owned_by,
    contexts_visible_to,
    passbacks_visible_to,
    platforms_owned_by,
)
from lms.tasks import sync_roster_task

MOODLE_EXAMPLE = """<?xml version='1.0' encoding='utf-8'?>
<quiz>
  <question type="category">
    <category><text>$course$/top/Cutoff/Minimax quiz/item 1 (minimax)</text></category>
  </question>
  <question type="numerical">
    <name><text>Minimax quiz · item 1 · variant 1 · minimax value of the root</text></name>
    <questiontext format="html"><text>&lt;p&gt;MAX moves at the root…</text></questiontext>
    <defaultgrade>2.50</defaultgrade>
    <answer fraction="100" format="moodle_auto_format">
      <text>14</text><tolerance>0</tolerance>
    </answer>
  </question>
</quiz>
"""


class ErrorSerializer(serializers.Serializer):
    """The error envelope every 4xx answer uses."""

    class BodySerializer(serializers.Serializer):
        code = serializers.CharField()
        message = serializers.CharField()
        details = serializers.JSONField()

    error = BodySerializer()


PLATFORM_EXAMPLE = {
    "name": "Moodle of the Faculty",
    "issuer": "https://moodle.example.edu",
    "client_id": "Xk2bq9w1",
    "deployment_ids": ["1"],
    "auth_login_url": "https://moodle.example.edu/mod/lti/auth.php",
    "auth_token_url": "https://moodle.example.edu/mod/lti/token.php",
    "key_set_url": "https://moodle.example.edu/mod/lti/certs.php",
    "auth_audience": "",
    "integer_score_maximum": False,
}
TOOL_EXAMPLE = {
    "login_url": "https://cutoff.example.edu/lti/login/",
    "launch_url": "https://cutoff.example.edu/lti/launch/",
    "redirect_uris": ["https://cutoff.example.edu/lti/launch/"],
    "deep_linking_url": "https://cutoff.example.edu/lti/launch/",
    "jwks_url": "https://cutoff.example.edu/lti/jwks/",
    "kid": "Kq1hHk0Vv3mR0vT7vfM3yY6T0E1bQJ0Z9mG7Yq1b2cE",
    "canvas_configuration_url": "https://cutoff.example.edu/lti/canvas.json",
}
PLATFORM_OUTPUT_EXAMPLE = {
    "id": 3,
    **PLATFORM_EXAMPLE,
    "is_active": True,
    "created_at": "2026-11-29T22:00:00Z",
    "tool": TOOL_EXAMPLE,
}


class ToolConfigurationSerializer(serializers.Serializer):
    login_url = serializers.URLField(help_text="OIDC login initiation URL")
    launch_url = serializers.URLField(help_text="target link / launch URL")
    redirect_uris = serializers.ListField(child=serializers.URLField())
    deep_linking_url = serializers.URLField(help_text="content selection (deep linking) URL")
    jwks_url = serializers.URLField(help_text="our public keys")
    kid = serializers.CharField(help_text="id of the key we sign this platform's messages with")
    canvas_configuration_url = serializers.URLField(
        help_text="Canvas developer key, LTI 1.3, Method “Enter URL”: paste this"
    )


class PlatformOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    issuer = serializers.URLField()
    client_id = serializers.CharField()
    deployment_ids = serializers.ListField(child=serializers.CharField())
    auth_login_url = serializers.URLField()
    auth_token_url = serializers.URLField()
    key_set_url = serializers.URLField()
    auth_audience = serializers.CharField()
    integer_score_maximum = serializers.BooleanField()
    is_active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    tool = serializers.SerializerMethodField(help_text="what to enter in the LMS for Cutoff")

    @extend_schema_field(ToolConfigurationSerializer)
    def get_tool(self, platform: Platform) -> dict[str, Any]:
        """Return the URLs and key id an LMS administrator enters to register Cutoff."""
        request = self.context["request"]
        launch = request.build_absolute_uri(reverse("lti-launch"))
        return {
            "login_url": request.build_absolute_uri(reverse("lti-login")),
            "launch_url": launch,
            "redirect_uris": [launch],
            "deep_linking_url": launch,
            "jwks_url": request.build_absolute_uri(reverse("lti-jwks")),
            "kid": platform.tool_key.kid,
            "canvas_configuration_url": request.build_absolute_uri(
                reverse("lti-canvas-configuration")
            ),
        }


class PlatformCreateApi(APIView):
    """Register an LMS platform (LTI 1.3) and get the values to enter in the LMS."""

    permission_classes = [IsInstructor]

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        issuer = serializers.URLField(max_length=500)
        client_id = serializers.CharField(max_length=255)
        deployment_ids = serializers.ListField(
            child=serializers.CharField(max_length=255), min_length=1, max_length=100
        )
        auth_login_url = serializers.URLField(max_length=500)
        auth_token_url = serializers.URLField(max_length=500)
        key_set_url = serializers.URLField(max_length=500)
        auth_audience = serializers.CharField(max_length=500, required=False, default="")
        integer_score_maximum = serializers.BooleanField(
            required=False,
            default=False,
            help_text="the platform takes whole-number scoreMaximum only (Open edX refuses "
            "7.5): Cutoff then scales a set's scores exactly (7.5 points → 15, a score of "
            "4 → 8)",
        )

    @extend_schema(
        operation_id="lti_platform_create",
        request=InputSerializer,
        responses={201: PlatformOutputSerializer},
        tags=["lti"],
        examples=[
            OpenApiExample("Moodle", value=PLATFORM_EXAMPLE, request_only=True),
            OpenApiExample("Registered", value=PLATFORM_OUTPUT_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        """Register the platform; a new key pair is made for it."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        platform = services.register_platform(owner=request.user, **data.validated_data)
        output = PlatformOutputSerializer(platform, context={"request": request})
        return Response(output.data, status=status.HTTP_201_CREATED)


class RegistrationUrlCreateApi(APIView):
    """Make an LTI Dynamic Registration URL to paste into the LMS (Moodle 4.x, Canvas)."""

    permission_classes = [IsInstructor]

    class OutputSerializer(serializers.Serializer):
        registration_url = serializers.URLField(help_text="paste this into the LMS")
        expires_at = serializers.DateTimeField()

    @extend_schema(
        operation_id="lti_registration_create",
        description=(
            "Returns a URL valid for 7 days. Pasted into the LMS (Moodle: Site "
            "administration → Plugins → External tool → Manage tools → Tool URL → Add LTI "
            "Advantage; Canvas: Admin → Developer keys → + Developer key → LTI Registration), "
            "the LMS opens it, Cutoff reads the LMS's OpenID configuration, registers itself "
            "(login, launch and keys URLs, deep linking, AGS and NRPS scopes) and stores the "
            "platform, owned by me, with the client id and deployment id the LMS gives."
        ),
        request=None,
        responses={201: OutputSerializer},
        tags=["lti"],
        examples=[
            OpenApiExample(
                "Registration URL",
                value={
                    "registration_url": "https://cutoff.example.edu/lti/register/eyJvd2.../",
                    "expires_at": "2026-12-08T11:00:00Z",
                },
                status_codes=["201"],
            )
        ],
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        """Return a new registration URL for me."""
        token = services.registration_token_for(request.user)
        url = request.build_absolute_uri(reverse("lti-register", args=[token]))
        expires_at = timezone.now() + timedelta(days=services.REGISTRATION_DAYS)
        return Response(
            {"registration_url": url, "expires_at": expires_at}, status=status.HTTP_201_CREATED
        )


class PlatformListApi(APIView):
    """List the LMS platforms I registered."""

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="lti_platform_list",
        responses={200: PlatformOutputSerializer(many=True)},
        tags=["lti"],
        examples=[OpenApiExample("Platforms", value=[PLATFORM_OUTPUT_EXAMPLE])],
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        """Return my platforms, oldest first."""
        platforms = platforms_owned_by(request.user)
        return Response(
            PlatformOutputSerializer(platforms, many=True, context={"request": request}).data
        )


class PlatformDeactivateApi(APIView):
    """Stop trusting an LMS platform: no more launches from it, no more scores to it."""

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="lti_platform_deactivate",
        request=None,
        responses={200: PlatformOutputSerializer},
        tags=["lti"],
        examples=[
            OpenApiExample("Deactivated", value={**PLATFORM_OUTPUT_EXAMPLE, "is_active": False})
        ],
    )
    def post(self, request: AuthenticatedRequest, platform_id: int) -> Response:
        """Deactivate one of my platforms; others' platforms are 404."""
        platform = get_object_or_404(platforms_owned_by(request.user), pk=platform_id)
        platform = services.deactivate_platform(platform=platform)
        return Response(PlatformOutputSerializer(platform, context={"request": request}).data)


class PlatformUpdateApi(APIView):
    """Change a registered LMS platform: its name, deployments, endpoints, keys URL."""

    permission_classes = [IsInstructor]

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200, required=False)
        deployment_ids = serializers.ListField(
            child=serializers.CharField(max_length=255),
            min_length=1,
            max_length=100,
            required=False,
        )
        auth_login_url = serializers.URLField(max_length=500, required=False)
        auth_token_url = serializers.URLField(max_length=500, required=False)
        key_set_url = serializers.URLField(max_length=500, required=False)
        auth_audience = serializers.CharField(max_length=500, required=False, allow_blank=True)
        integer_score_maximum = serializers.BooleanField(required=False)

    @extend_schema(
        operation_id="lti_platform_update",
        description=(
            "Changes the fields given (the others stay). The issuer and client id identify "
            "the platform and cannot change: register the other client id as a platform of "
            "its own. New URLs must resolve to public addresses, as at registration (400 "
            "naming the field otherwise, unless CUTOFF_ALLOW_PRIVATE_URLS is set)."
        ),
        request=InputSerializer,
        responses={200: PlatformOutputSerializer},
        tags=["lti"],
        examples=[
            OpenApiExample(
                "New deployment",
                value={"deployment_ids": ["1", "2"]},
                request_only=True,
            ),
            OpenApiExample(
                "Updated",
                value={**PLATFORM_OUTPUT_EXAMPLE, "deployment_ids": ["1", "2"]},
                response_only=True,
            ),
        ],
    )
    def post(self, request: AuthenticatedRequest, platform_id: int) -> Response:
        """Update one of my platforms; others' platforms are 404."""
        platform = get_object_or_404(platforms_owned_by(request.user), pk=platform_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        platform = services.update_platform(platform=platform, **data.validated_data)
        return Response(PlatformOutputSerializer(platform, context={"request": request}).data)


class PlatformKeyRotateApi(APIView):
    """Give an LMS platform a new key pair for what Cutoff signs (deep links, service
    requests); the old public key stays in the JWKS for a grace period."""

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="lti_platform_rotate_key",
        description=(
            "Cutoff signs with the new key at once; the retired key stays in "
            "`/lti/jwks/` for `LTI_TOOL_KEY_GRACE_HOURS` (72 h by default), so the platform "
            "still verifies messages signed just before and refetches the key set at its pace."
        ),
        request=None,
        responses={200: PlatformOutputSerializer},
        tags=["lti"],
        examples=[
            OpenApiExample(
                "New key",
                value={
                    **PLATFORM_OUTPUT_EXAMPLE,
                    "tool": {**TOOL_EXAMPLE, "kid": "b7Yc0Tq1sR9wXh2mNf4LkPz8Vd6Ga3Ej5Ui0Oy1Wt2Q"},
                },
            )
        ],
    )
    def post(self, request: AuthenticatedRequest, platform_id: int) -> Response:
        """Rotate the key of one of my platforms; others' platforms are 404."""
        platform = get_object_or_404(platforms_owned_by(request.user), pk=platform_id)
        platform = services.rotate_tool_key(platform=platform)
        return Response(PlatformOutputSerializer(platform, context={"request": request}).data)


class PlatformActivateApi(APIView):
    """Trust a deactivated LMS platform again: launches and scores resume."""

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="lti_platform_activate",
        request=None,
        responses={200: PlatformOutputSerializer},
        tags=["lti"],
        examples=[OpenApiExample("Active again", value=PLATFORM_OUTPUT_EXAMPLE)],
    )
    def post(self, request: AuthenticatedRequest, platform_id: int) -> Response:
        """Reactivate one of my platforms; others' platforms are 404."""
        platform = get_object_or_404(platforms_owned_by(request.user), pk=platform_id)
        platform = services.activate_platform(platform=platform)
        return Response(PlatformOutputSerializer(platform, context={"request": request}).data)


class ContextOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    platform = serializers.IntegerField(source="platform_id")
    context_id = serializers.CharField(help_text="the LMS's id for its course")
    title = serializers.CharField()
    course = serializers.IntegerField(source="course_id", help_text="the Cutoff course")
    has_roster_service = serializers.SerializerMethodField()
    roster_synced_at = serializers.DateTimeField(allow_null=True)

    def get_has_roster_service(self, context: Any) -> bool:
        """Return whether the platform offered NRPS for this course."""
        return bool(context.memberships_url)


CONTEXT_EXAMPLE = {
    "id": 7,
    "platform": 3,
    "context_id": "course-v1:ai-2026",
    "title": "Artificial Intelligence 2026",
    "course": 12,
    "has_roster_service": True,
    "roster_synced_at": "2026-11-29T22:10:00Z",
}


class ContextListApi(APIView):
    """List the LMS courses linked to courses I teach."""

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="lti_context_list",
        responses={200: ContextOutputSerializer(many=True)},
        tags=["lti"],
        examples=[OpenApiExample("LMS courses", value=[CONTEXT_EXAMPLE])],
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        """Return the LMS courses, oldest first."""
        contexts = contexts_visible_to(request.user)
        return Response(ContextOutputSerializer(contexts, many=True).data)


class RosterSyncApi(APIView):
    """Enrol the LMS course's members now (Names and Role Provisioning Service)."""

    permission_classes = [IsInstructor]

    class OutputSerializer(serializers.Serializer):
        # A field named like a Field attribute (DRF moves declared fields off the class).
        context = serializers.IntegerField()  # type: ignore[assignment]
        status = serializers.CharField()

    @extend_schema(
        operation_id="lti_roster_sync",
        description=(
            "Queues a sync with the LMS course's roster (NRPS): active members are enrolled "
            "(accounts created and linked as launches do); the platform's students who are no "
            "longer active members are unenrolled, their submissions kept. Instructors are "
            "never unenrolled by a sync."
        ),
        request=None,
        responses={202: OutputSerializer},
        tags=["lti"],
        examples=[
            OpenApiExample("Queued", value={"context": 7, "status": "queued"}, status_codes=["202"])
        ],
    )
    def post(self, request: AuthenticatedRequest, context_id: int) -> Response:
        """Queue a roster sync; 400 when the LMS offered no roster service."""
        context = get_object_or_404(contexts_visible_to(request.user), pk=context_id)
        if not context.memberships_url:
            raise ApiError(
                "the LMS offered no roster service (NRPS) for this course; launch Cutoff from "
                "the LMS as an instructor once it is enabled",
                code="roster_service_unavailable",
            )
        sync_roster_task.delay(context.pk)
        return Response(
            {"context": context.pk, "status": "queued"}, status=status.HTTP_202_ACCEPTED
        )


class PassbackOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    problem_set = serializers.IntegerField(source="resource_link.problem_set_id")
    resource_link = serializers.CharField(source="resource_link.resource_link_id")
    student = serializers.CharField(source="student.username")
    student_name = serializers.CharField(
        source="student.get_full_name", help_text="the name the LMS gave (may be empty)"
    )
    status = serializers.ChoiceField(choices=ScorePassback.Status.choices)
    score_given = serializers.DecimalField(max_digits=9, decimal_places=3, allow_null=True)
    score_maximum = serializers.DecimalField(max_digits=9, decimal_places=3, allow_null=True)
    attempts = serializers.IntegerField()
    last_error = serializers.CharField()
    created_at = serializers.DateTimeField()
    sent_at = serializers.DateTimeField(allow_null=True)


class PassbackListApi(APIView):
    """List grade passbacks to the LMS for my courses, newest first (the last 200).

    API clients with the ``grades:read`` scope may read it too.
    """

    permission_classes = [IsInstructor, HasScope(ApiClient.Scope.GRADES_READ)]  # type: ignore[list-item]

    @extend_schema(
        operation_id="lti_passback_list",
        parameters=[
            OpenApiParameter("problem_set", int, description="only this problem set"),
            OpenApiParameter("status", str, enum=ScorePassback.Status.values),
        ],
        responses={200: PassbackOutputSerializer(many=True)},
        tags=["lti"],
        examples=[
            OpenApiExample(
                "Sent",
                value=[
                    {
                        "id": 41,
                        "problem_set": 5,
                        "resource_link": "rl-93",
                        "student": "lti-3-5f1c0d9a2b7e4c6d8a1f",
                        "student_name": "Sara Costa",
                        "status": "sent",
                        "score_given": "7.500",
                        "score_maximum": "10.000",
                        "attempts": 1,
                        "last_error": "",
                        "created_at": "2026-11-29T22:12:00Z",
                        "sent_at": "2026-11-29T22:12:01Z",
                    }
                ],
            )
        ],
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        """Return the passbacks, filtered by problem set and status when asked."""
        passbacks = passbacks_visible_to(request.user)
        problem_set = request.query_params.get("problem_set", "")
        if problem_set:
            problem_set_id = whole_number(problem_set)
            if problem_set_id is None:
                raise ApiError("problem_set: must be a whole number", code="invalid",
                               details={"problem_set": ["must be a whole number"]})
            passbacks = passbacks.filter(resource_link__problem_set_id=problem_set_id)
        wanted_status = request.query_params.get("status", "")
        if wanted_status:
            if wanted_status not in ScorePassback.Status.values:
                raise ApiError(
                    "status: must be one of " + ", ".join(ScorePassback.Status.values),
                    code="invalid",
                )
            passbacks = passbacks.filter(status=wanted_status)
        return Response(PassbackOutputSerializer(passbacks[:200], many=True).data)


class PassbackResendApi(APIView):
    """Send a failed, refused or superseded grade passback to the LMS again, with the latest
    score."""

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="lti_passback_resend",
        description=(
            "Queues the passback again: it is sent with the student's current score on the "
            "problem set, and retried as a new passback is. Failed passbacks (the LMS was "
            "away through every retry) are also sent again by a half-hourly sweep for "
            "`LTI_PASSBACK_RESEND_HOURS` (24 h by default); refused ones (the LMS said no, "
            "e.g. to a malformed score) and superseded ones (an answer was being graded; its "
            "own passback sends the score) only on request. A passback already sent or on "
            "its way is left as it is."
        ),
        request=None,
        responses={202: PassbackOutputSerializer},
        tags=["lti"],
        examples=[
            OpenApiExample(
                "Queued again",
                value={
                    "id": 41,
                    "problem_set": 5,
                    "resource_link": "rl-93",
                    "student": "lti-3-5f1c0d9a2b7e4c6d8a1f",
                    "student_name": "Sara Costa",
                    "status": "queued",
                    "score_given": "7.500",
                    "score_maximum": "10.000",
                    "attempts": 9,
                    "last_error": "could not reach the LMS: connection refused",
                    "created_at": "2026-11-29T22:12:00Z",
                    "sent_at": None,
                },
                status_codes=["202"],
            )
        ],
    )
    def post(self, request: AuthenticatedRequest, passback_id: int) -> Response:
        """Queue the passback again; 404 for passbacks of courses I do not teach."""
        passback = get_object_or_404(passbacks_visible_to(request.user), pk=passback_id)
        passback = services.resend_score_passback(passback=passback)
        return Response(PassbackOutputSerializer(passback).data, status=status.HTTP_202_ACCEPTED)


class ApiClientOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=ApiClient.Scope.choices))
    token_prefix = serializers.CharField(help_text="first characters of the token")
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


EXAMPLE_TOKEN = "cutoff_Q3kd9aPz0c4Rr8mJw1yX2vB7nT5sL6hK9dF0gA3eU4i"
API_CLIENT_EXAMPLE = {
    "id": 2,
    "name": "Moodle gradebook sync",
    "scopes": ["grades:read", "webhooks:write"],
    "token_prefix": "cutoff_Q3kd9a",
    "created_at": "2026-11-29T22:00:00Z",
    "last_used_at": None,
    "revoked_at": None,
}


class ApiClientCreateApi(APIView):
    """Create an API client; its token is in this response only (we keep just its hash)."""

    permission_classes = [IsInstructor]

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        scopes = serializers.ListField(
            child=serializers.ChoiceField(choices=ApiClient.Scope.choices),
            min_length=1,
            max_length=len(ApiClient.Scope.values),
        )

    class OutputSerializer(ApiClientOutputSerializer):
        token = serializers.CharField(
            help_text="send as `Authorization: Token <token>` (`Bearer <token>` works too); "
            "shown only once"
        )

    @extend_schema(
        operation_id="api_client_create",
        request=InputSerializer,
        responses={201: OutputSerializer},
        tags=["api-clients"],
        examples=[
            OpenApiExample(
                "Gradebook sync",
                value={
                    "name": "Moodle gradebook sync",
                    "scopes": ["grades:read", "webhooks:write"],
                },
                request_only=True,
            ),
            OpenApiExample(
                "Created",
                value={**API_CLIENT_EXAMPLE, "token": EXAMPLE_TOKEN},
                response_only=True,
            ),
        ],
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        """Create the client and return its token, once."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        client, token = clients.create_api_client(owner=request.user, **data.validated_data)
        body = {**ApiClientOutputSerializer(client).data, "token": token}
        return Response(body, status=status.HTTP_201_CREATED)


class ApiClientListApi(APIView):
    """List my API clients (never their tokens)."""

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="api_client_list",
        responses={200: ApiClientOutputSerializer(many=True)},
        tags=["api-clients"],
        examples=[OpenApiExample("Clients", value=[API_CLIENT_EXAMPLE])],
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        """Return my clients, newest first."""
        return Response(
            ApiClientOutputSerializer(api_clients_owned_by(request.user), many=True).data
        )


class ApiClientRevokeApi(APIView):
    """Revoke an API client's token: it stops working at once, for good."""

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="api_client_revoke",
        request=None,
        responses={200: ApiClientOutputSerializer},
        tags=["api-clients"],
        examples=[
            OpenApiExample(
                "Revoked", value={**API_CLIENT_EXAMPLE, "revoked_at": "2026-11-30T08:00:00Z"}
            )
        ],
    )
    def post(self, request: AuthenticatedRequest, client_id: int) -> Response:
        """Revoke one of my clients; others' clients are 404."""
        client = get_object_or_404(api_clients_owned_by(request.user), pk=client_id)
        client = clients.revoke_api_client(client=client)
        return Response(ApiClientOutputSerializer(client).data)


# --- exports -------------------------------------------------------------------------------


def _exported(
    request: AuthenticatedRequest, problem_set_id: int, build: Any, suffix: str
) -> HttpResponse:
    problem_set = get_object_or_404(problem_sets_taught_by(request.user), pk=problem_set_id)
    try:
        content = build(problem_set)
    except exports.NothingToExportError as error:
        raise ApiError(str(error), code="nothing_to_export", status_code=409) from None
    response = HttpResponse(content, content_type=EXPORT_TYPES[suffix])
    filename = f"cutoff-problem-set-{problem_set.pk}.{suffix}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


EXPORT_TYPES = {"xml": "application/xml", "zip": "application/zip"}
EXPORT_CONFLICT = OpenApiExample(
    "Not published",
    value={
        "error": {
            "code": "nothing_to_export",
            "message": "no generated variant has a numerical or multiple-choice part to "
            "export; publish the problem set first (exports hold the generated variants)",
            "details": {},
        }
    },
    status_codes=["409"],
    response_only=True,
)


class MoodleXmlExportApi(APIView):
    """Download the problem set's variants as a Moodle XML question file.

    One category per item holds its variants (numerical and multichoice questions); add a
    random question from a category to give each student a different variant.
    """

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="problem_set_export_moodle_xml",
        responses={
            (200, "application/xml"): OpenApiTypes.STR,
            (409, "application/json"): ErrorSerializer,
        },
        tags=["exports"],
        examples=[
            OpenApiExample(
                "Moodle XML",
                value=MOODLE_EXAMPLE,
                media_type="application/xml",
                status_codes=["200"],
                response_only=True,
            ),
            EXPORT_CONFLICT,
        ],
    )
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> HttpResponse:
        """Return the XML file (409 before the variants are generated)."""
        return _exported(request, problem_set_id, exports.moodle_xml, "xml")


class QtiZipExportApi(APIView):
    """Download the problem set's variants as a QTI 1.2 package (Canvas "QTI .zip file").

    One question group per item picks one of its variants at random.
    """

    permission_classes = [IsInstructor]

    @extend_schema(
        operation_id="problem_set_export_qti_zip",
        responses={
            (200, "application/zip"): OpenApiTypes.BINARY,
            (409, "application/json"): ErrorSerializer,
        },
        tags=["exports"],
        examples=[EXPORT_CONFLICT],
    )
    def get(self, request: AuthenticatedRequest, problem_set_id: int) -> HttpResponse:
        """Return the zip file (409 before the variants are generated)."""
        return _exported(request, problem_set_id, exports.qti_zip, "zip")

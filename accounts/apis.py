"""Course and enrolment endpoints: one API class per operation."""

from __future__ import annotations

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.permissions import IsInstructor
from accounts.requests import AuthenticatedRequest
from accounts.selectors import courses_taught_by
from accounts.services import (
    NOT_A_TEACHER_REASON,
    NOT_ENROLLED_REASON,
    create_course,
    enroll_usernames,
)


class CourseCreateApi(APIView):
    """Create a course; the creator becomes its instructor."""

    permission_classes = [IsInstructor]

    class InputSerializer(serializers.Serializer):
        slug = serializers.SlugField(max_length=64)
        title = serializers.CharField(max_length=200)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        slug = serializers.SlugField()
        title = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={201: OutputSerializer},
        tags=["courses"],
        examples=[
            OpenApiExample(
                "create", value={"slug": "ia-2026", "title": "Inteligência Artificial"},
                request_only=True,
            ),
            OpenApiExample(
                "created", value={"id": 7, "slug": "ia-2026", "title": "Inteligência Artificial"},
                response_only=True, status_codes=["201"],
            ),
        ],
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        """Create the course described in the body."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = create_course(creator=request.user, **data.validated_data)
        return Response(self.OutputSerializer(course).data, status=status.HTTP_201_CREATED)


class CourseEnrollApi(APIView):
    """Enrol students (or co-instructors) in a course the caller teaches.

    Only accounts that are already members of a course the caller teaches can be enrolled by
    name; ``create_missing`` creates (and enrols) accounts for names no account has. Every
    other name is listed in ``not_enrolled`` with the same reason, whether an account has it
    or not, so without ``create_missing`` the answer never reveals which usernames exist.
    With it, a name left out is one some account has (as any sign-up form shows a name is
    taken): never whose it is, what role or which courses. With ``role`` instructor, a student
    account of the caller's courses is not enrolled, with its own reason (course staff are
    instructor accounts; a teaching assistant is a grader), and no account is created.
    """

    permission_classes = [IsInstructor]

    class InputSerializer(serializers.Serializer):
        usernames = serializers.ListField(
            child=serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()]),
            min_length=1, max_length=2000,
        )
        role = serializers.ChoiceField(choices=Role.choices, default=Role.STUDENT)
        create_missing = serializers.BooleanField(default=False)

    class OutputSerializer(serializers.Serializer):
        class EnrolledSerializer(serializers.Serializer):
            username = serializers.CharField(source="user.username")
            role = serializers.CharField()

        class NotEnrolledSerializer(serializers.Serializer):
            username = serializers.CharField()
            reason = serializers.CharField()

        enrolled = EnrolledSerializer(many=True)
        not_enrolled = NotEnrolledSerializer(many=True)

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        tags=["courses"],
        examples=[
            OpenApiExample(
                "enrol", value={"usernames": ["ana", "rui", "zé"], "create_missing": True},
                request_only=True,
            ),
            OpenApiExample(
                "enrolled",
                value={
                    "enrolled": [
                        {"username": "ana", "role": "student"},
                        {"username": "rui", "role": "student"},
                    ],
                    "not_enrolled": [{"username": "zé", "reason": NOT_ENROLLED_REASON}],
                },
                response_only=True, status_codes=["200"],
            ),
        ],
    )
    def post(self, request: AuthenticatedRequest, course_id: int) -> Response:
        """Enrol the named users; unknown courses and other instructors' courses are 404."""
        course = get_object_or_404(courses_taught_by(request.user), pk=course_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        outcome = enroll_usernames(course=course, by=request.user, **data.validated_data)
        output = {
            "enrolled": outcome.enrolled,
            "not_enrolled": [{"username": name, "reason": NOT_ENROLLED_REASON}
                             for name in outcome.not_enrolled]
            + [{"username": name, "reason": NOT_A_TEACHER_REASON} for name in outcome.not_teachers],
        }
        return Response(self.OutputSerializer(output).data, status=status.HTTP_200_OK)

"""A URLconf for the API client tests: one endpoint per kind of scope declaration."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsInstructor
from lms.clients.authentication import HasScope


class GradesApi(APIView):
    """Stand in for an endpoint that reads grades."""

    permission_classes = [IsInstructor, HasScope("grades:read")]

    def get(self, request: Request) -> Response:
        """Return who is asking."""
        return Response({"user": request.user.username})


class UnscopedApi(APIView):
    """Stand in for an endpoint that does not accept client tokens."""

    permission_classes = [IsInstructor]

    def get(self, request: Request) -> Response:
        """Return who is asking."""
        return Response({"user": request.user.username})


urlpatterns = [
    path("scoped/grades/", GradesApi.as_view()),
    path("scoped/unscoped/", UnscopedApi.as_view()),
    path("", include("config.urls")),
]

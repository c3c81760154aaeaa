"""Shape every API error as ``{"error": {"code", "message", "details"}}``.

DRF's own errors (validation, authentication, permission, not found, throttling) and Cutoff's
:class:`ApiError` all pass through :func:`exception_handler`, so clients see one format.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class ApiError(exceptions.APIException):
    """Raise from a view or service to answer with a specific code, message and details."""

    def __init__(
        self,
        message: str,
        *,
        code: str = "invalid",
        status_code: int = status.HTTP_400_BAD_REQUEST,
        details: Any = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.error_code = code
        self.message = message
        self.details = details if details is not None else {}


def _first_message(details: Any) -> str:
    """Return a one-line summary of DRF validation details, naming the first field."""
    if isinstance(details, dict):
        for field, value in details.items():
            inner = _first_message(value)
            return inner if field == "non_field_errors" else f"{field}: {inner}"
    if isinstance(details, list) and details:
        return _first_message(details[0])
    return str(details)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Convert an exception raised in a view into Cutoff's JSON error envelope."""
    if isinstance(exc, ApiError):
        body = {"code": exc.error_code, "message": exc.message, "details": exc.details}
        retry_after = getattr(exc, "retry_after", None)
        headers = {"Retry-After": str(retry_after)} if retry_after else None
        return Response({"error": body}, status=exc.status_code, headers=headers)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        code, details = "invalid", response.data
        message = _first_message(response.data)
    else:
        detail = getattr(exc, "detail", "")
        code = str(getattr(detail, "code", None) or getattr(exc, "default_code", "error"))
        message, details = str(detail), {}
    response.data = {"error": {"code": code, "message": message, "details": details}}
    return response


WHOLE_NUMBER_MOST_DIGITS = 18
"""A whole number taken from a query string has at most this many digits: any fits in the
database's 64-bit integers (ids, positions, offsets)."""


def whole_number(text: str) -> int | None:
    """Return ``text`` as a whole number if it is one in ASCII digits (at most
    :data:`WHOLE_NUMBER_MOST_DIGITS`), else None.

    ``str.isdigit`` alone also accepts digits ``int`` refuses, such as "²".
    """
    if text.isascii() and text.isdigit() and len(text) <= WHOLE_NUMBER_MOST_DIGITS:
        return int(text)
    return None


def represented(field: serializers.Field, value: Any) -> Any:
    """Return ``value`` as ``field`` represents it (None stays None, as a serializer does).

    For the hot paths' written-out outputs, held equal to their serializers by tests.
    """
    return None if value is None else field.to_representation(value)


class OnlyKnownFields(serializers.Serializer):
    """An input serializer that refuses fields it does not declare (DRF drops them).

    Why: a change the endpoint cannot make (``{"course": 5}`` to a problem set) was answered
    200 with nothing changed, which the client reads as done. Each unknown field is a 400
    naming it and the fields that can be given.
    """

    def to_internal_value(self, data: Any) -> Any:
        """Refuse unknown fields, then validate the known ones as usual."""
        if isinstance(data, dict):
            unknown = sorted(str(name) for name in data if name not in self.fields)
            if unknown:
                known = ", ".join(sorted(self.fields))
                raise serializers.ValidationError(
                    {name: [f"is not a field that can be given here; these are: {known}"]
                     for name in unknown})
        return super().to_internal_value(data)


class RefuseNulInQueryMiddleware:
    """Answer a request whose query string holds a NUL character with a 400 naming the
    parameter: PostgreSQL text cannot hold one, so a filter on it would be a 500."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        """Refuse the request when a query parameter's name or value holds a NUL."""
        if "%00" in request.META.get("QUERY_STRING", ""):
            for name, value in request.GET.lists():
                if "\x00" in name or any("\x00" in v for v in value):
                    shown = name.replace("\x00", "\\0")
                    body = {"error": {"code": "invalid",
                                      "message": f"{shown}: may not contain NUL characters",
                                      "details": {shown: ["contains a NUL character"]}}}
                    return JsonResponse(body, status=status.HTTP_400_BAD_REQUEST)
        return self.get_response(request)

"""Error pages: JSON envelopes for API paths, so clients never parse HTML errors."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.csrf import csrf_failure as html_csrf_failure
from django.views.decorators.csrf import csrf_exempt
from django.views.defaults import bad_request as html_bad_request
from django.views.defaults import page_not_found
from django.views.defaults import server_error as html_server_error


def _error(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message, "details": {}}}, status=status)


@csrf_exempt  # it changes nothing; a client's POST to a mistyped path is told "no such path"
def api_not_found(request: HttpRequest, rest: str) -> JsonResponse:
    """Answer an unknown /api/ path with a JSON 404, whatever the method."""
    return _error("not_found", f"no API endpoint at /api/{rest}", 404)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Answer a refused CSRF check as JSON under /api/ (a 403 naming the rule), as HTML
    elsewhere."""
    if request.path.startswith("/api/"):
        return _error("csrf_failed", "a request authenticated by the session cookie needs the "
                      "CSRF token (X-CSRFToken header); API clients send a token instead "
                      "(Authorization: Token <key>)", 403)
    return html_csrf_failure(request, reason)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Answer 400 as JSON under /api/ (413 for a body over the size limit), as HTML elsewhere."""
    if not request.path.startswith("/api/"):
        return html_bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024
        return _error("request_too_large", f"the request body is over {limit} KiB", 413)
    return _error("bad_request", "the request could not be read", 400)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Answer 404 as JSON under /api/ and /healthz, as HTML elsewhere."""
    if request.path.startswith("/api/"):
        return _error("not_found", "not found", 404)
    return page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """Answer 500 as JSON under /api/ (the bug is logged with its request id)."""
    if request.path.startswith("/api/"):
        return _error("server_error", "internal error; it has been logged", 500)
    return html_server_error(request)

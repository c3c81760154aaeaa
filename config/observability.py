"""Request and task ids on every log line, and a 503 (not a 500) when the database is down.

Each HTTP request gets an id (the client's ``X-Request-ID`` when it is a sane token, else a new
one), echoed in the response header; each Celery task logs under its task id. Production logs
are one JSON object per line.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from celery.signals import task_postrun, task_prerun
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
task_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("task_id", default="-")
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
logger = logging.getLogger("cutoff.request")


class ContextFilter(logging.Filter):
    """Attach the current request id and task id to every log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Copy the context ids onto ``record``; never drops a record."""
        record.request_id = request_id_var.get()
        record.task_id = task_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON object per line (production)."""

    def format(self, record: logging.LogRecord) -> str:
        """Return the record as JSON with time, level, logger, ids and message."""
        body: dict[str, Any] = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", "-"),
            "task_id": getattr(record, "task_id", "-"),
            "message": record.getMessage(),
        }
        if record.exc_info:
            body["exception"] = self.formatException(record.exc_info)
        return json.dumps(body, ensure_ascii=False)


class RequestIdMiddleware:
    """Give each request an id, log it with status and duration, answer 503 if the DB is down."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        """Run the request under its id and echo the id in ``X-Request-ID``."""
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if _SAFE_ID.match(incoming) else uuid.uuid4().hex
        # Not reset on the way out: Django logs 4xx/5xx responses (django.request) after the
        # middleware chain returns, and those lines belong to this request too. The next
        # request sets its own id.
        request_id_var.set(request_id)
        started = time.perf_counter()
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        logger.info(
            "%s %s %s %.1fms",
            request.method,
            request.path,
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """Answer 503 with a clear message when the database cannot be reached."""
        if isinstance(exception, OperationalError | InterfaceError):
            logger.error("database unavailable: %s", exception)
            return JsonResponse(
                {
                    "error": {
                        "code": "database_unavailable",
                        "message": "the database is unavailable; nothing was changed, retry later",
                        "details": {},
                    }
                },
                status=503,
                headers={"Retry-After": "5"},
            )
        return None


@task_prerun.connect
def _bind_task_id(task_id: str | None = None, **kwargs: Any) -> None:
    task_id_var.set(task_id or "-")


@task_postrun.connect
def _unbind_task_id(**kwargs: Any) -> None:
    task_id_var.set("-")

"""``GET /healthz``: is the database, the broker and at least one worker reachable?"""

from __future__ import annotations

from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from config.celery_app import app as celery_app

WORKER_PING_SECONDS = 1.5


def check_database() -> str:
    """Return "ok" or the reason the database cannot answer a trivial query."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return f"unreachable: {exc.__class__.__name__}: {str(exc).strip()[:200]}"
    return "ok"


def check_broker() -> str:
    """Return "ok" or the reason Celery cannot connect to its broker."""
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:  # kombu raises transport-specific errors; all mean "down"
        return f"unreachable: {exc.__class__.__name__}: {str(exc)[:200]}"
    return "ok"


def check_workers() -> str:
    """Return "ok (N)" when workers answer a ping, otherwise why none did."""
    transport = celery_app.connection_for_write().transport_cls
    if str(transport).startswith("filesystem"):
        # The filesystem transport has no broadcast: read the heartbeat the workers write.
        from config.heartbeat import workers_alive

        alive = workers_alive()
        return f"ok ({alive})" if alive else "no worker heartbeat in the last 30 s"
    try:
        replies = celery_app.control.ping(timeout=WORKER_PING_SECONDS)
    except Exception as exc:  # same reason as check_broker
        return f"unreachable: {exc.__class__.__name__}: {str(exc)[:200]}"
    return f"ok ({len(replies)})" if replies else "no worker answered a ping"


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Report each dependency; 200 when all are fine, 503 naming what is down."""
    database = check_database()
    broker = check_broker()
    workers = check_workers() if broker == "ok" else "unknown: broker unreachable"
    checks = {"database": database, "broker": broker, "workers": workers}
    down = [name for name, state in checks.items() if not state.startswith("ok")]
    body = {"status": "ok" if not down else "degraded", "checks": checks, "down": down}
    return JsonResponse(body, status=200 if not down else 503)

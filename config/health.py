"""``GET /healthz``: are the database, the broker and at least one worker fine?

Answered from the workers' heartbeats (``config.heartbeat``) with one database query, so it
never waits on the broker or on a worker: cheap enough for a load balancer to call often.
Anonymous callers (the load balancer, compose's health check) get the status alone (200
``ok`` or 503 ``degraded``); instructors and staff also get each check and why it failed.
"""

from __future__ import annotations

from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from accounts.authentication import PersonalTokenAuthentication
from config.heartbeat import ALIVE_WITHIN, live_workers


def checks() -> dict[str, str]:
    """Return each dependency's state: "ok ..." or why it is not."""
    try:
        workers = live_workers()
    except DatabaseError as exc:
        reason = f"unreachable: {exc.__class__.__name__}: {str(exc).strip()[:200]}"
        return {"database": reason, "broker": "unknown: database unreachable",
                "workers": "unknown: database unreachable"}
    seconds = int(ALIVE_WITHIN.total_seconds())
    if not workers:
        return {"database": "ok", "broker": "unknown: no worker heartbeat",
                "workers": f"no worker heartbeat in the last {seconds} s"}
    connected = sum(1 for worker in workers if worker.broker_connected)
    broker = (f"ok (reached by {connected} of {len(workers)} workers)" if connected
              else f"unreachable: none of the {len(workers)} live workers is connected")
    return {"database": "ok", "broker": broker, "workers": f"ok ({len(workers)})"}


def may_see_details(request: HttpRequest) -> bool:
    """Return whether the caller is an instructor or staff (token or session)."""
    drf_request = Request(request, authenticators=[PersonalTokenAuthentication(),
                                                   SessionAuthentication()])
    try:
        user = drf_request.user
    except (AuthenticationFailed, DatabaseError):  # no database: nobody can be authenticated
        return False
    return bool(user is not None and user.is_authenticated
                and (user.is_staff or user.is_instructor))


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Report the status; 200 when all is fine, 503 when something is down.

    Instructors and staff also get ``checks`` (each dependency's state) and ``down``.
    """
    state = checks()
    down = [name for name, check in state.items() if not check.startswith("ok")]
    body: dict[str, object] = {"status": "ok" if not down else "degraded"}
    if may_see_details(request):
        body.update(checks=state, down=down)
    return JsonResponse(body, status=200 if not down else 503)

"""Every /api/ endpoint × every persona → the expected status; keys never reach students early.

The matrix must list every route and method the URLconf serves under /api/: a new endpoint
without an entry fails :func:`test_every_api_endpoint_is_in_the_matrix`. Another user's object
answers 404 exactly as an object that does not exist, so ids reveal nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.utils import timezone
from rest_framework.test import APIClient

from exercises.models import ProblemSet
from lms.clients.authentication import declared_scopes
from tests.hardening.world import CODE_POSITION, PERSONAS, TYPED_POSITION, World, build_world

pytestmark = pytest.mark.django_db

MISSING_ID = 987654321
"""An id no object has (still a valid 32-bit integer)."""
HUGE_ID = 2**63
"""An id past every integer column's range: must be a plain 404, not a database error."""
KEY_FIELDS = ("answer_key", "expected", "explanation", "trace")
"""Fields that carry the answers; null or absent in what a student sees before the rules allow."""
CODE_SOURCE = "def minimax_decision(game, state):\n    return None\n"

Body = dict[str, Any] | Callable[[World], dict[str, Any]] | None


@dataclass(frozen=True)
class Endpoint:
    """One route and method, how to call it, and the status each persona gets (PERSONAS order)."""

    route: str
    method: str
    path: str
    statuses: tuple[int, int, int, int, int, int, int]
    body: Body = None
    scope: str | None = None
    """The API client scope the endpoint declares (None: client tokens are refused)."""

    def url(self, world: World, id_override: int | None = None) -> str:
        """Return the path with the world's ids (or ``id_override`` for each of them)."""
        if id_override is None:
            return self.path.format(**world.ids)
        return self.path.format(**dict.fromkeys(world.ids, id_override))

    def payload(self, world: World) -> dict[str, Any] | None:
        """Return the request body for ``world``."""
        return self.body(world) if callable(self.body) else self.body

    def __str__(self) -> str:
        return f"{self.method} {self.route}"


def _problem_set_body(world: World) -> dict[str, Any]:
    return {"course": world.ids["course_id"], "title": "Quiz",
            "items": [{"kind": "minimax", "params": {}, "points": "2"}]}


def _copy_body(world: World) -> dict[str, Any]:
    return {"course": world.ids["course_id"]}


def _import_body(world: World) -> dict[str, Any]:
    return {"course": world.ids["course_id"], "definition": {
        "format": "cutoff-problem-set/1", "title": "Imported", "policies": {},
        "items": [{"kind": "minimax", "params": {}, "points": "2"}],
    }}


def _answer_body(world: World) -> dict[str, Any]:
    return {"answer": world.key_of_owner}


PLATFORM_BODY = {
    "name": "Canvas", "issuer": "https://canvas.invalid", "client_id": "c-2",
    "deployment_ids": ["d-1"], "auth_login_url": "https://canvas.invalid/auth",
    "auth_token_url": "https://canvas.invalid/token", "key_set_url": "https://canvas.invalid/jwks",
}
V1 = "api/v1/"
READ_GRADES, WRITE_SETS, WRITE_HOOKS = "grades:read", "problem_sets:write", "webhooks:write"
PS = "/api/v1/problem-sets/{problem_set_id}"
ASSIGNMENT = "/api/v1/assignments/{variant_id}"

# Columns: anonymous, owner (student), classmate (student), instructor, outsider (instructor
# of another course), lms (the instructor's client, every scope), lms_unscoped (the
# instructor's client with every scope but the endpoint's).
MATRIX: tuple[Endpoint, ...] = (
    Endpoint(V1 + "courses/", "POST", "/api/v1/courses/",
             (401, 403, 403, 201, 201, 403, 403), {"slug": "new-101", "title": "New"}),
    Endpoint(V1 + "courses/<int:course_id>/enrollments/", "POST",
             "/api/v1/courses/{course_id}/enrollments/",
             (401, 403, 403, 200, 404, 403, 403),
             {"usernames": ["newcomer"], "create_missing": True}),
    Endpoint(V1 + "kinds/", "GET", "/api/v1/kinds/", (401, 200, 200, 200, 200, 403, 403)),
    Endpoint(V1 + "kinds/<str:kind>/preview/", "POST", "/api/v1/kinds/minimax/preview/",
             (401, 403, 403, 200, 200, 403, 403), {"seed": "s"}),
    Endpoint(V1 + "tree-library/", "GET", "/api/v1/tree-library/",
             (401, 403, 403, 200, 200, 403, 403)),
    Endpoint(V1 + "problem-sets/", "POST", "/api/v1/problem-sets/",
             (401, 403, 403, 201, 400, 201, 403), _problem_set_body, WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/", "GET", PS + "/",
             (401, 404, 404, 200, 404, 200, 403), scope=WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/publish/", "POST", PS + "/publish/",
             (401, 404, 404, 202, 404, 202, 403), scope=WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/items/<int:position>/", "PATCH",
             PS + f"/items/{TYPED_POSITION}/", (401, 404, 404, 200, 404, 200, 403),
             {"points": "5"}, WRITE_SETS),
    Endpoint(V1 + "assignments/", "GET", "/api/v1/assignments/",
             (401, 200, 200, 200, 200, 403, 403)),
    Endpoint(V1 + "assignments/<int:variant_id>/", "GET", ASSIGNMENT + "/",
             (401, 200, 404, 404, 404, 403, 403)),
    Endpoint(V1 + "assignments/<int:variant_id>/items/<int:position>/submissions/", "POST",
             ASSIGNMENT + f"/items/{TYPED_POSITION}/submissions/",
             (401, 202, 404, 404, 404, 403, 403), _answer_body),
    Endpoint(V1 + "assignments/<int:variant_id>/items/<int:position>/submissions/", "GET",
             ASSIGNMENT + f"/items/{TYPED_POSITION}/submissions/",
             (401, 200, 404, 404, 404, 403, 403)),
    Endpoint(V1 + "assignments/<int:variant_id>/items/<int:position>/draft/", "GET",
             ASSIGNMENT + f"/items/{TYPED_POSITION}/draft/",
             (401, 200, 404, 404, 404, 403, 403)),
    Endpoint(V1 + "assignments/<int:variant_id>/items/<int:position>/draft/", "PUT",
             ASSIGNMENT + f"/items/{TYPED_POSITION}/draft/",
             (401, 200, 404, 404, 404, 403, 403), {"answer": {"value": "3"}}),
    Endpoint(V1 + "submissions/<int:submission_id>/", "GET",
             "/api/v1/submissions/{submission_id}/", (401, 200, 404, 200, 404, 200, 403),
             scope=READ_GRADES),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/grades.csv", "GET", PS + "/grades.csv",
             (401, 403, 403, 200, 404, 200, 403), scope=READ_GRADES),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/regrade/", "POST", PS + "/regrade/",
             (401, 403, 403, 202, 404, 403, 403)),
    Endpoint(V1 + "regrades/<int:regrade_id>/", "GET", "/api/v1/regrades/{regrade_id}/",
             (401, 403, 403, 200, 404, 403, 403)),
    Endpoint(V1 + "webhooks/", "GET", "/api/v1/webhooks/", (401, 403, 403, 200, 200, 200, 403),
             scope=WRITE_HOOKS),
    Endpoint(V1 + "webhooks/", "POST", "/api/v1/webhooks/",
             (401, 403, 403, 201, 201, 201, 403), {"url": "http://127.0.0.1:9/other"},
             WRITE_HOOKS),
    Endpoint(V1 + "webhooks/<int:webhook_id>/", "DELETE", "/api/v1/webhooks/{webhook_id}/",
             (401, 403, 403, 204, 404, 204, 403), scope=WRITE_HOOKS),
    Endpoint(V1 + "webhooks/<int:webhook_id>/deliveries/", "GET",
             "/api/v1/webhooks/{webhook_id}/deliveries/", (401, 403, 403, 200, 404, 200, 403),
             scope=WRITE_HOOKS),
    Endpoint(V1 + "assignments/<int:variant_id>/items/<int:position>/starter.py", "GET",
             ASSIGNMENT + f"/items/{CODE_POSITION}/starter.py",
             (401, 200, 404, 404, 404, 403, 403)),
    Endpoint(V1 + "assignments/<int:variant_id>/items/<int:position>/code-submissions/", "POST",
             ASSIGNMENT + f"/items/{CODE_POSITION}/code-submissions/",
             (401, 202, 404, 404, 404, 403, 403), {"source": CODE_SOURCE}),
    Endpoint(V1 + "code-submissions/<int:submission_id>/", "GET",
             "/api/v1/code-submissions/{code_submission_id}/",
             (401, 200, 404, 200, 404, 403, 403)),
    Endpoint(V1 + "assignments/<int:variant_id>/items/<int:position>/code-checks/", "POST",
             ASSIGNMENT + f"/items/{CODE_POSITION}/code-checks/",
             (401, 202, 404, 404, 404, 403, 403), {"source": CODE_SOURCE}),
    Endpoint(V1 + "code-checks/<int:check_id>/", "GET", "/api/v1/code-checks/{code_check_id}/",
             (401, 200, 404, 404, 404, 403, 403)),
    Endpoint(V1 + "lti/platforms/", "GET", "/api/v1/lti/platforms/",
             (401, 403, 403, 200, 200, 403, 403)),
    Endpoint(V1 + "lti/platforms/create/", "POST", "/api/v1/lti/platforms/create/",
             (401, 403, 403, 201, 201, 403, 403), PLATFORM_BODY),
    Endpoint(V1 + "lti/platforms/<int:platform_id>/deactivate/", "POST",
             "/api/v1/lti/platforms/{platform_id}/deactivate/",
             (401, 403, 403, 200, 404, 403, 403)),
    Endpoint(V1 + "lti/platforms/<int:platform_id>/update/", "POST",
             "/api/v1/lti/platforms/{platform_id}/update/",
             (401, 403, 403, 200, 404, 403, 403), {"name": "Moodle 4.5"}),
    Endpoint(V1 + "lti/platforms/<int:platform_id>/rotate-key/", "POST",
             "/api/v1/lti/platforms/{platform_id}/rotate-key/",
             (401, 403, 403, 200, 404, 403, 403)),
    Endpoint(V1 + "lti/platforms/<int:platform_id>/activate/", "POST",
             "/api/v1/lti/platforms/{platform_id}/activate/",
             (401, 403, 403, 200, 404, 403, 403)),
    Endpoint(V1 + "lti/registrations/create/", "POST", "/api/v1/lti/registrations/create/",
             (401, 403, 403, 201, 201, 403, 403)),
    Endpoint(V1 + "lti/contexts/", "GET", "/api/v1/lti/contexts/",
             (401, 403, 403, 200, 200, 403, 403)),
    Endpoint(V1 + "lti/contexts/<int:context_id>/roster-sync/", "POST",
             "/api/v1/lti/contexts/{context_id}/roster-sync/",
             (401, 403, 403, 202, 404, 403, 403)),
    Endpoint(V1 + "lti/passbacks/", "GET", "/api/v1/lti/passbacks/",
             (401, 403, 403, 200, 200, 200, 403), scope=READ_GRADES),
    Endpoint(V1 + "lti/passbacks/<int:passback_id>/resend/", "POST",
             "/api/v1/lti/passbacks/{passback_id}/resend/", (401, 403, 403, 202, 404, 403, 403)),
    Endpoint(V1 + "api-clients/", "GET", "/api/v1/api-clients/",
             (401, 403, 403, 200, 200, 403, 403)),
    Endpoint(V1 + "api-clients/create/", "POST", "/api/v1/api-clients/create/",
             (401, 403, 403, 201, 201, 403, 403), {"name": "n", "scopes": ["grades:read"]}),
    Endpoint(V1 + "api-clients/<int:client_id>/revoke/", "POST",
             "/api/v1/api-clients/{client_id}/revoke/", (401, 403, 403, 200, 404, 403, 403)),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/export/moodle.xml", "GET",
             PS + "/export/moodle.xml", (401, 403, 403, 200, 404, 403, 403)),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/export/qti.zip", "GET",
             PS + "/export/qti.zip", (401, 403, 403, 200, 404, 403, 403)),
    # Running a course (issue 17).
    Endpoint(V1 + "problem-sets/", "GET", "/api/v1/problem-sets/",
             (401, 403, 403, 200, 200, 200, 403), scope=WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/", "PATCH", PS + "/",
             (401, 404, 404, 200, 404, 200, 403), {"title": "Week 3 (edited)"}, WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/", "DELETE", PS + "/",
             (401, 404, 404, 204, 404, 204, 403), scope=WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/copy/", "POST", PS + "/copy/",
             (401, 404, 404, 201, 404, 201, 403), _copy_body, WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/export.json", "GET", PS + "/export.json",
             (401, 404, 404, 200, 404, 200, 403), scope=WRITE_SETS),
    Endpoint(V1 + "problem-sets/import/", "POST", "/api/v1/problem-sets/import/",
             (401, 403, 403, 201, 422, 201, 403), _import_body, WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/extensions/", "GET", PS + "/extensions/",
             (401, 404, 404, 200, 404, 200, 403), scope=WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/extensions/", "POST", PS + "/extensions/",
             (401, 404, 404, 200, 404, 200, 403), {"username": "sara", "extra_attempts": 1},
             WRITE_SETS),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/submissions/", "GET",
             PS + "/submissions/", (401, 403, 403, 200, 404, 200, 403),
             scope=READ_GRADES),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/statistics/", "GET", PS + "/statistics/",
             (401, 403, 403, 200, 404, 200, 403), scope=READ_GRADES),
    Endpoint(V1 + "problem-sets/<int:problem_set_id>/regrade-requests/", "GET",
             PS + "/regrade-requests/", (401, 403, 403, 200, 404, 403, 403)),
    Endpoint(V1 + "submissions/<int:submission_id>/override/", "POST",
             "/api/v1/submissions/{submission_id}/override/",
             (401, 403, 403, 200, 404, 403, 403), {"score": "1", "reason": "by hand"}),
    Endpoint(V1 + "submissions/<int:submission_id>/history/", "GET",
             "/api/v1/submissions/{submission_id}/history/",
             (401, 403, 403, 200, 404, 200, 403), scope=READ_GRADES),
    Endpoint(V1 + "submissions/<int:submission_id>/regrade-request/", "POST",
             "/api/v1/submissions/{submission_id}/regrade-request/",
             (401, 201, 404, 404, 404, 403, 403), {"message": "Please look again."}),
    Endpoint(V1 + "regrade-requests/<int:request_id>/resolve/", "POST",
             "/api/v1/regrade-requests/{regrade_request_id}/resolve/",
             (401, 403, 403, 200, 404, 403, 403), {"reply": "Checked: the score stands."}),
    # The schema and its docs are public; client tokens are refused wherever no scope is
    # declared, these included.
    Endpoint("api/schema/", "GET", "/api/schema/", (200, 200, 200, 200, 200, 403, 403)),
    Endpoint("api/docs/", "GET", "/api/docs/", (200, 200, 200, 200, 200, 403, 403)),
    Endpoint("api/<path:rest>", "GET", "/api/v1/no-such-thing/",
             (404, 404, 404, 404, 404, 404, 404)),
)
STUDENTS = ("owner", "classmate")
GRADER_ROWS: dict[tuple[str, str], int] = {
    (V1 + "submissions/<int:submission_id>/", "GET"): 200,
    (V1 + "code-submissions/<int:submission_id>/", "GET"): 200,
}
"""Where a grader of the course (an LMS teaching assistant) gets more than a classmate: it
reads the course's submissions; everywhere else (problem sets, grades.csv, regrades, LTI,
exports) it is refused like a student without a variant."""


def api_endpoints() -> Iterator[tuple[str, str]]:
    """Yield (route, method) for every URL pattern under /api/ and each method it serves."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, URLPattern]]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern), pattern

    for route, pattern in walk(get_resolver().url_patterns, ""):
        if not route.startswith("api/"):
            continue
        view_class = getattr(pattern.callback, "cls", None) or getattr(
            pattern.callback, "view_class", None
        )
        if view_class is None:
            yield route, "GET"
            continue
        for method in ("get", "post", "put", "patch", "delete"):
            if hasattr(view_class, method):
                yield route, method.upper()


def call(endpoint: Endpoint, world: World, persona: str, id_override: int | None = None) -> Any:
    """Send the endpoint's request as ``persona``; return the response."""
    client = APIClient()
    if persona == "lms_unscoped":
        client.credentials(HTTP_AUTHORIZATION=world.lms_without(endpoint.scope or READ_GRADES))
    elif world.authorization[persona]:
        client.credentials(HTTP_AUTHORIZATION=world.authorization[persona])
    send = getattr(client, endpoint.method.lower())
    return send(endpoint.url(world, id_override), endpoint.payload(world), format="json")


def key_fields_shown(payload: Any, path: str = "$") -> list[str]:
    """Return where in ``payload`` a key field holds a value (not null)."""
    found = []
    if isinstance(payload, dict):
        for name, value in payload.items():
            if name in KEY_FIELDS and value not in (None, "", [], {}):
                found.append(f"{path}.{name}")
            found.extend(key_fields_shown(value, f"{path}.{name}"))
    elif isinstance(payload, list):
        for index, value in enumerate(payload):
            found.extend(key_fields_shown(value, f"{path}[{index}]"))
    return found


def statuses_of(world: World, endpoint: Endpoint, id_override: int | None = None
                ) -> dict[str, tuple[int, Any]]:
    """Return each persona's (status, response), each request rolled back after it."""
    seen = {}
    for persona in PERSONAS:
        with transaction.atomic():
            response = call(endpoint, world, persona, id_override)
            transaction.set_rollback(True)
        seen[persona] = (response.status_code, response)
    return seen


@pytest.fixture
def world(db: None) -> World:
    """Return the classroom (test settings let webhooks target loopback, where receivers
    listen)."""
    return build_world()


def test_every_api_endpoint_is_in_the_matrix() -> None:
    served = set(api_endpoints())
    listed = {(endpoint.route, endpoint.method) for endpoint in MATRIX}
    assert not served - listed, f"endpoints missing from the matrix: {sorted(served - listed)}"
    assert not listed - served, f"matrix entries no URL serves: {sorted(listed - served)}"


@pytest.mark.parametrize("endpoint", MATRIX, ids=str)
def test_the_matrix_names_the_scope_each_endpoint_declares(endpoint: Endpoint) -> None:
    example_path = re.sub(r"\{\w+\}", "1", endpoint.path)
    view_class = getattr(resolve(example_path).func, "cls", None)
    declared = declared_scopes(view_class()) if view_class else set()
    assert declared == ({endpoint.scope} if endpoint.scope else set())


@pytest.mark.parametrize("endpoint", MATRIX, ids=str)
def test_each_persona_gets_the_expected_status(endpoint: Endpoint, world: World) -> None:
    seen = statuses_of(world, endpoint)
    got = {persona: status for persona, (status, _) in seen.items()}
    assert got == dict(zip(PERSONAS, endpoint.statuses, strict=True))
    for persona, (status, response) in seen.items():
        assert status < 500
        if status >= 400 and response.get("Content-Type", "").startswith("application/json"):
            assert "error" in response.json(), (persona, response.content[:300])
        if persona in STUDENTS and status < 300 and "json" in response.get("Content-Type", ""):
            assert key_fields_shown(response.json()) == [], (persona, endpoint)


@pytest.mark.parametrize("endpoint", MATRIX, ids=str)
def test_a_grader_reads_submissions_and_edits_nothing(endpoint: Endpoint, world: World) -> None:
    classmate = endpoint.statuses[PERSONAS.index("classmate")]
    expected = GRADER_ROWS.get((endpoint.route, endpoint.method), classmate)
    with transaction.atomic():
        response = call(endpoint, world, "grader")
        transaction.set_rollback(True)
    assert response.status_code == expected, response.content[:300]


ID_ROUTES = [endpoint for endpoint in MATRIX if "<int:" in endpoint.route]


@pytest.mark.parametrize("endpoint", ID_ROUTES, ids=str)
def test_someone_elses_id_answers_like_a_missing_one(endpoint: Endpoint, world: World) -> None:
    """Check that an id that exists but is not yours is refused exactly like one that does not."""
    missing = statuses_of(world, endpoint, MISSING_ID)
    for persona, expected in zip(PERSONAS, endpoint.statuses, strict=True):
        hidden = 404 if expected < 300 or expected == 404 else expected
        assert missing[persona][0] == hidden, (persona, missing[persona][1].content[:300])


@pytest.mark.parametrize("endpoint", ID_ROUTES, ids=str)
def test_ids_past_every_integer_range_are_not_found(endpoint: Endpoint, world: World) -> None:
    for persona in ("owner", "instructor"):
        with transaction.atomic():
            response = call(endpoint, world, persona, HUGE_ID)
            transaction.set_rollback(True)
        assert response.status_code in (403, 404), (persona, response.content[:300])


def test_keys_reach_the_student_once_the_due_date_has_passed(world: World) -> None:
    """Check the key check itself: after the due date the same payloads do carry the keys."""
    ProblemSet.objects.update(due_at=timezone.now() - timedelta(minutes=1))
    owner = APIClient()
    owner.credentials(HTTP_AUTHORIZATION=world.authorization["owner"])
    assignment = owner.get(f"/api/v1/assignments/{world.ids['variant_id']}/").json()
    submission = owner.get(f"/api/v1/submissions/{world.ids['submission_id']}/").json()
    assert key_fields_shown(assignment) and key_fields_shown(submission)
    assert assignment["items"][TYPED_POSITION - 1]["answer_key"] == world.key_of_owner


def test_keys_stay_hidden_from_the_student_before_the_due_date(world: World) -> None:
    ProblemSet.objects.update(due_at=timezone.now() + timedelta(days=1))
    owner = APIClient()
    owner.credentials(HTTP_AUTHORIZATION=world.authorization["owner"])
    for path in (f"/api/v1/assignments/{world.ids['variant_id']}/",
                 f"/api/v1/submissions/{world.ids['submission_id']}/",
                 f"/api/v1/code-submissions/{world.ids['code_submission_id']}/",
                 "/api/v1/assignments/"):
        response = owner.get(path)
        assert response.status_code == 200
        assert key_fields_shown(response.json()) == [], path

"""Hostile input gets a 400 naming the field and the rule, never a 500: JSON nested past the
limit on every JSON endpoint, text PostgreSQL cannot store, out-of-range numbers, and
parameters beyond what the sandbox and the engine can serve. Grade exports cannot inject
spreadsheet formulas."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import Course
from accounts.services import create_account, enroll
from config.jsonsafe import MAX_DEPTH
from exercises.models import ProblemSet
from grading.models import Submission
from tests.hardening.test_permissions_matrix import MATRIX
from tests.hardening.world import TYPED_POSITION, World, build_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> World:
    """Return the classroom, with empty throttle counters."""
    cache.clear()
    return build_world()


def as_persona(world: World, persona: str) -> APIClient:
    """Return an API client authenticated as ``persona``."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=world.authorization[persona])
    return client


def nested(depth: int) -> str:
    """Return a JSON object body nested ``depth`` levels deep."""
    return '{"a":' * depth + "1" + "}" * depth


JSON_BODY_ENDPOINTS = [endpoint for endpoint in MATRIX if endpoint.method in ("POST", "PATCH")]
"""Every endpoint of the permissions matrix that takes a body."""


@pytest.mark.parametrize("endpoint", JSON_BODY_ENDPOINTS, ids=str)
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 50_000])
def test_json_nested_too_deep_is_a_400_on_every_endpoint(
    world: World, endpoint: Any, depth: int
) -> None:
    persona = next(name for name, status in zip(
        ("anonymous", "owner", "classmate", "instructor", "outsider", "lms", "lms_unscoped"),
        endpoint.statuses, strict=True) if 200 <= status < 300)
    client = as_persona(world, persona)
    send = getattr(client, endpoint.method.lower())
    response = send(endpoint.url(world), nested(depth), content_type="application/json")
    if endpoint.body is None:  # bodiless operations never read it
        assert response.status_code < 500
        return
    assert response.status_code == 400, (endpoint, response.content[:300])
    error = response.json()["error"]
    assert error["code"] == "parse_error"
    assert error["message"] == f"body: JSON may be nested at most {MAX_DEPTH} levels deep"


def test_json_just_under_the_limit_reaches_the_validation(world: World) -> None:
    response = as_persona(world, "instructor").post(
        "/api/v1/webhooks/", nested(MAX_DEPTH - 1), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"  # the serializer's, not the parser's


@pytest.mark.parametrize(("answer", "where"), [
    ({"\ud800": 1}, "answer"),
    ({"value": "7\ud83d"}, "answer.value"),
    ({"value": "7\x00"}, "answer.value"),
    ({"value": ["B", {"x": "\udfff"}]}, "answer.value[1].x"),
])
def test_unstorable_text_in_an_answer_is_a_400_naming_where(
    world: World, answer: dict[str, Any], where: str
) -> None:
    before = Submission.objects.count()
    response = as_persona(world, "owner").post(
        f"/api/v1/assignments/{world.ids['variant_id']}/items/{TYPED_POSITION}/submissions/",
        json.dumps({"answer": answer}), content_type="application/json")  # \u escapes
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["message"].startswith(where + ": ")
    assert "NUL characters or unpaired surrogates" in error["message"]
    assert list(error["details"]) == [where]
    assert Submission.objects.count() == before


def problem_set_body(world: World, **changes: Any) -> dict[str, Any]:
    """Return a problem set creation body for the world's course."""
    return {"course": world.ids["course_id"], "title": "Quiz",
            "items": [{"kind": "minimax", "params": {}, "points": "2"}], **changes}


def test_max_attempts_beyond_the_bound_is_a_400(world: World) -> None:
    instructor = as_persona(world, "instructor")
    response = instructor.post("/api/v1/problem-sets/",
                               problem_set_body(world, max_attempts=2**31), format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()["error"]["details"]) == ["max_attempts"]
    assert "1000" in response.json()["error"]["message"]
    assert ProblemSet.objects.count() == 1
    allowed = instructor.post("/api/v1/problem-sets/",
                              problem_set_body(world, max_attempts=1000), format="json")
    assert allowed.status_code == 201, allowed.content


@pytest.mark.parametrize("value", ["²", "٣", "9" * 40])
def test_a_passback_filter_that_is_no_whole_number_is_a_400(world: World, value: str) -> None:
    response = as_persona(world, "instructor").get("/api/v1/lti/passbacks/",
                                                   {"problem_set": value})
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "problem_set: must be a whole number"
    assert list(response.json()["error"]["details"]) == ["problem_set"]


@pytest.mark.parametrize(("item", "field", "rule"), [
    ({"kind": "ucb1", "params": {"c": "1e-1000"}}, "c", "must be a number like"),
    ({"kind": "ucb1", "params": {"c": 1e-300}}, "c", "at most 9 decimal places"),
    ({"kind": "ucb1", "params": {"c": "1/3000000000"}}, "c", "at most 9 decimal places"),
    ({"kind": "code_minimax", "params": {"limits": {"memory_bytes": 2**80}}},
     "limits.memory_bytes", "must be at most 2147483648"),
    ({"kind": "code_minimax", "params": {"limits": {"wall_seconds": 10**6}}},
     "limits.wall_seconds", "must be at most 100"),
    ({"kind": "code_minimax", "params": {"limits": {"max_game_calls": 2**62}}},
     "limits.max_game_calls", "must be at most"),
])
def test_params_beyond_what_the_engine_and_sandbox_serve_are_a_400(
    world: World, item: dict[str, Any], field: str, rule: str
) -> None:
    response = as_persona(world, "instructor").post(
        "/api/v1/problem-sets/", problem_set_body(world, items=[{**item, "points": "1"}]),
        format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert field in error["message"] and rule in error["message"], error
    assert ProblemSet.objects.count() == 1


def test_exact_params_within_the_bounds_are_kept_exact(world: World) -> None:
    response = as_persona(world, "instructor").post(
        "/api/v1/problem-sets/",
        problem_set_body(world, items=[{"kind": "ucb1", "params": {"c": "1.414213562"},
                                        "points": "1"}]), format="json")
    assert response.status_code == 201, response.content
    stored = ProblemSet.objects.get(pk=response.json()["id"]).items.get()
    assert stored.params["c"] == "1.414213562"  # exact, and kept as the decimal written


def test_grades_csv_cells_never_start_a_formula(world: World) -> None:
    course = Course.objects.get(pk=world.ids["course_id"])
    for name in ("=HYPERLINK(\"http://x.test\",\"y\")", "+1+1", "-2", "@SUM(A1)", "\tx"):
        user, _ = create_account(username=name, role="student")
        enroll(course=course, user=user, role="student")
    response = as_persona(world, "instructor").get(
        f"/api/v1/problem-sets/{world.ids['problem_set_id']}/grades.csv")
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    usernames = [row[0] for row in rows[1:]]
    assert "'=HYPERLINK(\"http://x.test\",\"y\")" in usernames
    assert {"'+1+1", "'-2", "'@SUM(A1)", "'\tx"} <= set(usernames)
    assert not [cell for row in rows for cell in row if cell[:1] in ("=", "+", "-", "@", "\t")]


def submit_answer(world: World, answer: dict[str, Any]) -> Any:
    """POST an answer to the owner's typed item."""
    return as_persona(world, "owner").post(
        f"/api/v1/assignments/{world.ids['variant_id']}/items/{TYPED_POSITION}/submissions/",
        {"answer": answer}, format="json")


def test_record_rows_with_fields_the_part_does_not_have_are_a_400(world: World) -> None:
    node = next(iter(world.key_of_owner["windows"]))
    before = Submission.objects.count()
    junk = {f"junk{i}": 1 for i in range(25_000)}
    for row in ({"alpha": 1, "beta": 2, "gamma": 3}, {"alpha": 1, **junk}):
        response = submit_answer(world, {"windows": {node: row}})
        assert response.status_code == 400, response.content[:300]
        details = response.json()["error"]["details"]
        assert details["part"].startswith(f"windows.{node}.")
        assert details["rule"] == "is not a field of these rows; their fields are: alpha, beta"
    assert Submission.objects.count() == before
    accepted = submit_answer(world, {"windows": {node: {"alpha": "-inf", "beta": 3}}})
    assert accepted.status_code == 202, accepted.content


def test_number_strings_are_bounded_in_length(world: World) -> None:
    response = submit_answer(world, {"value": "1." + "0" * 10_000})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "part": "value", "rule": "must be a number of at most 64 characters",
        "label": "minimax value of the root (exact)"}


def test_answer_parts_list_the_fields_of_record_rows(world: World) -> None:
    detail = as_persona(world, "owner").get(f"/api/v1/assignments/{world.ids['variant_id']}/")
    parts = {part["name"]: part for item in detail.json()["items"]
             for part in item["answer_parts"]}
    assert parts["windows"]["fields"] == ["alpha", "beta"]
    assert parts["value"]["fields"] == []


def test_an_idempotency_key_with_a_nul_is_a_400(world: World) -> None:
    before = Submission.objects.count()
    response = as_persona(world, "owner").post(
        f"/api/v1/assignments/{world.ids['variant_id']}/items/{TYPED_POSITION}/submissions/",
        {"answer": {"value": 1}}, format="json", HTTP_IDEMPOTENCY_KEY="k\x00ey")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "Idempotency-Key: may not contain NUL characters")
    assert Submission.objects.count() == before


@pytest.mark.parametrize(("path", "query"), [
    ("/api/v1/problem-sets/{problem_set}/submissions/", "student=%00"),
    ("/api/v1/problem-sets/{problem_set}/submissions/", "student=sa%00ra&item=1"),
    ("/api/v1/problem-sets/", "archived=%00"),
])
def test_a_nul_in_a_query_string_is_a_400_naming_the_parameter(world: World, path: str,
                                                                query: str) -> None:
    url = path.format(problem_set=world.ids["problem_set_id"]) + "?" + query
    response = as_persona(world, "instructor").get(url)

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    name = query.split("=")[0]
    assert error["message"] == f"{name}: may not contain NUL characters"
    assert list(error["details"]) == [name]

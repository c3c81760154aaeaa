"""The OpenAPI schema: it validates with no warning at all, Swagger UI serves it, and the LMS
endpoints (LTI, API clients, exports) document examples and their client token scheme."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

LMS_TAGS = {"lti", "api-clients", "exports"}


def generate(*options: str) -> subprocess.CompletedProcess[str]:
    """Run ``manage.py spectacular`` in a fresh process (as CI and the docs build do)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    return subprocess.run(
        [sys.executable, "manage.py", "spectacular", *options],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Return the generated schema as JSON."""
    path = tmp_path_factory.mktemp("schema") / "schema.json"
    result = generate("--format", "openapi-json", "--file", str(path))
    assert result.returncode == 0, result.stderr
    return json.loads(path.read_text())


def test_the_whole_schema_validates_without_warnings(tmp_path: Path) -> None:
    result = generate("--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr, result.stderr


def has_example(node: Any) -> bool:
    """Return whether an operation part carries an example anywhere."""
    if isinstance(node, dict):
        return "example" in node or "examples" in node or any(map(has_example, node.values()))
    if isinstance(node, list):
        return any(map(has_example, node))
    return False


def test_every_lms_endpoint_has_examples(schema: dict[str, Any]) -> None:
    operations = [
        (method.upper(), path, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
        if LMS_TAGS & set(operation.get("tags", []))
    ]
    assert len(operations) >= 11
    missing = [
        f"{method} {path}"
        for method, path, operation in operations
        if not has_example({k: operation.get(k) for k in ("requestBody", "responses")})
    ]
    assert missing == []


def test_lms_paths_are_in_the_schema(schema: dict[str, Any]) -> None:
    paths = set(schema["paths"])
    assert {
        "/api/v1/lti/platforms/",
        "/api/v1/lti/platforms/create/",
        "/api/v1/lti/contexts/{context_id}/roster-sync/",
        "/api/v1/lti/passbacks/",
        "/api/v1/api-clients/create/",
        "/api/v1/api-clients/{client_id}/revoke/",
        "/api/v1/problem-sets/{problem_set_id}/export/moodle.xml",
        "/api/v1/problem-sets/{problem_set_id}/export/qti.zip",
    } <= paths
    moodle = schema["paths"]["/api/v1/problem-sets/{problem_set_id}/export/moodle.xml"]["get"]
    assert "application/xml" in moodle["responses"]["200"]["content"]


def test_client_tokens_are_a_documented_security_scheme(schema: dict[str, Any]) -> None:
    # Offered only where an endpoint declares a scope.
    create = schema["paths"]["/api/v1/api-clients/create/"]["post"]
    assert {"apiClientToken": []} not in create["security"]
    passbacks = schema["paths"]["/api/v1/lti/passbacks/"]["get"]
    assert {"apiClientToken": []} in passbacks["security"]
    scheme = schema["components"]["securitySchemes"]["apiClientToken"]
    # api-outline.md names `Authorization: Token <key>` for LMS clients too.
    assert scheme == {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "API client token with scopes (see /api/v1/api-clients/), sent "
        "as `Token cutoff_<token>`; `Bearer cutoff_<token>` is accepted too.",
    }


def test_nested_serializers_get_distinct_component_names(schema: dict[str, Any]) -> None:
    names = set(schema["components"]["schemas"])
    assert {"PlatformCreateInputRequest", "ApiClientCreateOutput"} <= names
    assert "Output" not in names and "InputRequest" not in names


@pytest.mark.django_db
def test_swagger_ui_and_the_schema_are_served(anonymous: Any) -> None:
    response = anonymous.get("/api/docs/")
    assert response.status_code == 200 and b"swagger" in response.content.lower()
    response = anonymous.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200


def test_course_running_paths_are_in_the_schema(schema: dict[str, Any]) -> None:
    paths = schema["paths"]
    ps = "/api/v1/problem-sets/{problem_set_id}"
    expected = {
        "/api/v1/problem-sets/": {"get", "post"},
        ps + "/": {"get", "patch", "delete"},
        ps + "/copy/": {"post"},
        ps + "/export.json": {"get"},
        "/api/v1/problem-sets/import/": {"post"},
        ps + "/extensions/": {"get", "post"},
        ps + "/submissions/": {"get"},
        ps + "/statistics/": {"get"},
        ps + "/regrade-requests/": {"get"},
        "/api/v1/submissions/{submission_id}/override/": {"post"},
        "/api/v1/submissions/{submission_id}/regrade-request/": {"post"},
        "/api/v1/regrade-requests/{request_id}/resolve/": {"post"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths.get(path, {})), path
    patch = paths[ps + "/"]["patch"]
    assert "422" in patch["responses"]
    statistics = paths[ps + "/statistics/"]["get"]["responses"]["200"]
    assert statistics["content"]["application/json"]["schema"]


def test_extensions_take_the_outlines_due_date_in_the_schema(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    grant = components["ExtensionGrantRequest"]["properties"]
    assert {"username", "due_date", "due_at", "extra_attempts", "time_limit_minutes"} <= set(
        grant)
    assert "alias of due_date" in grant["due_at"]["description"]
    assert {"due_date", "due_at"} <= set(components["Extension"]["properties"])
    post = schema["paths"]["/api/v1/problem-sets/{problem_set_id}/extensions/"]["post"]
    assert {"200", "400", "422"} <= set(post["responses"])
    [example] = post["requestBody"]["content"]["application/json"]["examples"].values()
    assert "due_date" in example["value"] and "due_at" not in example["value"]


def test_an_import_documents_its_400_for_items_and_422_for_shape(
    schema: dict[str, Any],
) -> None:
    responses = schema["paths"]["/api/v1/problem-sets/import/"]["post"]["responses"]
    assert "params.tree" in responses["400"]["description"]
    assert "definition.policies.late_policy" in responses["422"]["description"]


def test_drafts_and_attempt_history_are_in_the_schema(schema: dict[str, Any]) -> None:
    item = "/api/v1/assignments/{variant_id}/items/{position}"
    draft = schema["paths"][f"{item}/draft/"]
    assert {"get", "put"} <= set(draft)
    assert "400" in draft["put"]["responses"]
    attempts = schema["paths"][f"{item}/submissions/"]
    assert {"get", "post"} <= set(attempts)
    assert attempts["get"]["responses"]["200"]["content"]["application/json"]["schema"][
        "type"] == "array"


def test_code_checks_are_in_the_schema(schema: dict[str, Any]) -> None:
    create = schema["paths"]["/api/v1/assignments/{variant_id}/items/{position}/code-checks/"]
    assert {"202", "400", "403", "404", "429"} <= set(create["post"]["responses"])
    assert "no attempt" in create["post"]["description"]
    detail = schema["paths"]["/api/v1/code-checks/{check_id}/"]["get"]
    properties = schema["components"]["schemas"]["CodeCheck"]["properties"]
    assert {"stdout", "stderr", "tests", "wall_seconds"} <= set(properties)
    assert "200" in detail["responses"]


def test_endpoints_showing_code_submissions_document_both_shapes(schema: dict[str, Any]) -> None:
    # GET /submissions/{id}/ and an item's attempts also answer code submissions (per-test
    # reports, not per-part results): their schema says either shape.
    shapes = schema["components"]["schemas"]["AnySubmission"]["oneOf"]
    assert {shape["$ref"].rsplit("/", 1)[1] for shape in shapes} == {
        "SubmissionOutput", "CodeSubmissionOutput"}
    paths = schema["paths"]
    detail = paths["/api/v1/submissions/{submission_id}/"]["get"]["responses"]["200"]
    assert detail["content"]["application/json"]["schema"]["$ref"].endswith("/AnySubmission")
    attempts = paths["/api/v1/assignments/{variant_id}/items/{position}/submissions/"]["get"]
    listed = attempts["responses"]["200"]["content"]["application/json"]["schema"]
    assert listed["items"]["$ref"].endswith("/AnySubmission")


def test_every_operation_documents_its_other_refusals(schema: dict[str, Any]) -> None:
    operations = [operation for methods in schema["paths"].values()
                  for operation in methods.values() if isinstance(operation, dict)]
    assert operations
    for operation in operations:
        refusal = operation["responses"]["4XX"]
        assert refusal["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorEnvelope"}, operation["operationId"]
    envelope = schema["components"]["schemas"]["ErrorEnvelope"]
    assert envelope["properties"]["error"]["required"] == ["code", "message", "details"]

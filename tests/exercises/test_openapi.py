"""The exercise endpoints are in the OpenAPI schema, documented, without generator warnings."""

from __future__ import annotations

import pytest
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator

EXERCISE_OPERATIONS = {
    ("/api/v1/kinds/", "get"),
    ("/api/v1/kinds/{kind}/preview/", "post"),
    ("/api/v1/problem-sets/", "post"),
    ("/api/v1/problem-sets/{problem_set_id}/", "get"),
    ("/api/v1/problem-sets/{problem_set_id}/publish/", "post"),
    ("/api/v1/problem-sets/{problem_set_id}/items/{position}/", "patch"),
    ("/api/v1/assignments/", "get"),
    ("/api/v1/assignments/{variant_id}/", "get"),
}


def test_exercise_views_generate_a_schema_without_warnings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    GENERATOR_STATS.reset()
    silent, GENERATOR_STATS.silent = GENERATOR_STATS.silent, False  # report to stderr
    try:
        schema = SchemaGenerator().get_schema(request=None, public=True)
    finally:
        GENERATOR_STATS.silent = silent
    output = capsys.readouterr().err
    assert [line for line in output.splitlines() if "/exercises/" in line] == []
    for path, method in EXERCISE_OPERATIONS:
        operation = schema["paths"][path][method]
        assert operation["summary"] and operation["description"]
        assert {"200", "201", "202"} & set(operation["responses"])
    create = schema["paths"]["/api/v1/problem-sets/"]["post"]
    assert create["requestBody"]["content"]["application/json"]["examples"]
    publish = schema["paths"]["/api/v1/problem-sets/{problem_set_id}/publish/"]["post"]
    assert publish["responses"]["202"]["content"]["application/json"]["examples"]
    assignment = schema["paths"]["/api/v1/assignments/{variant_id}/"]["get"]
    assert assignment["responses"]["200"]["content"]["application/json"]["examples"]

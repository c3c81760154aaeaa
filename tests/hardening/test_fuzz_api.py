"""Schemathesis against the published OpenAPI schema, on a live server with real objects.

Every operation gets generated requests as an instructor and as a student, half of them aimed
at the ids of objects that exist; no answer may be a server error or break the schema the
API publishes. Runs are derandomized, so CI sees the same examples every time.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.hardening.world import TYPED_POSITION, World, build_world

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES_PER_OPERATION = 25
CHECKS = [not_a_server_error, response_schema_conformance]
FUZZED_PERSONAS = ("instructor", "owner")


def known_ids(world: World, path: str) -> dict[str, Any]:
    """Return path parameter values naming objects that exist, for the operation at ``path``."""
    submission = "code_submission_id" if "code-submissions" in path else "submission_id"
    return {
        **world.ids, "submission_id": world.ids[submission], "position": TYPED_POSITION,
        "check_id": world.ids["code_check_id"],
        "kind": "alphabeta",
    }


def fuzz_operation(operation: Any, base_url: str, world: World, persona: str) -> list[str]:
    """Send generated requests to ``operation`` as ``persona``; return the failures seen."""
    failures: list[str] = []
    headers = {"Authorization": world.authorization[persona]}
    ids = known_ids(world, operation.path)

    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
              derandomize=True, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(), aim_at_real_objects=st.booleans())
    def run(case: Any, aim_at_real_objects: bool) -> None:
        if aim_at_real_objects and case.path_parameters:
            case.path_parameters = {
                name: ids.get(name, value) for name, value in case.path_parameters.items()
            }
        try:
            case.call_and_validate(base_url=base_url, headers=headers, checks=CHECKS,
                                   timeout=30)
        except (Failure, FailureGroup, AssertionError, requests.RequestException) as failure:
            # Collected, not raised: one run reports every operation that fails.
            failures.append(f"{persona} {operation.label}: {str(failure)[:1500]}")

    run()
    return failures


def test_no_generated_request_gets_a_server_error_or_breaks_the_schema(
    live_server: Any
) -> None:
    # Webhook URLs are not resolved: test settings allow private addresses (offline runs).
    world = build_world()
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/?format=json")
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 30
    for operation in operations:
        for persona in FUZZED_PERSONAS:
            failures.extend(fuzz_operation(operation, live_server.url, world, persona))
    assert not failures, "\n\n".join(failures)

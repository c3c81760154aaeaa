"""LMS API clients reach the problem-set endpoints only with the problem_sets:write scope."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from lms.clients import create_api_client

ITEM = {"kind": "minimax", "params": {}, "points": 2}


def client_with(owner: Any, scopes: list[str]) -> APIClient:
    _, token = create_api_client(owner=owner, name="Moodle", scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.mark.django_db
def test_a_client_with_the_scope_creates_reads_and_edits_its_owners_sets(
    instructor: Any, course: Any
) -> None:
    lms = client_with(instructor[0], ["problem_sets:write"])
    created = lms.post("/api/v1/problem-sets/",
                       {"course": course.pk, "title": "From the LMS", "items": [ITEM]},
                       format="json")
    assert created.status_code == 201, created.content
    set_id = created.json()["id"]
    assert lms.get(f"/api/v1/problem-sets/{set_id}/").status_code == 200
    edited = lms.patch(f"/api/v1/problem-sets/{set_id}/items/1/", {"points": 3}, format="json")
    assert edited.status_code == 200, edited.content


@pytest.mark.django_db
def test_a_client_without_the_scope_is_refused_naming_it(instructor: Any, course: Any) -> None:
    lms = client_with(instructor[0], ["grades:read"])
    response = lms.post("/api/v1/problem-sets/",
                        {"course": course.pk, "title": "x", "items": [ITEM]}, format="json")
    assert response.status_code == 403
    assert "problem_sets:write" in response.json()["error"]["message"]

"""API clients: scoped tokens shown once, stored as a hash, revocable, refused where their
scopes do not reach."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from rest_framework.test import APIClient

from lms.models import ApiClient

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.lms.scoped_urls")]


def create_client(client: APIClient, scopes: list[str]) -> dict[str, Any]:
    """Create an API client through the API and return the response body."""
    response = client.post(
        "/api/v1/api-clients/create/", {"name": "Moodle sync", "scopes": scopes}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def bearer(token: str) -> APIClient:
    """Return an API client sending ``token`` as a bearer token."""
    return sent_as("Bearer", token)


def sent_as(scheme: str, token: str) -> APIClient:
    """Return an API client sending ``Authorization: <scheme> <token>``."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {token}")
    return client


def test_the_token_is_shown_once_and_only_its_hash_is_stored(instructor: Any) -> None:
    _, client = instructor
    body = create_client(client, ["grades:read", "webhooks:write"])
    token = body["token"]
    assert token.startswith("cutoff_") and len(token) > 40
    assert body["scopes"] == ["grades:read", "webhooks:write"]
    stored = ApiClient.objects.get(pk=body["id"])
    assert stored.token_sha256 == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(ApiClient.objects.values().get())
    listed = client.get("/api/v1/api-clients/").json()
    assert [c["id"] for c in listed] == [body["id"]] and "token" not in listed[0]
    assert token.startswith(listed[0]["token_prefix"])


def test_a_client_acts_as_its_owner_where_its_scope_reaches(instructor: Any) -> None:
    user, client = instructor
    token = create_client(client, ["grades:read"])["token"]
    response = bearer(token).get("/scoped/grades/")
    assert response.status_code == 200 and response.json() == {"user": user.username}
    assert ApiClient.objects.get().last_used_at is not None


def test_the_outlines_token_scheme_carries_client_tokens_too(instructor: Any) -> None:
    # api-outline.md: `Authorization: Token <key>` for students, instructors and LMS clients.
    user, client = instructor
    token = create_client(client, ["grades:read"])["token"]
    response = sent_as("Token", token).get("/scoped/grades/")
    assert response.status_code == 200, response.content
    assert response.json() == {"user": user.username}
    assert ApiClient.objects.get().last_used_at is not None
    refused = sent_as("Token", token).get("/scoped/unscoped/")
    assert refused.status_code == 403
    assert "not accepted here" in refused.json()["error"]["message"]
    # A person's token under the same scheme is read as before.
    assert client.get("/scoped/grades/").status_code == 200


@pytest.mark.parametrize("header", ["Token cutoff_not-a-real-token", "Token cutoff_\xff"])
def test_a_bad_client_token_under_the_token_scheme_is_a_401(instructor: Any,
                                                            header: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/scoped/grades/")
    assert response.status_code == 401
    assert response.json()["error"]["message"].startswith("the API client token is not valid")
    assert response["WWW-Authenticate"] == 'Token realm="api"'


def test_a_client_without_the_scope_is_refused(instructor: Any) -> None:
    _, client = instructor
    token = create_client(client, ["webhooks:write"])["token"]
    response = bearer(token).get("/scoped/grades/")
    assert response.status_code == 403
    assert "grades:read" in response.json()["error"]["message"]


def test_endpoints_that_declare_no_scope_refuse_client_tokens(instructor: Any) -> None:
    _, client = instructor
    token = create_client(client, list(ApiClient.Scope.values))["token"]
    response = bearer(token).get("/scoped/unscoped/")
    assert response.status_code == 403
    assert "not accepted here" in response.json()["error"]["message"]
    # Creating more clients with a client token is not possible either.
    response = bearer(token).post(
        "/api/v1/api-clients/create/", {"name": "x", "scopes": ["grades:read"]}, format="json"
    )
    assert response.status_code == 403


def test_person_tokens_are_not_limited_by_scopes(instructor: Any) -> None:
    _, client = instructor
    assert client.get("/scoped/grades/").status_code == 200


def test_a_revoked_token_stops_working(instructor: Any) -> None:
    _, client = instructor
    body = create_client(client, ["grades:read"])
    response = client.post(f"/api/v1/api-clients/{body['id']}/revoke/")
    assert response.status_code == 200 and response.json()["revoked_at"]
    response = bearer(body["token"]).get("/scoped/grades/")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "the API client token is not valid or revoked"


@pytest.mark.parametrize(
    "header",
    ["Bearer cutoff_not-a-real-token", "Bearer", "Bearer a b", "Bearer \xff"],
)
def test_bad_bearer_tokens_are_refused_with_401(instructor: Any, header: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/scoped/grades/")
    assert response.status_code == 401
    assert set(response.json()["error"]) == {"code", "message", "details"}


def test_students_cannot_create_clients_and_scopes_are_validated(
    instructor: Any, student: Any
) -> None:
    _, student_client = student
    response = student_client.post(
        "/api/v1/api-clients/create/", {"name": "x", "scopes": ["grades:read"]}, format="json"
    )
    assert response.status_code == 403
    _, client = instructor
    for scopes in ([], ["grades:write"], "grades:read"):
        response = client.post(
            "/api/v1/api-clients/create/", {"name": "x", "scopes": scopes}, format="json"
        )
        assert response.status_code == 400
        assert "scopes" in response.json()["error"]["details"]


def test_others_clients_cannot_be_revoked(instructor: Any, other_instructor: Any) -> None:
    _, client = instructor
    body = create_client(client, ["grades:read"])
    _, other = other_instructor
    assert other.post(f"/api/v1/api-clients/{body['id']}/revoke/").status_code == 404
    assert other.get("/api/v1/api-clients/").json() == []
    assert client.post("/api/v1/api-clients/999999/revoke/").status_code == 404


def test_has_scope_refuses_unknown_scopes() -> None:
    from lms.clients.authentication import HasScope

    with pytest.raises(ValueError, match="unknown API client scope"):
        HasScope("grades:delete")

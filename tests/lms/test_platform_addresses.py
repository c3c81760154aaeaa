"""LMS platform URLs reach public addresses only: refused at registration and when edited,
dynamic registration fetches nothing from a private address, and every service call (token,
key set, roster, grades) checks the address again before connecting.

Host names are made up (``.test``) and resolved by the ``fake_network`` fixture, whose
connector fails any connection to an address other than loopback before it is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from lms.models import Platform, ScorePassback
from tests.fake_network import FakeNetwork
from tests.lms.conftest import grade_submission
from tests.lms.simulator import PlatformSimulator
from tests.lms.test_grade_passback import linked_student  # noqa: F401 - a fixture used here

PUBLIC = "93.184.216.34"


def registration(**urls: str) -> dict[str, Any]:
    """Return a platform registration whose URLs are on public.test unless overridden."""
    return {
        "name": "Moodle", "issuer": "https://public.test", "client_id": "cutoff",
        "deployment_ids": ["1"], "auth_login_url": "https://public.test/auth",
        "auth_token_url": "https://public.test/token", "key_set_url": "https://public.test/jwks",
        **urls,
    }


@pytest.mark.parametrize("field", ["auth_token_url", "key_set_url", "auth_login_url"])
def test_platform_urls_resolving_to_private_addresses_are_refused(
    instructor: Any, fake_network: FakeNetwork, settings: Any, field: str
) -> None:
    settings.CUTOFF_ALLOW_PRIVATE_URLS = False
    fake_network.resolve("public.test", PUBLIC)
    fake_network.resolve("inside.test", PUBLIC, "127.0.0.1")
    response = instructor[1].post(
        "/api/v1/lti/platforms/create/", registration(**{field: "http://inside.test:9/x"}),
        format="json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["message"].startswith(f"{field}: must resolve to public internet addresses")
    assert list(error["details"]) == [field]
    loopback = instructor[1].post(
        "/api/v1/lti/platforms/create/", registration(**{field: "http://127.0.0.1:9/x"}),
        format="json",
    )
    assert loopback.status_code == 400
    assert not Platform.objects.exists()
    accepted = instructor[1].post("/api/v1/lti/platforms/create/", registration(), format="json")
    assert accepted.status_code == 201, accepted.content
    assert fake_network.connections == []


@pytest.mark.django_db
def test_a_passback_to_a_platform_now_on_a_private_address_is_refused_without_connecting(
    simulator: PlatformSimulator,
    linked_student: Callable[..., tuple[Any, Any]],  # noqa: F811 - the imported fixture
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
    fake_network: FakeNetwork,
    settings: Any,
) -> None:
    problem_set, student = linked_student()
    settings.CUTOFF_ALLOW_PRIVATE_URLS = False  # the simulator listens on 127.0.0.1
    fake_network.connections.clear()  # the launch fetched the key set
    with django_capture_on_commit_callbacks(execute=True):
        grade_submission(problem_set, student, "7.5")
    passback = ScorePassback.objects.get()
    assert passback.status == ScorePassback.Status.REFUSED and passback.attempts == 1
    assert passback.last_error.startswith("the LMS's address is refused: 127.0.0.1 resolves to")
    assert simulator.token_requests == [] and simulator.scores == []
    assert fake_network.connections == []


@pytest.mark.django_db
def test_editing_a_platform_url_to_a_private_address_is_refused(
    platform: Any, instructor: Any, fake_network: FakeNetwork, settings: Any
) -> None:
    settings.CUTOFF_ALLOW_PRIVATE_URLS = False
    fake_network.resolve("inside.test", PUBLIC, "10.0.0.7")
    before = Platform.objects.get(pk=platform.pk).key_set_url
    response = instructor[1].post(
        f"/api/v1/lti/platforms/{platform.pk}/update/",
        {"key_set_url": "https://inside.test/jwks", "name": "Renamed"}, format="json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["message"].startswith("key_set_url: must resolve to public internet addresses")
    assert list(error["details"]) == ["key_set_url"]
    unchanged = Platform.objects.get(pk=platform.pk)
    assert (unchanged.key_set_url, unchanged.name) == (before, platform.name)
    assert fake_network.connections == []


@pytest.mark.django_db
def test_dynamic_registration_from_a_private_address_is_refused_before_connecting(
    instructor: Any, fake_network: FakeNetwork, settings: Any
) -> None:
    settings.CUTOFF_ALLOW_PRIVATE_URLS = False
    fake_network.resolve("inside.test", "169.254.169.254")
    created = instructor[1].post("/api/v1/lti/registrations/create/")
    assert created.status_code == 201
    url = created.json()["registration_url"].removeprefix("http://testserver")
    params = {
        "openid_configuration": "http://inside.test/.well-known/openid-configuration",
        "registration_token": "token-1",
    }
    response = Client().post(url, params)
    assert response.status_code == 400, response.content
    assert b"the platform&#x27;s address is refused: inside.test resolves to 169.254.169.254" in (
        response.content
    )
    assert fake_network.lookups == ["inside.test"]
    assert fake_network.connections == []
    assert not Platform.objects.exists()

"""LMS platform URLs reach public addresses only: refused at registration, and every service
call (token, key set, roster, grades) checks the address again before connecting.

Host names are made up (``.test``) and resolved by the ``fake_network`` fixture, whose
connector fails any connection to an address other than loopback before it is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lti.models import Platform, ScorePassback
from tests.fake_network import FakeNetwork
from tests.lti.conftest import grade_submission
from tests.lti.simulator import PlatformSimulator
from tests.lti.test_grade_passback import linked_student  # noqa: F401 - a fixture used here

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
def test_a_passback_to_a_platform_now_on_a_private_address_fails_without_connecting(
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
    assert passback.status == ScorePassback.Status.FAILED and passback.attempts == 1
    assert passback.last_error.startswith("the LMS's address is refused: 127.0.0.1 resolves to")
    assert simulator.token_requests == [] and simulator.scores == []
    assert fake_network.connections == []

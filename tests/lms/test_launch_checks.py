"""id_token checks pylti1p3 leaves to the tool (exp, azp, target_link_uri), and key
refetches that made-up kids cannot use up."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from lms.lti.tool import CLOCK_LEEWAY_SECONDS, KEY_REFETCHES_PER_INTERVAL
from lms.models import LtiUserLink
from tests.lms.conftest import launch
from tests.lms.loopback_platform import new_rsa_key
from tests.lms.simulator import LTI, PlatformSimulator
from tests.lms.test_launch import bind_link

pytestmark = pytest.mark.django_db


def without_exp(claims: dict[str, Any]) -> None:
    """Drop the expiry, as a careless platform might."""
    del claims["exp"]


def for_another_client(claims: dict[str, Any]) -> None:
    """Name another client as the authorized party."""
    claims["azp"] = "another-tool"


def with_two_audiences(claims: dict[str, Any]) -> None:
    """Name two audiences and no authorized party."""
    claims["aud"] = [claims["aud"][0], "another-tool"]
    del claims["azp"]


def for_another_host(claims: dict[str, Any]) -> None:
    """Target another tool's launch URL."""
    claims[LTI + "target_link_uri"] = "https://other-tool.example/lti/launch/"


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        (without_exp, b"no expiry time (exp)"),
        (for_another_client, b"issued to another client (azp another-tool)"),
        (with_two_audiences, b"several audiences but no azp"),
        (for_another_host, b"meant for another tool"),
    ],
)
def test_launches_pylti1p3_would_accept_are_refused(
    simulator: PlatformSimulator, platform: Any, instructor: Any, tamper: Any, reason: bytes
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    response = launch(
        Client(), simulator, "learner-9", ["Learner"], custom=link["custom"], tamper=tamper
    )
    assert response.status_code == 403 and reason in response.content
    assert not LtiUserLink.objects.filter(subject="learner-9").exists()


def test_made_up_kids_do_not_use_up_the_refetch_a_key_rotation_needs(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    fetched = simulator.jwks_requests
    other_key, _ = new_rsa_key()
    for kid in ("made-up-1", "made-up-2"):
        response = launch(
            Client(),
            simulator,
            "learner-1",
            ["Learner"],
            sign=lambda claims, kid=kid: simulator.sign(claims, private_key_pem=other_key, kid=kid),
        )
        assert response.status_code == 403
    assert simulator.jwks_requests == fetched + 2
    # The platform rotates its key right after: the first launch signed with it gets in.
    simulator.rotate_key()
    response = launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"])
    assert response.status_code == 200, response.content


def test_many_made_up_kids_are_bounded_per_platform(
    simulator: PlatformSimulator, platform: Any
) -> None:
    fetched = simulator.jwks_requests
    other_key, _ = new_rsa_key()
    for number in range(KEY_REFETCHES_PER_INTERVAL + 3):
        launch(
            Client(),
            simulator,
            "learner-1",
            ["Learner"],
            sign=lambda claims, number=number: simulator.sign(
                claims, private_key_pem=other_key, kid=f"made-up-{number}"
            ),
        )
    # The first launch fetches the keys (none cached yet), then one refetch per kid.
    assert simulator.jwks_requests - fetched <= KEY_REFETCHES_PER_INTERVAL + 1


def issued_ahead(seconds: int) -> Any:
    """Return a tamper stamping the token as the platform's clock, ``seconds`` ahead, would."""

    def stamp(claims: dict[str, Any]) -> None:
        claims["iat"] += seconds
        claims["exp"] += seconds

    return stamp


def among_other_audiences(claims: dict[str, Any]) -> None:
    """Issue the token to several audiences, ours second, naming ours as the party meant."""
    claims["azp"] = claims["aud"] if isinstance(claims["aud"], str) else claims["aud"][0]
    claims["aud"] = ["another-tool", claims["azp"]]


@pytest.mark.parametrize("tamper", [issued_ahead(5), issued_ahead(CLOCK_LEEWAY_SECONDS - 5),
                                    among_other_audiences], ids=["5 s", "55 s", "azp second"])
def test_launches_the_specs_allow_are_accepted(
    simulator: PlatformSimulator, platform: Any, instructor: Any, tamper: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    response = launch(
        Client(), simulator, "learner-9", ["Learner"], custom=link["custom"], tamper=tamper
    )
    assert response.status_code == 200, response.content[:400]
    assert LtiUserLink.objects.filter(subject="learner-9").exists()


def test_a_token_issued_beyond_the_clock_leeway_is_refused(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    response = launch(Client(), simulator, "learner-9", ["Learner"], custom=link["custom"],
                      tamper=issued_ahead(CLOCK_LEEWAY_SECONDS + 30))
    assert response.status_code == 403 and b"not yet valid (iat)" in response.content


AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"


@pytest.mark.parametrize(("claim", "value", "reason"), [
    (LTI + "custom", ["x"], "claim " + LTI + "custom as list; it must be an object"),
    (NRPS, "x", "claim " + NRPS + " as str; it must be an object"),
    (LTI + "roles", 5, "claim " + LTI + "roles as int; it must be a list of role URIs"),
    (LTI + "roles", [5], "roles in the claim " + LTI + "roles as list; it must be a list of"),
    (AGS, {"scope": 3}, "scope in the claim " + AGS + " as int; it must be a list of strings"),
    (LTI + "context", "course-ai", "claim " + LTI + "context as str; it must be an object"),
], ids=["custom", "nrps", "roles", "role", "ags scope", "context"])
def test_a_signed_launch_with_a_claim_of_the_wrong_type_is_a_400_naming_it(
    simulator: PlatformSimulator, platform: Any, instructor: Any, claim: str, value: Any,
    reason: str,
) -> None:
    link = bind_link(platform, simulator, instructor[0])

    def reshape(claims: dict[str, Any]) -> None:
        claims[claim] = value

    response = launch(Client(raise_request_exception=False), simulator, "learner-9",
                      ["Learner"], custom=link["custom"], tamper=reshape)
    assert response.status_code == 400, response.content[:400]
    assert reason in response.content.decode()
    assert not LtiUserLink.objects.filter(subject="learner-9").exists()

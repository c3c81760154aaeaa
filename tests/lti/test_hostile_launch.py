"""A signed launch whose claims nest deeply or carry text the database refuses is a 400 page
naming the rule, not a 500 (pylti1p3 would recurse through such claims and cache them)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlparse

import jwt
import pytest
from django.test import Client

from lti.models import LtiUserLink
from tests.lti.conftest import start_login
from tests.lti.simulator import PlatformSimulator


def signed_launch(simulator: PlatformSimulator, extra_claim: str) -> Any:
    """Launch as learner-1 with ``extra_claim`` (raw JSON) added to otherwise valid claims."""
    browser = Client()
    redirect = start_login(browser, simulator, "learner-1")
    claims = simulator.launch_claims(nonce=redirect.params["nonce"], subject="learner-1",
                                     roles=["Learner"])
    # Raw JSON text: json.dumps itself refuses to nest this deep.
    payload = json.dumps(claims)[:-1] + f', "https://lms.test/extra": {extra_claim}}}'
    token = jwt.api_jws.encode(payload.encode(), simulator.private_key_pem, algorithm="RS256",
                               headers={"kid": simulator.kid})
    return browser.post(urlparse(redirect.params["redirect_uri"]).path,
                        {"id_token": token, "state": redirect.params["state"]})


@pytest.mark.django_db
@pytest.mark.parametrize(("extra_claim", "rule"), [
    ("[" * 600 + "]" * 600, "JSON may be nested at most 32 levels deep"),
    ("[" * 50_000 + "]" * 50_000, "JSON may be nested at most 32 levels deep"),
    ('"name\\u0000"', "NUL characters or unpaired surrogates"),
])
def test_hostile_claims_are_refused_with_a_400(
    simulator: PlatformSimulator, platform: Any, extra_claim: str, rule: str
) -> None:
    response = signed_launch(simulator, extra_claim)
    assert response.status_code == 400
    assert rule in response.content.decode()
    assert not LtiUserLink.objects.exists()

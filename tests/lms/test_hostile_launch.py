"""A signed launch whose claims nest deeply or carry text the database refuses is a 400 page
naming the rule, not a 500 (pylti1p3 would recurse through such claims and cache them); a
roster (NRPS) carrying such text is synced with it replaced, or without the member."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlparse

import jwt
import pytest
from django.test import Client

from lms.models import LtiUserLink
from tests.lms.conftest import launch, start_login
from tests.lms.simulator import PlatformSimulator


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


@pytest.mark.django_db
def test_a_roster_with_text_the_database_refuses_is_synced_without_it(
    simulator: PlatformSimulator, platform: Any, instructor: Any, celery_eager: None
) -> None:
    from lms.models import LtiContext
    from tests.lms.test_launch import bind_link
    from tests.lms.test_roster_and_platforms import member

    link = bind_link(platform, simulator, instructor[0])
    launch(Client(), simulator, "learner-9", ["Learner"], custom=link["custom"], with_nrps=True)
    simulator.members = [
        {**member("ana", "Learner"), "given_name": "A\x00na", "family_name": "\ud800"},
        member("bad\x00id", "Learner"),
        member("x" * 300, "Learner"),
    ]
    context = LtiContext.objects.get()
    response = instructor[1].post(f"/api/v1/lti/contexts/{context.pk}/roster-sync/")
    assert response.status_code == 202, response.content
    ana = LtiUserLink.objects.get(subject="ana").user
    assert (ana.first_name, ana.last_name) == ("A\ufffdna", "\ufffd")
    assert not LtiUserLink.objects.filter(subject__startswith="bad").exists()
    assert not LtiUserLink.objects.filter(subject__startswith="xxx").exists()

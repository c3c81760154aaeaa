"""Fixtures for the LTI tests: a running platform simulator registered with Cutoff, and a
browser that goes through OIDC login initiation and posts the signed launch."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from django.test import Client

from tests.lms.simulator import PlatformSimulator


@pytest.fixture
def simulator() -> Iterator[PlatformSimulator]:
    """Return a started platform simulator (stopped after the test)."""
    platform = PlatformSimulator().start()
    try:
        yield platform
    finally:
        platform.stop()


@pytest.fixture
def platform(simulator: PlatformSimulator, instructor: tuple[Any, Any]) -> Any:
    """Register the simulator (owned by the ``instructor`` persona) and tell it our JWKS."""
    from lms.services import register_platform

    owner, _ = instructor
    registered = register_platform(owner=owner, **simulator.registration())
    simulator.tool_jwks = Client().get("/lti/jwks/").json()
    return registered


@dataclass
class LoginRedirect:
    """Where login initiation sent the browser: the platform's auth URL and its params."""

    url: str
    params: dict[str, str]


def start_login(browser: Client, simulator: PlatformSimulator, subject: str) -> LoginRedirect:
    """Do OIDC login initiation as the platform would make the browser do it."""
    response = browser.post(
        "/lti/login/",
        {
            "iss": simulator.issuer,
            "client_id": simulator.client_id,
            "login_hint": subject,
            "target_link_uri": "http://testserver/lti/launch/",
            "lti_message_hint": "hint-1",
            "lti_deployment_id": simulator.deployment_id,
        },
    )
    assert response.status_code == 302, response.content
    location = urlparse(response["Location"])
    params = {key: values[0] for key, values in parse_qs(location.query).items()}
    return LoginRedirect(url=f"{location.scheme}://{location.netloc}{location.path}", params=params)


def launch(
    browser: Client,
    simulator: PlatformSimulator,
    subject: str,
    roles: list[str],
    *,
    tamper: Any = None,
    sign: Any = None,
    **claims: Any,
) -> Any:
    """Launch Cutoff from the platform as ``subject``; return the launch response.

    ``tamper(claims)`` may change the claims before signing; ``sign(claims)`` may replace the
    platform's signature (e.g. with another key).
    """
    redirect = start_login(browser, simulator, subject)
    body = simulator.launch_claims(
        nonce=redirect.params["nonce"], subject=subject, roles=roles, **claims
    )
    if tamper is not None:
        tamper(body)
    id_token = sign(body) if sign is not None else simulator.sign(body)
    return browser.post(
        urlparse(redirect.params["redirect_uri"]).path,
        {"id_token": id_token, "state": redirect.params["state"]},
    )


def make_problem_set(
    course: Any, owner: Any, title: str = "Minimax quiz", points: str = "10"
) -> Any:
    """Create a problem set with one item worth ``points`` in ``course``."""
    from exercises.kinds import get_kind
    from exercises.models import Item, ProblemSet

    problem_set = ProblemSet.objects.create(
        course=course, title=title, seed="seed-1", created_by=owner
    )
    params = get_kind("minimax").clean_params({"ask_nodes": 0})
    Item.objects.create(
        problem_set=problem_set, position=1, kind="minimax", params=params, points=Decimal(points)
    )
    return problem_set


def grade_submission(problem_set: Any, student: Any, score: str) -> Any:
    """Store a graded submission of ``student`` on the problem set's first item, announcing
    its score the way grading does when it records one."""
    from django.utils import timezone

    from exercises.models import Variant, VariantItem
    from grading.models import Submission
    from grading.services import announce_score

    item = problem_set.items.get(position=1)
    variant, _ = Variant.objects.get_or_create(
        problem_set=problem_set, student=student, defaults={"seed": "v"}
    )
    variant_item, _ = VariantItem.objects.get_or_create(
        variant=variant, item=item, position=1, defaults={"seed": "vi", "problem": {}}
    )
    attempt = variant_item.submissions.count() + 1
    submission = Submission.objects.create(
        variant_item=variant_item,
        student=student,
        attempt_number=attempt,
        answer={"value": 3},
        status=Submission.Status.GRADED,
        score=Decimal(score),
        max_score=item.points,
        graded_at=timezone.now(),
    )
    announce_score(submission)
    return submission

"""Cutoff against Open edX's own LTI 1.3 platform code (``lti-consumer-xblock`` from PyPI):
launch, deep linking, AGS and NRPS, each message signed or checked by an implementation
nobody here wrote.

The platform (``tests/lms/openedx_platform.py``) runs Open edX's ``lti_consumer.lti_1p3``
classes in this process behind an HTTP server on 127.0.0.1: the dependency installs beside
Cutoff's pins without changing one (``requirements-interop.lock``), and those classes need
neither the XBlock runtime nor Open edX's tables. Cutoff runs as the live server, so Open edX
fetches Cutoff's JWKS over HTTP from the keyset URL an LMS is given (``/lti/jwks/``), and
Cutoff calls Open edX's token, line item, score and membership endpoints over HTTP.
``docs/lti.md`` (Testing against Open edX) says why this way and not a separate Open edX.

The package is a test dependency of its own group; with CI=true a missing one fails the
run (scripts/test installs it), otherwise these tests are skipped.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
import requests
from django.test import Client

from tests.conftest import IN_CI

if importlib.util.find_spec("lti_consumer") is None:
    reason = "Open edX's lti-consumer-xblock is missing: pip install -r requirements-interop.lock"
    if IN_CI:
        pytest.fail(f"CI requires it: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)

from accounts.models import Enrollment, Role  # noqa: E402 - after the dependency check
from lms.models import LtiContext, LtiUserLink, ScorePassback  # noqa: E402
from tests.lms.conftest import grade_submission, make_problem_set  # noqa: E402
from tests.lms.openedx_platform import COURSE, OpenEdxPlatform, usage_key  # noqa: E402
from tests.lms.test_deep_linking import form_fields  # noqa: E402

pytestmark = pytest.mark.django_db(transaction=True)

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"


@pytest.fixture
def openedx(live_server: Any, settings: Any, instructor: Any) -> Iterator[OpenEdxPlatform]:
    """Return an Open edX platform registered with Cutoff (owned by ``instructor``)."""
    from lms.services import register_platform

    settings.PLATFORM_NAME = "Open edX"  # the tool_platform claim of Open edX's launches
    platform = OpenEdxPlatform(tool_keyset_url=f"{live_server.url}/lti/jwks/").start()
    try:
        register_platform(owner=instructor[0], **platform.registration())
        yield platform
    finally:
        platform.stop()


def browser() -> Client:
    """Return a browser reaching Cutoff at ``localhost``: Django's test host name
    ``testserver`` is no valid URL to the URLField Open edX checks deep links with."""
    return Client(HTTP_HOST="localhost")


def launch(visitor: Client, openedx: OpenEdxPlatform, **launch_data: Any) -> Any:
    """Launch Cutoff from Open edX in ``visitor``'s browser; return Cutoff's response.

    The browser follows Open edX's login initiation URL to Cutoff, Cutoff's redirect to Open
    edX's authorization endpoint, and posts the form Open edX answers to the redirect URI.
    """
    start = urlparse(openedx.preflight_url(**launch_data))
    login = visitor.get(start.path, {k: v[0] for k, v in parse_qs(start.query).items()})
    assert login.status_code == 302, login.content
    authorized = requests.get(login["Location"], timeout=10)
    assert authorized.status_code == 200, (authorized.text, openedx.refusals)
    answer = authorized.json()
    return visitor.post(urlparse(answer["action"]).path, answer["fields"])


def place_link(openedx: OpenEdxPlatform, owner: Any, points: str = "7.5") -> tuple[Any, dict]:
    """Have Open edX staff deep-link a new problem set worth ``points``; return the problem
    set and the content item Open edX accepted."""
    staff = browser()
    first = launch(
        staff, openedx, user_id="staff-1", role="staff", message_type="LtiDeepLinkingRequest"
    )
    assert first.status_code == 200, first.content
    course = LtiContext.objects.get(context_id=COURSE).course
    problem_set = make_problem_set(course, owner, title="Alpha-beta drill", points=points)
    picker = launch(
        staff, openedx, user_id="staff-1", role="staff", message_type="LtiDeepLinkingRequest"
    )
    assert b"Alpha-beta drill" in picker.content, picker.content
    _, fields = form_fields(picker.content.decode())
    answer = staff.post("/lti/deep-link/", {**fields, "problem_set": problem_set.pk})
    assert answer.status_code == 200, answer.content
    action, response_fields = form_fields(answer.content.decode())
    assert action == openedx.url("/deep-links")
    posted = requests.post(action, data={"JWT": response_fields["JWT"]}, timeout=10)
    assert posted.status_code == 200, (posted.text, openedx.refusals)
    # Open edX sent no `data` in its deep-linking settings: Cutoff echoes none.
    claims = jwt.decode(response_fields["JWT"], options={"verify_signature": False})
    assert DL + "data" not in claims and claims["aud"] == [openedx.issuer]
    [item] = openedx.deep_link_items
    return problem_set, item


def test_open_edx_verifies_the_deep_link_and_launches_a_student_into_it(
    openedx: OpenEdxPlatform, instructor: Any
) -> None:
    problem_set, item = place_link(openedx, instructor[0])
    # Accepted by Open edX's LtiDlLtiResourceLinkSerializer, with a whole-number maximum
    # (7.5 points scaled to 15: Open edX's line items take integers only).
    assert item["type"] == "ltiResourceLink" and item["title"] == "Alpha-beta drill"
    assert item["url"] == "http://localhost/lti/launch/"
    assert item["lineItem"]["scoreMaximum"] == 15
    assert item["lineItem"]["resourceId"] == f"cutoff-problem-set-{problem_set.pk}"

    line_item = openedx.add_line_item("Alpha-beta drill", 15)
    response = launch(
        browser(), openedx, user_id="ana", role="student", custom=item["custom"],
        line_item=line_item, name="Ana Lima", email="ana@openedx.example.edu",
    )
    assert response.status_code == 200, response.content
    assert b"Alpha-beta drill" in response.content
    user = LtiUserLink.objects.get(subject="ana").user
    assert user.email == "ana@openedx.example.edu" and "Ana" in user.get_full_name()
    course = LtiContext.objects.get(context_id=COURSE).course
    assert Enrollment.objects.get(user=user, course=course).role == Role.STUDENT
    assert openedx.refusals == []


def test_open_edx_course_roles_map_to_cutoff_course_roles(
    openedx: OpenEdxPlatform, instructor: Any
) -> None:
    _, item = place_link(openedx, instructor[0])
    course = LtiContext.objects.get(context_id=COURSE).course
    # Open edX sends system/person#None and institution/person#None with every context role;
    # its "instructor" is Administrator and Instructor, a "Community TA" Learner and
    # TeachingAssistant.
    expected = {"student": Role.STUDENT, "staff": Role.INSTRUCTOR,
                "instructor": Role.INSTRUCTOR, "Community TA": Role.GRADER}
    for number, openedx_role in enumerate(expected):
        subject = f"person-{number}"
        response = launch(browser(), openedx, user_id=subject, role=openedx_role,
                          custom=item["custom"])
        assert response.status_code == 200, (openedx_role, response.content)
        user = LtiUserLink.objects.get(subject=subject).user
        assert Enrollment.objects.get(user=user, course=course).role == expected[openedx_role]


def test_scores_and_the_line_item_cutoff_creates_pass_open_edx_ags_checks(
    openedx: OpenEdxPlatform, instructor: Any, celery_eager: None
) -> None:
    problem_set, item = place_link(openedx, instructor[0])
    # An Open edX block allowing programmatic grade interaction gives no line item: Cutoff
    # creates it through the line items service.
    response = launch(browser(), openedx, user_id="ana", role="student", custom=item["custom"])
    assert response.status_code == 200, response.content
    student = LtiUserLink.objects.get(subject="ana").user

    grade_submission(problem_set, student, "6")
    grade_submission(problem_set, student, "7.5")
    assert openedx.refusals == []
    [(url, line_item)] = openedx.line_items.items()
    assert line_item["scoreMaximum"] == 15  # LtiAgsLineItemSerializer's IntegerField took it
    assert line_item["resourceLinkId"] == usage_key("quiz1")
    assert line_item["resourceId"] == f"cutoff-problem-set-{problem_set.pk}"
    scores = [(s["line_item"], s["user_id"], s["score_given"], s["score_maximum"])
              for s in openedx.scores]
    assert scores == [(url, "ana", 12.0, 15.0), (url, "ana", 15.0, 15.0)]
    assert {(s["activity_progress"], s["grading_progress"]) for s in openedx.scores} == {
        ("Submitted", "FullyGraded")}
    assert [p.status for p in ScorePassback.objects.order_by("pk")] == [
        ScorePassback.Status.SENT, ScorePassback.Status.SENT]


def test_cutoff_reads_the_roster_open_edx_renders(
    openedx: OpenEdxPlatform, instructor: Any, celery_eager: None
) -> None:
    openedx.members = [
        {"external_id": "ana", "roles": ["student"], "name": "Ana Lima",
         "email": "ana@openedx.example.edu"},
        {"external_id": "bo", "roles": ["student"], "name": "Bo Chen",
         "email": "bo@openedx.example.edu"},
        {"external_id": "carla", "roles": ["staff"], "name": "Carla Ruiz",
         "email": "carla@openedx.example.edu"},
        {"external_id": "tim", "roles": ["Community TA"], "name": "Tim Ng",
         "email": "tim@openedx.example.edu"},
    ]
    _, item = place_link(openedx, instructor[0])
    response = launch(browser(), openedx, user_id="staff-1", role="staff", nrps=True,
                      custom=item["custom"])
    assert response.status_code == 200, response.content
    assert b"roster is being synced" in response.content
    assert openedx.refusals == []
    context = LtiContext.objects.get(context_id=COURSE)
    assert context.roster_synced_at is not None
    roles = {
        link.subject: Enrollment.objects.get(user=link.user, course=context.course).role
        for link in LtiUserLink.objects.filter(subject__in=["ana", "bo", "carla", "tim"])
    }
    assert roles == {"ana": Role.STUDENT, "bo": Role.STUDENT, "carla": Role.INSTRUCTOR,
                     "tim": Role.GRADER}
    assert LtiUserLink.objects.get(subject="bo").user.email == "bo@openedx.example.edu"


def test_open_edx_refuses_a_deep_link_signed_with_a_key_not_in_cutoffs_jwks(
    openedx: OpenEdxPlatform, instructor: Any
) -> None:
    from tests.lms.loopback_platform import new_rsa_key

    stranger_pem, stranger_jwk = new_rsa_key()
    forged = jwt.encode(
        {"iss": openedx.client_id, "aud": openedx.issuer,
         "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiDeepLinkingResponse"},
        stranger_pem, algorithm="RS256", headers={"kid": stranger_jwk["kid"]},
    )
    posted = requests.post(openedx.url("/deep-links"), data={"JWT": forged}, timeout=10)
    assert posted.status_code == 400 and openedx.deep_link_items == []

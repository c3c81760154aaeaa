"""Deep linking: an instructor picks a problem set inside the LMS; our signed response goes
back to the platform, and the link it creates opens that problem set."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
import requests
from django.test import Client

from lms.models import LtiContext, LtiResourceLink
from lms.services import PROBLEM_SET_PARAMETER
from tests.lms.conftest import launch, make_problem_set
from tests.lms.simulator import LTI, PlatformSimulator

pytestmark = pytest.mark.django_db

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"


def form_fields(html: str) -> tuple[str, dict[str, str]]:
    """Return a page's form action and its hidden fields."""
    action = unescape(re.search(r'<form[^>]*action="([^"]+)"', html).group(1))
    fields = {
        unescape(name): unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html)
    }
    return action, fields


def test_instructor_picks_a_problem_set_and_the_platform_gets_a_signed_link(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    owner, _ = instructor
    browser = Client()
    first = launch(
        browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest"
    )
    assert first.status_code == 200, first.content
    assert b"no problem sets yet" in first.content
    course = LtiContext.objects.get(platform=platform).course
    problem_set = make_problem_set(course, owner, title="Alpha-beta drill", points="12.5")

    picker = launch(
        browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest"
    )
    assert b"Alpha-beta drill" in picker.content
    _, fields = form_fields(picker.content.decode())
    answer = browser.post(
        "/lti/deep-link/", {**fields, "problem_set": problem_set.pk}
    )
    assert answer.status_code == 200, answer.content
    action, response_fields = form_fields(answer.content.decode())
    assert action == simulator.url("/deep-links")

    # The browser's auto-submitted form, posted to the platform over HTTP.
    posted = requests.post(action, data={"JWT": response_fields["JWT"]}, timeout=5)
    assert posted.status_code == 200, posted.text
    [claims] = simulator.deep_link_responses
    assert claims["iss"] == simulator.client_id and claims["aud"] == [simulator.issuer]
    assert claims[LTI + "message_type"] == "LtiDeepLinkingResponse"
    assert claims[LTI + "deployment_id"] == simulator.deployment_id
    assert claims[DL + "data"] == "opaque-platform-data"
    [item] = claims[DL + "content_items"]
    assert item["type"] == "ltiResourceLink" and item["title"] == "Alpha-beta drill"
    assert item["url"] == "http://testserver/lti/launch/"
    assert item["lineItem"]["scoreMaximum"] == 12.5
    assert item["lineItem"]["resourceId"] == f"cutoff-problem-set-{problem_set.pk}"

    # The platform now launches the link it created, with the custom parameter it stored.
    line_item = simulator.add_line_item("Alpha-beta drill", 12.5)
    response = launch(
        Client(),
        simulator,
        "learner-1",
        ["Learner"],
        resource_link_id="placed-1",
        custom=item["custom"],
        line_item=line_item,
    )
    assert response.status_code == 200, response.content
    assert b"Alpha-beta drill" in response.content
    link = LtiResourceLink.objects.get(resource_link_id="placed-1")
    assert link.problem_set == problem_set
    assert link.line_item.url == line_item


def test_the_pick_must_come_from_the_session_that_launched(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    browser = Client()
    picker = launch(
        browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest"
    )
    course = LtiContext.objects.get(platform=platform).course
    problem_set = make_problem_set(course, instructor[0])
    launch_id = re.search(r'name="launch_id" value="([^"]+)"', picker.content.decode())
    assert launch_id is None  # no problem sets yet: no form
    picker = launch(
        browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest"
    )
    _, fields = form_fields(picker.content.decode())
    stranger = Client()
    stranger.force_login(instructor[0])
    response = stranger.post(
        "/lti/deep-link/", {"launch_id": fields["launch_id"], "problem_set": problem_set.pk}
    )
    assert response.status_code == 403 and b"expired" in response.content
    # The picker's own selection token works without the launch's session (a frame whose
    # browser blocked third-party cookies), once.
    cookieless = Client()
    answer = cookieless.post("/lti/deep-link/", {**fields, "problem_set": problem_set.pk})
    assert answer.status_code == 200, answer.content
    again = cookieless.post("/lti/deep-link/", {**fields, "problem_set": problem_set.pk})
    assert again.status_code == 403 and b"expired" in again.content
    forged = {**fields, "selection": fields["selection"][:-2] + "xx"}
    assert cookieless.post("/lti/deep-link/", forged).status_code == 403


def test_only_the_courses_problem_sets_can_be_picked(
    simulator: PlatformSimulator, platform: Any, instructor: Any, other_course: Any
) -> None:
    browser = Client()
    launch(browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest")
    course = LtiContext.objects.get(platform=platform).course
    make_problem_set(course, instructor[0])
    elsewhere = make_problem_set(other_course, instructor[0], title="Not this course")
    picker = launch(
        browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest"
    )
    assert b"Not this course" not in picker.content
    _, fields = form_fields(picker.content.decode())
    # "²" is a digit to str.isdigit but not to int; 30 digits fit no database integer.
    for bad in (elsewhere.pk, "x", "", "²", "9" * 30):
        response = browser.post(
            "/lti/deep-link/", {**fields, "problem_set": bad}
        )
        assert response.status_code == 400


def test_learners_cannot_deep_link(simulator: PlatformSimulator, platform: Any) -> None:
    response = launch(
        Client(), simulator, "learner-1", ["Learner"], message_type="LtiDeepLinkingRequest"
    )
    assert response.status_code == 403 and b"only instructors" in response.content


def test_a_reference_made_for_another_platform_is_refused(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    from lms.services import deep_link_reference, register_platform

    other = register_platform(
        owner=instructor[0], **{**simulator.registration(), "client_id": "other-client"}
    )
    launch(Client(), simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest")
    course = LtiContext.objects.get(platform=platform).course
    reference = deep_link_reference(
        platform=other, problem_set=make_problem_set(course, instructor[0])
    )
    response = launch(
        Client(), simulator, "learner-1", ["Learner"], custom={PROBLEM_SET_PARAMETER: reference}
    )
    assert response.status_code == 403 and b"another LMS" in response.content


@pytest.mark.parametrize("accept_multiple", [True, "true"])
def test_several_problem_sets_are_placed_at_once_when_the_platform_accepts_multiple(
    simulator: PlatformSimulator, platform: Any, instructor: Any, accept_multiple: Any
) -> None:
    browser = Client()
    launch(browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest")
    course = LtiContext.objects.get(platform=platform).course
    first = make_problem_set(course, instructor[0], title="Minimax drill")
    second = make_problem_set(course, instructor[0], title="MCTS drill")

    def multiple(claims: dict[str, Any]) -> None:
        claims[DL + "deep_linking_settings"]["accept_multiple"] = accept_multiple

    picker = launch(
        browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest",
        tamper=multiple,
    )
    assert b'type="checkbox" name="problem_set"' in picker.content
    _, fields = form_fields(picker.content.decode())
    answer = browser.post(
        "/lti/deep-link/",
        {**fields, "problem_set": [first.pk, second.pk]},
    )
    assert answer.status_code == 200, answer.content
    action, response_fields = form_fields(answer.content.decode())
    assert requests.post(action, data={"JWT": response_fields["JWT"]}, timeout=5).ok
    [claims] = simulator.deep_link_responses
    titles = sorted(item["title"] for item in claims[DL + "content_items"])
    assert titles == ["MCTS drill", "Minimax drill"]


def test_one_problem_set_only_when_the_platform_does_not_accept_multiple(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    browser = Client()
    launch(browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest")
    course = LtiContext.objects.get(platform=platform).course
    first = make_problem_set(course, instructor[0], title="Minimax drill")
    second = make_problem_set(course, instructor[0], title="MCTS drill")
    picker = launch(
        browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest"
    )
    assert b'type="radio" name="problem_set"' in picker.content
    _, fields = form_fields(picker.content.decode())
    answer = browser.post(
        "/lti/deep-link/",
        {**fields, "problem_set": [first.pk, second.pk]},
    )
    assert answer.status_code == 400 and b"pick one problem set" in answer.content
    assert simulator.deep_link_responses == []

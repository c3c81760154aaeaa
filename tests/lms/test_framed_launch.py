"""Launches inside an LMS frame whose browser blocks third-party cookies: the LTI
client-side postMessage storage stands in for the state cookie, a frame that can do neither
offers a working "open in a new window" link, and every refusal is a 4xx page the LMS can
frame."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from django.test import Client

from lms.models import LtiUserLink
from tests.lms.conftest import launch, start_login
from tests.lms.simulator import PlatformSimulator
from tests.lms.test_launch import bind_link

pytestmark = pytest.mark.django_db


def page_data(response: Any, element_id: str) -> dict[str, Any]:
    """Return the JSON a page hands its script in ``<script id=element_id>``."""
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert match, response.content
    return dict(json.loads(match.group(1)))


def framable(response: Any) -> bool:
    """Return whether the LMS may show ``response`` in its frame."""
    return response.get("X-Frame-Options") is None


def login_with_storage(simulator: PlatformSimulator, subject: str) -> dict[str, Any]:
    """Initiate login as a platform offering postMessage storage; return the page's data."""
    response = Client().post(
        "/lti/login/",
        {
            "iss": simulator.issuer,
            "client_id": simulator.client_id,
            "login_hint": subject,
            "target_link_uri": "http://testserver/lti/launch/",
            "lti_message_hint": "hint-1",
            "lti_deployment_id": simulator.deployment_id,
            "lti_storage_target": "_parent",
        },
    )
    assert response.status_code == 200 and framable(response)
    data = page_data(response, "lti-login-data")
    assert data["storage_target"] == "_parent" and data["auth_origin"] == simulator.issuer
    assert data["state"] and data["proof"]
    assert parse_qs(urlparse(data["auth_url"]).query)["state"] == [data["state"]]
    return data


def test_a_launch_without_cookies_or_platform_storage_is_a_framable_page_saying_why(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    redirect = start_login(Client(), simulator, "learner-1")
    claims = simulator.launch_claims(
        nonce=redirect.params["nonce"],
        subject="learner-1",
        roles=["Learner"],
        custom=link["custom"],
    )
    cookieless = Client()  # the frame kept neither the state nor the session-id cookie
    response = cookieless.post(
        "/lti/launch/", {"id_token": simulator.sign(claims), "state": redirect.params["state"]}
    )
    assert response.status_code == 403 and framable(response)
    assert b"third-party cookies" in response.content and b"new window" in response.content


def test_a_framed_login_without_platform_storage_offers_a_new_window(
    simulator: PlatformSimulator, platform: Any
) -> None:
    response = Client().get(
        "/lti/login/",
        {
            "iss": simulator.issuer,
            "client_id": simulator.client_id,
            "login_hint": "learner-1",
            "lti_message_hint": "hint-1",
        },
        HTTP_SEC_FETCH_DEST="iframe",
    )
    assert response.status_code == 200 and framable(response)
    data = page_data(response, "lti-login-data")
    assert data["storage_target"] == "" and data["auth_url"].startswith(simulator.url("/auth"))
    # Where the frame keeps cookies the page goes on, so the state cookie is set here too.
    assert f"lti1p3-{data['state']}" in response.cookies
    [new_window] = re.findall(
        r'href="(/lti/login/\?[^"]+)" target="_blank"', response.content.decode()
    )
    params = parse_qs(urlparse(new_window.replace("&amp;", "&")).query)
    assert params["login_hint"] == ["learner-1"] and params["lti_message_hint"] == ["hint-1"]
    # The new window is a top-level page: it logs in with a plain redirect and cookies.
    opened = Client().get(new_window.replace("&amp;", "&"), HTTP_SEC_FETCH_DEST="document")
    assert opened.status_code == 302 and opened["Location"].startswith(simulator.url("/auth"))


def test_platform_storage_proves_the_state_of_a_launch_without_cookies(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    login = login_with_storage(simulator, "learner-1")
    nonce = parse_qs(urlparse(login["auth_url"]).query)["nonce"][0]
    claims = simulator.launch_claims(
        nonce=nonce, subject="learner-1", roles=["Learner"], custom=link["custom"]
    )
    posted = {"id_token": simulator.sign(claims), "state": login["state"]}
    frame = Client()  # no cookie from the login reaches the launch
    check = frame.post("/lti/launch/", {**posted, "lti_storage_target": "_parent"})
    assert check.status_code == 200 and framable(check)
    assert page_data(check, "lti-check-data") == {
        "auth_origin": simulator.issuer,
        "storage_target": "_parent",
        "state": login["state"],
    }
    # What the page posts back after reading the proof from the platform's storage; only
    # that page (our origin) may post it.
    proven = {**posted, "lti_storage_proof": login["proof"]}
    elsewhere = frame.post("/lti/launch/", proven, HTTP_ORIGIN="https://attacker.example")
    assert elsewhere.status_code == 403 and framable(elsewhere)
    launched = frame.post("/lti/launch/", proven, HTTP_ORIGIN="http://testserver")
    assert launched.status_code == 200, launched.content
    assert LtiUserLink.objects.filter(subject="learner-1").exists()
    replayed = Client().post("/lti/launch/", proven, HTTP_ORIGIN="http://testserver")
    assert replayed.status_code == 403


def test_a_wrong_storage_proof_is_refused(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    login = login_with_storage(simulator, "learner-1")
    nonce = parse_qs(urlparse(login["auth_url"]).query)["nonce"][0]
    claims = simulator.launch_claims(
        nonce=nonce, subject="learner-1", roles=["Learner"], custom=link["custom"]
    )
    response = Client().post(
        "/lti/launch/",
        {"id_token": simulator.sign(claims), "state": login["state"], "lti_storage_proof": "guess"},
        HTTP_ORIGIN="http://testserver",
    )
    assert response.status_code == 403 and b"proof" in response.content
    assert not LtiUserLink.objects.filter(subject="learner-1").exists()


def test_the_open_link_of_a_framed_launch_signs_in_at_the_top_level_once(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    response = launch(Client(), simulator, "teacher-2", ["Instructor"], custom=link["custom"])
    [open_url] = re.findall(r'href="(/lti/continue/[^"]+)"', response.content.decode())
    window = Client()  # a new window: no session from the frame
    opened = window.get(open_url)
    assert opened.status_code == 302
    assert window.get(opened["Location"]).status_code == 200
    assert window.get(open_url).status_code == 302  # the same user may follow it again
    stranger = Client().get(open_url)
    assert stranger.status_code == 403
    assert Client().get("/lti/continue/forged/").status_code == 403

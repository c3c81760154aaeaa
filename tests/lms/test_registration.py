"""Registering and maintaining LMS platforms: editing and reactivating through the API, a
clear word about unknown deployments, login initiation without client_id, and a deep
linking answer that echoes the platform's data only when it sent some."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from django.test import Client

from lms.models import Platform
from tests.lms.conftest import launch, make_problem_set
from tests.lms.simulator import LTI, PlatformSimulator
from tests.lms.test_deep_linking import DL, form_fields

pytestmark = pytest.mark.django_db


def test_a_platform_is_edited_and_reactivated_instead_of_registered_again(
    simulator: PlatformSimulator, platform: Any, instructor: Any, other_instructor: Any
) -> None:
    _, client = instructor
    again = client.post("/api/v1/lti/platforms/create/", simulator.registration(), format="json")
    assert again.status_code == 409
    error = again.json()["error"]
    assert error["details"]["platform"] == platform.pk
    assert f"/api/v1/lti/platforms/{platform.pk}/update/" in error["message"]

    url = f"/api/v1/lti/platforms/{platform.pk}/update/"
    response = client.post(url, {"deployment_ids": ["deployment-1", "deployment-2"]}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["deployment_ids"] == ["deployment-1", "deployment-2"]
    assert response.json()["name"] == "Simulated LMS"  # untouched
    bad = client.post(url, {"key_set_url": "nowhere", "deployment_ids": []}, format="json")
    assert bad.status_code == 400
    assert {"key_set_url", "deployment_ids"} <= set(bad.json()["error"]["details"])
    ignored = client.post(url, {"issuer": "https://elsewhere.example"}, format="json")
    assert ignored.status_code == 200 and ignored.json()["issuer"] == simulator.issuer
    _, other = other_instructor
    assert other.post(url, {"name": "Mine"}, format="json").status_code == 404

    client.post(f"/api/v1/lti/platforms/{platform.pk}/deactivate/")
    login = {"iss": simulator.issuer, "client_id": simulator.client_id, "login_hint": "l-1"}
    assert Client().post("/lti/login/", login).status_code == 400
    response = client.post(f"/api/v1/lti/platforms/{platform.pk}/activate/")
    assert response.status_code == 200 and response.json()["is_active"] is True
    assert Platform.objects.get(pk=platform.pk).is_active
    # Active again: a launch from the new deployment gets as far as the problem set lookup.
    simulator.deployment_id = "deployment-2"
    assert launch(Client(), simulator, "learner-1", ["Learner"]).status_code == 404


def test_an_unknown_deployment_is_named(simulator: PlatformSimulator, platform: Any) -> None:
    def other_deployment(claims: dict[str, Any]) -> None:
        claims[LTI + "deployment_id"] = "deployment-9"

    response = launch(Client(), simulator, "learner-1", ["Learner"], tamper=other_deployment)
    assert response.status_code == 403
    assert b"Unable to find deployment &#x27;deployment-9&#x27;" in response.content


def test_login_initiation_without_client_id_uses_the_issuers_platform(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    params = {"iss": simulator.issuer, "login_hint": "learner-1", "lti_message_hint": "h"}
    response = Client().post("/lti/login/", params)
    assert response.status_code == 302
    assert f"client_id={simulator.client_id}" in response["Location"]
    # With two registrations of the issuer the LMS must say which one it means.
    from lms.services import register_platform

    register_platform(owner=instructor[0], **{**simulator.registration(), "client_id": "c-2"})
    response = Client().post("/lti/login/", params)
    assert response.status_code == 400 and b"must send client_id" in response.content


def test_the_deep_linking_answer_echoes_data_only_when_the_platform_sent_it(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    from lms.models import LtiContext

    browser = Client()
    launch(browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest")
    course = LtiContext.objects.get(platform=platform).course
    problem_set = make_problem_set(course, instructor[0])

    def without_data(claims: dict[str, Any]) -> None:
        del claims[DL + "deep_linking_settings"]["data"]

    picker = launch(
        browser,
        simulator,
        "teacher-1",
        ["Instructor"],
        message_type="LtiDeepLinkingRequest",
        tamper=without_data,
    )
    _, fields = form_fields(picker.content.decode())
    answer = browser.post(
        "/lti/deep-link/", {**fields, "problem_set": problem_set.pk}
    )
    action, response_fields = form_fields(answer.content.decode())
    assert requests.post(action, data={"JWT": response_fields["JWT"]}, timeout=5).ok
    [claims] = simulator.deep_link_responses
    assert DL + "data" not in claims


def test_canvas_reads_the_tool_configuration_from_a_json_url() -> None:
    from lms.services import LTI_SERVICE_SCOPES

    response = Client().get("/lti/canvas.json")
    assert response.status_code == 200
    config = response.json()
    assert config["oidc_initiation_url"] == "http://testserver/lti/login/"
    assert config["target_link_uri"] == "http://testserver/lti/launch/"
    assert config["public_jwk_url"] == "http://testserver/lti/jwks/"
    assert config["scopes"] == LTI_SERVICE_SCOPES
    [canvas] = config["extensions"]
    assert canvas["platform"] == "canvas.instructure.com" and canvas["domain"] == "testserver"
    placements = {p["placement"]: p for p in canvas["settings"]["placements"]}
    assert placements["assignment_selection"]["message_type"] == "LtiDeepLinkingRequest"
    assert placements["link_selection"]["target_link_uri"] == config["target_link_uri"]


def test_dynamic_registration_from_a_url_pasted_into_the_lms(
    simulator: PlatformSimulator, instructor: Any, student: Any
) -> None:
    import re

    owner, client = instructor
    assert student[1].post("/api/v1/lti/registrations/create/").status_code == 403
    created = client.post("/api/v1/lti/registrations/create/")
    assert created.status_code == 201
    url = created.json()["registration_url"].removeprefix("http://testserver")
    params = {
        "openid_configuration": simulator.url("/.well-known/openid-configuration"),
        "registration_token": simulator.registration_token,
    }
    frame = Client()  # the LMS's registration frame: no session, no cookies
    confirm = frame.get(url, params)
    assert confirm.status_code == 200 and b"Register" in confirm.content
    assert not Platform.objects.exists()
    done = frame.post(url, params)
    assert done.status_code == 200, done.content
    assert b"org.imsglobal.lti.close" in done.content
    platform = Platform.objects.get()
    assert (platform.issuer, platform.client_id) == (simulator.issuer, "dynamic-client-1")
    assert platform.deployment_ids == ["dynamic-deployment-1"] and platform.owner == owner
    assert platform.auth_token_url == simulator.url("/token")
    [registration] = simulator.registrations
    assert registration["initiate_login_uri"] == "http://testserver/lti/login/"
    assert registration["redirect_uris"] == ["http://testserver/lti/launch/"]
    assert registration["jwks_uri"] == "http://testserver/lti/jwks/"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in registration["scope"]

    # The platform registered this way launches Cutoff.
    simulator.client_id, simulator.deployment_id = "dynamic-client-1", "dynamic-deployment-1"
    simulator.tool_jwks = Client().get("/lti/jwks/").json()
    picker = launch(
        Client(), simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest"
    )
    assert picker.status_code == 200, picker.content

    # Registering again is a clear refusal; so are forged URLs and a wrong token.
    again = frame.post(url, params)
    assert again.status_code == 409 and b"already registered" in again.content
    forged = re.sub(r"/lti/register/[^/]+/", "/lti/register/forged/", url)
    assert frame.post(forged, params).status_code == 403
    assert frame.get(url).status_code == 400
    wrong = frame.post(url, {**params, "registration_token": "guess"})
    assert wrong.status_code == 502 and b"401" in wrong.content


def test_cutoffs_signing_key_rotates_with_the_old_key_kept_for_a_grace_period(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from lms.models import LtiContext, ToolKey

    _, client = instructor
    old_kid = platform.tool_key.kid
    response = client.post(f"/api/v1/lti/platforms/{platform.pk}/rotate-key/")
    assert response.status_code == 200
    new_kid = response.json()["tool"]["kid"]
    assert new_kid != old_kid
    published = [key["kid"] for key in Client().get("/lti/jwks/").json()["keys"]]
    assert sorted(published) == sorted([old_kid, new_kid])

    # What Cutoff signs now verifies with the new key.
    simulator.tool_jwks = {
        "keys": [k for k in Client().get("/lti/jwks/").json()["keys"] if k["kid"] == new_kid]
    }
    browser = Client()
    launch(browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest")
    course = LtiContext.objects.get(platform=platform).course
    problem_set = make_problem_set(course, instructor[0])
    picker = launch(
        browser, simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest"
    )
    _, fields = form_fields(picker.content.decode())
    answer = browser.post(
        "/lti/deep-link/", {**fields, "problem_set": problem_set.pk}
    )
    action, response_fields = form_fields(answer.content.decode())
    assert requests.post(action, data={"JWT": response_fields["JWT"]}, timeout=5).ok

    # Past the grace period the old key leaves the JWKS.
    ToolKey.objects.filter(kid=old_kid).update(retired_at=timezone.now() - timedelta(hours=73))
    published = [key["kid"] for key in Client().get("/lti/jwks/").json()["keys"]]
    assert published == [new_kid]

"""LTI 1.3 launches from the simulated platform: login initiation, role mapping, accounts and
enrolments, our JWKS, and the launches that must be refused."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.test import Client

from accounts.models import Enrollment, Role, User
from lms.models import LtiContext, LtiUserLink
from tests.lms.conftest import launch, make_problem_set, start_login
from tests.lms.loopback_platform import new_rsa_key
from tests.lms.simulator import PlatformSimulator

pytestmark = pytest.mark.django_db


def bind_link(platform: Any, simulator: PlatformSimulator, owner: Any) -> dict[str, Any]:
    """Return launch keyword arguments for a link placed by deep linking on a new problem set.

    The instructor launches once first so the LMS course exists in Cutoff.
    """
    from lms.services import PROBLEM_SET_PARAMETER, deep_link_reference

    launch(Client(), simulator, "teacher-1", ["Instructor"], message_type="LtiDeepLinkingRequest")
    course = LtiContext.objects.get(platform=platform).course
    problem_set = make_problem_set(course, owner)
    reference = deep_link_reference(platform=platform, problem_set=problem_set)
    return {"custom": {PROBLEM_SET_PARAMETER: reference}, "problem_set": problem_set}


def test_login_initiation_redirects_to_the_platform_with_state_and_nonce(
    simulator: PlatformSimulator, platform: Any
) -> None:
    redirect = start_login(Client(), simulator, "learner-1")
    assert redirect.url == simulator.url("/auth")
    params = redirect.params
    assert params["client_id"] == simulator.client_id
    assert params["response_type"] == "id_token" and params["response_mode"] == "form_post"
    assert params["scope"] == "openid" and params["prompt"] == "none"
    assert params["login_hint"] == "learner-1" and params["lti_message_hint"] == "hint-1"
    assert params["redirect_uri"] == "http://testserver/lti/launch/"
    assert params["state"] and params["nonce"]


def test_login_initiation_from_an_unknown_platform_is_refused_clearly(
    simulator: PlatformSimulator, platform: Any
) -> None:
    response = Client().post(
        "/lti/login/", {"iss": "https://unknown.example.edu", "login_hint": "x", "client_id": "c"}
    )
    assert response.status_code == 400
    assert b"no active platform is registered" in response.content
    response = Client().get("/lti/login/")
    assert response.status_code == 400 and b"Could not find issuer" in response.content


def test_learner_launch_creates_a_student_enrolled_in_the_lms_course(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    owner, _ = instructor
    link = bind_link(platform, simulator, owner)
    browser = Client()
    response = launch(browser, simulator, "learner-1", ["Learner"], custom=link["custom"])
    assert response.status_code == 200, response.content
    assert b"Minimax quiz" in response.content
    user = LtiUserLink.objects.get(platform=platform, subject="learner-1").user
    assert user.role == Role.STUDENT
    assert (user.first_name, user.email) == ("Learner-1", "learner-1@lms.example.edu")
    context = LtiContext.objects.get(platform=platform, context_id="course-ai")
    assert context.course.title == "Artificial Intelligence"
    assert Enrollment.objects.get(user=user, course=context.course).role == Role.STUDENT
    # The platform's owner teaches the course made for the LMS course.
    assert Enrollment.objects.get(user=owner, course=context.course).role == Role.INSTRUCTOR
    # The browser now has a session as that student.
    assert int(browser.session["_auth_user_id"]) == user.pk

    again = launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"])
    assert again.status_code == 200
    assert LtiUserLink.objects.filter(platform=platform, subject="learner-1").count() == 1
    assert User.objects.filter(lti_links__platform=platform).count() == 2  # learner, teacher


def test_an_existing_account_with_the_generated_name_is_never_handed_over(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    import hashlib

    from accounts.services import create_account

    link = bind_link(platform, simulator, instructor[0])
    digest = hashlib.sha256(b"learner-1").hexdigest()[:20]
    squatter, _ = create_account(username=f"lti-{platform.pk}-{digest}", role=Role.STUDENT)
    assert (
        launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"]).status_code
        == 200
    )
    linked = LtiUserLink.objects.get(subject="learner-1").user
    assert linked != squatter and linked.username == f"{squatter.username}-2"


def test_instructor_launch_maps_to_an_instructor_of_the_course(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    owner, _ = instructor
    link = bind_link(platform, simulator, owner)
    response = launch(Client(), simulator, "teacher-2", ["Instructor"], custom=link["custom"])
    assert response.status_code == 200, response.content
    user = LtiUserLink.objects.get(subject="teacher-2").user
    assert user.role == Role.INSTRUCTOR
    problem_set = link["problem_set"]
    [open_url] = re.findall(r'href="(/lti/continue/[^"]+)"', response.content.decode())
    opened = Client().get(open_url)
    assert (
        opened.status_code == 302 and opened["Location"] == f"/teach/problem-sets/{problem_set.pk}/"
    )
    course = LtiContext.objects.get(platform=platform).course
    assert Enrollment.objects.get(user=user, course=course).role == Role.INSTRUCTOR


def test_a_learner_seen_before_becomes_instructor_when_the_lms_says_so(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    launch(Client(), simulator, "ta-1", ["Learner"], custom=link["custom"])
    launch(Client(), simulator, "ta-1", ["Instructor"], custom=link["custom"])
    user = LtiUserLink.objects.get(subject="ta-1").user
    assert user.role == Role.INSTRUCTOR
    assert user.enrollments.get().role == Role.INSTRUCTOR


def test_a_student_new_to_a_published_problem_set_gets_a_variant_generated(
    simulator: PlatformSimulator,
    platform: Any,
    instructor: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from exercises.models import ProblemSet, Variant

    link = bind_link(platform, simulator, instructor[0])
    problem_set = link["problem_set"]
    ProblemSet.objects.filter(pk=problem_set.pk).update(status=ProblemSet.Status.READY)
    with django_capture_on_commit_callbacks(execute=True):
        response = launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"])
    assert b"being generated" in response.content
    user = LtiUserLink.objects.get(subject="learner-1").user
    variant = Variant.objects.get(problem_set=problem_set, student=user)
    assert ProblemSet.objects.get(pk=problem_set.pk).status == ProblemSet.Status.READY
    again = launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"])
    assert f'data-assignment="{variant.pk}"'.encode() in again.content
    [open_url] = re.findall(r'href="(/lti/continue/[^"]+)"', again.content.decode())
    assert Client().get(open_url)["Location"] == f"/assignments/{variant.pk}/items/1/"


def test_a_draft_problem_set_is_left_for_the_instructor_to_publish(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    from exercises.models import Variant

    link = bind_link(platform, simulator, instructor[0])
    response = launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"])
    assert b"your instructor publishes it" in response.content
    assert not Variant.objects.exists()


def test_roles_cutoff_does_not_serve_are_refused(
    simulator: PlatformSimulator, platform: Any
) -> None:
    response = launch(Client(), simulator, "mentor-1", ["Mentor"])
    assert response.status_code == 403
    assert b"instructors, teaching assistants and learners" in response.content
    assert not LtiUserLink.objects.filter(subject="mentor-1").exists()


def test_a_link_not_yet_placed_by_deep_linking_explains_what_to_do(
    simulator: PlatformSimulator, platform: Any
) -> None:
    response = launch(Client(), simulator, "learner-1", ["Learner"])
    assert response.status_code == 404
    assert b"Select content" in response.content


def test_a_forged_reference_to_a_problem_set_is_refused(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    from lms.services import PROBLEM_SET_PARAMETER

    link = bind_link(platform, simulator, instructor[0])
    forged = {PROBLEM_SET_PARAMETER: link["custom"][PROBLEM_SET_PARAMETER][:-2] + "xx"}
    response = launch(Client(), simulator, "learner-1", ["Learner"], custom=forged)
    assert response.status_code == 403 and b"altered" in response.content


def test_our_jwks_publishes_the_public_keys_only(
    simulator: PlatformSimulator, platform: Any
) -> None:
    response = Client().get("/lti/jwks/")
    assert response.status_code == 200
    keys = response.json()["keys"]
    assert [key["kid"] for key in keys] == [platform.tool_key.kid]
    assert keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and keys[0]["use"] == "sig"
    assert "d" not in keys[0] and "p" not in keys[0]


# --- refused launches ---------------------------------------------------------------------


def test_a_launch_with_a_forged_signature_is_refused(
    simulator: PlatformSimulator, platform: Any
) -> None:
    other_key, _ = new_rsa_key()
    response = launch(
        Client(),
        simulator,
        "learner-1",
        ["Learner"],
        sign=lambda claims: simulator.sign(claims, private_key_pem=other_key),
    )
    assert response.status_code == 403
    assert b"Signature verification failed" in response.content
    assert not LtiUserLink.objects.exists()


def test_a_launch_signed_with_an_unknown_key_is_refused(
    simulator: PlatformSimulator, platform: Any
) -> None:
    other_key, other_public = new_rsa_key()
    response = launch(
        Client(),
        simulator,
        "learner-1",
        ["Learner"],
        sign=lambda claims: simulator.sign(claims, private_key_pem=other_key, kid="other"),
    )
    assert response.status_code == 403 and b"Unable to find public key" in response.content


def test_a_platform_that_rotated_its_key_is_trusted_after_one_refetch(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    assert simulator.jwks_requests == 1  # fetched once, then cached
    simulator.rotate_key()
    response = launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"])
    assert response.status_code == 200, response.content
    assert simulator.jwks_requests == 2

    # A made-up kid makes Cutoff fetch the platform's keys once, not again and again.
    other_key, _ = new_rsa_key()
    for _ in range(3):
        response = launch(
            Client(),
            simulator,
            "learner-1",
            ["Learner"],
            sign=lambda claims: simulator.sign(claims, private_key_pem=other_key, kid="made-up"),
        )
        assert response.status_code == 403
    assert simulator.jwks_requests == 3


def test_an_expired_launch_is_refused(simulator: PlatformSimulator, platform: Any) -> None:
    def expire(claims: dict[str, Any]) -> None:
        claims["iat"] = int(time.time()) - 3600
        claims["exp"] = int(time.time()) - 60

    response = launch(Client(), simulator, "learner-1", ["Learner"], tamper=expire)
    assert response.status_code == 403
    assert b"expired" in response.content


def test_a_replayed_launch_is_refused(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    browser = Client()
    redirect = start_login(browser, simulator, "learner-1")
    claims = simulator.launch_claims(
        nonce=redirect.params["nonce"],
        subject="learner-1",
        roles=["Learner"],
        custom=link["custom"],
    )
    form = {"id_token": simulator.sign(claims), "state": redirect.params["state"]}
    assert browser.post("/lti/launch/", form).status_code == 200
    replay = browser.post("/lti/launch/", form)
    assert replay.status_code == 403
    assert b"already used" in replay.content


def test_a_launch_posted_from_another_browser_is_refused(
    simulator: PlatformSimulator, platform: Any
) -> None:
    redirect = start_login(Client(), simulator, "learner-1")
    claims = simulator.launch_claims(
        nonce=redirect.params["nonce"], subject="learner-1", roles=["Learner"]
    )
    response = Client().post(
        "/lti/launch/", {"id_token": simulator.sign(claims), "state": redirect.params["state"]}
    )
    assert response.status_code == 403 and b"blocked Cutoff&#x27;s cookies" in response.content


def test_a_nonce_the_tool_never_issued_is_refused(
    simulator: PlatformSimulator, platform: Any
) -> None:
    response = launch(
        Client(),
        simulator,
        "learner-1",
        ["Learner"],
        tamper=lambda claims: claims.update(nonce="made-up-nonce"),
    )
    assert response.status_code == 403 and b"already used or has expired" in response.content


def test_a_launch_for_another_audience_is_refused(
    simulator: PlatformSimulator, platform: Any
) -> None:
    response = launch(
        Client(),
        simulator,
        "learner-1",
        ["Learner"],
        tamper=lambda claims: claims.update(aud=["another-tool"], azp="another-tool"),
    )
    assert response.status_code == 403
    assert b"client id (audience) another-tool" in response.content


def test_a_launch_from_an_unknown_deployment_is_refused(
    simulator: PlatformSimulator, platform: Any
) -> None:
    from tests.lms.simulator import LTI

    response = launch(
        Client(),
        simulator,
        "learner-1",
        ["Learner"],
        tamper=lambda claims: claims.update({LTI + "deployment_id": "rogue"}),
    )
    assert response.status_code == 403 and b"Unable to find deployment" in response.content


def test_a_launch_from_a_deactivated_platform_is_refused(
    simulator: PlatformSimulator, platform: Any
) -> None:
    browser = Client()
    redirect = start_login(browser, simulator, "learner-1")
    platform.is_active = False
    platform.save()
    claims = simulator.launch_claims(
        nonce=redirect.params["nonce"], subject="learner-1", roles=["Learner"]
    )
    response = browser.post(
        "/lti/launch/", {"id_token": simulator.sign(claims), "state": redirect.params["state"]}
    )
    assert response.status_code == 403 and b"no active platform" in response.content


@pytest.mark.parametrize(
    "form",
    [
        {},
        {"id_token": "x"},
        {"id_token": "not-a-jwt", "state": "state-unknown"},
        {"id_token": "a.b.c", "state": "state-unknown"},
    ],
)
def test_malformed_launches_get_a_4xx_page(
    simulator: PlatformSimulator, platform: Any, form: dict[str, str]
) -> None:
    response = Client().post("/lti/launch/", form)
    assert 400 <= response.status_code < 500
    assert b"<h1>" in response.content


def test_a_launch_with_a_garbled_token_body_gets_a_4xx_page(
    simulator: PlatformSimulator, platform: Any
) -> None:
    import base64

    browser = Client()
    redirect = start_login(browser, simulator, "learner-1")
    header = base64.urlsafe_b64encode(b'{"alg":"RS256","kid":"k"}').rstrip(b"=").decode()
    body = base64.urlsafe_b64encode(b"[1, 2]").rstrip(b"=").decode()
    response = browser.post(
        "/lti/launch/", {"id_token": f"{header}.{body}.c2ln", "state": redirect.params["state"]}
    )
    assert response.status_code == 400 and b"malformed id_token" in response.content


@pytest.mark.parametrize(
    ("id_token", "message"),
    [
        ("not-a-jwt", b"JWT must contain 3 parts"),
        ("a.b.c", b"can&#x27;t be decoded"),
    ],
)
def test_a_launch_with_an_id_token_that_is_no_jwt_is_refused(
    simulator: PlatformSimulator, platform: Any, id_token: str, message: bytes
) -> None:
    browser = Client()
    redirect = start_login(browser, simulator, "learner-1")
    response = browser.post(
        "/lti/launch/", {"id_token": id_token, "state": redirect.params["state"]}
    )
    assert response.status_code == 403 and message in response.content


def test_get_on_the_launch_url_is_not_allowed(platform: Any) -> None:
    assert Client().get("/lti/launch/").status_code == 405


def test_launches_answer_503_while_the_launch_cache_is_down(
    simulator: PlatformSimulator, platform: Any, settings: Any
) -> None:
    from django.core.cache import caches

    settings.CACHES = {
        **settings.CACHES,
        "unreachable": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        },
    }
    settings.LTI_CACHE_ALIAS = "unreachable"
    try:
        response = Client().post(
            "/lti/login/",
            {"iss": simulator.issuer, "client_id": simulator.client_id, "login_hint": "x"},
        )
        assert response.status_code == 503 and b"try again in a minute" in response.content
    finally:
        caches["unreachable"].close()


def test_a_launch_works_while_redis_is_down(
    simulator: PlatformSimulator, platform: Any, instructor: Any, settings: Any
) -> None:
    from django.core.cache import caches

    link = bind_link(platform, simulator, instructor[0])
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        },
    }
    try:
        response = launch(Client(), simulator, "learner-1", ["Learner"], custom=link["custom"])
        assert response.status_code == 200, response.content
    finally:
        caches["default"].close()


def test_production_keeps_launch_state_in_the_database() -> None:
    import subprocess
    import sys

    from tests.conftest import REPO

    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "x" * 50,
        "DATABASE_URL": "postgres://u@127.0.0.1/db",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
    }
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.CACHES[settings.LTI_CACHE_ALIAS]['BACKEND'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "django.core.cache.backends.db.DatabaseCache"


def test_a_link_copied_with_its_lms_course_brings_a_draft_copy_of_its_problem_set(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    from exercises.models import ProblemSet
    from lms.models import LtiResourceLink

    link = bind_link(platform, simulator, instructor[0])
    original = link["problem_set"]
    # A Canvas course copy (a Moodle restore): new course and link ids, the same custom
    # parameters, so the reference still names the old course's set.
    copied = {"custom": link["custom"], "context_id": "course-ai-2027",
              "resource_link_id": "link-1-copy"}
    early = launch(Client(), simulator, "learner-1", ["Learner"], **copied)
    assert early.status_code == 409 and b"your instructor opens the link once" in early.content
    assert not LtiResourceLink.objects.filter(resource_link_id="link-1-copy").exists()

    for _ in range(2):  # the second launch opens the same copy
        response = launch(Client(), simulator, "teacher-1", ["Instructor"], **copied)
        assert response.status_code == 200, response.content
    copy = LtiResourceLink.objects.get(resource_link_id="link-1-copy").problem_set
    assert copy.pk != original.pk and copy.status == ProblemSet.Status.DRAFT
    assert copy.course == LtiContext.objects.get(context_id="course-ai-2027").course
    assert [(i.kind, i.params, i.points) for i in copy.items.order_by("position")] == [
        (i.kind, i.params, i.points) for i in original.items.order_by("position")]
    assert ProblemSet.objects.count() == 2
    assert b"a draft" in response.content

    student = launch(Client(), simulator, "learner-1", ["Learner"], **copied)
    assert student.status_code == 200 and b"your instructor publishes it" in student.content
    # An instructor of another LMS course who never taught the old one gets no copy.
    other = launch(Client(), simulator, "teacher-2", ["Instructor"], custom=link["custom"],
                   context_id="course-ml", resource_link_id="link-ml")
    assert other.status_code == 403 and b"do not teach" in other.content
    assert ProblemSet.objects.count() == 2


def test_a_copied_link_whose_set_cannot_be_copied_any_more_is_a_409_storing_nothing(
    simulator: PlatformSimulator, platform: Any, instructor: Any
) -> None:
    from exercises.kinds import get_kind
    from exercises.models import Item, ProblemSet
    from lms.models import LtiResourceLink

    link = bind_link(platform, simulator, instructor[0])
    # Params stored before creation sampled them: two MIN nodes of two leaves cannot cut twice.
    impossible = get_kind("alphabeta").clean_params(
        {"depth": 2, "min_branching": 2, "max_branching": 2, "min_cuts": 2})
    Item.objects.filter(problem_set=link["problem_set"]).update(kind="alphabeta",
                                                                params=impossible)
    response = launch(Client(), simulator, "teacher-1", ["Instructor"], custom=link["custom"],
                      context_id="course-ai-2027", resource_link_id="link-1-copy")
    assert response.status_code == 409
    text = response.content.decode()
    assert "its problem set cannot be copied here" in text and "fewer than min_cuts" in text
    assert ProblemSet.objects.count() == 1
    assert not LtiResourceLink.objects.filter(resource_link_id="link-1-copy").exists()

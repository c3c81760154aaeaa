"""Register platforms, turn LTI launches into accounts and enrolments, answer deep links,
sync rosters (NRPS) and send scores back to the LMS (AGS)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any, cast
from urllib.parse import urlparse, urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.core import signing
from django.db import transaction
from django.utils import timezone
from jwcrypto.jwk import JWK
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem as AgsLineItem
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.names_roles import NamesRolesProvisioningService

from accounts.models import Course, Enrollment, Role, User
from accounts.selectors import is_course_instructor
from accounts.services import create_account, create_course, enroll
from config.api import ApiError
from config.jsonsafe import clean_text
from config.outbound import check_url_host, guarded_session, refusal_in
from config.publishing import published
from exercises.models import ProblemSet
from exercises.services import copy_problem_set, fail_problem_set, generate_late_variants
from lms.lti.tool import CachedTokenConnector, with_token_retry
from lms.models import (
    LineItem,
    LtiContext,
    LtiResourceLink,
    LtiUserLink,
    Platform,
    ScorePassback,
    ToolKey,
)
from lms.selectors import (
    AGS_SCORE_SCOPE,
    problem_set_max_score,
    problem_set_progress,
    problem_set_score,
    resource_links_for_passback,
)

logger = logging.getLogger(__name__)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
CONTEXT_CLAIM = CLAIM + "context"
RESOURCE_LINK_CLAIM = CLAIM + "resource_link"
CUSTOM_CLAIM = CLAIM + "custom"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
# The custom parameter a deep link carries: a signed reference to the chosen problem set.
PROBLEM_SET_PARAMETER = "cutoff_problem_set"
DEEP_LINK_SALT = "lti.deep-link.problem-set"
LINE_ITEM_TAG = "cutoff-score"
DEEP_LINK_DATA_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
DEEP_LINKING_SETTINGS_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


class LtiLaunchError(Exception):
    """A launch Cutoff refuses, with the message the user sees and an HTTP status."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class PassbackRetryableError(Exception):
    """The LMS could not take a score right now (network, 5xx, 429): try again later."""


# --- platforms -------------------------------------------------------------------------------


def create_tool_key() -> ToolKey:
    """Generate and store a 2048-bit RSA key pair; its kid is the JWK thumbprint."""
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public_pem = (
        private_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    kid = JWK.from_pem(public_pem.encode()).thumbprint()
    return ToolKey.objects.create(kid=kid, private_key_pem=private_pem, public_key_pem=public_pem)


def register_platform(
    *,
    owner: User,
    name: str,
    issuer: str,
    client_id: str,
    deployment_ids: list[str],
    auth_login_url: str,
    auth_token_url: str,
    key_set_url: str,
    auth_audience: str = "",
    integer_score_maximum: bool = False,
) -> Platform:
    """Register an LMS, with a key pair of its own for the messages we sign for it.

    The owner must be an instructor: the courses created for the LMS's courses are theirs.
    The platform's URLs must resolve to public addresses unless ``CUTOFF_ALLOW_PRIVATE_URLS``
    is set; every service call checks again (:mod:`config.outbound`).
    """
    if not owner.is_instructor:
        raise ApiError(
            "only instructors may register an LMS platform",
            code="permission_denied",
            status_code=403,
        )
    check_platform_urls({"auth_login_url": auth_login_url, "auth_token_url": auth_token_url,
                         "key_set_url": key_set_url})
    with transaction.atomic():
        existing = Platform.objects.filter(issuer=issuer, client_id=client_id).first()
        if existing is not None:
            mine = existing.owner_id == owner.pk
            raise ApiError(
                "a platform with this issuer and client id is already registered"
                + (
                    f"; change it with POST /api/v1/lti/platforms/{existing.pk}/update/ or "
                    f"reactivate it with POST /api/v1/lti/platforms/{existing.pk}/activate/"
                    if mine
                    else " by another instructor"
                ),
                code="conflict",
                status_code=409,
                details={
                    "issuer": issuer,
                    "client_id": client_id,
                    **({"platform": existing.pk} if mine else {}),
                },
            )
        return Platform.objects.create(
            owner=owner,
            name=name,
            issuer=issuer,
            client_id=client_id,
            deployment_ids=deployment_ids,
            auth_login_url=auth_login_url,
            auth_token_url=auth_token_url,
            key_set_url=key_set_url,
            auth_audience=auth_audience,
            integer_score_maximum=integer_score_maximum,
            tool_key=create_tool_key(),
        )


PLATFORM_URL_FIELDS = ("auth_login_url", "auth_token_url", "key_set_url")
"""A platform's URLs Cutoff calls (or sends browsers to): public addresses only."""


def check_platform_urls(urls: dict[str, str]) -> None:
    """Raise a 400 :class:`ApiError` naming each of ``urls`` (field name to URL) whose host
    may not be called server-side (:func:`config.outbound.check_url_host`)."""
    refused = {name: [refusal] for name, url in urls.items()
               if (refusal := check_url_host(urlsplit(url).hostname or "")) is not None}
    if refused:
        name, reasons = next(iter(refused.items()))
        raise ApiError(f"{name}: {reasons[0]}", details=refused)


PLATFORM_EDITABLE_FIELDS = (
    "name",
    "deployment_ids",
    "auth_login_url",
    "auth_token_url",
    "key_set_url",
    "auth_audience",
    "integer_score_maximum",
)


def update_platform(*, platform: Platform, **changes: Any) -> Platform:
    """Change what Cutoff knows of ``platform`` (its issuer and client id identify it and
    stay); a new key set URL is fetched at the next launch. New URLs are checked as at
    registration (:func:`check_platform_urls`)."""
    unknown = sorted(set(changes) - set(PLATFORM_EDITABLE_FIELDS))
    if unknown:
        raise ApiError(
            "these fields cannot be changed: " + ", ".join(unknown),
            code="invalid",
            details={"fields": unknown},
        )
    check_platform_urls({name: str(changes[name]) for name in PLATFORM_URL_FIELDS
                         if name in changes})
    for name, value in changes.items():
        setattr(platform, name, value)
    if changes:
        platform.save(update_fields=list(changes))
    return platform


def rotate_tool_key(*, platform: Platform) -> Platform:
    """Give ``platform`` a new signing key pair; the old one is retired, and stays in our
    JWKS for ``LTI_TOOL_KEY_GRACE_HOURS`` so messages signed with it still verify."""
    with transaction.atomic():
        locked = Platform.objects.select_for_update().select_related("tool_key").get(
            pk=platform.pk
        )
        old_key = locked.tool_key
        locked.tool_key = create_tool_key()
        locked.save(update_fields=["tool_key"])
        if not old_key.platforms.exists():
            old_key.retired_at = timezone.now()
            old_key.save(update_fields=["retired_at"])
    return locked


def activate_platform(*, platform: Platform) -> Platform:
    """Accept launches from ``platform`` and send it scores again, starting with every
    graded student's current total on each of its links: grades recorded while it was
    inactive made no passback."""
    from grading.models import Submission  # grading's scores are read, never written here

    with transaction.atomic():
        locked = Platform.objects.select_for_update().get(pk=platform.pk)
        was_active, locked.is_active = locked.is_active, True
        locked.save(update_fields=["is_active"])
        if not was_active:
            for link in locked.resource_links.select_related("problem_set"):
                if AGS_SCORE_SCOPE not in link.ags_scopes:
                    continue
                graded = Submission.objects.filter(
                    variant_item__variant__problem_set=link.problem_set,
                    status=Submission.Status.GRADED,
                    student__lti_links__platform=locked,
                ).order_by("student_id").values_list("student_id", flat=True).distinct()
                for student_id in graded:
                    passback = ScorePassback.objects.create(resource_link=link,
                                                            student_id=student_id)
                    transaction.on_commit(functools.partial(send_passback, passback.pk))
    return locked


def deactivate_platform(*, platform: Platform) -> Platform:
    """Stop accepting launches from ``platform`` and sending it scores (its links stay)."""
    platform.is_active = False
    platform.save(update_fields=["is_active"])
    return platform


# --- dynamic registration (LTI Dynamic Registration 1.0) --------------------------------------

REGISTRATION_SALT = "lti.dynamic-registration"
REGISTRATION_DAYS = 7
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
LTI_SERVICE_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
]
"""What Cutoff asks a platform for: line items, results and scores (AGS), rosters (NRPS)."""


def registration_token_for(owner: User) -> str:
    """Return the signed token of a registration URL: platforms registered through it are
    ``owner``'s (an instructor). It is valid for :data:`REGISTRATION_DAYS` days."""
    if not owner.is_instructor:
        raise ApiError(
            "only instructors may register an LMS platform",
            code="permission_denied",
            status_code=403,
        )
    return signing.dumps({"owner": owner.pk}, salt=REGISTRATION_SALT)


def registration_owner(token: str) -> User:
    """Return the instructor a registration URL's token was made for, or raise
    LtiLaunchError when it is forged or expired."""
    try:
        payload = signing.loads(token, salt=REGISTRATION_SALT, max_age=REGISTRATION_DAYS * 86400)
    except signing.BadSignature:
        raise LtiLaunchError(
            "this registration URL is not valid or has expired; make a new one in Cutoff"
        ) from None
    owner = User.objects.filter(pk=payload.get("owner"), is_active=True).first()
    if owner is None or not owner.is_instructor:
        raise LtiLaunchError("the instructor this registration URL was made for is gone")
    return owner


@dataclass(frozen=True)
class ToolUrls:
    """Cutoff's own LTI URLs, absolute, as a platform must call them."""

    login: str
    launch: str
    jwks: str
    domain: str


def register_dynamically(
    *, owner: User, openid_configuration: str, registration_token: str, tool: ToolUrls
) -> Platform:
    """Register Cutoff with the platform that opened a registration URL: read its OpenID
    configuration, send it our client registration, and store the platform it answers
    with (its client id and deployment id) as ``owner``'s.

    Both requests go through :func:`config.outbound.guarded_session`: a configuration or
    registration endpoint on a private address is refused (400) before any connection.
    """
    config = _fetch_json("GET", openid_configuration)
    issuer = str(config.get("issuer") or "")
    issuer_origin = urlparse(issuer)
    config_origin = urlparse(openid_configuration)
    if not issuer or (issuer_origin.scheme, issuer_origin.netloc) != (
        config_origin.scheme,
        config_origin.netloc,
    ):
        raise LtiLaunchError(
            f"the platform's configuration names issuer {issuer or '(none)'}, not the host "
            "its configuration came from",
            status=400,
        )
    missing = [
        name
        for name in ("registration_endpoint", "authorization_endpoint", "token_endpoint",
                     "jwks_uri")
        if not config.get(name)
    ]
    if missing:
        raise LtiLaunchError(
            "the platform's configuration lacks " + ", ".join(missing), status=400
        )
    request = {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": tool.login,
        "redirect_uris": [tool.launch],
        "client_name": "Cutoff",
        "jwks_uri": tool.jwks,
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(LTI_SERVICE_SCOPES),
        TOOL_CONFIGURATION: {
            "domain": tool.domain,
            "target_link_uri": tool.launch,
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "messages": [
                {"type": "LtiDeepLinkingRequest", "target_link_uri": tool.launch,
                 "label": "Cutoff"},
            ],
        },
    }
    answer = _fetch_json(
        "POST", str(config["registration_endpoint"]), json_body=request, token=registration_token
    )
    client_id = str(answer.get("client_id") or "")
    if not client_id:
        raise LtiLaunchError("the platform answered the registration without a client_id", 502)
    deployment_id = str((answer.get(TOOL_CONFIGURATION) or {}).get("deployment_id") or "")
    product = (config.get(PLATFORM_CONFIGURATION) or {}).get("product_family_code")
    try:
        return register_platform(
            owner=owner,
            name=str(product or issuer)[:200],
            issuer=issuer,
            client_id=client_id,
            deployment_ids=[deployment_id] if deployment_id else [],
            auth_login_url=str(config["authorization_endpoint"]),
            auth_token_url=str(config["token_endpoint"]),
            key_set_url=str(config["jwks_uri"]),
        )
    except ApiError as error:
        raise LtiLaunchError(error.message, status=error.status_code) from error


def _fetch_json(
    method: str, url: str, *, json_body: Any = None, token: str = ""
) -> dict[str, Any]:
    """Return the JSON object ``url`` answers, or raise LtiLaunchError saying why not (400
    when its address is refused, 502 when the platform did not answer as expected)."""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with guarded_session() as session:
            response = session.request(
                method, url, json=json_body, headers=headers, timeout=10
            )
        response.raise_for_status()
        body = response.json()
    except (requests.RequestException, ValueError) as error:
        refused = refusal_in(error)
        if refused is not None:
            raise LtiLaunchError(f"the platform's address is refused: {refused}", 400) from None
        message = f"the platform did not answer {url} as expected: {error}"
        raise LtiLaunchError(message, 502) from None
    if not isinstance(body, dict):
        raise LtiLaunchError(f"the platform answered {url} with something else than JSON", 502)
    return body


# --- launches --------------------------------------------------------------------------------


MEMBERSHIP_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTRUCTOR_ROLES = {"Instructor", "ContentDeveloper"}
TEACHING_ASSISTANT_SETTINGS = {
    "grader": Role.GRADER,
    "instructor": Role.INSTRUCTOR,
    "student": Role.STUDENT,
    "none": None,
}


def context_roles(roles: list[Any]) -> set[str]:
    """Return the LIS context (membership) roles among ``roles``: principal names
    (``membership#Instructor``, or a bare ``Instructor``, which LTI 1.3 reads as a context
    role) and sub-role names (``membership/Instructor#TeachingAssistant`` gives
    ``TeachingAssistant``). System and institution roles (``system/person#User``, sent for
    every signed-in user; ``institution/person#Administrator``) are left out: they say
    nothing about the course."""
    found = set()
    for role in (str(role) for role in roles):
        if role.startswith(MEMBERSHIP_ROLE + "#") or role.startswith(MEMBERSHIP_ROLE + "/"):
            found.add(role.rpartition("#")[2])
        elif "#" not in role and "/" not in role and ":" not in role:
            found.add(role)
    return found


def role_for_claims(claims: dict[str, Any]) -> str | None:
    """Map the launch's LTI context roles to a Cutoff course role, or None (refused).

    A teaching assistant (principal or sub-role) gets ``LTI_TEACHING_ASSISTANT_ROLE``
    (default grader); Instructor and ContentDeveloper → instructor; Learner → student.
    Mentors (observers), and users with system or institution roles only (an administrator
    not enrolled in the course), are refused.
    """
    roles = context_roles(claims.get(CLAIM + "roles") or [])
    if "TeachingAssistant" in roles:
        return TEACHING_ASSISTANT_SETTINGS.get(str(settings.LTI_TEACHING_ASSISTANT_ROLE))
    if roles & INSTRUCTOR_ROLES:
        return Role.INSTRUCTOR
    if "Learner" in roles:
        return Role.STUDENT
    return None


def _free_username_for(platform: Platform, subject: str) -> str:
    """Return a username for a new LMS user that no account has: ``create_account`` would
    otherwise hand over an existing account of that name."""
    base = f"lti-{platform.pk}-{hashlib.sha256(subject.encode()).hexdigest()[:20]}"
    username, suffix = base, 1
    while User.objects.filter(username=username).exists():
        suffix += 1
        username = f"{base}-{suffix}"
    return username


def link_user(*, platform: Platform, subject: str, role: str, profile: dict[str, Any]) -> User:
    """Return the account linked to the platform user ``subject``, creating it on first
    sight; an instructor role in the LMS makes the account an instructor.

    Accounts are never linked by e-mail: a platform's word about an address must not open
    an account created elsewhere.
    """
    with transaction.atomic():
        link = (
            LtiUserLink.objects.select_related("user")
            .filter(platform=platform, subject=subject)
            .first()
        )
        account_role = Role.INSTRUCTOR if role == Role.INSTRUCTOR else Role.STUDENT
        if link is None:
            user, _ = create_account(
                username=_free_username_for(platform, subject), role=account_role
            )
            LtiUserLink.objects.create(platform=platform, subject=subject, user=user)
        else:
            user = link.user
            if role == Role.INSTRUCTOR and not user.is_instructor:
                user, _ = create_account(username=user.username, role=Role.INSTRUCTOR)
        _update_profile(user, profile)
    return user


def _update_profile(user: User, profile: dict[str, Any]) -> None:
    """Keep the name and e-mail the platform sends (launch claims or NRPS member fields):
    ``given_name``/``family_name``, else the whole ``name`` as the first name."""
    # They come from the LMS unchecked: text PostgreSQL refuses is replaced.
    given = clean_text(str(profile.get("given_name") or ""), None)
    family = clean_text(str(profile.get("family_name") or ""), None)
    if not given and not family:
        given = clean_text(str(profile.get("name") or ""), None)
    fields = {
        "first_name": given[:150],
        "last_name": family[:150],
        "email": clean_text(str(profile.get("email") or ""), None)[:254],
    }
    changed = [name for name, value in fields.items() if value and getattr(user, name) != value]
    for name in changed:
        setattr(user, name, fields[name])
    if changed:
        user.save(update_fields=changed)


def context_for(*, platform: Platform, claim: dict[str, Any]) -> LtiContext:
    """Return the Cutoff side of the LMS course ``claim``, creating its course (taught by the
    platform's owner) on first launch."""
    context_id = str(claim.get("id") or "")
    if not context_id:
        raise LtiLaunchError("the launch does not say which course it comes from", status=400)
    title = str(claim.get("title") or claim.get("label") or "LMS course")[:200]
    context = LtiContext.objects.filter(platform=platform, context_id=context_id).first()
    if context is not None:
        return context
    digest = hashlib.sha256(f"{platform.pk}:{context_id}".encode()).hexdigest()[:12]
    slug = f"lti-{platform.pk}-{digest}"
    with transaction.atomic():
        # A concurrent first launch may have created the course already: reuse it.
        course = Course.objects.filter(slug=slug).first() or create_course(
            creator=platform.owner, slug=slug, title=title
        )
        context, _ = LtiContext.objects.get_or_create(
            platform=platform, context_id=context_id, defaults={"title": title, "course": course}
        )
    return context


@dataclass(frozen=True)
class Launch:
    """Who launched, in which role, from which LMS course."""

    platform: Platform
    user: User
    role: str
    context: LtiContext


CLAIM_SHAPES: dict[str, tuple[type, str]] = {
    CLAIM + "roles": (list, "a list of role URIs"),
    CONTEXT_CLAIM: (dict, "an object"),
    RESOURCE_LINK_CLAIM: (dict, "an object"),
    CUSTOM_CLAIM: (dict, "an object of custom parameters"),
    AGS_CLAIM: (dict, "an object"),
    NRPS_CLAIM: (dict, "an object"),
    DEEP_LINKING_SETTINGS_CLAIM: (dict, "an object"),
}
"""The claims a launch reads, each with the JSON type it must have when present."""
LIST_MEMBERS = {CLAIM + "roles": "roles", AGS_CLAIM: "scope"}
"""Lists of strings: the roles claim itself, and the grade service's scopes."""


def check_claim_shapes(claims: dict[str, Any]) -> None:
    """Refuse a launch whose claims Cutoff reads have the wrong JSON type, naming the claim
    and what it must be (a signed launch of the wrong shape was a 500)."""
    for claim, (shape, described) in CLAIM_SHAPES.items():
        if claim in claims and claims[claim] is not None and not isinstance(claims[claim],
                                                                            shape):
            raise LtiLaunchError(f"the LMS sent the claim {claim} as "
                                 f"{type(claims[claim]).__name__}; it must be {described}",
                                 status=400)
    for claim, member in LIST_MEMBERS.items():
        value = claims.get(claim)
        listed = value if claim == CLAIM + "roles" else (value or {}).get(member)
        if listed is not None and not (isinstance(listed, list)
                                       and all(isinstance(entry, str) for entry in listed)):
            raise LtiLaunchError(f"the LMS sent {member} in the claim {claim} as "
                                 f"{type(listed).__name__}; it must be a list of strings",
                                 status=400)


def accept_launch(*, platform: Platform, claims: dict[str, Any]) -> Launch:
    """Link the launching user, enrol them in the LMS course's Cutoff course in their role,
    and remember the course's roster service."""
    check_claim_shapes(claims)
    role = role_for_claims(claims)
    if role is None:
        raise LtiLaunchError(
            "Cutoff is open to the course's instructors, teaching assistants and learners "
            "(observers, mentors and administrators not enrolled in the course are not "
            "let in); the LMS gave roles "
            + ", ".join(str(role) for role in claims.get(CLAIM + "roles") or ["(none)"])
        )
    context_claim = claims.get(CONTEXT_CLAIM)
    if not isinstance(context_claim, dict):
        raise LtiLaunchError("Cutoff must be launched from inside a course", status=400)
    user = link_user(platform=platform, subject=str(claims["sub"]), role=role, profile=claims)
    context = context_for(platform=platform, claim=context_claim)
    enroll(course=context.course, user=user, role=role)
    memberships_url = (claims.get(NRPS_CLAIM) or {}).get("context_memberships_url") or ""
    if memberships_url and context.memberships_url != memberships_url:
        context.memberships_url = memberships_url
        context.save(update_fields=["memberships_url"])
    return Launch(platform=platform, user=user, role=role, context=context)


def resource_link_for(*, launch: Launch, claims: dict[str, Any]) -> LtiResourceLink:
    """Return the problem set behind the launched LMS link, binding it on first launch from
    the signed reference the deep link left in the link's custom parameters; store the
    link's grade service."""
    link_claim = claims.get(RESOURCE_LINK_CLAIM) or {}
    resource_link_id = str(link_claim.get("id") or "")
    link = (
        LtiResourceLink.objects.select_related("problem_set")
        .filter(platform=launch.platform, resource_link_id=resource_link_id)
        .first()
    )
    if link is None:
        problem_set = _problem_set_from_reference(launch, claims)
        if problem_set.course_id != launch.context.course_id:
            # Two launches of a copied link at once make one copy: the second waits here,
            # then finds the link the first bound.
            LtiContext.objects.select_for_update().filter(pk=launch.context.pk).first()
            link = LtiResourceLink.objects.select_related("problem_set").filter(
                platform=launch.platform, resource_link_id=resource_link_id).first()
            if link is None:
                problem_set = _copy_for_copied_course(launch, problem_set)
    if link is None:
        link, _ = LtiResourceLink.objects.get_or_create(
            platform=launch.platform,
            resource_link_id=resource_link_id,
            defaults={
                "context": launch.context,
                "problem_set": problem_set,
                "title": str(link_claim.get("title") or "")[:255],
            },
        )
    if link.problem_set.course_id != launch.context.course_id:
        raise LtiLaunchError(
            "this link opens a problem set of another course; add it again to this course "
            "with “Select content” (deep linking)"
        )
    _remember_grade_service(link, claims.get(AGS_CLAIM))
    return link


def _copy_for_copied_course(launch: Launch, original: ProblemSet) -> ProblemSet:
    """Return a draft copy, in the launch's course, of the problem set a link copied with
    its LMS course (a Canvas course copy, a Moodle backup restored) still names.

    The LMS gives the copied course and link new ids but keeps the link's custom parameters,
    so the reference names the old course's set. Its instructor's first launch copies it
    (new seed, no variants, no submissions; they review the dates and publish it); students
    launching before that are told to wait, and an instructor who does not teach the old
    course is refused (the copy would hand them its items and keys).
    """
    if launch.role != Role.INSTRUCTOR:
        raise LtiLaunchError(
            "this link was copied from another LMS course and its problem set is not in this "
            "course yet: your instructor opens the link once to bring it here; come back "
            "later", status=409)
    if not is_course_instructor(launch.user, original.course_id):
        raise LtiLaunchError(
            "this link was copied from another LMS course and opens a problem set of a "
            "course you do not teach in Cutoff; add one of this course's problem sets with "
            "“Select content” (deep linking)")
    try:
        copy = copy_problem_set(original, course=launch.context.course, creator=launch.user)
    except ApiError as refused:  # the old set's params break a rule made since
        raise LtiLaunchError(
            f"this link was copied from another LMS course, but its problem set cannot be "
            f"copied here ({refused.message}); add one with “Select content”",
            status=409) from refused
    logger.info("LMS link copied with its course: problem set %s copied to %s in course %s",
                original.pk, copy.pk, launch.context.course_id)
    return copy


def _problem_set_from_reference(launch: Launch, claims: dict[str, Any]) -> ProblemSet:
    reference = (claims.get(CUSTOM_CLAIM) or {}).get(PROBLEM_SET_PARAMETER)
    if not reference:
        raise LtiLaunchError(
            "this LMS link is not connected to a Cutoff problem set yet; the instructor adds "
            "one with “Select content” (deep linking)",
            status=404,
        )
    try:
        payload = signing.loads(str(reference), salt=DEEP_LINK_SALT)
    except signing.BadSignature:
        raise LtiLaunchError("the link's problem set reference was altered; add it again") from None
    if payload.get("platform") != launch.platform.pk:
        raise LtiLaunchError("the link's problem set reference belongs to another LMS")
    problem_set = ProblemSet.objects.filter(pk=payload.get("problem_set")).first()
    if problem_set is None:
        raise LtiLaunchError("the problem set behind this link was deleted", status=404)
    return problem_set


def _remember_grade_service(link: LtiResourceLink, endpoint: Any) -> None:
    if not isinstance(endpoint, dict):
        return
    scopes = [str(scope) for scope in endpoint.get("scope") or []]
    lineitems_url = str(endpoint.get("lineitems") or "")
    if (scopes, lineitems_url) != (link.ags_scopes, link.ags_lineitems_url):
        link.ags_scopes, link.ags_lineitems_url = scopes, lineitems_url
        link.save(update_fields=["ags_scopes", "ags_lineitems_url"])
    line_item_url = endpoint.get("lineitem")
    if line_item_url:
        LineItem.objects.update_or_create(
            resource_link=link, defaults={"url": str(line_item_url)[:500]}
        )


def generate_missing_variants(problem_set: ProblemSet, student: User | None = None) -> bool:
    """Start generating the variants of students enrolled after the problem set was
    published (LMS users arrive at their first launch or roster sync), or only
    ``student``'s; return whether it is being generated.

    Only a published set is extended (idempotently, also while it is generating for
    others): a draft stays the instructor's to publish. When a newcomer's variant cannot be
    generated the set turns ``failed`` with the reason (for its instructors to see) and the
    launch or sync goes on.
    """
    try:
        return generate_late_variants(problem_set, None if student is None else [student.pk])
    except ApiError as refused:
        if refused.error_code != "generation_failed":
            raise
        fail_problem_set(problem_set.pk, refused.message)
        return False


def scores_for_platform(
    platform: Platform, given: Decimal, maximum: Decimal
) -> tuple[Decimal, Decimal]:
    """Return (score given, score maximum) as ``platform`` takes them: unchanged, or, for a
    platform taking whole-number maximums only, both multiplied by the smallest whole
    number making the maximum whole (7.5 → 15 and 4 → 8: the ratio stays exact)."""
    if not platform.integer_score_maximum or maximum == maximum.to_integral_value():
        return given, maximum
    factor = Fraction(maximum).denominator
    return given * factor, maximum * factor


# --- deep linking ----------------------------------------------------------------------------


def deep_link_reference(*, platform: Platform, problem_set: ProblemSet) -> str:
    """Return the signed problem-set reference a deep link stores in the LMS."""
    payload = {"platform": platform.pk, "problem_set": problem_set.pk}
    return signing.dumps(payload, salt=DEEP_LINK_SALT)


def accepts_multiple(claims: dict[str, Any]) -> bool:
    """Return whether a deep-linking request lets the instructor pick several items."""
    accept_multiple = (claims.get(DEEP_LINKING_SETTINGS_CLAIM) or {}).get("accept_multiple")
    return accept_multiple is True or str(accept_multiple).lower() == "true"


def deep_link_response_jwt(
    *,
    message_launch: MessageLaunch,
    platform: Platform,
    problem_sets: list[ProblemSet],
    launch_url: str,
) -> tuple[str, str]:
    """Return (the platform's return URL, our signed LtiDeepLinkingResponse JWT) placing
    each of ``problem_sets`` as a graded resource link; several only when the request
    accepts multiple items."""
    # A dict at run time (pylti1p3 types it as a TypedDict of the claims it knows).
    claims = cast(dict[str, Any], message_launch.get_launch_data())
    if len(problem_sets) > 1 and not accepts_multiple(claims):
        raise LtiLaunchError("the LMS accepts one item here: pick one problem set", status=400)
    resources = [_deep_link_resource(platform, chosen, launch_url) for chosen in problem_sets]
    settings_claim = claims.get(DEEP_LINKING_SETTINGS_CLAIM, {})
    return_url = settings_claim.get("deep_link_return_url")
    if not return_url:
        raise LtiException("the LMS gave no deep_link_return_url to send the choice back to")
    deep_link = message_launch.get_deep_link()
    message = deep_link.get_message_jwt(resources)
    if "data" not in settings_claim:  # echoed only when the platform sent it
        del message[DEEP_LINK_DATA_CLAIM]
    return str(return_url), deep_link.encode_jwt(message)


def _deep_link_resource(
    platform: Platform, problem_set: ProblemSet, launch_url: str
) -> DeepLinkResource:
    _, maximum = scores_for_platform(
        platform, Decimal(0), problem_set_max_score(problem_set) or Decimal(1)
    )
    line_item = (
        AgsLineItem()
        .set_label(problem_set.title)
        .set_score_maximum(float(maximum))
        .set_resource_id(f"cutoff-problem-set-{problem_set.pk}")
        .set_tag(LINE_ITEM_TAG)
    )
    return (
        DeepLinkResource()
        .set_url(launch_url)
        .set_title(problem_set.title)
        .set_custom_params(
            {PROBLEM_SET_PARAMETER: deep_link_reference(platform=platform, problem_set=problem_set)}
        )
        .set_lineitem(line_item)
    )


# --- roster (NRPS) ---------------------------------------------------------------------------

# An instructor's launch resyncs the roster at most this often (instructors launch a lot).
ROSTER_SYNC_INTERVAL = timedelta(minutes=15)


def roster_sync_due(context: LtiContext) -> bool:
    """Return whether the LMS course offers NRPS and was not synced in the last interval."""
    if not context.memberships_url:
        return False
    synced = context.roster_synced_at
    return synced is None or timezone.now() - synced > ROSTER_SYNC_INTERVAL


def queue_roster_sync(context_id: int) -> bool:
    """Queue the roster sync of an LMS course; return whether the broker took it.

    A broker that is down leaves the roster as it is (logged): the instructor's launch still
    succeeds, and the next launch queues the sync again (it is still due).
    """
    from lms.tasks import sync_roster_task

    return published(sync_roster_task, context_id, what=f"roster sync of context {context_id}")


@dataclass(frozen=True)
class RosterSync:
    """What a roster sync did."""

    enrolled: int
    skipped: int
    unenrolled: int


def sync_roster(*, context: LtiContext) -> RosterSync:
    """Enrol every active member of the LMS course (Names and Role Provisioning Service) in
    its Cutoff course, creating and linking accounts as launches do, and start generating
    the newcomers' variants of the course's published problem sets.

    Students of this platform who are no longer active members (dropped, or gone from the
    roster) lose their enrolment: they leave the grade exports and get no new variants; what
    they submitted is kept. Instructors are never unenrolled by a sync, and a roster with no
    active member at all (an LMS answering with an empty list) unenrols no one."""
    if not context.memberships_url:
        raise LtiException("the platform offered no roster service (NRPS) for this course")
    platform = context.platform
    connector = CachedTokenConnector(platform)
    service = NamesRolesProvisioningService(
        connector, {"context_memberships_url": context.memberships_url}
    )
    members = with_token_retry(connector, service.get_members)
    enrolled = skipped = 0
    active: set[str] = set()
    for member in members:
        role = role_for_claims({CLAIM + "roles": member.get("roles") or []})
        subject = str(member.get("user_id") or "")
        if (member.get("status", "Active") != "Active" or role is None or not subject
                or clean_text(subject, 255) != subject):  # no id a launch could carry
            skipped += 1
            continue
        active.add(subject)
        user = link_user(platform=platform, subject=subject, role=role, profile=dict(member))
        enroll(course=context.course, user=user, role=role)
        enrolled += 1
    unenrolled = unenrol_departed_students(context, active) if active else 0
    context.roster_synced_at = timezone.now()
    context.save(update_fields=["roster_synced_at"])
    for problem_set in ProblemSet.objects.filter(course=context.course):
        generate_missing_variants(problem_set)
    return RosterSync(enrolled=enrolled, skipped=skipped, unenrolled=unenrolled)


def unenrol_departed_students(context: LtiContext, active_subjects: set[str]) -> int:
    """Remove from the context's course the students of its platform not among
    ``active_subjects``; return how many. Their variants and submissions stay."""
    departed = (
        LtiUserLink.objects.filter(
            platform=context.platform,
            user__enrollments__course=context.course,
            user__enrollments__role=Role.STUDENT,
        )
        .exclude(subject__in=active_subjects)
        .values_list("user_id", flat=True)
    )
    removed, _ = Enrollment.objects.filter(
        course=context.course, role=Role.STUDENT, user_id__in=list(departed)
    ).delete()
    return removed


# --- grade passback (AGS) --------------------------------------------------------------------


def queue_score_passbacks(*, problem_set_id: int, student_id: int) -> list[ScorePassback]:
    """Log a passback for each LMS link of the problem set and send each after the commit.

    Call it whenever a student's score on a problem set may have changed (a submission was
    graded or regraded); the score is read when it is sent, so the LMS gets the latest.
    """
    passbacks = [
        ScorePassback.objects.create(resource_link=link, student_id=student_id)
        for link in resource_links_for_passback(problem_set_id, student_id)
    ]
    for passback in passbacks:
        transaction.on_commit(functools.partial(send_passback, passback.pk))
    return passbacks


BROKER_UNREACHABLE = "the task queue was unreachable; the periodic resend sends it again"
"""A passback's ``last_error`` when its task could not be queued."""


def send_passback(passback_id: int) -> bool:
    """Queue a logged passback's task; return whether the broker took it.

    When the broker is down the passback is marked ``failed``, so the periodic sweep
    (:func:`resend_failed_passbacks`) sends it again, and the request or task that graded the
    answer still succeeds: a score is never lost to a broker outage.
    """
    from lms.tasks import send_score_passback_task

    if not published(send_score_passback_task, passback_id, what=f"score passback {passback_id}"):
        ScorePassback.objects.filter(pk=passback_id, status=ScorePassback.Status.QUEUED).update(
            status=ScorePassback.Status.FAILED, last_error=BROKER_UNREACHABLE)
        return False
    return True


def resend_score_passback(*, passback: ScorePassback) -> ScorePassback:
    """Queue ``passback`` again (it is sent with the student's latest score), unless it was
    sent already or is on its way."""
    with transaction.atomic():
        locked = ScorePassback.objects.select_for_update().get(pk=passback.pk)
        if locked.status in (ScorePassback.Status.FAILED, ScorePassback.Status.REFUSED,
                             ScorePassback.Status.SUPERSEDED):
            locked.status = ScorePassback.Status.QUEUED
            locked.save(update_fields=["status"])
            transaction.on_commit(functools.partial(send_passback, locked.pk))
    return locked


def resend_failed_passbacks(*, now: datetime | None = None) -> int:
    """Queue again the failed passbacks of the last ``LTI_PASSBACK_RESEND_HOURS`` (the LMS
    was away longer than the retries lasted); return how many.

    One per student and link, the newest, and none where a newer one was sent: the score
    sent is read when it is sent, so one passback carries the latest score.
    """
    since = (now or timezone.now()) - timedelta(hours=settings.LTI_PASSBACK_RESEND_HOURS)
    failed = ScorePassback.objects.filter(
        status=ScorePassback.Status.FAILED, created_at__gte=since
    ).order_by("-created_at", "-id")
    resent, seen = 0, set()
    for passback in failed:
        key = (passback.resource_link_id, passback.student_id)
        if key in seen:
            continue
        seen.add(key)
        newer_sent = ScorePassback.objects.filter(
            resource_link_id=passback.resource_link_id,
            student_id=passback.student_id,
            status=ScorePassback.Status.SENT,
            created_at__gt=passback.created_at,
        ).exists()
        if not newer_sent:
            resend_score_passback(passback=passback)
            resent += 1
    return resent


def send_score_passback(*, passback_id: int, final_attempt: bool) -> ScorePassback | None:
    """Send the student's current problem-set score to the link's line item and log it.

    Raises PassbackRetryableError when the LMS may take it later (unless ``final_attempt``,
    which marks the passback failed instead).
    """
    passback = (
        ScorePassback.objects.select_related(
            "resource_link__platform__tool_key", "resource_link__problem_set", "student"
        )
        .filter(pk=passback_id)
        .first()
    )
    if passback is None or passback.status == ScorePassback.Status.SENT:
        return passback
    link = passback.resource_link
    problem_set = link.problem_set
    passback.attempts += 1
    # Stamped before the score is read: of two sends racing, the one that read the older
    # score carries the older timestamp, which the platform keeps below the newer one.
    read_at = timezone.now()
    progress = problem_set_progress(problem_set, passback.student)
    passback.score_given = problem_set_score(problem_set, passback.student)
    passback.score_maximum = problem_set_max_score(problem_set)
    if progress[1] == "Pending":
        # Moodle blanks the grade of a pending score and Canvas ignores it: the platform
        # keeps the last final score until the answer being graded makes its passback.
        passback.status = ScorePassback.Status.SUPERSEDED
        passback.last_error = ""
        passback.save()
        return passback
    try:
        _post_score(passback, read_at, progress)
    except PassbackRetryableError as error:
        passback.last_error = str(error)[:2000]
        passback.status = (
            ScorePassback.Status.FAILED if final_attempt else ScorePassback.Status.RETRYING
        )
        passback.save()
        if final_attempt:
            logger.error("score passback %s failed for good: %s", passback.pk, error)
            return passback
        raise
    except LtiException as error:
        passback.last_error = str(error)[:2000]
        passback.status = ScorePassback.Status.REFUSED
        passback.save()
        logger.error("score passback %s refused: %s", passback.pk, error)
        return passback
    passback.status = ScorePassback.Status.SENT
    passback.sent_at = timezone.now()
    passback.last_error = ""
    passback.save()
    return passback


def _post_score(passback: ScorePassback, read_at: datetime, progress: tuple[str, str]) -> None:
    link = passback.resource_link
    subject = (
        LtiUserLink.objects.filter(platform=link.platform, user=passback.student)
        .values_list("subject", flat=True)
        .first()
    )
    if subject is None:
        raise LtiException("the student has no account on this LMS")
    if not passback.score_maximum:
        raise LtiException("the problem set is worth no points, so there is no score to send")
    given, maximum = scores_for_platform(
        link.platform, passback.score_given or Decimal(0), passback.score_maximum
    )
    activity, grading = progress
    grade = (
        Grade()
        .set_score_given(float(given))
        .set_score_maximum(float(maximum))
        .set_activity_progress(activity)
        .set_grading_progress(grading)
        .set_timestamp(read_at.isoformat())
        .set_user_id(subject)
    )
    connector = CachedTokenConnector(link.platform)
    try:
        with_token_retry(
            connector,
            # score_maximum was checked above; the check does not reach into the lambda.
            lambda: _put_grade(connector, link, grade, passback.score_maximum),  # type: ignore[arg-type]
        )
    except LtiServiceException as error:
        status = error.response.status_code
        # 409: the platform holds a score stamped in the same second or later (Moodle keeps
        # whole seconds), such as the one sent just before. Every send reads the score anew,
        # so the retry carries the latest score under a later timestamp.
        if status >= 500 or status in (408, 409, 429):
            raise PassbackRetryableError(str(error)) from error
        raise
    except requests.RequestException as error:
        refused = refusal_in(error)
        if refused is not None:
            raise LtiException(f"the LMS's address is refused: {refused}") from error
        raise PassbackRetryableError(f"could not reach the LMS: {error}") from error


def _put_grade(connector: CachedTokenConnector, link: LtiResourceLink, grade: Grade,
               maximum: Decimal) -> None:
    service = AssignmentsGradesService(
        connector, {"scope": link.ags_scopes, "lineitems": link.ags_lineitems_url}
    )
    service.put_grade(grade, AgsLineItem({"id": _line_item_url(link, service, maximum)}))


def _line_item_url(
    link: LtiResourceLink, service: AssignmentsGradesService, maximum: Decimal
) -> str:
    """Return the link's line item URL, finding or creating the line item on the platform
    when the launch gave none.

    Concurrent passbacks for the same link take the link's row lock first, so only one of
    them asks the platform for a line item and the others use the one it stored: the LMS
    gets one gradebook column per link.
    """
    existing = LineItem.objects.filter(resource_link=link).first()
    if existing is not None:
        return existing.url
    with transaction.atomic():
        LtiResourceLink.objects.select_for_update().filter(pk=link.pk).first()
        existing = LineItem.objects.filter(resource_link=link).first()
        if existing is not None:
            return existing.url
        return _find_or_create_line_item(link, service, maximum)


def _find_or_create_line_item(
    link: LtiResourceLink, service: AssignmentsGradesService, maximum: Decimal
) -> str:
    if not link.ags_lineitems_url:
        raise LtiException("the LMS gave this link no line item and no line items service")
    _, platform_maximum = scores_for_platform(link.platform, Decimal(0), maximum)
    wanted = (
        AgsLineItem()
        .set_label(link.problem_set.title)
        .set_score_maximum(float(platform_maximum))
        .set_resource_link_id(link.resource_link_id)
        .set_resource_id(f"cutoff-problem-set-{link.problem_set_id}")
        .set_tag(LINE_ITEM_TAG)
    )
    found = service.find_or_create_lineitem(wanted, find_by="resource_link_id")
    url = found.get_id()
    if not url:
        raise LtiException("the LMS created a line item without an id")
    LineItem.objects.update_or_create(
        resource_link=link,
        defaults={"url": url, "label": found.get_label() or "", "score_maximum": maximum},
    )
    return url


def public_jwks(keys: list[ToolKey]) -> dict[str, list[dict[str, Any]]]:
    """Return the JSON Web Key Set publishing the public halves of ``keys``."""
    published = []
    for key in keys:
        jwk = json.loads(JWK.from_pem(key.public_key_pem.encode()).export_public())
        published.append({**jwk, "kid": key.kid, "alg": "RS256", "use": "sig"})
    return {"keys": published}

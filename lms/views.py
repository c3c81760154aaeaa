"""The LTI 1.3 endpoints a platform (and the user's browser inside it) talks to: OIDC login
initiation, launch, the deep-linking picker, and our JWKS. They answer HTML (or JSON for the
JWKS); a refused launch is a clear 4xx page, never a 500 (a 503 while the cache is down)."""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import parse_qs, urlencode, urlparse

import jwt
from django.conf import settings
from django.contrib.auth import login
from django.core import signing
from django.core.cache import caches
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from pylti1p3.exception import LtiException, OIDCException
from redis.exceptions import RedisError

from accounts.models import Role, User
from config.api import whole_number
from config.jsonsafe import UnsafeJson
from exercises.models import ProblemSet, Variant
from lms import services
from lms.lti import tool
from lms.models import LtiContext, LtiResourceLink
from lms.selectors import problem_sets_for_deep_linking, tool_keys_in_use

logger = logging.getLogger(__name__)

# Signs the picker's selection token: which launch, LMS course and instructor it is for. It
# stands in for a session, which a frame without third-party cookies does not keep.
DEEP_LINK_SELECTION_SALT = "lti.deep-link-selection"


# pylti1p3's terse messages, said so a user (or an LMS administrator) knows what happened.
EXPLANATIONS = {
    "Invalid Nonce": "this launch was already used or has expired (nonce); start it again "
    "from the LMS",
    "State not found": "the launch did not start in this browser, or the browser blocked "
    "Cutoff's cookies (state); start it again from the LMS",
}


def refused(request: HttpRequest, error: Exception) -> HttpResponse:
    """Render a launch pylti1p3 (or our platform lookup) refused, as a 403 page."""
    reason = EXPLANATIONS.get(str(error), str(error))
    return error_page(request, f"The LMS launch was refused: {reason}.", status=403)


def error_page(request: HttpRequest, message: str, status: int) -> HttpResponse:
    """Render a refused LTI request: what went wrong and what to do, with a 4xx status."""
    return render(request, "lti/error.html", {"message": message}, status=status)


def needs_launch_cache(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Answer 503 with a clear page while the shared cache holding launch state is down."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except RedisError:
            logger.exception("the LTI launch cache is unreachable")
            return error_page(
                request, "Cutoff cannot open LMS launches right now; try again in a minute.", 503
            )

    return wrapper


def refuses_lti_errors(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Answer any launch error pylti1p3 raises outside the view's own handling as a 403 page
    (which the LMS can frame), never as a 500."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except LtiException as error:
            return refused(request, error)

    return wrapper


def launch_url(request: HttpRequest) -> str:
    """Return our absolute launch (redirect) URL."""
    return request.build_absolute_uri(reverse("lti-launch"))


@csrf_exempt
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
@needs_launch_cache
def login_view(request: HttpRequest) -> HttpResponse:
    """Start an LTI launch (OIDC third-party login): send the browser back to the platform's
    authorization endpoint with a fresh state and nonce.

    A platform offering its postMessage storage (``lti_storage_target``) gets a page that
    stores a proof of the state there first, for the launch to find without cookies; a
    framed login without it gets a page that goes on in the frame only if the browser keeps
    cookies there. Both show an "open in a new window" link when the frame cannot go on.
    """
    params = request.POST if request.method == "POST" else request.GET
    storage_target = params.get("lti_storage_target", "")
    framed = request.headers.get("Sec-Fetch-Dest") == "iframe"
    try:
        login, cookies = tool.oidc_login(request)
        if not storage_target and not framed:
            return login.redirect(launch_url(request))
        auth_url = login.get_redirect_object(launch_url(request)).get_redirect_url()
    except (OIDCException, LtiException) as error:
        return error_page(request, f"The LMS login could not start: {error}.", status=400)
    state = parse_qs(urlparse(auth_url).query)["state"][0]
    new_window_params = {name: params[name] for name in NEW_WINDOW_PARAMETERS if params.get(name)}
    login_data = {
        "auth_url": auth_url,
        "auth_origin": _origin(auth_url),
        "storage_target": storage_target,
        "state": state,
        "proof": tool.issue_storage_proof(state) if storage_target else "",
    }
    response = render(
        request,
        "lti/login_framed.html",
        {
            "login_data": login_data,
            "new_window_url": f"{reverse('lti-login')}?{urlencode(new_window_params)}",
        },
    )
    cookies.update_response(response)
    return response


# The login parameters an "open in a new window" link repeats (without the storage target,
# so the new window uses its own, first-party, cookies).
NEW_WINDOW_PARAMETERS = (
    "iss",
    "client_id",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "lti_deployment_id",
)


def _origin(url: str) -> str:
    parts = urlparse(url)
    return f"{parts.scheme}://{parts.netloc}"


def _state_proof_refusal(request: HttpRequest, state: str) -> HttpResponse | None:
    """Return the answer to a launch without its state cookie (blocked third-party cookies),
    or None when its platform storage proof holds.

    Without a proof, a launch from a platform with postMessage storage gets a page that
    reads the proof there and posts the launch again with it; the second post must come
    from that page (same origin), so another site cannot replay a launch into a browser.
    """
    proof = request.POST.get("lti_storage_proof")
    storage_target = request.POST.get("lti_storage_target", "")
    if proof is None and storage_target:
        return _storage_check_page(request, storage_target)
    if proof is None:
        return error_page(
            request,
            "The LMS launch was refused: the browser blocked Cutoff's cookies inside the LMS "
            "page (third-party cookies), so Cutoff cannot tell that this launch started in "
            "this browser. Open the activity in a new window (the LMS offers it in the "
            "activity's settings), or allow cookies for this site.",
            status=403,
        )
    same_origin = request.headers.get("Origin") == _origin(request.build_absolute_uri("/"))
    if not same_origin or not tool.consume_storage_proof(state, proof):
        return error_page(
            request,
            "The LMS launch was refused: the LMS page's storage did not hold this launch's "
            "proof; start it again from the LMS.",
            status=403,
        )
    return None


def _storage_check_page(request: HttpRequest, storage_target: str) -> HttpResponse:
    try:
        unverified = jwt.decode(request.POST["id_token"], options={"verify_signature": False})
        client_id = tool.client_id_of(unverified)
        platform = tool.PlatformToolConf().platform(str(unverified["iss"]), client_id)
    except (jwt.PyJWTError, KeyError, TypeError, IndexError):
        return error_page(request, "The LMS launch was refused: malformed id_token.", 400)
    check_data = {
        "auth_origin": _origin(platform.auth_login_url),
        "storage_target": storage_target,
        "state": request.POST["state"],
    }
    fields = {"id_token": request.POST["id_token"], "state": request.POST["state"]}
    return render(
        request, "lti/launch_storage_check.html", {"check_data": check_data, "fields": fields}
    )


@csrf_exempt
@xframe_options_exempt
@require_POST
@needs_launch_cache
@refuses_lti_errors
def launch_view(request: HttpRequest) -> HttpResponse:
    """Accept a signed launch from a platform: resource links open their problem set, deep
    linking requests show the instructor's problem sets to pick from."""
    if not request.POST.get("id_token") or not request.POST.get("state"):
        return error_page(
            request, "This launch carries no id_token or state; start it from the LMS.", 400
        )
    try:
        tool.check_id_token_claims(request.POST["id_token"])
    except UnsafeJson as error:
        return error_page(request, f"The LMS launch was refused: the claims' {error}.", 400)
    message_launch = tool.message_launch(request)
    state = request.POST["state"]
    if not request.COOKIES.get(f"lti1p3-{state}"):
        refusal = _state_proof_refusal(request, state)
        if refusal is not None:
            return refusal
        message_launch.state_proven_by_storage = True
    try:
        # A dict at run time (pylti1p3 types it as a TypedDict of the claims it knows).
        claims = cast(dict[str, Any], message_launch.get_launch_data())
    except LtiException as error:
        return refused(request, error)
    except (AttributeError, KeyError, TypeError, ValueError):
        logger.info("malformed LTI id_token", exc_info=True)
        return error_page(request, "The LMS launch was refused: malformed id_token.", 400)
    is_deep_link = message_launch.is_deep_link_launch()
    try:
        platform = tool.PlatformToolConf().platform(claims["iss"], message_launch.get_client_id())
        with transaction.atomic():
            launch = services.accept_launch(platform=platform, claims=claims)
            if is_deep_link:
                if launch.role != Role.INSTRUCTOR:
                    raise services.LtiLaunchError(
                        "only instructors can choose what Cutoff content to add"
                    )
            elif message_launch.is_resource_launch():
                link = services.resource_link_for(launch=launch, claims=claims)
                roster_sync_queued = launch.role == Role.INSTRUCTOR and services.roster_sync_due(
                    launch.context
                )
                if roster_sync_queued:
                    context_id = launch.context.pk
                    transaction.on_commit(lambda: services.queue_roster_sync(context_id))
            else:
                raise services.LtiLaunchError(
                    "Cutoff handles resource links and deep linking only", status=400
                )
    except services.LtiLaunchError as error:
        return error_page(request, error.message, status=error.status)
    except LtiException as error:
        return refused(request, error)
    # After the commit: a session saved inside a rolled-back transaction would be lost.
    login(request, launch.user, backend="django.contrib.auth.backends.ModelBackend")
    if is_deep_link:
        return _deep_link_picker(request, launch, message_launch.get_launch_id(), claims)
    return _resource_page(request, launch, link, roster_sync_queued)


def _deep_link_picker(
    request: HttpRequest, launch: services.Launch, launch_id: str, claims: dict[str, Any]
) -> HttpResponse:
    selection = signing.dumps(
        {"launch": launch_id, "context": launch.context.pk, "user": launch.user.pk},
        salt=DEEP_LINK_SELECTION_SALT,
    )
    context = {
        "course": launch.context.course,
        "problem_sets": problem_sets_for_deep_linking(launch.context),
        "launch_id": launch_id,
        "selection": selection,
        "multiple": services.accepts_multiple(claims),
    }
    return render(request, "lti/deep_link_picker.html", context)


CONTINUE_SALT = "lti.continue-in-new-window"
CONTINUE_SECONDS = 300


def _continue_url(user_id: int, path: str) -> str:
    """Return a link signing ``user_id`` in at the top level and opening ``path``: a framed
    launch's session cookie may have been blocked, so its "open" links carry the sign-in."""
    token = signing.dumps({"user": user_id, "next": path}, salt=CONTINUE_SALT)
    return reverse("lti-continue", args=[token])


def _load_signed(token: str, salt: str, max_age: int) -> tuple[dict[str, Any], User | None] | None:
    """Return a signed link's payload and the active user it names (None if gone), or None
    when the token is forged or expired."""
    try:
        payload = signing.loads(token, salt=salt, max_age=max_age)
    except signing.BadSignature:
        return None
    return payload, User.objects.filter(pk=payload.get("user"), is_active=True).first()


@require_GET
def continue_view(request: HttpRequest, token: str) -> HttpResponse:
    """Sign in the user a launch page's link was made for (once, within five minutes) and
    open the Cutoff page it points to."""
    loaded = _load_signed(token, CONTINUE_SALT, CONTINUE_SECONDS)
    if loaded is None:
        return error_page(
            request, "This link has expired; open the activity again from the LMS.", 403
        )
    payload, user = loaded
    path = str(payload.get("next") or "")
    digest = hashlib.sha256(token.encode()).hexdigest()
    first_use = caches[settings.LTI_CACHE_ALIAS].add(
        f"lti-continue-{digest}", True, CONTINUE_SECONDS
    )
    if user is None or not path.startswith("/"):
        return error_page(
            request, "This link has expired; open the activity again from the LMS.", 403
        )
    if not first_use and request.user != user:
        return error_page(
            request, "This link was already used; open the activity again from the LMS.", 403
        )
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect(path)


def _resource_page(
    request: HttpRequest, launch: services.Launch, link: LtiResourceLink, roster_sync_queued: bool
) -> HttpResponse:
    problem_set, user = link.problem_set, launch.user
    if launch.role == Role.INSTRUCTOR:
        open_url = _continue_url(user.pk, reverse("pages:problem_set", args=[problem_set.pk]))
        context = {"variant": None, "generating": False, "open_url": open_url}
    elif launch.role == Role.GRADER:
        context = {"variant": None, "generating": False, "open_url": ""}
    else:
        has_variant = Variant.objects.filter(problem_set=problem_set, student=user).exists()
        if not has_variant:
            services.generate_missing_variants(problem_set, user)
        context = _assignment_context(problem_set, user)
    return render(
        request,
        "lti/launched.html",
        {
            **context,
            "problem_set": problem_set,
            "role": launch.role,
            "user": user,
            "roster_sync_queued": roster_sync_queued,
        },
    )


WAITING_SALT = "lti.waiting-for-variant"
WAITING_SECONDS = 3600
# Seconds between two reloads of the page waiting for a student's variant.
WAITING_REFRESH_SECONDS = 3


def _assignment_context(problem_set: ProblemSet, student: User) -> dict[str, Any]:
    """Return what the launch page shows a student: the link to their variant, or while it
    is generated the URL the page reloads itself from (no cookie needed)."""
    variant = Variant.objects.filter(problem_set=problem_set, student=student).first()
    if variant is not None:
        open_url = _continue_url(student.pk, reverse("pages:item", args=[variant.pk, 1]))
        return {"variant": variant, "generating": False, "open_url": open_url}
    generating = ProblemSet.objects.filter(
        pk=problem_set.pk, status=ProblemSet.Status.GENERATING
    ).exists()
    token = signing.dumps({"user": student.pk, "problem_set": problem_set.pk}, salt=WAITING_SALT)
    return {
        "variant": None,
        "generating": generating,
        "waiting_url": reverse("lti-waiting", args=[token]) if generating else "",
        "refresh_seconds": WAITING_REFRESH_SECONDS,
    }


@xframe_options_exempt
@require_GET
def waiting_view(request: HttpRequest, token: str) -> HttpResponse:
    """Show a student's launch page again while their variant is generated: it reloads
    itself until the variant is there, then links to it."""
    loaded = _load_signed(token, WAITING_SALT, WAITING_SECONDS)
    if loaded is None:
        return error_page(
            request, "This page has expired; open the activity again from the LMS.", 403
        )
    payload, user = loaded
    problem_set = ProblemSet.objects.filter(pk=payload["problem_set"]).first()
    if user is None or problem_set is None:
        return error_page(request, "This activity is no longer available in Cutoff.", 404)
    return render(
        request,
        "lti/launched.html",
        {
            **_assignment_context(problem_set, user),
            "problem_set": problem_set,
            "role": Role.STUDENT,
            "user": user,
        },
    )


@csrf_exempt
@xframe_options_exempt
@require_POST
@needs_launch_cache
def deep_link_select_view(request: HttpRequest) -> HttpResponse:
    """Answer a deep-linking launch with the problem set the instructor picked: a page that
    posts our signed LtiDeepLinkingResponse back to the platform.

    The picker's signed selection token (not a session or CSRF cookie, which a frame
    without third-party cookies lacks) says which launch and instructor it is for; each
    launch is answered once.
    """
    launch_id = request.POST.get("launch_id", "")
    loaded = _load_signed(
        request.POST.get("selection", ""), DEEP_LINK_SELECTION_SALT, settings.LTI_LAUNCH_LIFETIME
    )
    payload, user = loaded if loaded is not None else ({}, None)
    answered_key = "lti-deep-link-answered-" + hashlib.sha256(launch_id.encode()).hexdigest()
    cache = caches[settings.LTI_CACHE_ALIAS]
    if user is None or payload.get("launch") != launch_id or cache.get(answered_key):
        return error_page(
            request, "This selection has expired; choose “Select content” again in the LMS.", 403
        )
    context = (
        LtiContext.objects.select_related("platform__tool_key", "course")
        .filter(pk=payload["context"])
        .first()
    )
    if context is None:
        return error_page(request, "This LMS course is no longer linked to Cutoff.", status=404)
    picked = set(request.POST.getlist("problem_set"))
    # A pick that is no id finds no set, so the count check below refuses it.
    picked_ids = {pk for text in picked if (pk := whole_number(text)) is not None}
    problem_sets = list(problem_sets_for_deep_linking(context).filter(pk__in=picked_ids))
    if not picked or len(problem_sets) != len(picked):
        return error_page(request, "Pick one of the course's problem sets.", status=400)
    try:
        message_launch = tool.cached_launch(request, launch_id)
        return_url, response_jwt = services.deep_link_response_jwt(
            message_launch=message_launch,
            platform=context.platform,
            problem_sets=problem_sets,
            launch_url=launch_url(request),
        )
    except services.LtiLaunchError as error:
        return error_page(request, error.message, status=error.status)
    except LtiException as error:
        return error_page(request, f"The deep link could not be answered: {error}.", status=403)
    if not cache.add(answered_key, True, settings.LTI_LAUNCH_LIFETIME):
        return error_page(
            request, "This selection has expired; choose “Select content” again in the LMS.", 403
        )
    return render(
        request, "lti/deep_link_return.html", {"return_url": return_url, "jwt": response_jwt}
    )


@csrf_exempt
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
def dynamic_registration_view(request: HttpRequest, token: str) -> HttpResponse:
    """Register Cutoff with the LMS that opened this registration URL (LTI Dynamic
    Registration): GET shows what will be registered, POST (the page's button) does it and
    tells the LMS to close the registration window.

    The signed token in the URL says for which instructor; no session is needed, so it
    works in the LMS's frame without cookies.
    """
    params = request.POST if request.method == "POST" else request.GET
    openid_configuration = params.get("openid_configuration", "")
    if not openid_configuration:
        return error_page(
            request,
            "Paste this registration URL into the LMS (Moodle: Site administration → Plugins "
            "→ External tool → Manage tools → Tool URL; Canvas: Developer keys → LTI "
            "Registration); it must be opened by the LMS.",
            status=400,
        )
    try:
        owner = services.registration_owner(token)
        if request.method == "GET":
            return render(
                request,
                "lti/registration_confirm.html",
                {
                    "owner": owner,
                    "openid_configuration": openid_configuration,
                    "registration_token": params.get("registration_token", ""),
                },
            )
        platform = services.register_dynamically(
            owner=owner,
            openid_configuration=openid_configuration,
            registration_token=params.get("registration_token", ""),
            tool=services.ToolUrls(
                login=request.build_absolute_uri(reverse("lti-login")),
                launch=launch_url(request),
                jwks=request.build_absolute_uri(reverse("lti-jwks")),
                domain=request.get_host(),
            ),
        )
    except services.LtiLaunchError as error:
        return error_page(request, error.message, status=error.status)
    return render(request, "lti/registration_done.html", {"platform": platform})


@require_GET
def canvas_configuration_view(request: HttpRequest) -> JsonResponse:
    """Describe Cutoff as a Canvas LTI 1.3 developer key ("Enter URL" configuration): its
    login, launch and keys URLs, the services it uses, and the placements that open the
    deep-linking picker."""
    launch = launch_url(request)
    deep_linking = {"message_type": "LtiDeepLinkingRequest", "target_link_uri": launch}
    return JsonResponse(
        {
            "title": "Cutoff",
            "description": "Auto-graded adversarial search exercises (minimax, alpha-beta, "
            "expectiminimax, MCTS, game-playing code).",
            "oidc_initiation_url": request.build_absolute_uri(reverse("lti-login")),
            "target_link_uri": launch,
            "public_jwk_url": request.build_absolute_uri(reverse("lti-jwks")),
            "scopes": services.LTI_SERVICE_SCOPES,
            "extensions": [
                {
                    "platform": "canvas.instructure.com",
                    "domain": request.get_host(),
                    "privacy_level": "public",
                    "settings": {
                        "placements": [
                            {"placement": "assignment_selection", **deep_linking},
                            {"placement": "link_selection", **deep_linking},
                        ]
                    },
                }
            ],
            "custom_fields": {},
        }
    )


@require_GET
def jwks_view(request: HttpRequest) -> JsonResponse:
    """Publish our public keys (JWKS) so platforms can verify what we sign."""
    response = JsonResponse(services.public_jwks(list(tool_keys_in_use())))
    response["Cache-Control"] = "public, max-age=300"
    return response

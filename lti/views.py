"""The LTI 1.3 endpoints a platform (and the user's browser inside it) talks to: OIDC login
initiation, launch, the deep-linking picker, and our JWKS. They answer HTML (or JSON for the
JWKS); a refused launch is a clear 4xx page, never a 500 (a 503 while the cache is down)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, cast

from django.contrib.auth import login
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from pylti1p3.exception import LtiException, OIDCException
from redis.exceptions import RedisError

from accounts.models import Role
from config.jsonsafe import UnsafeJson
from exercises.models import Variant
from lti import services, tool
from lti.models import LtiContext, LtiResourceLink
from lti.selectors import problem_sets_for_deep_linking, tool_keys_in_use
from lti.tasks import sync_roster_task

logger = logging.getLogger(__name__)

# Deep-linking launches waiting for the instructor's pick: launch id → LtiContext id.
PENDING_DEEP_LINKS = "lti_pending_deep_links"


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


def launch_url(request: HttpRequest) -> str:
    """Return our absolute launch (redirect) URL."""
    return request.build_absolute_uri(reverse("lti-launch"))


@csrf_exempt
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
@needs_launch_cache
def login_view(request: HttpRequest) -> HttpResponse:
    """Start an LTI launch (OIDC third-party login): send the browser back to the platform's
    authorization endpoint with a fresh state and nonce."""
    try:
        return tool.oidc_login(request).redirect(launch_url(request))
    except (OIDCException, LtiException) as error:
        return error_page(request, f"The LMS login could not start: {error}.", status=400)


@csrf_exempt
@xframe_options_exempt
@require_POST
@needs_launch_cache
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
                    transaction.on_commit(lambda: sync_roster_task.delay(context_id))
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
        return _deep_link_picker(request, launch, message_launch.get_launch_id())
    return _resource_page(request, launch, link, roster_sync_queued)


def _deep_link_picker(
    request: HttpRequest, launch: services.Launch, launch_id: str
) -> HttpResponse:
    pending = request.session.get(PENDING_DEEP_LINKS, {})
    pending[launch_id] = launch.context.pk
    request.session[PENDING_DEEP_LINKS] = pending
    context = {
        "course": launch.context.course,
        "problem_sets": problem_sets_for_deep_linking(launch.context),
        "launch_id": launch_id,
    }
    return render(request, "lti/deep_link_picker.html", context)


def _resource_page(
    request: HttpRequest, launch: services.Launch, link: LtiResourceLink, roster_sync_queued: bool
) -> HttpResponse:
    variant = Variant.objects.filter(problem_set=link.problem_set, student=launch.user).first()
    generating = (
        variant is None
        and launch.role == Role.STUDENT
        and services.generate_missing_variants(link.problem_set)
    )
    return render(
        request,
        "lti/launched.html",
        {
            "problem_set": link.problem_set,
            "role": launch.role,
            "user": launch.user,
            "variant": variant,
            "roster_sync_queued": roster_sync_queued,
            "generating": generating,
        },
    )


@xframe_options_exempt
@require_POST
@needs_launch_cache
def deep_link_select_view(request: HttpRequest) -> HttpResponse:
    """Answer a deep-linking launch with the problem set the instructor picked: a page that
    posts our signed LtiDeepLinkingResponse back to the platform."""
    launch_id = request.POST.get("launch_id", "")
    pending = request.session.get(PENDING_DEEP_LINKS, {})
    if not request.user.is_authenticated or launch_id not in pending:
        return error_page(
            request, "This selection has expired; choose “Select content” again in the LMS.", 403
        )
    context = (
        LtiContext.objects.select_related("platform__tool_key", "course")
        .filter(pk=pending[launch_id])
        .first()
    )
    if context is None:
        return error_page(request, "This LMS course is no longer linked to Cutoff.", status=404)
    problem_set_id = request.POST.get("problem_set", "")
    problem_set = (
        problem_sets_for_deep_linking(context).filter(pk=problem_set_id).first()
        if problem_set_id.isdigit()
        else None
    )
    if problem_set is None:
        return error_page(request, "Pick one of the course's problem sets.", status=400)
    try:
        message_launch = tool.cached_launch(request, launch_id)
        return_url, response_jwt = services.deep_link_response_jwt(
            message_launch=message_launch,
            platform=context.platform,
            problem_set=problem_set,
            launch_url=launch_url(request),
        )
    except LtiException as error:
        return error_page(request, f"The deep link could not be answered: {error}.", status=403)
    del pending[launch_id]
    request.session[PENDING_DEEP_LINKS] = pending
    return render(
        request, "lti/deep_link_return.html", {"return_url": return_url, "jwt": response_jwt}
    )


@require_GET
def jwks_view(request: HttpRequest) -> JsonResponse:
    """Publish our public keys (JWKS) so platforms can verify what we sign."""
    response = JsonResponse(services.public_jwks(list(tool_keys_in_use())))
    response["Cache-Control"] = "public, max-age=300"
    return response

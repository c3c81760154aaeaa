"""Adapt pylti1p3 to Cutoff: registrations come from :class:`Platform` rows, launch state lives
in the shared LTI cache, and a nonce is accepted once only."""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast
from urllib.parse import urlparse

import jwt
import requests
from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest
from pylti1p3.actions import Action
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.contrib.django.cookie import DjangoCookieService
from pylti1p3.contrib.django.launch_data_storage.cache import DjangoCacheDataStorage
from pylti1p3.contrib.django.request import DjangoRequest
from pylti1p3.contrib.django.session import DjangoSessionService
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.launch_data_storage.base import DisableSessionId
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.tool_config.abstract import ToolConfAbstract
from redis.exceptions import RedisError

from config import jsonsafe
from config.outbound import guarded_session
from lms.models import Platform

T = TypeVar("T")

LAUNCH_CLAIMS_DEPTH = 32
"""Deepest nesting accepted in a launch's claims (real ones nest a few levels)."""

# Seconds during which one unknown kid of a platform makes us refetch its keys only once.
KEY_REFETCH_INTERVAL = 60
# Refetches of one platform's keys allowed per interval, whatever the kids.
KEY_REFETCHES_PER_INTERVAL = 5
TARGET_LINK_URI_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"
CLOCK_LEEWAY_SECONDS = 60
"""How far the platform's clock may be from ours when a launch's ``iat``, ``nbf`` and ``exp``
are checked: VM and container clocks drift by seconds."""


def client_id_of(claims: Mapping[str, Any]) -> str:
    """Return the client id an id_token's claims were issued to: ``azp`` when it is one of the
    audiences, else the only (or first) audience; "" when there is none."""
    audience = claims.get("aud")
    audiences = audience if isinstance(audience, list) else [audience]
    azp = claims.get("azp")
    if azp is not None and azp in audiences:
        return str(azp)
    return str(audiences[0]) if audiences and audiences[0] is not None else ""


def check_id_token_claims(id_token: str) -> None:
    """Raise :class:`config.jsonsafe.UnsafeJson` when the id_token's claims nest deeper than
    :data:`LAUNCH_CLAIMS_DEPTH` or carry text the database cannot store.

    Checked before pylti1p3 reads the token, which would recurse through (and cache) such
    claims; a token that is not even well formed is left for pylti1p3 to refuse.
    """
    parts = id_token.split(".")
    if len(parts) != 3:
        return
    try:
        payload = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
        jsonsafe.loads(payload, max_depth=LAUNCH_CLAIMS_DEPTH)
    except jsonsafe.UnsafeJson:
        raise
    except (ValueError, binascii.Error):
        return


def registration_for(platform: Platform) -> Registration:
    """Return the pylti1p3 registration describing ``platform`` and our key for it."""
    registration = Registration()
    registration.set_issuer(platform.issuer)
    registration.set_client_id(platform.client_id)
    registration.set_auth_login_url(platform.auth_login_url)
    registration.set_auth_token_url(platform.auth_token_url)
    # pylti1p3 types it str but reads None as "no audience: the token URL".
    registration.set_auth_audience(platform.auth_audience or None)  # type: ignore[arg-type]
    registration.set_key_set_url(platform.key_set_url)
    registration.set_tool_private_key(platform.tool_key.private_key_pem)
    registration.set_tool_public_key(platform.tool_key.public_key_pem)
    return registration


class PlatformToolConf(ToolConfAbstract):
    """Find registrations and deployments among the active :class:`Platform` rows.

    An issuer may have several client ids (one per registration), so lookups always use
    both; the client id of a launch is its `aud`, which is how a token meant for another
    tool is refused.
    """

    def check_iss_has_one_client(self, iss: str) -> bool:
        """Return False: every lookup uses the issuer and the client id."""
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        """Return True: every lookup uses the issuer and the client id."""
        return True

    def platform(self, iss: str, client_id: str | None) -> Platform:
        """Return the active platform for ``iss`` and ``client_id`` or raise LtiException."""
        if not client_id:
            raise LtiException(f"the token from {iss} does not name a client id (audience)")
        platform = (
            Platform.objects.select_related("tool_key")
            .filter(issuer=iss, client_id=client_id, is_active=True)
            .first()
        )
        if platform is None:
            raise LtiException(
                f"no active platform is registered with issuer {iss} and client id "
                f"(audience) {client_id}"
            )
        return platform

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration:
        """Refuse: a registration is always found by issuer and client id."""
        raise LtiException("a client id is needed to find the platform registration")

    def find_registration_by_params(
        self, iss: str, client_id: str, *args: Any, **kwargs: Any
    ) -> Registration:
        """Return the registration of the platform ``iss`` / ``client_id``.

        Login initiation may come without ``client_id`` (it is optional in LTI 1.3): the
        issuer's only active platform is meant then. Launches always name it (``aud``).
        """
        if not client_id and kwargs.get("action") == Action.OIDC_LOGIN:
            return registration_for(self.only_platform_of(iss))
        return registration_for(self.platform(iss, client_id))

    def only_platform_of(self, iss: str) -> Platform:
        """Return the one active platform with issuer ``iss`` or raise LtiException."""
        platforms = list(
            Platform.objects.select_related("tool_key").filter(issuer=iss, is_active=True)[:2]
        )
        if len(platforms) != 1:
            raise LtiException(
                f"the LMS sent no client_id and {len(platforms) or 'no'} active platforms are "
                f"registered with issuer {iss}; the LMS must send client_id"
                if platforms
                else f"no active platform is registered with issuer {iss}"
            )
        return platforms[0]

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        """Refuse: a deployment is always found by issuer and client id."""
        raise LtiException("a client id is needed to find the deployment")

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str, *args: Any, **kwargs: Any
    ) -> Deployment | None:
        """Return the deployment if the platform lists ``deployment_id``, else None."""
        if deployment_id not in self.platform(iss, client_id).deployment_ids:
            return None
        return Deployment().set_deployment_id(deployment_id)


class SharedCacheLaunchStorage(DjangoCacheDataStorage):
    """Keep pylti1p3's state in the LTI cache, which is shared by every web process.

    Keys are not prefixed with a per-browser session cookie: a framed launch whose browser
    blocks third-party cookies has none. Nonces and states are random and single-use, and
    the browser is bound to its launch by the state cookie or, without cookies, by the
    platform storage proof (:func:`issue_storage_proof`).
    """

    _session_cookie_name = ""

    def __init__(self) -> None:
        super().__init__(cache_name=settings.LTI_CACHE_ALIAS)

    def consume_value(self, key: str) -> bool:
        """Delete ``key`` and return whether it was there (atomic in Redis and LocMem)."""
        return bool(self._get_cache().delete(self._prepare_key(key)))


class SingleUseNonceSessionService(DjangoSessionService):
    """Accept each nonce once: pylti1p3 only checks that it exists, so a replayed id_token
    would otherwise be accepted again."""

    data_storage: SharedCacheLaunchStorage

    def check_nonce(self, nonce: str) -> bool:
        """Consume ``nonce`` and return whether it had been issued and not yet used."""
        return self.data_storage.consume_value(self._get_key("nonce", nonce))


STORAGE_PROOF_SECONDS = 300
"""How long the proof a login initiation leaves in the platform's storage stays usable."""


def _storage_proof_key(state: str) -> str:
    return "lti-storage-proof-" + hashlib.sha256(state.encode()).hexdigest()


def issue_storage_proof(state: str) -> str:
    """Return a fresh secret for the login ``state``, kept for the launch to prove that it
    comes back to the browser that started the login (which stored it in the platform's
    postMessage storage, as a state cookie would be stored without third-party cookies)."""
    proof = secrets.token_urlsafe(24)
    caches[settings.LTI_CACHE_ALIAS].set(_storage_proof_key(state), proof, STORAGE_PROOF_SECONDS)
    return proof


def consume_storage_proof(state: str, proof: str) -> bool:
    """Return whether ``proof`` is the secret issued for ``state``; it is usable once."""
    cache = caches[settings.LTI_CACHE_ALIAS]
    key = _storage_proof_key(state)
    expected = cache.get(key)
    if not isinstance(expected, str) or not cache.delete(key):
        return False
    return hmac.compare_digest(expected, proof)


class RotationAwareMessageLaunch(DjangoMessageLaunch):
    """Check a launch fully: fetch the platform's keys again when a token's kid is not among
    the cached ones (the platform may have rotated its key), and refuse what pylti1p3 lets
    through: no ``exp``, an ``azp`` naming another client, a ``target_link_uri`` of another
    host.

    Each unknown kid costs at most one refetch a minute, and a platform at most
    :data:`KEY_REFETCHES_PER_INTERVAL` a minute: made-up kids cannot make us hammer the
    platform, nor use up the refetch a rotated key needs (limits are per platform, not per
    key set URL, which Canvas instances share).

    ``state_proven_by_storage`` is set when the browser proved the state with the platform
    storage proof instead of the state cookie (which a framed launch may not have);
    ``expected_host`` is the host (and port) the launch was posted to.
    """

    state_proven_by_storage = False
    expected_host = ""

    def validate_state(self) -> RotationAwareMessageLaunch:
        """Check the state by its cookie, unless the platform storage proof already did."""
        if self.state_proven_by_storage:
            return self
        super().validate_state()
        return self

    def validate_deployment(self) -> RotationAwareMessageLaunch:
        """Check the deployment id, naming the one received when it is not registered."""
        try:
            super().validate_deployment()
        except LtiException as error:
            if str(error) != "Unable to find deployment":
                raise
            raise LtiException(
                f"Unable to find deployment {self._get_deployment_id()!r}: add this deployment "
                "id to the platform's deployment_ids in Cutoff"
            ) from None
        return self

    def get_client_id(self) -> str:
        """Return the client id the id_token was issued to: its ``azp`` when that is one of
        its audiences (OpenID Connect: a token for several audiences names the one meant),
        else its only or first audience."""
        return client_id_of(self._get_jwt_body())

    def validate_jwt_signature(self) -> RotationAwareMessageLaunch:
        """Check the signature and the times with :data:`CLOCK_LEEWAY_SECONDS` of leeway
        (pylti1p3 allows none: a platform clock a second ahead refused every launch), then
        the claims the signature makes trustworthy."""
        public_key, key_alg = self.get_public_key()
        try:
            jwt.decode(self._get_id_token(), public_key, algorithms=[key_alg],
                       options=cast(Any, self._jwt_verify_options), leeway=CLOCK_LEEWAY_SECONDS)
        except jwt.InvalidTokenError as error:
            raise LtiException(f"Can't decode id_token: {error}") from error
        body = self._get_jwt_body()
        if not isinstance(body.get("exp"), int | float):
            raise LtiException("the id_token has no expiry time (exp)")
        azp = body.get("azp")
        audience = body.get("aud")
        client_id = self.get_client_id()
        if azp is not None and azp != client_id:
            raise LtiException(f"the id_token was issued to another client (azp {azp})")
        if isinstance(audience, list) and len(audience) > 1 and azp is None:
            raise LtiException("the id_token names several audiences but no azp")
        target = body.get(TARGET_LINK_URI_CLAIM)
        if target and self.expected_host and urlparse(str(target)).netloc != self.expected_host:
            raise LtiException(f"the launch is meant for another tool (target_link_uri {target})")
        return self

    def get_public_key(self) -> tuple[str, str]:
        """Return the key matching the token's kid, refetching the key set once if needed."""
        try:
            return super().get_public_key()
        except LtiException:
            if not self._refetch_allowed():
                raise
            # Set by the validation that got this far, before any key was looked up.
            self._registration.set_key_set(None)  # type: ignore[union-attr]
            return super().get_public_key()

    def _refetch_allowed(self) -> bool:
        storage = self._public_key_cache_data_storage
        registration = self._registration
        key_set_url = registration.get_key_set_url() if registration else None
        if (
            registration is None or not isinstance(storage, SharedCacheLaunchStorage)
            or not key_set_url
        ):
            return False
        platform = f"{registration.get_issuer()}|{registration.get_client_id()}"
        scope = hashlib.sha256(platform.encode()).hexdigest()[:32]
        kid = str(self._jwt.get("header", {}).get("kid"))
        cache = caches[settings.LTI_CACHE_ALIAS]
        kid_key = f"lti-key-refetch-{scope}-{hashlib.sha256(kid.encode()).hexdigest()[:32]}"
        if not cache.add(kid_key, True, KEY_REFETCH_INTERVAL):
            return False
        budget_key = f"lti-key-refetches-{scope}"
        cache.add(budget_key, 0, KEY_REFETCH_INTERVAL)
        try:
            used = cache.incr(budget_key)
        except ValueError:  # the interval ended between the two calls
            cache.set(budget_key, used := 1, KEY_REFETCH_INTERVAL)
        if used > KEY_REFETCHES_PER_INTERVAL:
            return False
        digest = hashlib.md5(key_set_url.encode()).hexdigest()  # noqa: S324 - pylti1p3's key
        with DisableSessionId(storage):
            storage.consume_value(f"key-set-url-{digest}")
        return True


def _storage_and_session(request: HttpRequest) -> tuple[SharedCacheLaunchStorage, Any]:
    storage = SharedCacheLaunchStorage()
    session_service = SingleUseNonceSessionService(DjangoRequest(request))
    # Set now, not only when pylti1p3 gets to it, so the launch lifetime can be set first.
    session_service.set_data_storage(storage)
    return storage, session_service


def oidc_login(request: HttpRequest) -> tuple[DjangoOIDCLogin, DjangoCookieService]:
    """Return a pylti1p3 OIDC login for ``request`` backed by Cutoff's platforms and cache,
    and the cookie service that sets its state cookie on the response we answer with."""
    storage, session_service = _storage_and_session(request)
    cookie_service = DjangoCookieService(DjangoRequest(request))
    login = DjangoOIDCLogin(
        request,
        PlatformToolConf(),
        session_service=session_service,
        cookie_service=cookie_service,
        launch_data_storage=storage,
    )
    login.set_launch_data_lifetime(settings.LTI_LAUNCH_LIFETIME)
    return login, cookie_service


def message_launch(request: HttpRequest) -> RotationAwareMessageLaunch:
    """Return a pylti1p3 message launch for ``request`` (validated on first use)."""
    storage, session_service = _storage_and_session(request)
    launch = RotationAwareMessageLaunch(
        request,
        PlatformToolConf(),
        session_service=session_service,
        launch_data_storage=storage,
        requests_session=guarded_session(),
    )
    launch.set_launch_data_lifetime(settings.LTI_LAUNCH_LIFETIME)
    launch.set_public_key_caching(SharedCacheLaunchStorage(), settings.LTI_PLATFORM_KEYS_LIFETIME)
    launch.expected_host = request.get_host()
    return launch


def cached_launch(request: HttpRequest, launch_id: str) -> RotationAwareMessageLaunch:
    """Return the already validated launch ``launch_id`` (e.g. to answer a deep link)."""
    storage, session_service = _storage_and_session(request)
    # pylti1p3 types from_cache as returning MessageLaunch; it builds ``cls``.
    return cast(RotationAwareMessageLaunch, RotationAwareMessageLaunch.from_cache(
        launch_id,
        request,
        PlatformToolConf(),
        session_service=session_service,
        launch_data_storage=storage,
        requests_session=guarded_session(),
    ))


ACCESS_TOKEN_SECONDS = 300
"""How long a platform's OAuth2 access token is reused: well inside the hour Moodle and Canvas
grant. One the platform rejects sooner (401) is forgotten and fetched again."""


class CachedTokenConnector(ServiceConnector):
    """Reuse a platform's access tokens across passbacks and roster syncs, in the LTI cache.

    pylti1p3 keeps a token only for the life of one connector, so each passback would ask
    the platform for a new token first: twice the requests, and platforms rate-limit their
    token endpoints.
    """

    def __init__(self, platform: Platform) -> None:
        # Every call reaches only checked addresses (config.outbound).
        super().__init__(registration_for(platform), requests_session=guarded_session())
        # A platform whose token URL or client id is edited gets new tokens.
        self._identity = f"{platform.pk}|{platform.auth_token_url}|{platform.client_id}|"
        self._keys_used: set[str] = set()

    def get_access_token(self, scopes: Sequence[str]) -> str:
        """Return a cached token for ``scopes``, or ask the platform for one and cache it."""
        wanted = self._identity + "|".join(sorted(scopes))
        key = "lti-access-token-" + hashlib.sha256(wanted.encode()).hexdigest()
        self._keys_used.add(key)
        cache = caches[settings.LTI_CACHE_ALIAS]
        try:
            token = cache.get(key)
        except RedisError:
            token = None  # no cache: a token per passback, as without one
        if token is None:
            token = super().get_access_token(scopes)
            with contextlib.suppress(RedisError):
                cache.set(key, token, ACCESS_TOKEN_SECONDS)
        return str(token)

    def make_service_request(self, scopes: Sequence[str], url: str, is_post: bool = False,
                             data: str | None = None, content_type: str = "application/json",
                             accept: str = "application/json",
                             case_insensitive_headers: bool = False) -> Any:
        """Return pylti1p3's answer to a service request, with the next page read from the
        ``Link`` header as RFC 8288 writes it: pylti1p3 found only ``rel="next"`` right after
        the address (a ``rel=next`` ended a roster at its first page, and the sync then
        unenrolled everyone on the others) and lowercased the address it returned."""
        answer = super().make_service_request(
            scopes, url, is_post=is_post, data=data, content_type=content_type, accept=accept,
            case_insensitive_headers=True)
        answer["next_page_url"] = next_page_url(answer["headers"].get("link", ""))
        if not case_insensitive_headers:
            answer["headers"] = dict(answer["headers"])
        return answer

    def forget_access_tokens(self) -> None:
        """Drop the tokens this connector used (the platform rejected one)."""
        self._access_tokens.clear()
        with contextlib.suppress(RedisError):
            caches[settings.LTI_CACHE_ALIAS].delete_many(list(self._keys_used))


def next_page_url(link_header: str) -> str | None:
    """Return the address a ``Link`` header gives with the relation ``next`` (quoted or not,
    among other relations or parameters), as written; None when there is none."""
    for link in requests.utils.parse_header_links(link_header.replace("\n", " ")):
        if "next" in str(link.get("rel", "")).lower().split() and link.get("url"):
            return str(link["url"])
    return None


def with_token_retry(connector: CachedTokenConnector, call: Callable[[], T]) -> T:
    """Return ``call()``; if the platform answers 401, forget the tokens and call once more.

    A cached token can be revoked or expire early on the platform's side.
    """
    try:
        return call()
    except LtiServiceException as error:
        if error.response.status_code != 401:
            raise
        connector.forget_access_tokens()
        return call()

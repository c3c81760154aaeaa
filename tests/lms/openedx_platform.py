"""Open edX as the LMS: the LTI 1.3 platform classes of Open edX's ``lti-consumer-xblock``
(PyPI, ``requirements-interop.lock``) serving on 127.0.0.1, so an implementation nobody here
wrote signs and checks the messages Cutoff exchanges with an LMS.

Why in this process and not a separate Open edX: the package's dependencies sit beside
Cutoff's pins without changing any of them, and its ``lti_consumer.lti_1p3`` modules (the
consumer, its key handlers, the AGS/NRPS/deep-linking claims) and the DRF serializers and
permissions of ``lti_1p3.extensions.rest_framework`` run without the XBlock runtime, the
modulestore or Open edX's database tables (its models declare their app label, so importing
them needs no INSTALLED_APPS entry). What Open edX keeps in its ``LtiConfiguration`` and
``LtiAgsLineItem`` rows (the tool's keyset URL, the line items, the scores) lives in this
object instead; every check of a message is Open edX's own code:

- launch: ``LtiAdvantageConsumer.prepare_preflight_url`` starts OIDC login initiation and
  ``generate_launch_request`` checks Cutoff's authentication request (redirect URI, client
  id, state, nonce) and signs the id_token with the platform key;
- deep linking: ``check_and_decode_deep_linking_token`` verifies Cutoff's response JWT
  against Cutoff's JWKS (fetched over HTTP from the keyset URL), and each content item goes
  through the serializer Open edX's deep-linking endpoint uses for its type;
- AGS: the token endpoint is ``LtiConsumer1p3.access_token`` (the tool's client assertion
  verified against its JWKS), every service request passes ``LtiAgsPermissions`` (the
  access token's signature, issuer and scope), line items go through
  ``LtiAgsLineItemSerializer`` (a whole-number ``scoreMaximum``, a resource link id that is
  an Open edX usage key) and scores through ``LtiAgsScoreSerializer``, with the media types
  of Open edX's parsers;
- NRPS: the membership is rendered by ``LtiNrpsContextMembershipPIISerializer`` behind
  ``LtiNrpsContextMembershipsPermissions``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, urlparse

from lti_consumer.data import Lti1p3LaunchData
from lti_consumer.lti_1p3.consumer import LtiAdvantageConsumer
from lti_consumer.lti_1p3.extensions.rest_framework.constants import (
    LTI_DL_CONTENT_TYPE_SERIALIZER_MAP,
)
from lti_consumer.lti_1p3.extensions.rest_framework.parsers import (
    LineItemParser,
    LineItemScoreParser,
)
from lti_consumer.lti_1p3.extensions.rest_framework.permissions import (
    LtiAgsPermissions,
    LtiNrpsContextMembershipsPermissions,
)
from lti_consumer.lti_1p3.extensions.rest_framework.serializers import (
    LtiAgsLineItemSerializer,
    LtiAgsScoreSerializer,
    LtiNrpsContextMembershipPIISerializer,
)
from rest_framework.utils.encoders import JSONEncoder

from tests.lms.loopback_platform import LoopbackPlatform

# Where the test browser reaches Cutoff (see tests/lms/test_openedx_interop.py, browser()).
TOOL = "http://localhost"
COURSE = "course-v1:CutoffX+AI101+2026"


def usage_key(block: str) -> str:
    """Return the Open edX usage key of an LTI block of the course (a resource link id)."""
    return f"block-v1:CutoffX+AI101+2026+type@lti_consumer+block@{block}"


@dataclass
class OpenEdxPlatform(LoopbackPlatform):
    """One Open edX LTI configuration (an LTI 1.3 block's tool settings) and its HTTP
    endpoints. Call :meth:`start`, register it with Cutoff, then drive launches."""

    tool_keyset_url: str
    client_id: str = "openedx-client-1"
    deployment_id: str = "1"
    members: list[dict[str, Any]] = field(default_factory=list)
    line_items: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: list[dict[str, Any]] = field(default_factory=list)
    deep_link_items: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._launches: dict[str, LtiAdvantageConsumer] = {}

    def registration(self) -> dict[str, Any]:
        """Return what an instructor enters in Cutoff for this Open edX (Open edX takes
        whole-number line item maximums only)."""
        return {
            "name": "Open edX",
            "issuer": self.issuer,
            "client_id": self.client_id,
            "deployment_ids": [self.deployment_id],
            "auth_login_url": self.url("/auth"),
            "auth_token_url": self.url("/token"),
            "key_set_url": self.url("/jwks"),
            "integer_score_maximum": True,
        }

    # --- the consumer ---------------------------------------------------------------------

    def consumer(self) -> LtiAdvantageConsumer:
        """Return Open edX's consumer for this configuration, as its ``get_lti_consumer``
        builds one per request (deep linking on)."""
        consumer = LtiAdvantageConsumer(
            iss=self.issuer,
            lti_oidc_url=f"{TOOL}/lti/login/",
            lti_launch_url=f"{TOOL}/lti/launch/",
            client_id=self.client_id,
            deployment_id=self.deployment_id,
            rsa_key=self.private_key_pem,
            rsa_key_id=self.kid,
            redirect_uris=[f"{TOOL}/lti/launch/"],
            tool_keyset_url=self.tool_keyset_url,
        )
        consumer.enable_deep_linking(f"{TOOL}/lti/launch/", self.url("/deep-links"))
        return consumer

    def preflight_url(
        self,
        *,
        user_id: str,
        role: str,
        block: str = "quiz1",
        message_type: str = "LtiResourceLinkRequest",
        custom: dict[str, str] | None = None,
        line_item: str | None = None,
        nrps: bool = False,
        name: str | None = None,
        email: str | None = None,
    ) -> str:
        """Return the OIDC login initiation URL Open edX sends the browser to, for
        ``user_id`` in the Open edX course ``role`` (``staff``, ``student``,
        ``Community TA``, …) on the block ``block``."""
        consumer = self.consumer()
        consumer.set_user_data(user_id, role, full_name=name, email_address=email)
        consumer.set_resource_link_claim(usage_key(block), title="Minimax quiz")
        consumer.set_context_claim(COURSE, context_title="Artificial Intelligence",
                                   context_label="AI101")
        if custom:
            consumer.set_custom_parameters(custom)
        consumer.enable_ags(
            lineitems_url=self.url("/lineitems"),
            lineitem_url=line_item,
            allow_programmatic_grade_interaction=True,
        )
        if nrps:
            consumer.enable_nrps(self.url("/memberships"))
        launch_data = Lti1p3LaunchData(
            user_id=user_id,
            user_role=role,
            config_id=self.client_id,
            resource_link_id=usage_key(block),
            message_type=message_type,
            context_id=COURSE,
        )
        url = consumer.prepare_preflight_url(launch_data)
        hint = parse_qs(urlparse(url).query)["lti_message_hint"][0]
        with self._lock:
            self._launches[hint] = consumer
        return str(url)

    def add_line_item(self, label: str, maximum: int, block: str = "quiz1") -> str:
        """Create a line item as Open edX does for a graded LTI block; return its URL."""
        item_id = self.url(f"/lineitems/{uuid.uuid4().hex[:8]}")
        self.line_items[item_id] = {
            "id": item_id, "label": label, "scoreMaximum": maximum,
            "resourceLinkId": usage_key(block),
        }
        return item_id

    # --- HTTP ---------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        parsed = urlparse(handler.path)
        path = parsed.path
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        routes = {
            ("GET", "/jwks"): self._jwks,
            ("GET", "/auth"): self._auth,
            ("POST", "/token"): self._token,
            ("POST", "/deep-links"): self._deep_links,
            ("GET", "/lineitems"): self._list_line_items,
            ("POST", "/lineitems"): self._create_line_item,
            ("GET", "/memberships"): self._memberships,
        }
        action = routes.get((method, path))
        if action is None and method == "POST" and path.endswith("/scores"):
            action = self._score
        if action is None:
            status, payload = 404, {"error": f"no route {method} {path}"}
        else:
            try:
                status, payload = action(handler, parsed.query, body)
            except Exception as error:  # noqa: BLE001 - Open edX's refusals, answered as 400
                with self._lock:
                    self.refusals.append(f"{type(error).__name__}: {error}")
                status, payload = 400, {"error": type(error).__name__, "detail": str(error)}
        # DRF's encoder, as Open edX's JSON renderers use (its member roles are a set).
        data = b"" if payload is None else json.dumps(payload, cls=JSONEncoder).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _refuse(self, status: int, reason: str) -> tuple[int, Any]:
        with self._lock:
            self.refusals.append(reason)
        return status, {"error": reason}

    def _jwks(self, handler: Any, query: str, body: bytes) -> tuple[int, Any]:
        return 200, self.consumer().get_public_keyset()

    def _auth(self, handler: Any, query: str, body: bytes) -> tuple[int, Any]:
        """Answer the tool's authentication request: Open edX's launch form fields (the
        browser auto-submits them to ``redirect_uri``)."""
        params = {key: values[0] for key, values in parse_qs(query).items()}
        with self._lock:
            consumer = self._launches.pop(params.get("lti_message_hint", ""), None)
        if consumer is None:
            return self._refuse(400, "unknown lti_message_hint")
        form = consumer.generate_launch_request(params)
        return 200, {"action": params["redirect_uri"], "fields": form}

    def _token(self, handler: Any, query: str, body: bytes) -> tuple[int, Any]:
        form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
        return 200, self.consumer().access_token(form)

    def _allowed(self, handler: Any, permission: Any, action: str) -> bool:
        """Return whether Open edX's DRF permission lets this request do ``action``."""
        if not handler.headers.get("Authorization", "").startswith("Bearer "):
            return False
        request = SimpleNamespace(
            headers={"Authorization": handler.headers["Authorization"]},
            lti_consumer=self.consumer(),
            lti_configuration=SimpleNamespace(get_lti_advantage_nrps_enabled=lambda: True),
        )
        try:
            return bool(permission.has_permission(request, SimpleNamespace(action=action)))
        except Exception:  # noqa: BLE001 - a token Open edX cannot decode is not allowed
            return False

    def _list_line_items(self, handler: Any, query: str, body: bytes) -> tuple[int, Any]:
        if not self._allowed(handler, LtiAgsPermissions(), "list"):
            return self._refuse(403, "line item list: token refused")
        return 200, list(self.line_items.values())

    def _create_line_item(self, handler: Any, query: str, body: bytes) -> tuple[int, Any]:
        if not self._allowed(handler, LtiAgsPermissions(), "create"):
            return self._refuse(403, "line item create: token refused")
        if handler.headers.get("Content-Type") != LineItemParser.media_type:
            return self._refuse(415, f"line item media type {handler.headers['Content-Type']}")
        serializer = LtiAgsLineItemSerializer(data=json.loads(body))
        if not serializer.is_valid():
            return self._refuse(400, f"line item: {serializer.errors}")
        item_id = self.url(f"/lineitems/{uuid.uuid4().hex[:8]}")
        with self._lock:
            self.line_items[item_id] = {**serializer.initial_data, "id": item_id}
        return 201, self.line_items[item_id]

    def _score(self, handler: Any, query: str, body: bytes) -> tuple[int, Any]:
        if not self._allowed(handler, LtiAgsPermissions(), "scores"):
            return self._refuse(403, "score: token refused")
        if handler.headers.get("Content-Type") != LineItemScoreParser.media_type:
            return self._refuse(415, f"score media type {handler.headers['Content-Type']}")
        line_item = self.issuer + urlparse(handler.path).path.removesuffix("/scores")
        if line_item not in self.line_items:
            return self._refuse(404, f"no line item {line_item}")
        serializer = LtiAgsScoreSerializer(data=json.loads(body))
        if not serializer.is_valid():
            return self._refuse(400, f"score: {serializer.errors}")
        with self._lock:
            self.scores.append({"line_item": line_item, **serializer.validated_data})
        return 200, serializer.data

    def _memberships(self, handler: Any, query: str, body: bytes) -> tuple[int, Any]:
        if not self._allowed(handler, LtiNrpsContextMembershipsPermissions(), "list"):
            return self._refuse(403, "memberships: token refused")
        membership = {
            "id": self.url("/memberships"),
            "context": {"id": usage_key("quiz1")},
            "members": self.members,
        }
        return 200, LtiNrpsContextMembershipPIISerializer(membership).data

    def _deep_links(self, handler: Any, query: str, body: bytes) -> tuple[int, Any]:
        """Take the tool's deep-linking response as Open edX's endpoint does: verify the
        JWT, then validate each content item with the serializer of its type."""
        form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
        items = self.consumer().check_and_decode_deep_linking_token(form["JWT"])
        accepted = []
        for item in items:
            serializer = LTI_DL_CONTENT_TYPE_SERIALIZER_MAP[item["type"]](data=item)
            serializer.is_valid(raise_exception=True)
            accepted.append({"type": item["type"], **serializer.validated_data})
        with self._lock:
            self.deep_link_items.extend(accepted)
        return 200, {"accepted": len(accepted)}

"""A local LTI 1.3 platform (an LMS) for the tests, served over HTTP on 127.0.0.1.

It signs real RS256 id_tokens with its own key and serves its JWKS; its OAuth2 token endpoint
checks the tool's signed client assertion; it takes AGS score POSTs and line item requests,
serves the NRPS roster (paged with Link headers), and receives deep-linking responses, whose
signatures it checks against the tool's JWKS.
"""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import jwt

from tests.lms.loopback_platform import LoopbackPlatform

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#"


@dataclass
class ReceivedScore:
    """A score the tool posted to a line item."""

    line_item: str
    body: dict[str, Any]
    content_type: str


@dataclass
class PlatformSimulator(LoopbackPlatform):
    """The LMS: call :meth:`start`, register it with the tool, then drive launches."""

    client_id: str = "cutoff-tool-1"
    deployment_id: str = "deployment-1"
    tool_jwks: dict[str, Any] | None = None
    tool_jwks_url: str | None = None
    members: list[dict[str, Any]] = field(default_factory=list)
    members_page_size: int = 2
    # How the roster's Link header names the next page: "quoted" (rel="next", as Moodle and
    # Canvas write it), "bare" (rel=next, after a title), or "tokens" (case-sensitive page
    # tokens in the address instead of numbers).
    page_links: str = "quoted"
    fail_next_scores: list[int] = field(default_factory=list)
    scores: list[ReceivedScore] = field(default_factory=list)
    line_items: dict[str, dict[str, Any]] = field(default_factory=dict)
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    deep_link_responses: list[dict[str, Any]] = field(default_factory=list)
    roster_requests: int = 0
    jwks_requests: int = 0
    line_item_list_requests: int = 0
    registration_token: str = "registration-token-1"
    registrations: list[dict[str, Any]] = field(default_factory=list)
    # Called (outside the lock) before answering a line item list, e.g. to hold it back.
    before_line_item_list: Callable[[], None] | None = None
    # HTML pages a browser opens on the platform (path → query parameters → HTML), e.g. a
    # course page framing the tool, or the authorization endpoint's auto-submitted launch.
    pages: dict[str, Callable[[dict[str, str]], str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        # Tools cache a platform's keys by URL and a port may be reused by a later simulator
        # with another key, so every simulator serves its JWKS at a path of its own.
        self.jwks_path = f"/jwks/{uuid.uuid4().hex}"
        self._tokens: dict[str, list[str]] = {}

    def registration(self) -> dict[str, Any]:
        """Return what an instructor enters in Cutoff to register this platform."""
        return {
            "name": "Simulated LMS",
            "issuer": self.issuer,
            "client_id": self.client_id,
            "deployment_ids": [self.deployment_id],
            "auth_login_url": self.url("/auth"),
            "auth_token_url": self.url("/token"),
            "key_set_url": self.url(self.jwks_path),
        }

    # --- messages it signs --------------------------------------------------------------

    def sign(
        self, claims: dict[str, Any], *, private_key_pem: str | None = None, kid: str | None = None
    ) -> str:
        """Return ``claims`` as an RS256 JWT signed with the platform's key (or another)."""
        return jwt.encode(
            claims,
            private_key_pem or self.private_key_pem,
            algorithm="RS256",
            headers={"kid": kid or self.kid},
        )

    def launch_claims(
        self,
        *,
        nonce: str,
        subject: str,
        roles: list[str],
        context_id: str = "course-ai",
        message_type: str = "LtiResourceLinkRequest",
        resource_link_id: str = "link-1",
        custom: dict[str, str] | None = None,
        line_item: str | None = None,
        with_ags: bool = True,
        with_nrps: bool = False,
        target_link_uri: str = "http://testserver/lti/launch/",
    ) -> dict[str, Any]:
        """Return the claims of a launch by ``subject`` in ``roles`` (short role names)."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": [self.client_id],
            "azp": self.client_id,
            "sub": subject,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "given_name": subject.title(),
            "family_name": "Tester",
            "email": f"{subject}@lms.example.edu",
            LTI + "message_type": message_type,
            LTI + "version": "1.3.0",
            LTI + "deployment_id": self.deployment_id,
            LTI + "target_link_uri": target_link_uri,
            LTI + "roles": [ROLE + role for role in roles],
            LTI + "context": {"id": context_id, "label": "AI", "title": "Artificial Intelligence"},
            LTI + "custom": custom or {},
        }
        if message_type == "LtiResourceLinkRequest":
            claims[LTI + "resource_link"] = {"id": resource_link_id, "title": "Minimax quiz"}
            if with_ags:
                endpoint: dict[str, Any] = {
                    "scope": AGS_SCOPES,
                    "lineitems": self.url(f"/{context_id}/lineitems"),
                }
                if line_item:
                    endpoint["lineitem"] = line_item
                claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"] = endpoint
        else:
            claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
                "deep_link_return_url": self.url("/deep-links"),
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": False,
                "data": "opaque-platform-data",
            }
        if with_nrps:
            claims["https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"] = {
                "context_memberships_url": self.url(f"/{context_id}/memberships"),
                "service_versions": ["2.0"],
            }
        return claims

    def revoke_tokens(self) -> None:
        """Forget every access token issued so far (requests bearing one then get 401)."""
        with self._lock:
            self._tokens.clear()

    def add_line_item(self, label: str = "Minimax quiz", maximum: float = 10) -> str:
        """Create a line item as the platform does for a graded deep link; return its URL."""
        item_id = self.url(f"/lineitems/{uuid.uuid4().hex[:8]}")
        self.line_items[item_id] = {"id": item_id, "label": label, "scoreMaximum": maximum}
        return item_id

    # --- HTTP ---------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        path = urlparse(handler.path).path
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        if method == "GET" and path in self.pages:
            query = {k: v[0] for k, v in parse_qs(urlparse(handler.path).query).items()}
            html = self.pages[path](query).encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.send_header("Content-Length", str(len(html)))
            handler.end_headers()
            handler.wfile.write(html)
            return
        routes: list[tuple[str, Callable[[str], bool], Callable[..., tuple[int, Any, dict]]]] = [
            ("GET", lambda p: p == self.jwks_path, self._jwks),
            ("GET", lambda p: p == "/.well-known/openid-configuration", self._openid_config),
            ("POST", lambda p: p == "/register", self._register),
            ("POST", lambda p: p == "/token", self._token),
            ("POST", lambda p: p == "/deep-links", self._deep_link_response),
            ("POST", lambda p: p.endswith("/scores"), self._score),
            ("GET", lambda p: p.endswith("/lineitems"), self._list_line_items),
            ("POST", lambda p: p.endswith("/lineitems"), self._create_line_item),
            ("GET", lambda p: p.endswith("/memberships"), self._memberships),
        ]
        for route_method, matches, action in routes:
            if route_method == method and matches(path):
                try:
                    status, payload, headers = action(handler, body)
                except Exception as error:  # noqa: BLE001 - report any check failure as a 400
                    status, payload, headers = 400, {"error": str(error)}, {}
                break
        else:
            status, payload, headers = 404, {"error": f"no route {method} {path}"}, {}
        data = b"" if payload is None else json.dumps(payload).encode()
        handler.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _jwks(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        with self._lock:
            self.jwks_requests += 1
        return 200, {"keys": [self.public_jwk]}, {}

    def _openid_config(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        return 200, {
            "issuer": self.issuer,
            "authorization_endpoint": self.url("/auth"),
            "token_endpoint": self.url("/token"),
            "jwks_uri": self.url(self.jwks_path),
            "registration_endpoint": self.url("/register"),
            "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                "product_family_code": "simulated-lms",
            },
        }, {}

    def _register(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        """Take a tool's dynamic registration, as Moodle and Canvas do: answer a client id
        and a deployment id."""
        if handler.headers.get("Authorization") != f"Bearer {self.registration_token}":
            return 401, {"error": "bad registration token"}, {}
        registration = json.loads(body)
        with self._lock:
            self.registrations.append(registration)
        tool_configuration = "https://purl.imsglobal.org/spec/lti-tool-configuration"
        answer = {
            **registration,
            "client_id": "dynamic-client-1",
            tool_configuration: {
                **registration[tool_configuration],
                "deployment_id": "dynamic-deployment-1",
            },
        }
        return 200, answer, {}

    def _tool_keys(self) -> dict[str, Any]:
        if self.tool_jwks_url:
            with urllib.request.urlopen(self.tool_jwks_url, timeout=5) as response:  # noqa: S310
                return json.load(response)
        assert self.tool_jwks is not None, "give the simulator the tool's JWKS"
        return self.tool_jwks

    def _verify_tool_jwt(self, token: str, audience: str) -> dict[str, Any]:
        kid = jwt.get_unverified_header(token).get("kid")
        for key in self._tool_keys()["keys"]:
            if key.get("kid") == kid:
                return jwt.decode(
                    token, jwt.PyJWK(key).key, algorithms=["RS256"], audience=audience
                )
        raise ValueError(f"no tool key with kid {kid}")

    def _token(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        if form.get("grant_type") != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}, {}
        claims = self._verify_tool_jwt(form["client_assertion"], audience=self.url("/token"))
        if claims["iss"] != self.client_id or claims["sub"] != self.client_id:
            return 401, {"error": "invalid_client"}, {}
        token = "at-" + uuid.uuid4().hex
        scopes = form.get("scope", "").split()
        with self._lock:
            self._tokens[token] = scopes
            self.token_requests.append({"claims": claims, "scopes": scopes})
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600}, {}

    def _scopes_of(self, handler: Any) -> list[str]:
        auth = handler.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ")
        return self._tokens.get(token, [])

    def _score(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        if "https://purl.imsglobal.org/spec/lti-ags/scope/score" not in self._scopes_of(handler):
            return 401, {"error": "token lacks the score scope"}, {}
        with self._lock:
            if self.fail_next_scores:
                return self.fail_next_scores.pop(0), {"error": "simulated failure"}, {}
        line_item = self.issuer + urlparse(handler.path).path.removesuffix("/scores")
        if line_item not in self.line_items:
            return 404, {"error": f"no line item {line_item}"}, {}
        score = json.loads(body)
        for required in ("userId", "activityProgress", "gradingProgress", "timestamp"):
            if required not in score:
                return 400, {"error": f"score lacks {required}"}, {}
        with self._lock:
            self.scores.append(
                ReceivedScore(line_item, score, handler.headers.get("Content-Type", ""))
            )
        return 204, None, {}

    def _list_line_items(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        if not self._scopes_of(handler):
            return 401, {"error": "no token"}, {}
        with self._lock:
            self.line_item_list_requests += 1
        if self.before_line_item_list is not None:
            self.before_line_item_list()
        return 200, list(self.line_items.values()), {}

    def _create_line_item(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        if AGS_SCOPES[0] not in self._scopes_of(handler):
            return 401, {"error": "token lacks the lineitem scope"}, {}
        wanted = json.loads(body)
        item_id = self.add_line_item(wanted.get("label", ""), wanted["scoreMaximum"])
        self.line_items[item_id].update(wanted)
        return 201, self.line_items[item_id], {}

    def _memberships(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        if NRPS_SCOPE not in self._scopes_of(handler):
            return 401, {"error": "token lacks the NRPS scope"}, {}
        query = parse_qs(urlparse(handler.path).query)
        tokens = [f"Page{'X' * number}" for number in range(len(self.members) + 1)]
        written = query.get("page", ["0"])[0]
        if self.page_links == "tokens":
            if written not in tokens + ["0"]:
                return 404, {"error": f"no page {written}"}, {}
            page = tokens.index(written) if written != "0" else 0
        else:
            page = int(written)
        size = self.members_page_size
        with self._lock:
            self.roster_requests += 1
        members = self.members[page * size : (page + 1) * size]
        headers = {}
        if (page + 1) * size < len(self.members):
            base = self.issuer + urlparse(handler.path).path
            following = tokens[page + 1] if self.page_links == "tokens" else page + 1
            address = f"<{base}?{urlencode({'page': following})}>"
            headers["Link"] = (f'{address}; title="more"; rel=next' if self.page_links == "bare"
                               else f'{address}; rel="next"')
        container = {"id": handler.path, "context": {"id": "course-ai"}, "members": members}
        return 200, container, headers

    def _deep_link_response(self, handler: Any, body: bytes) -> tuple[int, Any, dict]:
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        claims = self._verify_tool_jwt(form["JWT"], audience=self.issuer)
        with self._lock:
            self.deep_link_responses.append(claims)
        return 200, {"received": True}, {}

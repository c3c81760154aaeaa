"""Authenticate API clients (``Authorization: Token cutoff_<token>``, the API outline's
scheme, or ``Authorization: Bearer cutoff_<token>``) and check their scopes.

A client acts as the instructor who created it, but only on endpoints that declare a scope
with :class:`HasScope` and only with the scopes it was given; every other endpoint refuses
client tokens. Person tokens also use ``Authorization: Token <key>`` and are unaffected by
scopes: a ``Token`` credential is a client's when it starts with ``cutoff_`` (a person's key
is 40 hexadecimal digits), so this authentication runs before the person-token one. Use in
a view::

    permission_classes = [IsInstructor, HasScope("grades:read")]

This module is imported while DRF reads its settings, so it must not import DRF views (or
anything that does, like config.api).
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.models import User
from lms.models import ApiClient

SPEC_KEYWORD = b"token"
"""The scheme the API outline names for every token, clients' included."""

BEARER_KEYWORD = b"bearer"
"""The scheme client tokens were first sent with; still accepted."""

TOKEN_PREFIX = "cutoff_"
"""How every client token starts, and no person's key (40 hexadecimal digits) does."""


def token_digest(token: str) -> str:
    """Return the sha256 hex digest under which a client token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


class HasScope(BasePermission):
    """Require an API client token to carry ``scope``; person tokens and sessions pass.

    An instance goes straight into ``permission_classes`` (calling it returns itself, which
    is what DRF does with each entry); drf-stubs types the entries as classes only, hence the
    ``# type: ignore[list-item]`` where it is used.
    """

    def __init__(self, scope: str) -> None:
        if scope not in ApiClient.Scope.values:
            raise ValueError(f"unknown API client scope {scope!r}")
        self.scope = scope
        self.message = f"this API client token lacks the {scope} scope"

    def __call__(self) -> HasScope:
        """Return this permission (DRF instantiates each entry of permission_classes)."""
        return self

    def has_permission(self, request: Request, view: Any) -> bool:
        """Return whether the request's client token, if any, has the scope."""
        if isinstance(request.auth, ApiClient):
            return self.scope in request.auth.scopes
        return True


def declared_scopes(view: Any) -> set[str]:
    """Return the scopes ``view`` declares with HasScope (empty: client tokens not accepted)."""
    if view is None or not hasattr(view, "get_permissions"):
        return set()
    return {perm.scope for perm in view.get_permissions() if isinstance(perm, HasScope)}


class ApiClientTokenAuthentication(BaseAuthentication):
    """Authenticate ``Authorization: Token cutoff_...`` or ``Bearer cutoff_...`` as the
    client's owner.

    ``request.auth`` is the :class:`ApiClient`, which :class:`HasScope` checks.
    """

    def authenticate(self, request: Request) -> tuple[User, ApiClient] | None:
        """Return (owner, client) for a valid client token; None for a person's token and
        other schemes, left to the other authentications."""
        parts = get_authorization_header(request).split()
        if not parts:
            return None
        scheme = parts[0].lower()
        if scheme == SPEC_KEYWORD:
            if len(parts) != 2 or not parts[1].startswith(TOKEN_PREFIX.encode()):
                return None  # a person's token, or DRF's refusal of a malformed one
        elif scheme != BEARER_KEYWORD:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                "malformed Authorization header; use: Token cutoff_<token>"
            )
        try:
            token = parts[1].decode()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("the API client token is not valid") from None
        client = (
            ApiClient.objects.select_related("owner")
            .filter(token_sha256=token_digest(token), revoked_at__isnull=True)
            .first()
        )
        if client is None or not client.owner.is_active:
            raise exceptions.AuthenticationFailed("the API client token is not valid or revoked")
        view = (request.parser_context or {}).get("view")
        if not declared_scopes(view):
            raise exceptions.PermissionDenied(
                "API client tokens are not accepted here; use a personal token"
            )
        ApiClient.objects.filter(pk=client.pk).update(last_used_at=timezone.now())
        return client.owner, client

    def authenticate_header(self, request: Request) -> str:
        """Return the WWW-Authenticate challenge: the ``Token`` scheme, which people and
        clients both use (DRF asks the first authentication, this one)."""
        return 'Token realm="api"'

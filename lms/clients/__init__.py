"""Create and revoke API clients: scoped tokens an instructor gives an LMS or a script.

The token is returned once, at creation; only its sha256 is stored. How a token is checked
on each request is in :mod:`lms.clients.authentication`.
"""

from __future__ import annotations

import secrets

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from config.api import ApiError
from lms.clients.authentication import TOKEN_PREFIX, token_digest
from lms.models import ApiClient


def create_api_client(*, owner: User, name: str, scopes: list[str]) -> tuple[ApiClient, str]:
    """Create a client for ``owner`` with ``scopes``; return it and its token (shown once)."""
    if not owner.is_instructor and not owner.is_superuser:
        raise ApiError(
            "only instructors may create API clients", code="permission_denied", status_code=403
        )
    unknown = sorted(set(scopes) - set(ApiClient.Scope.values))
    if unknown or not scopes:
        raise ApiError(
            "scopes: give one or more of " + ", ".join(ApiClient.Scope.values),
            code="invalid",
            details={"scopes": unknown},
        )
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    client = ApiClient.objects.create(
        owner=owner,
        name=name,
        scopes=sorted(set(scopes)),
        token_prefix=token[: len(TOKEN_PREFIX) + 6],
        token_sha256=token_digest(token),
    )
    return client, token


def revoke_api_client(*, client: ApiClient) -> ApiClient:
    """Revoke ``client``'s token for good (revoking twice keeps the first time)."""
    with transaction.atomic():
        client = ApiClient.objects.select_for_update().get(pk=client.pk)
        if client.revoked_at is None:
            client.revoked_at = timezone.now()
            client.save(update_fields=["revoked_at"])
    return client

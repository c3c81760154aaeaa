"""Personal-token authentication, read in one plain-SQL statement (every API request runs it)."""

from __future__ import annotations

from functools import cache

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from accounts.models import User
from config.plain_sql import JoinedRead


class PersonalTokenAuthentication(TokenAuthentication):
    """Authenticate ``Authorization: Token <key>`` exactly as DRF's TokenAuthentication does
    (same header, same refusals), reading the token with its user by plain SQL instead of the
    ORM's query (1-2 ms of CPU less per request: bench/README.md, "Grading load")."""

    def authenticate_credentials(self, key: str) -> tuple[User, Token]:
        """Return (user, token) for ``key``; refuse an unknown key or an inactive user."""
        token = token_for_key(key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return token.user, token


def token_for_key(key: str) -> Token | None:
    """Return the token ``key`` with its user, if there is one."""
    read, sql = _token_read()
    token: Token | None = read.fetch_one(sql, [key])
    return token


@cache
def _token_read() -> tuple[JoinedRead, str]:
    """Return the read of a token by its key, with its user."""
    read = JoinedRead(Token, related=("user",))
    return read, read.select(f"{read.column('key')} = %s")

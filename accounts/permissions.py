"""DRF permission classes by role."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request


class IsInstructor(BasePermission):
    """Allow instructor accounts only."""

    message = "only instructors may do this"

    def has_permission(self, request: Request, view: Any) -> bool:
        """Return whether the authenticated user is an instructor."""
        user = request.user
        return bool(user and user.is_authenticated and getattr(user, "is_instructor", False))

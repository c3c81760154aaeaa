"""Request types for views only signed-in users reach, so ``request.user`` is a :class:`User`.

Annotate a view's ``request`` with one of these when its permissions (DRF's default
``IsAuthenticated``, ``IsInstructor``) or ``login_required`` already turn anonymous users away.
They only inform the type checker: the objects are Django's and DRF's own requests.
"""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework.request import Request

from accounts.models import User


class AuthenticatedRequest(Request):
    """A DRF request from a signed-in user."""

    user: User


class AuthenticatedHttpRequest(HttpRequest):
    """A Django request from a signed-in user."""

    user: User

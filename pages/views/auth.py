"""Log in and out with Django's session auth, and send people to their start page."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect


class LoginView(auth_views.LoginView):
    """Show the login form; a logged-in visitor goes straight to their start page."""

    template_name = "pages/login.html"
    redirect_authenticated_user = True


class LogoutView(auth_views.LogoutView):
    """Log out (POST only, CSRF protected) and return to the login page."""

    next_page = "pages:login"


def home(request: HttpRequest) -> HttpResponse:
    """Redirect to the problem sets (instructors), the assignments (students) or the login."""
    if not request.user.is_authenticated:
        return redirect("pages:login")
    if getattr(request.user, "is_instructor", False):
        return redirect("pages:problem_sets")
    return redirect("pages:assignments")

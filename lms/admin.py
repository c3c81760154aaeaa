"""Admin: register platforms (with their own key pair), link LMS users to accounts by hand,
read the passback log, revoke API clients."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import Role, User
from lms.clients import revoke_api_client
from lms.models import (
    ApiClient,
    LineItem,
    LtiContext,
    LtiResourceLink,
    LtiUserLink,
    Platform,
    ScorePassback,
)
from lms.services import create_tool_key


@admin.register(Platform)
class PlatformAdmin(admin.ModelAdmin):
    """Register an LMS; a key pair is made for it on creation."""

    list_display = ["name", "issuer", "client_id", "owner", "is_active", "created_at"]
    list_filter = ["is_active"]
    search_fields = ["name", "issuer", "client_id"]
    readonly_fields = ["kid", "created_at"]
    exclude = ["tool_key"]
    # LMS endpoints are HTTPS; a URL typed without a scheme means https.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    @admin.display(description="our key id (kid)")
    def kid(self, platform: Platform) -> str:
        """Return the id of the key we sign this platform's messages with."""
        return platform.tool_key.kid if platform.tool_key_id else "(made on save)"

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        """Offer only instructors as owners: the LMS courses' Cutoff courses are theirs."""
        if db_field.name == "owner":
            kwargs["queryset"] = User.objects.filter(role=Role.INSTRUCTOR).order_by("username")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request: HttpRequest, obj: Platform, form: Any, change: bool) -> None:
        """Give a new platform its own key pair."""
        if not obj.tool_key_id:
            obj.tool_key = create_tool_key()
        super().save_model(request, obj, form, change)


@admin.register(LtiUserLink)
class LtiUserLinkAdmin(admin.ModelAdmin):
    """See, and fix by hand, which account an LMS user is."""

    list_display = ["platform", "subject", "user", "created_at"]
    list_filter = ["platform"]
    search_fields = ["subject", "user__username", "user__email"]
    raw_id_fields = ["user"]


@admin.register(LtiContext)
class LtiContextAdmin(admin.ModelAdmin):
    """LMS courses and their Cutoff courses."""

    list_display = ["title", "platform", "context_id", "course", "roster_synced_at"]
    list_filter = ["platform"]
    search_fields = ["title", "context_id", "course__slug"]
    raw_id_fields = ["course"]


class LineItemInline(admin.StackedInline):
    model = LineItem
    extra = 0


@admin.register(LtiResourceLink)
class LtiResourceLinkAdmin(admin.ModelAdmin):
    """LMS links and the problem sets they open."""

    list_display = ["resource_link_id", "title", "platform", "problem_set", "created_at"]
    list_filter = ["platform"]
    search_fields = ["resource_link_id", "title"]
    raw_id_fields = ["problem_set", "context"]
    inlines = [LineItemInline]


@admin.register(ScorePassback)
class ScorePassbackAdmin(admin.ModelAdmin):
    """The log of scores sent to LMS gradebooks (read-only)."""

    list_display = [
        "created_at",
        "student",
        "resource_link",
        "status",
        "score_given",
        "attempts",
        "sent_at",
    ]
    list_filter = ["status", "resource_link__platform"]
    search_fields = ["student__username", "resource_link__resource_link_id"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Refuse: passbacks are logged by grading only."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Refuse: the log is what happened."""
        return False


@admin.action(description="Revoke the selected clients' tokens")
def revoke(modeladmin: Any, request: HttpRequest, queryset: QuerySet[ApiClient]) -> None:
    """Revoke each selected client."""
    for client in queryset:
        revoke_api_client(client=client)


@admin.register(ApiClient)
class ApiClientAdmin(admin.ModelAdmin):
    """API clients; created through the API (the token is shown once there), revoked here."""

    list_display = ["name", "owner", "token_prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "owner__username", "token_prefix"]
    readonly_fields = [
        "name",
        "owner",
        "scopes",
        "token_prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    exclude = ["token_sha256"]
    actions = [revoke]

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Refuse: a client's token can only be shown by the API that creates it."""
        return False

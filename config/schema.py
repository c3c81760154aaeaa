"""OpenAPI generation helpers: client tokens as a security scheme, and unique component names
for the nested Input/Output serializers every API class declares."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema

from lms.clients.authentication import declared_scopes


class QualifiedNameAutoSchema(AutoSchema):
    """Name a nested serializer's component after its outer class too.

    Every API class has an ``InputSerializer`` and an ``OutputSerializer``; named by the class
    alone they would all collide as "Input" and "Output". ``CourseCreateApi.InputSerializer``
    becomes ``CourseCreateInput``.
    """

    def get_serializer_name(self, serializer: Any, direction: Any) -> str:
        """Return the qualified class name without the Api/Serializer suffixes of outer ones."""
        *outer, name = type(serializer).__qualname__.split(".")
        prefix = "".join(part.removesuffix("Api").removesuffix("Serializer") for part in outer)
        return prefix + name


class ApiClientTokenScheme(OpenApiAuthenticationExtension):
    """Describe client tokens in the OpenAPI schema."""

    target_class = "lms.clients.authentication.ApiClientTokenAuthentication"
    name = "apiClientToken"

    # drf-spectacular skips a None requirement (its annotation leaves None out).
    def get_security_requirement(  # type: ignore[override]
        self, auto_schema: Any
    ) -> dict[str, list[str]] | None:
        """Offer client tokens only on operations that accept them (declare a scope)."""
        return {self.name: []} if declared_scopes(auto_schema.view) else None

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        """Return the client token scheme: an ``Authorization`` header holding the API
        outline's ``Token cutoff_<token>`` (OpenAPI's http schemes cannot name ``Token``)."""
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "API client token with scopes (see /api/v1/api-clients/), sent "
            "as `Token cutoff_<token>`; `Bearer cutoff_<token>` is accepted too.",
        }


ERROR_ENVELOPE = {
    "type": "object",
    "description": "Every refusal: `code` (e.g. `invalid`, `unprocessable`, `not_found`, "
    "`attempts_exhausted`), a one-line `message` naming the field and the rule, and "
    "`details` (field → reasons, or the values the code explains).",
    "properties": {"error": {"type": "object", "required": ["code", "message", "details"],
                             "properties": {"code": {"type": "string"},
                                            "message": {"type": "string"},
                                            "details": {}}}},
    "required": ["error"],
}
OTHER_REFUSALS = (
    "Any other refusal, in the error envelope: 400 for input that breaks a rule (`details` "
    "names the field), 401 without credentials, 403 for a role or scope that may not do "
    "this, 404 for what does not exist or the caller may not see, 405, 415, and 429 with "
    "`Retry-After` past a rate limit. Statuses the operation documents say more."
)


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: Any
                        ) -> dict[str, Any]:
    """Give every operation a ``4XX`` response in the error envelope (a postprocessing hook):
    the statuses each operation lists are those it says more about, not all it answers."""
    result.setdefault("components", {}).setdefault("schemas", {})["ErrorEnvelope"] = \
        ERROR_ENVELOPE
    for methods in result.get("paths", {}).values():
        for operation in methods.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("4XX", {
                    "description": OTHER_REFUSALS,
                    "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}},
                })
    return result

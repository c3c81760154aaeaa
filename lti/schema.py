"""OpenAPI description of API client tokens (loaded by the app config)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiClientTokenScheme(OpenApiAuthenticationExtension):
    """Describe client tokens in the OpenAPI schema."""

    target_class = "lti.authentication.ApiClientTokenAuthentication"
    name = "apiClientToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        """Return the bearer security scheme."""
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "cutoff_<token>",
            "description": "API client token with scopes (see /api/v1/api-clients/).",
        }

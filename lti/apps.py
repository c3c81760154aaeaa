"""LMS integration: LTI 1.3 launches, deep linking, grade passback, roster sync, API clients."""

from django.apps import AppConfig


class LtiConfig(AppConfig):
    """Register the LTI app and connect its signal receivers."""

    name = "lti"
    verbose_name = "LMS integration"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect the receivers that queue grade passbacks; describe client tokens in OpenAPI."""
        from lti import receivers, schema  # noqa: F401

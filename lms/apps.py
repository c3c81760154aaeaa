"""LMS integration: LTI 1.3 launches, deep linking, grade passback, roster sync, API clients."""

from django.apps import AppConfig


class LtiConfig(AppConfig):
    """Register the LTI app and connect its signal receivers."""

    name = "lms"
    # The app was the package `lti` before it held API clients and exports too: keeping its
    # label keeps its tables (lti_*), its migration history and the `lti.<model>` references
    # of existing databases and migrations valid.
    label = "lti"
    verbose_name = "LMS integration"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect the receivers that queue grade passbacks; describe client tokens in OpenAPI."""
        from config import schema  # noqa: F401
        from lms import receivers  # noqa: F401

"""Production settings: refuse to start without secrets; secure cookies and headers."""

from config.settings.base import *  # noqa: F403
from config.settings.env import env_list, env_required

SECRET_KEY = env_required("SECRET_KEY")
_database_url = env_required("DATABASE_URL")
DATABASES = {"default": database_from_url(_database_url)}  # noqa: F405
CELERY_BROKER_URL = env_required("REDIS_URL")

DEBUG = False
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SECURE_HSTS_SECONDS = 31536000
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# LTI launches arrive in a cross-site POST inside the LMS's iframe.
SESSION_COOKIE_SAMESITE = "None"
CSRF_COOKIE_SAMESITE = "None"
# Exempt the health check from the HTTPS redirect: compose probes it over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
LOGGING["handlers"]["console"]["formatter"] = "json"  # noqa: F405
# Shared across gunicorn and Celery processes: throttles (LTI state stays in the database).
CACHES = {
    **CACHES,  # noqa: F405
    "default": {
        "BACKEND": "config.redis_cache.KeptClientRedisCache",
        "LOCATION": CELERY_BROKER_URL,
    },
}

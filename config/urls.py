"""Top-level URLs: the v1 API, its schema and docs, health, admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.health import healthz
from config.views import api_not_found

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/v1/", include("accounts.urls")),
    path("api/v1/", include("exercises.urls")),
    path("api/v1/", include("grading.urls")),
    path("api/v1/", include("grading.code.urls")),
    path("", include("lms.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/<path:rest>", api_not_found),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("pages.urls")),
]

handler400 = "config.views.bad_request"
handler404 = "config.views.not_found"
handler500 = "config.views.server_error"

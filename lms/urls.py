"""URLs of the LTI endpoints (/lti/...) and of the LMS-facing API (/api/v1/...)."""

from django.urls import path

from lms import apis, views

urlpatterns = [
    path("lti/login/", views.login_view, name="lti-login"),
    path("lti/launch/", views.launch_view, name="lti-launch"),
    path("lti/deep-link/", views.deep_link_select_view, name="lti-deep-link"),
    path("lti/jwks/", views.jwks_view, name="lti-jwks"),
    path("lti/canvas.json", views.canvas_configuration_view, name="lti-canvas-configuration"),
    path("lti/register/<str:token>/", views.dynamic_registration_view, name="lti-register"),
    path(
        "api/v1/lti/registrations/create/",
        apis.RegistrationUrlCreateApi.as_view(),
        name="lti-registration-create",
    ),
    path("lti/continue/<str:token>/", views.continue_view, name="lti-continue"),
    path("lti/waiting/<str:token>/", views.waiting_view, name="lti-waiting"),
    path("api/v1/lti/platforms/", apis.PlatformListApi.as_view(), name="lti-platform-list"),
    path(
        "api/v1/lti/platforms/create/",
        apis.PlatformCreateApi.as_view(),
        name="lti-platform-create",
    ),
    path(
        "api/v1/lti/platforms/<int:platform_id>/deactivate/",
        apis.PlatformDeactivateApi.as_view(),
        name="lti-platform-deactivate",
    ),
    path(
        "api/v1/lti/platforms/<int:platform_id>/update/",
        apis.PlatformUpdateApi.as_view(),
        name="lti-platform-update",
    ),
    path(
        "api/v1/lti/platforms/<int:platform_id>/rotate-key/",
        apis.PlatformKeyRotateApi.as_view(),
        name="lti-platform-rotate-key",
    ),
    path(
        "api/v1/lti/platforms/<int:platform_id>/activate/",
        apis.PlatformActivateApi.as_view(),
        name="lti-platform-activate",
    ),
    path("api/v1/lti/contexts/", apis.ContextListApi.as_view(), name="lti-context-list"),
    path(
        "api/v1/lti/contexts/<int:context_id>/roster-sync/",
        apis.RosterSyncApi.as_view(),
        name="lti-roster-sync",
    ),
    path("api/v1/lti/passbacks/", apis.PassbackListApi.as_view(), name="lti-passback-list"),
    path(
        "api/v1/lti/passbacks/<int:passback_id>/resend/",
        apis.PassbackResendApi.as_view(),
        name="lti-passback-resend",
    ),
    path("api/v1/api-clients/", apis.ApiClientListApi.as_view(), name="api-client-list"),
    path("api/v1/api-clients/create/", apis.ApiClientCreateApi.as_view(), name="api-client-create"),
    path(
        "api/v1/api-clients/<int:client_id>/revoke/",
        apis.ApiClientRevokeApi.as_view(),
        name="api-client-revoke",
    ),
    path(
        "api/v1/problem-sets/<int:problem_set_id>/export/moodle.xml",
        apis.MoodleXmlExportApi.as_view(),
        name="problem-set-export-moodle",
    ),
    path(
        "api/v1/problem-sets/<int:problem_set_id>/export/qti.zip",
        apis.QtiZipExportApi.as_view(),
        name="problem-set-export-qti",
    ),
]

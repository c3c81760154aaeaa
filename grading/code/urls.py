"""URLs of the code item API (mounted under /api/v1/)."""

from django.urls import path

from grading.code import apis

urlpatterns = [
    path(
        "assignments/<int:variant_id>/items/<int:position>/starter.py",
        apis.StarterFileApi.as_view(),
        name="code-starter",
    ),
    path(
        "assignments/<int:variant_id>/items/<int:position>/code-submissions/",
        apis.CodeSubmissionCreateApi.as_view(),
        name="code-submission-create",
    ),
    path(
        "code-submissions/<int:submission_id>/",
        apis.CodeSubmissionDetailApi.as_view(),
        name="code-submission-detail",
    ),
    path(
        "assignments/<int:variant_id>/items/<int:position>/code-checks/",
        apis.CodeCheckCreateApi.as_view(),
        name="code-check-create",
    ),
    path("code-checks/<int:check_id>/", apis.CodeCheckDetailApi.as_view(),
         name="code-check-detail"),
]

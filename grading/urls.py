"""URLs of the grading API (mounted under /api/v1/)."""

from django.urls import path

from grading import apis

urlpatterns = [
    path(
        "assignments/<int:variant_id>/items/<int:position>/submissions/",
        apis.SubmissionListCreateApi.as_view(),
        name="submission-create",
    ),
    path(
        "assignments/<int:variant_id>/items/<int:position>/draft/",
        apis.DraftApi.as_view(),
        name="item-draft",
    ),
    path(
        "submissions/<int:submission_id>/",
        apis.SubmissionDetailApi.as_view(),
        name="submission-detail",
    ),
    path(
        "problem-sets/<int:problem_set_id>/grades.csv",
        apis.ProblemSetGradesCsvApi.as_view(),
        name="problem-set-grades-csv",
    ),
    path(
        "problem-sets/<int:problem_set_id>/regrade/",
        apis.ProblemSetRegradeApi.as_view(),
        name="problem-set-regrade",
    ),
    path(
        "problem-sets/<int:problem_set_id>/submissions/",
        apis.ProblemSetSubmissionListApi.as_view(),
        name="problem-set-submissions",
    ),
    path(
        "problem-sets/<int:problem_set_id>/statistics/",
        apis.ProblemSetStatisticsApi.as_view(),
        name="problem-set-statistics",
    ),
    path(
        "problem-sets/<int:problem_set_id>/regrade-requests/",
        apis.RegradeRequestListApi.as_view(),
        name="problem-set-regrade-requests",
    ),
    path(
        "submissions/<int:submission_id>/override/",
        apis.SubmissionOverrideApi.as_view(),
        name="submission-override",
    ),
    path(
        "submissions/<int:submission_id>/history/",
        apis.SubmissionHistoryApi.as_view(),
        name="submission-history",
    ),
    path(
        "submissions/<int:submission_id>/regrade-request/",
        apis.RegradeRequestCreateApi.as_view(),
        name="submission-regrade-request",
    ),
    path(
        "regrade-requests/<int:request_id>/resolve/",
        apis.RegradeRequestResolveApi.as_view(),
        name="regrade-request-resolve",
    ),
    path("regrades/<int:regrade_id>/", apis.RegradeDetailApi.as_view(), name="regrade-detail"),
    path("webhooks/", apis.WebhookListCreateApi.as_view(), name="webhook-list-create"),
    path("webhooks/<int:webhook_id>/", apis.WebhookDeleteApi.as_view(), name="webhook-delete"),
    path(
        "webhooks/<int:webhook_id>/deliveries/",
        apis.WebhookDeliveryListApi.as_view(),
        name="webhook-deliveries",
    ),
]

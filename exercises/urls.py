"""URLs of the exercises API (mounted under /api/v1/)."""

from django.urls import path

from exercises import apis

urlpatterns = [
    path("kinds/", apis.KindListApi.as_view(), name="kind-list"),
    path("kinds/<str:kind>/preview/", apis.KindPreviewApi.as_view(), name="kind-preview"),
    path("tree-library/", apis.TreeLibraryApi.as_view(), name="tree-library"),
    path("problem-sets/", apis.ProblemSetCreateApi.as_view(), name="problem-set-create"),
    path(
        "problem-sets/<int:problem_set_id>/",
        apis.ProblemSetDetailApi.as_view(),
        name="problem-set-detail",
    ),
    path("problem-sets/import/", apis.ProblemSetImportApi.as_view(), name="problem-set-import"),
    path(
        "problem-sets/<int:problem_set_id>/copy/",
        apis.ProblemSetCopyApi.as_view(),
        name="problem-set-copy",
    ),
    path(
        "problem-sets/<int:problem_set_id>/export.json",
        apis.ProblemSetExportApi.as_view(),
        name="problem-set-export",
    ),
    path(
        "problem-sets/<int:problem_set_id>/extensions/",
        apis.ExtensionListCreateApi.as_view(),
        name="problem-set-extensions",
    ),
    path(
        "problem-sets/<int:problem_set_id>/publish/",
        apis.ProblemSetPublishApi.as_view(),
        name="problem-set-publish",
    ),
    path(
        "problem-sets/<int:problem_set_id>/items/<int:position>/",
        apis.ItemUpdateApi.as_view(),
        name="item-update",
    ),
    path("assignments/", apis.AssignmentListApi.as_view(), name="assignment-list"),
    path(
        "assignments/<int:variant_id>/",
        apis.AssignmentDetailApi.as_view(),
        name="assignment-detail",
    ),
]

"""URLs of the accounts API (mounted under /api/v1/)."""

from django.urls import path

from accounts import apis

urlpatterns = [
    path("courses/", apis.CourseCreateApi.as_view(), name="course-create"),
    path(
        "courses/<int:course_id>/enrollments/",
        apis.CourseEnrollApi.as_view(),
        name="course-enroll",
    ),
]

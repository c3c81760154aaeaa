"""URLs of the web pages (mounted at the site root)."""

from django.urls import path

from pages.views import auth, editing, instructor, running, student

app_name = "pages"

urlpatterns = [
    path("", auth.home, name="home"),
    path("login/", auth.LoginView.as_view(), name="login"),
    path("logout/", auth.LogoutView.as_view(), name="logout"),
    path("assignments/", student.assignment_list, name="assignments"),
    path("assignments/<int:variant_id>/items/<int:position>/", student.item_page, name="item"),
    path("submissions/<int:submission_id>/status/", student.submission_status,
         name="submission_status"),
    path("teach/problem-sets/", instructor.problem_set_list, name="problem_sets"),
    path("teach/problem-sets/new/", instructor.builder, name="builder"),
    path("teach/problem-sets/import/", editing.import_page, name="import_problem_set"),
    path("teach/preview/", instructor.preview, name="preview"),
    path("teach/problem-sets/<int:problem_set_id>/", instructor.problem_set_page,
         name="problem_set"),
    path("teach/problem-sets/<int:problem_set_id>/publish/", instructor.publish, name="publish"),
    path("teach/problem-sets/<int:problem_set_id>/status/", instructor.problem_set_status,
         name="problem_set_status"),
    path("teach/problem-sets/<int:problem_set_id>/dashboard/", instructor.dashboard,
         name="dashboard"),
    path("teach/problem-sets/<int:problem_set_id>/submissions/", running.submission_list,
         name="running_submissions"),
    path("teach/problem-sets/<int:problem_set_id>/regrade-requests/",
         running.regrade_request_list, name="running_regrade_requests"),
    path("teach/problem-sets/<int:problem_set_id>/extensions/", running.extensions_page,
         name="running_extensions"),
    path("teach/problem-sets/<int:problem_set_id>/statistics/", running.statistics_page,
         name="running_statistics"),
    path("teach/submissions/<int:submission_id>/", running.submission_page,
         name="running_submission"),
    path("submissions/<int:submission_id>/regrade-request/", running.student_regrade_request,
         name="regrade_request"),
    path("teach/problem-sets/<int:problem_set_id>/passbacks/<int:passback_id>/resend/",
         instructor.resend_passback, name="resend_passback"),
    path("teach/problem-sets/<int:problem_set_id>/edit/", editing.edit_page,
         name="edit_problem_set"),
    path("teach/problem-sets/<int:problem_set_id>/archive/", editing.archive_page,
         name="archive_problem_set"),
    path("teach/problem-sets/<int:problem_set_id>/copy/", editing.copy_page,
         name="copy_problem_set"),
    path("teach/problem-sets/<int:problem_set_id>/export.json", editing.export_page,
         name="export_problem_set"),
]

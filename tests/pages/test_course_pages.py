"""The course-running pages in a real headless Chromium against the live server (issue 17):
submissions, a submission drawn on its tree with an override, regrade requests from both
sides, extensions and statistics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.pages.conftest import make_problem_set, publish_now, variant_of_user
from tests.pages.test_browser import a11y_problems, log_in, screenshot, with_password

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
]


def graded_submission(problem_set: Any, student: Any, wrong: bool = True) -> Any:
    """Store and grade (in this process) an answer of ``student`` to item 1."""
    from grading.models import Submission
    from grading.services import grade_submission

    variant_item = variant_of_user(problem_set, student).items.get(position=1)
    answer = dict(variant_item.answer_key)
    if wrong:
        answer["pruned_leaves"] = []
    submission = Submission.objects.create(
        variant_item=variant_item, student=student, attempt_number=1,
        kind=Submission.Kind.ANSWER, answer=answer,
    )
    grade_submission(submission.pk)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.GRADED
    return submission


@pytest.fixture
def classroom(instructor: Any, student: Any, other_student: Any, course: Any) -> Any:
    """Return a published set in which both students have a graded, partly wrong answer."""
    problem_set = publish_now(make_problem_set(instructor[0], course))
    graded_submission(problem_set, student[0])
    graded_submission(problem_set, other_student[0], wrong=False)
    return problem_set


def test_instructor_opens_a_students_submission_on_its_tree_and_overrides_it(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any,
    classroom: Any,
) -> None:
    from grading.models import ScoreChange, Submission

    page = new_page()
    log_in(page, live_server.url, with_password(instructor[0]).username)
    page.goto(f"{live_server.url}/teach/problem-sets/{classroom.pk}/")
    page.click("a:has-text('Submissions')")
    page.wait_for_selector("#submissions-table")
    assert a11y_problems(page) == []
    page.fill("#filter-student", student[0].username)
    page.click("#submission-filters button")
    page.wait_for_load_state()
    rows = page.locator("#submissions-table tbody tr")
    assert rows.count() == 1
    screenshot(page, "course-submissions")
    rows.first.locator("a").click()
    page.wait_for_selector("#submission-tree")
    assert a11y_problems(page) == []
    # The answer is drawn on the tree with the feedback painted.
    assert page.locator("#submission-tree .tree-mark").count() > 0
    page.fill("#override-score", "3.5")
    page.fill("#override-reason", "the right idea at C")
    page.click("#override-submit")
    page.wait_for_selector("#score-history")
    assert "3.50" in page.inner_text("#submission-score")
    assert "the right idea at C" in page.inner_text("#score-history")
    screenshot(page, "course-submission-overridden")
    submission = Submission.objects.get(student=student[0])
    assert submission.score == 3.5 and submission.overridden
    assert ScoreChange.objects.get().changed_by == instructor[0]


def test_a_regrade_request_from_the_student_answered_by_the_instructor(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any,
    classroom: Any,
) -> None:
    variant = variant_of_user(classroom, student[0])
    student_page = new_page()
    log_in(student_page, live_server.url, with_password(student[0]).username)
    student_page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    student_page.fill("#regrade-message", "I think nothing is pruned here.")
    student_page.click("#regrade-request-submit")
    student_page.wait_for_selector(".regrade-request")
    assert "I think nothing is pruned here." in student_page.inner_text(".regrade-request")
    assert a11y_problems(student_page) == []

    teacher = new_page()
    log_in(teacher, live_server.url, with_password(instructor[0]).username)
    teacher.goto(f"{live_server.url}/teach/problem-sets/{classroom.pk}/regrade-requests/")
    assert "open" in teacher.inner_text("#regrade-requests")
    assert a11y_problems(teacher) == []
    teacher.click(f"#regrade-requests a:has-text('{student[0].username}')")
    teacher.wait_for_selector(".resolve-form")
    teacher.fill(".resolve-form input[name=reply]", "Look at C's window: C2 is pruned.")
    teacher.click(".resolve-form button")
    teacher.wait_for_selector(".regrade-request .muted")

    student_page.reload()
    reply = student_page.inner_text(".instructor-reply")
    assert "Look at C's window: C2 is pruned." in reply
    screenshot(student_page, "course-regrade-reply")


def test_extensions_page_grants_and_lists(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any,
    classroom: Any,
) -> None:
    from exercises.models import Extension

    page = new_page()
    log_in(page, live_server.url, with_password(instructor[0]).username)
    page.goto(f"{live_server.url}/teach/problem-sets/{classroom.pk}/extensions/")
    assert a11y_problems(page) == []
    page.select_option("#id_username", student[0].username)
    page.fill("#id_ext_due_at", "2027-01-15T12:00")
    page.fill("#id_extra_attempts", "2")
    page.click("#extension-submit")
    page.wait_for_selector(f"#extensions-table th:has-text('{student[0].username}')")
    screenshot(page, "course-extensions")
    extension = Extension.objects.get()
    assert extension.student == student[0] and extension.extra_attempts == 2
    assert extension.due_at is not None and extension.due_at.isoformat().startswith(
        "2027-01-15T12:00")


def test_statistics_page_draws_its_plots_on_the_server(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, classroom: Any,
) -> None:
    page = new_page()
    log_in(page, live_server.url, with_password(instructor[0]).username)
    page.goto(f"{live_server.url}/teach/problem-sets/{classroom.pk}/statistics/")
    for plot in ("#plot-mean", "#plot-first", "#plot-discrimination"):
        page.wait_for_selector(plot)
    assert page.locator("#plot-mean rect.plot-bar").count() == 1
    assert "Item 1" in page.inner_text("#item-stats-1")
    assert a11y_problems(page) == []
    # Nothing is loaded from another host.
    hosts = page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")
    assert all(name.startswith(live_server.url) for name in hosts), hosts
    screenshot(page, "course-statistics")


def test_statistics_draw_no_part_table_for_a_code_item(instructor: Any, student: Any,
                                                        course: Any) -> None:
    # A code item is scored by its hidden tests: its part table had headings and no row.
    from decimal import Decimal

    from django.test import Client

    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Mixed", seed="mixed", items=[
            {"kind": "minimax", "params": {}, "points": Decimal(1)},
            {"kind": "code_alphabeta", "params": {}, "points": Decimal(1)}]))
    client = Client()
    client.force_login(instructor[0])
    html = client.get(f"/teach/problem-sets/{problem_set.pk}/statistics/").content.decode()
    typed = html.split('id="item-stats-1"')[1].split("</section>")[0]
    code = html.split('id="item-stats-2"')[1].split("</section>")[0]
    assert "<table>" in typed and "Mean points" in typed
    assert "<table>" not in code and "Mean score" in code


def test_instructor_pages_state_the_time_zone_of_their_times(instructor: Any,
                                                             course: Any) -> None:
    # The builder asks for the due date in UTC; the lists printed it back without a zone.
    from datetime import UTC, datetime

    from django.test import Client

    problem_set = publish_now(make_problem_set(instructor[0], course,
                                               due_at=datetime(2027, 1, 15, 13, 30, tzinfo=UTC)))
    client = Client()
    client.force_login(instructor[0])
    for url in ("/teach/problem-sets/", f"/teach/problem-sets/{problem_set.pk}/"):
        html = client.get(url).content.decode()
        assert '<time datetime="2027-01-15T13:30:00+00:00"' in html, url
        assert "1:30 p.m. UTC</time>" in html, url
    from exercises.services import archive_problem_set

    archive_problem_set(problem_set)
    html = client.get(f"/teach/problem-sets/{problem_set.pk}/").content.decode()
    note = html.split('id="archived-note">')[1].split("</p>")[0]
    assert " UTC: the students do not see this set" in note

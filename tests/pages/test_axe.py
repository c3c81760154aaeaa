"""An axe-core audit of every student and instructor page in headless Chromium.

axe-core is vendored as one pinned file (``tests/pages/vendor/axe.min.js``, refreshed by
``scripts/vendor-axe``) and injected into each page; a page passes with 0 serious or critical
violations. Every route of ``pages/urls.py`` is either audited here or listed, with its
reason, as not a page: adding a page without an audit fails
``test_every_page_route_is_audited``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import wait_until
from tests.pages.conftest import make_problem_set, publish_now, variant_of_user
from tests.pages.test_browser import log_in, with_password
from tests.pages.tree_pages import DEPTH3_PARAMS, keep_screenshot, tree_set

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_VERSION = (AXE.parent / "axe-version.txt").read_text().strip()
BLOCKING = ("serious", "critical")

# Route name → what the audit below opens for it.
AUDITED = {
    "login": "the login form",
    "assignments": "a student's assignment list",
    "item": "tree items before and after feedback (answer, expected answer, replay, regrade "
            "request form), the other kinds, a code item and a timed quiz's start page",
    "problem_sets": "an instructor's problem sets",
    "builder": "the builder, with a preview loaded into it",
    "preview": "the builder's preview fragment, audited inside the builder",
    "problem_set": "a published problem set",
    "dashboard": "a problem set's dashboard",
    "running_submissions": "a problem set's submissions list",
    "running_submission": "one submission on its tree, with the override form",
    "running_regrade_requests": "a problem set's regrade requests, one open",
    "running_extensions": "a problem set's extensions, one granted",
    "running_statistics": "a problem set's statistics with their plots",
    "edit_problem_set": "the edit form of a published problem set, and of a draft with a "
                        "refused param",
    "import_problem_set": "the import form",
}
NOT_PAGES = {
    "home": "redirects to the login page or the reader's start page",
    "logout": "POST only, redirects",
    "submission_status": "JSON for the item page's polling",
    "publish": "POST only, redirects to the problem set page",
    "problem_set_status": "JSON for the problem set page's polling",
    "resend_passback": "POST only, redirects to the dashboard",
    "regrade_request": "POST only, redirects to the item page",
    "archive_problem_set": "POST only, redirects to the problem set page",
    "copy_problem_set": "POST only, redirects to the copy's page",
    "export_problem_set": "a JSON file download",
}


def test_every_page_route_is_audited() -> None:
    from pages.urls import urlpatterns

    names = {pattern.name for pattern in urlpatterns}
    assert names == set(AUDITED) | set(NOT_PAGES), (
        "audit new pages in tests/pages/test_axe.py (or list why they are not pages)")
    assert not set(AUDITED) & set(NOT_PAGES)


def audit(page: Any, name: str) -> None:
    """Run axe-core on ``page`` and fail on any serious or critical violation."""
    page.add_script_tag(path=str(AXE))
    assert page.evaluate("() => axe.version") == AXE_VERSION
    violations = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    blocking = [
        {"id": v["id"], "impact": v["impact"], "help": v["help"],
         "nodes": [node["target"] for node in v["nodes"]][:5]}
        for v in violations if v["impact"] in BLOCKING
    ]
    keep_screenshot(page, f"axe-{name}")
    assert blocking == [], f"{name}: " + json.dumps(blocking, ensure_ascii=False, indent=1)


@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_student_pages_have_no_serious_violations(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    import shutil

    from exercises.services import create_problem_set
    from grading.models import Submission
    from grading.services import submit_answer

    graded_set = tree_set(instructor[0], course, DEPTH3_PARAMS, max_attempts=1)
    kinds = ["mcts_backprop", "ucb1", "tictactoe_position", "connect4_eval", "expectiminimax",
             "vector", "concept_quiz", "eval_function"]
    if shutil.which("bwrap"):
        kinds.append("code_minimax")
    tour = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Tour of kinds", seed="axe",
        items=[{"kind": kind, "params": {}, "points": Decimal(1)} for kind in kinds],
    ))
    user = with_password(student[0])
    graded = variant_of_user(graded_set, user)
    submission, _ = submit_answer(student=user, variant_id=graded.pk, position=1,
                                  answer={"value": "0", "pruned_leaves": ["A1a"]})
    assert wait_until(
        lambda: Submission.objects.get(pk=submission.pk).status == Submission.Status.GRADED)
    page = new_page()

    page.goto(f"{live_server.url}/login/")
    audit(page, "login")
    log_in(page, live_server.url, user.username)
    audit(page, "assignments")
    page.goto(f"{live_server.url}/assignments/{graded.pk}/items/1/")
    page.wait_for_selector("#expected-tree")
    page.wait_for_selector("#replay")
    audit(page, "item-feedback-expected-replay")
    variant = variant_of_user(tour, user)
    for position, kind in enumerate(kinds, start=1):
        page.goto(f"{live_server.url}/assignments/{variant.pk}/items/{position}/")
        page.wait_for_selector("main h1")
        audit(page, f"item-{kind}")
    timed = variant_of_user(publish_now(make_problem_set(
        instructor[0], course, time_limit_minutes=30)), user)
    page.goto(f"{live_server.url}/assignments/{timed.pk}/items/1/")
    page.wait_for_selector("#start-quiz")
    audit(page, "item-timed-quiz-start")


@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_instructor_pages_have_no_serious_violations(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from exercises.services import grant_extension
    from grading.models import Submission
    from grading.services import request_score_review, submit_answer

    problem_set = tree_set(instructor[0], course, DEPTH3_PARAMS)
    variant = variant_of_user(problem_set, student[0])
    submission, _ = submit_answer(student=student[0], variant_id=variant.pk, position=1,
                                  answer={"value": "1"})
    assert wait_until(
        lambda: Submission.objects.get(pk=submission.pk).status == Submission.Status.GRADED)
    submission.refresh_from_db()
    request_score_review(submission, student=student[0], message="Look at B again, please.")
    grant_extension(problem_set, username=student[0].username, granted_by=instructor[0],
                    extra_attempts=2)
    page = new_page()
    log_in(page, live_server.url, with_password(instructor[0]).username)
    audit(page, "problem-sets")
    page.goto(f"{live_server.url}/teach/problem-sets/new/")
    page.click("#item-0 button[data-preview-item='0']:not([data-another-seed])")
    page.wait_for_selector("#preview-0 svg.tree")
    audit(page, "builder-with-preview")
    base = f"{live_server.url}/teach/problem-sets/{problem_set.pk}"
    page.goto(f"{base}/")
    audit(page, "problem-set")
    page.goto(f"{base}/dashboard/")
    page.wait_for_selector("svg.histogram")
    audit(page, "dashboard")
    page.goto(f"{base}/submissions/")
    page.wait_for_selector("#submissions-table")
    audit(page, "running-submissions")
    page.goto(f"{live_server.url}/teach/submissions/{submission.pk}/")
    page.wait_for_selector("#submission-tree")
    audit(page, "running-submission")
    page.goto(f"{base}/regrade-requests/")
    page.wait_for_selector("#regrade-requests")
    audit(page, "running-regrade-requests")
    page.goto(f"{base}/extensions/")
    page.wait_for_selector("#extensions-table")
    audit(page, "running-extensions")
    page.goto(f"{base}/statistics/")
    page.wait_for_selector("#plot-mean")
    audit(page, "running-statistics")
    page.goto(f"{base}/edit/")
    audit(page, "edit-problem-set")
    # A draft's edit form offers every param; one refused is named beside its input.
    draft = make_problem_set(instructor[0], course)
    page.goto(f"{live_server.url}/teach/problem-sets/{draft.pk}/edit/")
    page.evaluate("() => { document.getElementById('edit-form').noValidate = true; }")
    page.fill("#item-1-depth", "9")
    page.click("#edit-submit")
    page.wait_for_selector("#item-1-depth-error")
    audit(page, "edit-draft-refused")
    page.goto(f"{live_server.url}/teach/problem-sets/import/")
    audit(page, "import-problem-set")

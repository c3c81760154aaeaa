"""The pages in a real headless Chromium, against the live server and a real Celery worker.

Each test saves screenshots under ``var/screenshots/`` (test artefacts, git-ignored).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from tests.browser import TIMEOUT_MS
from tests.conftest import require, wait_until
from tests.pages.conftest import make_problem_set, publish_now, variant_of_user

PASSWORD = "browser-test-pw"
SCREENSHOTS = Path(settings.VAR_DIR) / "screenshots"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
]


def screenshot(page: Any, name: str) -> None:
    """Save a full-page screenshot as ``var/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def log_in(page: Any, base_url: str, username: str) -> None:
    """Log in through the login form, typing like a person."""
    page.goto(f"{base_url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]:has-text('Log in')")
    page.wait_for_url(re.compile(r"/(assignments|teach/problem-sets)/$"))


def with_password(user: Any) -> Any:
    """Give ``user`` the test password and return it."""
    user.set_password(PASSWORD)
    user.save(update_fields=["password"])
    return user


def node_selector(tree: str, name: str) -> str:
    """Return the CSS selector of a drawn node (ids escape non-alphanumerics as in the SVG)."""
    return f"#{tree}-node-" + "".join(c if c.isalnum() else f"_{ord(c):x}" for c in name)


def a11y_problems(page: Any) -> list[str]:
    """Return what breaks the basic checks: unlabelled inputs, SVGs or images without text."""
    return page.evaluate(
        """() => {
          const problems = [];
          document.querySelectorAll('input, select, textarea').forEach((el) => {
            if (el.type === 'hidden') return;
            const labelled = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
              || (el.id && document.querySelector(`label[for="${el.id}"]`)) || el.closest('label');
            if (!labelled) problems.push('unlabelled ' + el.outerHTML.slice(0, 80));
          });
          document.querySelectorAll('svg:not([aria-hidden="true"])').forEach((svg) => {
            if (!svg.getAttribute('aria-label') && !svg.querySelector(':scope > title'))
              problems.push('svg without text ' + (svg.id || svg.className.baseVal));
          });
          document.querySelectorAll('img').forEach((img) => {
            if (!img.hasAttribute('alt')) problems.push('img without alt ' + img.src);
          });
          document.querySelectorAll('button, a').forEach((el) => {
            if (!el.textContent.trim() && !el.getAttribute('aria-label'))
              problems.push('control without a name ' + el.outerHTML.slice(0, 80));
          });
          return problems;
        }"""
    )


def test_student_answers_on_the_tree_and_sees_feedback_painted_on_it(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = publish_now(make_problem_set(instructor[0], course, max_attempts=3))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    variant_item = variant.items.get()
    key = variant_item.answer_key
    evaluated_first = variant_item.trace["answer"]["evaluated_leaves"][0]
    page = new_page()

    log_in(page, live_server.url, user.username)
    assert a11y_problems(page) == []
    screenshot(page, "student-assignments")
    page.click(f"a[href='/assignments/{variant.pk}/items/1/']")
    page.wait_for_selector("svg#answer-tree")
    screenshot(page, "student-item-before")

    # Mark the right pruned leaves plus one the search evaluates: that one is a mistake.
    for leaf in [*key["pruned_leaves"], evaluated_first]:
        page.click(node_selector("answer-tree", leaf) + " rect")
    for leaf in key["pruned_leaves"]:
        assert page.is_checked(f"#answer-tree-pruned-{leaf}")
    page.fill("#answer-tree-value-root", str(key["value"]))
    page.check(f"#answer-tree-move-{key['move']}")
    assert a11y_problems(page) == []
    page.on("dialog", lambda dialog: dialog.accept())  # "N parts unanswered: submit anyway?"
    page.click("#submit-answer")

    page.wait_for_selector(".feedback-part", timeout=TIMEOUT_MS)
    wrong_leaf = page.locator(node_selector("answer-tree", evaluated_first))
    assert "node--wrong" in (wrong_leaf.get_attribute("class") or "")
    root = page.locator(node_selector("answer-tree", "root"))
    assert "node--right" in (root.get_attribute("class") or "")
    pruned_feedback = page.locator(".feedback-part[data-part='pruned_leaves']")
    assert pruned_feedback.get_attribute("data-verdict") in ("partial", "wrong")
    assert evaluated_first in pruned_feedback.inner_text()
    screenshot(page, "student-item-feedback")


def test_instructor_builds_previews_and_publishes_until_ready(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, course: Any,
) -> None:
    from accounts.services import create_account

    for index in range(6):
        create_account(username=f"learner{index}", role="student", course=course)
    user = with_password(instructor[0])
    page = new_page()

    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/teach/problem-sets/new/")
    page.fill("#id_title", "Week 4: pruning")
    page.fill("#item-0-depth", "3")
    page.fill("#item-0-max_leaves", "20")
    page.fill("#item-0-max_value", "40")
    page.click("button[data-preview-item='0']:not([data-another-seed])")
    page.wait_for_selector("#preview-0 svg.tree")
    assert a11y_problems(page) == []
    screenshot(page, "instructor-builder-preview")
    page.click("#create-problem-set")

    page.wait_for_selector("#publish-button")
    screenshot(page, "instructor-problem-set-draft")
    page.click("#publish-button")
    page.wait_for_function(
        "() => document.getElementById('problem-set-status').textContent.includes('ready')",
        timeout=60_000,
    )
    assert page.locator("#publish-count").inner_text().strip() == "6 / 6"
    assert a11y_problems(page) == []
    screenshot(page, "instructor-problem-set-ready")


def test_replay_is_keyboard_operable_after_the_last_attempt(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from grading.models import Submission
    from grading.services import submit_answer

    problem_set = publish_now(make_problem_set(instructor[0], course, max_attempts=1))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    answer = variant.items.get().answer_key
    submission, _ = submit_answer(student=user, variant_id=variant.pk, position=1,
                                  answer={"value": answer["value"], "move": answer["move"]})
    assert wait_until(
        lambda: Submission.objects.get(pk=submission.pk).status == Submission.Status.GRADED
    )
    steps = variant.items.get().trace["answer"]["trace"]
    first_cutoff = next(i for i, step in enumerate(steps) if step["event"] == "cutoff")
    page = new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector("#replay")

    # Tab from the top of the page to the replay tree, keyboard only.
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.hasAttribute('data-replay-keys')"):
            break
    else:
        pytest.fail("the replay tree is not reachable with Tab")
    status = page.locator("[data-replay-status]")
    page.keyboard.press("ArrowRight")
    assert status.inner_text().startswith(f"1 / {len(steps)}")
    assert "is-current" in page.locator(node_selector("replay-tree", "root")).get_attribute(
        "class")
    for _ in range(first_cutoff):
        page.keyboard.press("ArrowRight")
    cut = steps[first_cutoff]
    assert status.inner_text().startswith(f"{first_cutoff + 1} / {len(steps)}")
    badge = page.locator(f"#replay-tree [data-cutoff-for='{cut['node']}']")
    assert (badge.text_content() or "").strip() == "✂1"
    for pruned in cut["pruned"]:
        assert "is-pruned" in page.locator(node_selector("replay-tree", pruned)).get_attribute(
            "class")
    window = page.locator(f"#replay-tree [data-window-for='{cut['node']}']").text_content()
    assert "α=" in (window or "")
    screenshot(page, "student-replay-cutoff")
    page.keyboard.press("ArrowLeft")
    assert (badge.text_content() or "").strip() == ""
    page.keyboard.press("End")
    assert status.inner_text().startswith(f"{len(steps)} / {len(steps)}")
    page.keyboard.press("Home")
    assert status.inner_text().startswith("Press")

    # The buttons are reachable and work with Enter too.
    page.focus("button[data-replay-action='next']")
    page.keyboard.press("Enter")
    assert status.inner_text().startswith(f"1 / {len(steps)}")
    assert page.evaluate(
        "() => getComputedStyle(document.activeElement).outlineStyle"
    ) != "none"
    assert a11y_problems(page) == []


def test_dashboard_and_language_switch(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from grading.models import Submission
    from grading.services import submit_answer

    problem_set = publish_now(make_problem_set(instructor[0], course))
    variant = variant_of_user(problem_set, student[0])
    submission, _ = submit_answer(student=student[0], variant_id=variant.pk, position=1,
                                  answer={"value": "999", "pruned_leaves": []})
    assert wait_until(
        lambda: Submission.objects.get(pk=submission.pk).status == Submission.Status.GRADED
    )
    page = new_page()
    log_in(page, live_server.url, with_password(instructor[0]).username)
    page.goto(f"{live_server.url}/teach/problem-sets/{problem_set.pk}/dashboard/")
    page.wait_for_selector("svg.histogram")
    assert a11y_problems(page) == []
    assert student[0].username in page.inner_text("main")
    screenshot(page, "instructor-dashboard")

    page.select_option("#language-select", "pt")
    page.click(".language-form button")
    page.wait_for_load_state()
    assert page.get_attribute("html", "lang") == "pt"
    screenshot(page, "instructor-dashboard-pt")
    page.goto(f"{live_server.url}/teach/problem-sets/")
    screenshot(page, "instructor-problem-sets-pt")


PICTURED_KINDS = ("ucb1", "mcts_backprop", "tictactoe_position", "connect4_eval",
                  "expectiminimax", "vector", "concept_quiz", "eval_function")


def test_other_kinds_get_fitting_inputs(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any, course: Any,
) -> None:
    from decimal import Decimal

    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Tour of kinds", seed="tour",
        items=[{"kind": kind, "params": {}, "points": Decimal(1)} for kind in PICTURED_KINDS],
    ))
    variant = variant_of_user(problem_set, with_password(student[0]))
    page = new_page()
    log_in(page, live_server.url, student[0].username)
    for position, kind in enumerate(PICTURED_KINDS, start=1):
        page.goto(f"{live_server.url}/assignments/{variant.pk}/items/{position}/")
        page.wait_for_selector("#submit-answer")
        assert a11y_problems(page) == [], kind
        screenshot(page, f"student-kind-{kind}")
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/3/")
    assert page.locator("svg.board").count() == 1
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    assert page.locator("table input[aria-label]").count() >= 2


def test_code_item_shows_the_starter_and_the_per_test_report(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    import shutil
    from decimal import Decimal

    from exercises.services import create_problem_set

    require(shutil.which("bwrap") is not None, "bubblewrap runs the code items' sandbox")
    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Write minimax", seed="code",
        items=[{"kind": "code_minimax", "params": {}, "points": Decimal(3)}],
    ))
    variant = variant_of_user(problem_set, with_password(student[0]))
    page = new_page()
    log_in(page, live_server.url, student[0].username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    editor = page.locator("#code-source")
    assert "def " in editor.input_value()
    assert a11y_problems(page) == []
    screenshot(page, "student-code-item")
    # The untouched starter raises NotImplementedError: every hidden test reports it.
    page.click("#submit-code")
    page.wait_for_selector("#report-heading", timeout=90_000)
    assert page.locator("tr[data-verdict]").count() >= 1
    assert page.locator("tr[data-verdict='passed']").count() == 0
    screenshot(page, "student-code-report")

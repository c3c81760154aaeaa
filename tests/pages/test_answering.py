"""Answering in a real headless Chromium without losing work: Enter, drafts, offline, CSRF,
attempt history, errors named by label, numbers typed with a decimal comma, the question panel.

Screenshots go to ``$CUTOFF_TEST_ARTIFACTS`` (default ``var/test-artifacts``, git-ignored).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from tests.conftest import wait_until
from tests.pages.conftest import make_problem_set, publish_now, variant_of_user
from tests.pages.test_browser import PASSWORD, log_in, with_password

ARTIFACTS = Path(
    os.environ.get("CUTOFF_TEST_ARTIFACTS") or Path(settings.VAR_DIR) / "test-artifacts"
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
]


def screenshot(page: Any, name: str) -> None:
    """Save a full-page screenshot as an artefact of the test run."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def submissions_of(variant: Any) -> int:
    from grading.models import Submission

    return Submission.objects.filter(variant_item__variant=variant).count()


def wait_for_draft(page: Any) -> None:
    page.wait_for_selector("#draft-state[data-state='saved']")


def accept_dialogs(page: Any, seen: list[str]) -> None:
    """Accept every confirm() on ``page``, noting its text."""

    def accept(dialog: Any) -> None:
        seen.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)


def published_variant(instructor: Any, course: Any, student: Any, title: str,
                      items: list[dict[str, Any]], **settings: Any) -> tuple[Any, Any]:
    """Publish a set of ``items`` and return the student, able to log in, and their variant."""
    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title=title, seed=title, items=items,
        **settings))
    user = with_password(student[0])
    return user, variant_of_user(problem_set, user)


def student_on_item(new_context: Callable[..., Any], live_server: Any, user: Any,
                    variant: Any, position: int = 1) -> Any:
    """Return a page of ``user``, logged in, on item ``position`` of ``variant`` (dialogs
    accepted)."""
    page = new_context().new_page()
    accept_dialogs(page, [])
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/{position}/")
    return page


def test_enter_drafts_offline_and_a_new_login_never_lose_work_or_attempts(
    live_server: Any, celery_worker_process: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = publish_now(make_problem_set(instructor[0], course, max_attempts=3))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    key = variant.items.get().answer_key
    item_url = f"{live_server.url}/assignments/{variant.pk}/items/1/"
    context = new_context()
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(item_url)
    panel = page.locator(".question-panel li").first
    assert "not started" in panel.inner_text()

    # Enter in the root's box saves a draft and never submits.
    page.fill("#answer-tree-value-root", "7/")
    page.press("#answer-tree-value-root", "Enter")
    wait_for_draft(page)
    assert submissions_of(variant) == 0
    page.fill("#answer-tree-value-root", str(key["value"]))
    page.check(f"#answer-tree-move-{key['move']}")
    wait_for_draft(page)
    screenshot(page, "answering-draft-saved")

    # Another device (a fresh session) finds the draft in the inputs.
    other = new_context().new_page()
    log_in(other, live_server.url, user.username)
    other.goto(item_url)
    assert other.input_value("#answer-tree-value-root") == str(key["value"])
    assert other.is_checked(f"#answer-tree-move-{key['move']}")
    assert "draft" in other.locator(".question-panel li").first.inner_text()

    # Offline: Submit keeps the answer on screen, explains, and sends it once back online.
    dialogs: list[str] = []
    accept_dialogs(page, dialogs)
    context.set_offline(True)
    page.click("#submit-answer")
    page.wait_for_function(
        "() => document.getElementById('submit-message').textContent.includes('offline')")
    assert page.input_value("#answer-tree-value-root") == str(key["value"])
    assert re.match(r"\d+ parts? unanswered: submit anyway\?", dialogs[0])
    screenshot(page, "answering-offline")
    context.set_offline(False)
    page.wait_for_selector(".feedback-part")
    assert submissions_of(variant) == 1
    assert page.locator("#attempts-left").inner_text().strip() == "2"

    # The session ends and the student logs in again in another tab: new session, new CSRF
    # token. The next submit from the first tab still goes through.
    context.clear_cookies()
    tab = context.new_page()
    tab.goto(f"{live_server.url}/login/")
    tab.fill("#id_username", user.username)
    tab.fill("#id_password", PASSWORD)
    tab.click("button[type=submit]:has-text('Log in')")
    tab.wait_for_url(re.compile(r"/assignments/$"))
    page.fill("#answer-tree-value-root", "99")
    page.click("#submit-answer")
    page.wait_for_function("() => document.getElementById('attempts-left')"
                           ".textContent.trim() === '1'")
    assert wait_until(lambda: submissions_of(variant) == 2)
    page.wait_for_selector("#feedback-heading:has-text('attempt 2')")
    screenshot(page, "answering-after-relogin")

    # The first attempt reopens read-only, with its answer on the tree and its feedback.
    page.click("a[data-reopen='1']")
    page.wait_for_selector("#viewing-attempt")
    assert page.input_value("#answer-tree-value-root") == str(key["value"])
    assert page.is_disabled("#answer-tree-value-root")
    assert "attempt 1" in page.locator("#feedback-heading").inner_text()
    screenshot(page, "answering-reopened-attempt")


def test_a_refusal_names_the_part_by_label_and_highlights_it(
    live_server: Any, celery_worker_process: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = publish_now(make_problem_set(instructor[0], course))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    row = variant.items.get().problem["ask"]["windows"][0]
    page = new_context().new_page()
    accept_dialogs(page, [])
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    cell = f"#answer-windows-{row}-alpha"
    page.fill(cell, "lots")
    page.click("#submit-answer")
    page.wait_for_selector(f"{cell}[aria-invalid='true']")
    message = page.locator("#submit-message").inner_text()
    assert "(alpha, beta) when the named nodes are entered" in message
    assert "windows." not in message
    note = page.locator("#submit-field-error")
    assert note.get_attribute("id") in (page.get_attribute(cell, "aria-describedby") or "")
    assert submissions_of(variant) == 0
    screenshot(page, "answering-refusal-by-label")


def test_portuguese_pages_take_a_decimal_comma_and_infinity_as_typed(
    live_server: Any, celery_worker_process: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from grading.models import Submission

    problem_set = publish_now(make_problem_set(instructor[0], course))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    row = variant.items.get().problem["ask"]["windows"][0]
    page = new_context(locale="pt-PT", extra_http_headers={"Accept-Language": "pt"}).new_page()
    accept_dialogs(page, [])
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.press("#id_password", "Enter")  # the button's text is in Portuguese
    page.wait_for_url(re.compile(r"/assignments/$"))
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    assert "-2,5" in page.locator("#number-help").inner_text()
    page.fill("#answer-tree-value-root", "0,89")
    page.fill(f"#answer-windows-{row}-alpha", "−∞")
    page.fill(f"#answer-windows-{row}-beta", "+Infinity")
    page.click("#submit-answer")
    page.wait_for_selector(".feedback-part")
    answer = Submission.objects.get().answer
    assert answer["value"] == "0.89"
    assert answer["windows"][row] == {"alpha": "−∞", "beta": "+Infinity"}
    screenshot(page, "answering-decimal-comma-pt")


def test_without_script_enter_still_never_submits(
    live_server: Any, new_context: Callable[..., Any], instructor: Any, student: Any,
    course: Any,
) -> None:
    problem_set = publish_now(make_problem_set(instructor[0], course))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    page = new_context(java_script_enabled=False).new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url)
            if request.method == "POST" else None)
    # The form's default button that swallows Enter is hidden: no empty pill on the page.
    default_button = page.locator("#answer-form > button[type=submit][disabled]")
    assert default_button.count() == 1 and not default_button.is_visible()
    page.fill("#answer-tree-value-root", "3")
    page.press("#answer-tree-value-root", "Enter")
    page.wait_for_load_state()
    assert posts == []
    assert submissions_of(variant) == 0


def test_submit_is_disabled_with_the_reason_past_a_refusing_due_date(
    live_server: Any, new_context: Callable[..., Any], instructor: Any, student: Any,
    course: Any,
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    problem_set = publish_now(make_problem_set(instructor[0], course))
    problem_set.due_at = timezone.now() - timedelta(hours=1)
    problem_set.late_policy = "refuse"
    problem_set.save(update_fields=["due_at", "late_policy"])
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    page = new_context().new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    assert page.is_disabled("#submit-answer")
    assert "late answers are refused" in page.locator("#submit-blocked").inner_text()
    assert page.get_attribute("#submit-answer", "aria-describedby") == "submit-blocked"
    screenshot(page, "answering-past-due")


def test_no_cutoff_is_an_answer_the_page_can_give_and_it_earns_the_part(
    live_server: Any, celery_worker_process: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    # With the root's window never narrowed a depth-2 tree has no cutoff: the key is [],
    # which a blank box (unanswered) cannot say; the tick box does, kept in the draft too.
    from decimal import Decimal

    from grading.models import Submission

    user, variant = published_variant(instructor, course, student, "no-cuts", [
        {"kind": "alphabeta", "points": Decimal(6), "params": {
            "depth": 2, "min_cuts": 0, "root_raises_alpha": False, "ask_windows": 0}}])
    assert variant.items.get().answer_key["cutoffs"] == []
    page = student_on_item(new_context, live_server, user, variant)
    page.check("#answer-cutoffs-none")
    wait_for_draft(page)
    page.reload()
    assert page.is_checked("#answer-cutoffs-none")
    page.click("#submit-answer")
    page.wait_for_selector(".feedback-part")
    submission = Submission.objects.get(variant_item__variant=variant)
    assert submission.answer["cutoffs"] == []
    assert wait_until(lambda: Submission.objects.get(pk=submission.pk).status == "graded")
    graded = Submission.objects.get(pk=submission.pk)
    verdicts = {part["part"]: part["verdict"] for part in graded.results}
    assert verdicts["cutoffs"] == "correct"


def test_a_draft_typed_just_before_leaving_is_kept_and_a_spaced_vector_is_read(
    live_server: Any, celery_worker_process: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from decimal import Decimal

    from grading.models import Draft, Submission

    user, variant = published_variant(instructor, course, student, "leave-at-once", [
        {"kind": "vector", "points": Decimal(2), "params": {}},
        {"kind": "minimax", "points": Decimal(2), "params": {}},
    ], max_attempts=3)
    key = variant.items.get(position=1).answer_key
    page = student_on_item(new_context, live_server, user, variant)
    # Typed, then the next item at once: before the draft's debounce could fire.
    typed = " ".join(str(number) for number in key["value"])
    page.fill("#answer-value", typed)
    page.click("a:has-text('Next item')")
    page.wait_for_url("**/items/2/")
    assert wait_until(lambda: Draft.objects.filter(variant_item__variant=variant).exists())
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    kept = page.input_value("#answer-value")  # the draft, as the page writes a vector
    assert re.split(r"[,;\s]+", kept.strip()) == typed.split(), kept
    # Sent as the page reads it: one number per player, not one number "5 8 7".
    page.click("#submit-answer")
    page.wait_for_selector(".feedback-part")
    submission = Submission.objects.get(variant_item__variant=variant)
    assert submission.answer["value"] == [str(number) for number in key["value"]]
    assert page.locator("#attempts-used").inner_text() == "1"
    assert page.locator("#attempts-left").inner_text() == "2"


def test_a_resend_after_a_lost_response_shows_the_stored_attempt_and_sends_anew(
    live_server: Any, celery_worker_process: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from grading.models import Submission

    problem_set = publish_now(make_problem_set(instructor[0], course, max_attempts=3))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    page = student_on_item(new_context, live_server, user, variant)
    # The first answer is stored, but its response never reaches the page.
    lost: list[str] = []

    def lose_the_response(route: Any) -> None:
        if not lost:
            lost.append(route.request.url)
            route.fetch()  # the server stores it
            route.abort()
        else:
            route.continue_()

    page.route("**/submissions/?wait=*", lose_the_response)
    page.fill("#answer-tree-value-root", "1")
    page.click("#submit-answer")
    page.wait_for_selector("#submit-message.error")
    assert wait_until(lambda: Submission.objects.filter(variant_item__variant=variant).count()
                      == 1)
    page.fill("#answer-tree-value-root", "2")  # corrected, and sent again
    page.click("#submit-answer")
    page.wait_for_function(
        "document.getElementById('submit-message').textContent.includes('stored')")
    page.click("#submit-answer")  # the corrected answer now goes as a new attempt
    assert wait_until(lambda: Submission.objects.filter(variant_item__variant=variant).count()
                      == 2)
    answers = [s.answer for s in Submission.objects.filter(
        variant_item__variant=variant).order_by("attempt_number")]
    assert answers[0]["value"] == "1" and answers[1]["value"] == "2"

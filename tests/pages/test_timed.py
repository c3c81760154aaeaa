"""Timed quizzes in a real headless Chromium: a confirm step before the clock starts, a
countdown, time left on the assignment list, due dates in the reader's zone and relative."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.pages.conftest import make_problem_set, publish_now, variant_of_user
from tests.pages.test_answering import screenshot
from tests.pages.test_browser import log_in, with_password

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
]


def test_opening_a_timed_quiz_asks_first_then_counts_down(
    live_server: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = publish_now(make_problem_set(
        instructor[0], course, time_limit_minutes=30,
        due_at=timezone.now() + timedelta(hours=33, minutes=30)))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    page = new_context(timezone_id="America/Sao_Paulo").new_page()
    log_in(page, live_server.url, user.username)
    assert "30 minutes" in page.locator("main").inner_text()
    due = page.locator("time[data-when]").first
    # Two calendar days away may be under 48 hours: hours, never "tomorrow", below 48.
    assert "in 33 hours" in due.inner_text()
    assert re.search(r"GMT-3|BRT", due.inner_text())  # the reader's zone, not the server's
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector("#start-quiz")
    assert page.locator("svg#answer-tree").count() == 0
    variant.refresh_from_db()
    assert variant.opened_at is None
    screenshot(page, "timed-before-opening")

    page.click("#start-quiz-button")
    page.wait_for_selector("svg#answer-tree")
    variant.refresh_from_db()
    assert variant.opened_at is not None
    clock = page.locator("#quiz-countdown time[data-countdown]")
    page.wait_for_function(
        "() => Number(document.querySelector('time[data-countdown]').dataset.secondsLeft) > 0")
    assert re.fullmatch(r"\d{2}:\d{2}", clock.inner_text())
    # The label says "Ends at" for a page without script; counting, it is the time left.
    assert page.locator("#quiz-countdown").inner_text().startswith("Time left")
    screenshot(page, "timed-countdown")
    page.goto(f"{live_server.url}/assignments/")
    assert page.locator("time[data-countdown]").count() == 1

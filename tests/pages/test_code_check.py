"""The code item's "Check" button in a real headless Chromium: the typed code runs on the
public example test in the real sandbox (a real Celery worker), the page shows the result and
the printed output, no attempt is used, and a second check right away is explained."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from tests.conftest import require
from tests.pages.conftest import publish_now, variant_of_user
from tests.pages.test_answering import screenshot
from tests.pages.test_browser import log_in, with_password

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
]

MINIMAX = '''import math


def minimax_decision(game, state):
    player = game.to_move(state)

    def value(s):
        if game.is_terminal(s):
            return game.utility(s, player)
        values = [value(game.result(s, a)) for a in game.actions(s)]
        return max(values) if game.to_move(s) == player else min(values)

    best, best_value = None, -math.inf
    for a in game.actions(state):
        v = value(game.result(state, a))
        if v > best_value:
            best, best_value = a, v
    print("best move", best)
    return best, best_value
'''


def test_a_check_shows_the_result_and_the_printed_output_and_uses_no_attempt(
    live_server: Any, celery_worker_process: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any, settings: Any,
) -> None:
    from exercises.services import create_problem_set
    from grading.models import CodeCheck, Submission

    # An hour's window: a loaded machine cannot let the first check leave it before the second.
    settings.CUTOFF_CODE_CHECK_RATES = [(1, 3600)]
    require(shutil.which("bwrap") is not None, "bubblewrap runs the code items' sandbox")
    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Write minimax", seed="code",
        items=[{"kind": "code_minimax", "params": {}, "points": Decimal(3)}],
    ))
    variant = variant_of_user(problem_set, with_password(student[0]))
    page = new_context().new_page()
    log_in(page, live_server.url, student[0].username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector(".cm-editor .cm-content")
    # Replace the starter with a working search that prints (select all, then type).
    page.click(".cm-content")
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.evaluate("""(source) => {
        const view = document.getElementById('code-source').codeEditor;
        view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: source}});
    }""", MINIMAX)
    page.keyboard.type("# checked\n")

    page.click("#check-code")
    page.wait_for_selector("#check-result[data-state='done']", timeout=90_000)
    assert page.locator("#check-tests tr[data-verdict='passed']").count() == 1
    assert "best move" in page.text_content("#check-stdout")
    screenshot(page, "code-check")
    assert Submission.objects.count() == 0 and CodeCheck.objects.count() == 1
    page.reload()
    assert "Attempts used: 0" in " ".join(page.text_content("main").split())

    page.wait_for_selector(".cm-editor .cm-content")
    page.click("#check-code")
    page.wait_for_selector("#check-result[data-state='limited']")
    assert "at most 1 per 3600 seconds" in page.text_content("#check-status")
    assert CodeCheck.objects.count() == 1

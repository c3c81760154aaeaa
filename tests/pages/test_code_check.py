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
from tests.pages.conftest import code_set_variant
from tests.pages.test_answering import screenshot
from tests.pages.test_browser import a11y_problems, log_in, with_password

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
    from grading.models import CodeCheck, Submission

    # An hour's window: a loaded machine cannot let the first check leave it before the second.
    settings.CUTOFF_CODE_CHECK_RATES = [(1, 3600)]
    require(shutil.which("bwrap") is not None, "bubblewrap runs the code items' sandbox")
    variant = code_set_variant(instructor[0], course, with_password(student[0]), "code_minimax")
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


def replace_code(page: Any, source: str) -> None:
    """Put ``source`` in the page's code editor, as typing it would (the draft follows)."""
    page.evaluate("""(source) => {
        const view = document.getElementById('code-source').codeEditor;
        view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: source}});
    }""", source)


def editor_code(page: Any) -> str:
    return str(page.evaluate(
        "() => document.getElementById('code-source').codeEditor.state.doc.toString()"))


def test_checks_of_ucb1_backprop_and_agent_items_show_their_public_test_and_use_no_attempt(
    live_server: Any, celery_worker_process: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any, settings: Any,
) -> None:
    from grading.models import CodeCheck, Submission
    from tests.grading.code import solutions

    settings.CUTOFF_CODE_CHECK_RATES = []
    require(shutil.which("bwrap") is not None, "bubblewrap runs the code items' sandbox")
    variant = code_set_variant(instructor[0], course, with_password(student[0]), "code_ucb1",
                               "code_mcts_backprop", "code_tictactoe_agent")
    page = new_context().new_page()
    log_in(page, live_server.url, student[0].username)
    for position, (source, test) in enumerate([
        (solutions.UCB1, "a child never visited"),
        (solutions.MCTS_BACKPROP, "a path where MIN wins"),
        (solutions.PERFECT_TICTACTOE, "tic-tac-toe agent as X, against every opponent"),
    ], start=1):
        page.goto(f"{live_server.url}/assignments/{variant.pk}/items/{position}/")
        page.wait_for_selector(".cm-editor .cm-content")
        replace_code(page, source.replace("\ndef ", "\nprint('loaded')\n\n\ndef ", 1))

        page.click("#check-code")
        page.wait_for_selector("#check-result[data-state='done']", timeout=90_000)
        assert page.locator("#check-tests tr[data-verdict='passed']").count() == 1, position
        assert test in page.text_content("#check-tests")
        assert "loaded" in page.text_content("#check-stdout")
        assert "Attempts used: 0" in " ".join(page.text_content("main").split())
    screenshot(page, "code-check-agent")
    assert Submission.objects.count() == 0 and CodeCheck.objects.count() == 3


def test_a_code_attempt_reopens_read_only_loads_on_request_and_takes_a_regrade_request(
    live_server: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from grading.models import Draft, RegradeRequest, Submission
    from grading.services import resolve_regrade_request
    from tests.grading.code import solutions

    variant = code_set_variant(instructor[0], course, with_password(student[0]), "code_ucb1")
    item = variant.items.get()
    wrong_report = {
        "test": "a child never visited", "verdict": "wrong", "score": 0.0, "max_score": 1.0,
        "misconceptions": ["selected_most_visited"],
        "messages": [{"code": "selection_differs",
                      "params": {"yours": "C", "your_score": "1.5000", "reference": "B",
                                 "reference_score": "infinite: never visited"}}],
    }
    passed_report = {**wrong_report, "verdict": "passed", "score": 1.0, "messages": [],
                     "misconceptions": []}
    for number, (source, report, score) in enumerate(
            [(solutions.UCB1_MOST_VISITED, wrong_report, "0"),
             (solutions.UCB1, passed_report, "3")], start=1):
        Submission.objects.create(
            variant_item=item, student=student[0], attempt_number=number,
            kind=Submission.Kind.CODE, source=source, status=Submission.Status.GRADED,
            results=[report], score=Decimal(score), raw_score=Decimal(score),
            max_score=Decimal(3))
    draft_code = solutions.UCB1 + "\n# my draft\n"
    Draft.objects.create(variant_item=item, student=student[0], answer={"source": draft_code})

    page = new_context().new_page()
    log_in(page, live_server.url, student[0].username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector(".cm-editor .cm-content")
    assert editor_code(page) == draft_code
    page.click("a[data-reopen='1']")
    page.wait_for_selector("#viewing-attempt")
    assert page.text_content("#attempt-source") == solutions.UCB1_MOST_VISITED
    assert "Report on attempt 1" in page.text_content("#report-heading")
    assert "You selected C" in page.text_content("tr[data-verdict='wrong']")
    page.wait_for_selector(".cm-editor .cm-content")
    assert editor_code(page) == draft_code
    assert a11y_problems(page) == []
    screenshot(page, "code-attempt-reopened")

    # Loading asks first: "no" keeps the draft, "yes" puts the attempt's code in the editor.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#load-attempt")
    assert editor_code(page) == draft_code
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#load-attempt")
    assert editor_code(page) == solutions.UCB1_MOST_VISITED
    page.wait_for_selector("#draft-state[data-state='saved']")
    assert Draft.objects.get().answer == {"source": solutions.UCB1_MOST_VISITED}

    page.click("#viewing-attempt a")
    page.wait_for_selector("#report-heading")
    assert "Report on attempt 2" in page.text_content("#report-heading")
    page.fill("#regrade-message", "My selection matches the lecture's.")
    page.click("#regrade-request-submit")
    page.wait_for_selector(".regrade-request")
    assert "My selection matches the lecture's." in page.text_content(".regrade-request")
    regrade_request = RegradeRequest.objects.get()
    assert regrade_request.submission.attempt_number == 2
    resolve_regrade_request(regrade_request, resolved_by=instructor[0],
                            reply="It does: full marks stand.")
    page.reload()
    assert "It does: full marks stand." in page.text_content(".instructor-reply")
    screenshot(page, "code-regrade-reply")

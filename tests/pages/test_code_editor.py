"""The code item's editor in a real headless Chromium: CodeMirror 6 from the project's own
static files, Python highlighting, line numbers, Tab indenting, and the source kept as a draft."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.pages.conftest import code_set_variant
from tests.pages.test_answering import screenshot
from tests.pages.test_browser import log_in, with_password

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
]


def test_the_code_editor_highlights_numbers_lines_indents_and_keeps_a_draft(
    live_server: Any, new_context: Callable[..., Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from grading.models import Draft

    variant = code_set_variant(instructor[0], course, with_password(student[0]), "code_minimax")
    context = new_context()
    hosts: set[str] = set()
    page = context.new_page()
    page.on("request", lambda request: hosts.add(request.url.split("/")[2]))
    log_in(page, live_server.url, student[0].username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector(".cm-editor .cm-content")
    assert page.locator(".cm-editor .cm-lineNumbers .cm-gutterElement").count() > 3
    # Python is highlighted: tokens (the docstring, keywords) get classes of their own.
    assert page.locator(".cm-content .cm-line span[class]").count() > 0
    assert page.is_hidden("#code-source")
    assert hosts == {live_server.url.split("/")[2]}  # nothing from another host

    page.click(".cm-content")
    page.keyboard.press("Control+End")
    page.keyboard.press("Enter")
    page.keyboard.type("x = 1")
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert "    x = 1" in page.input_value("#code-source")  # Tab indented the line
    page.wait_for_selector("#draft-state[data-state='saved']")
    assert "x = 1" in Draft.objects.get().answer["source"]
    screenshot(page, "code-editor")

    page.reload()
    page.wait_for_selector(".cm-editor .cm-content")
    assert "    x = 1" in page.evaluate(
        "() => document.getElementById('code-source').codeEditor.state.doc.toString()")

"""A 390 × 844 phone in headless Chromium: nothing scrolls the page sideways, on-tree targets
are at least 24 × 24 px with unclipped focus rings, and a depth-4 tree is answered end to end."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from grading.scoring import format_number
from tests.pages.conftest import publish_now, variant_of_user
from tests.pages.test_browser import log_in, with_password
from tests.pages.tree_pages import DEEP_PARAMS, horizontal_overflow, keep_screenshot, tree_set

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
MIN_TARGET_PX = 24


@pytest.fixture
def phone(new_context: Callable[..., Any]) -> Callable[[], Any]:
    """Return a factory of pages in a phone-sized, touch browser context."""
    return lambda: new_context(**PHONE).new_page()


def focus_ring_fits(page: Any) -> bool:
    """Return whether the focused element's outline lies inside its foreignObject's box."""
    return bool(page.evaluate("""() => {
      const el = document.activeElement;
      const style = getComputedStyle(el);
      if (style.outlineStyle === 'none') return false;
      const grow = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
      const r = el.getBoundingClientRect();
      const holder = el.closest('foreignObject').getBoundingClientRect();
      return r.left - grow >= holder.left - 0.5 && r.right + grow <= holder.right + 0.5
        && r.top - grow >= holder.top - 0.5 && r.bottom + grow <= holder.bottom + 0.5;
    }"""))


def test_a_student_answers_a_depth_4_tree_on_a_phone(
    live_server: Any, celery_worker_process: Any, phone: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = tree_set(instructor[0], course, DEEP_PARAMS, max_attempts=2)
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    key = variant.items.get().answer_key
    page = phone()
    log_in(page, live_server.url, user.username)
    assert horizontal_overflow(page) == 0
    keep_screenshot(page, "phone-assignments")

    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    view = page.locator("[data-tree-view='answer-tree']")
    view.locator(".tree-scroll").wait_for()
    page.wait_for_selector("[data-tree-view='answer-tree'][data-scale]")
    assert horizontal_overflow(page) == 0
    keep_screenshot(page, "phone-item-overview")

    # A tap on the overview zooms in where it lands, to full size.
    view.locator(".tree-scroll").scroll_into_view_if_needed()
    box = view.locator(".tree-scroll").bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + 30)
    assert float(view.get_attribute("data-scale")) == 1
    assert horizontal_overflow(page) == 0
    for target in page.locator("#answer-tree .tree-check, #answer-tree .tree-radio").all()[:6]:
        target.scroll_into_view_if_needed()
        size = target.bounding_box()
        assert size["width"] >= MIN_TARGET_PX and size["height"] >= MIN_TARGET_PX

    # Keyboard focus on on-tree controls draws a ring that no foreignObject edge clips.
    page.focus("#answer-tree-value-root")
    assert focus_ring_fits(page)
    # The next stop is the tree's next control in drawing order: a move radio or a pruned-leaf
    # checkbox, whichever this variant's tree draws first.
    page.keyboard.press("Tab")
    assert page.evaluate(
        "() => [document.activeElement.type, !!document.activeElement.closest('#answer-tree')]"
    ) in (["radio", True], ["checkbox", True])
    assert focus_ring_fits(page)

    page.fill("#answer-tree-value-root", format_number(key["value"]))
    page.check(f"#answer-tree-move-{key['move']}")
    for leaf in key["pruned_leaves"]:
        page.check(f"#answer-tree-pruned-{leaf}")
    page.fill("#answer-evaluated_count", str(key["evaluated_count"]))
    page.fill("#answer-cutoffs", "\n".join(
        f"{cut['node']}: {' '.join(cut['pruned'])}" for cut in key["cutoffs"]
        if not cut.get("optional")))
    for node, window in key["windows"].items():
        for bound in ("alpha", "beta"):
            page.fill(f"#answer-windows-{node}-{bound}", format_number(window[bound]))
    keep_screenshot(page, "phone-item-answered")
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("#submit-answer").click()

    page.wait_for_selector(".feedback-part", timeout=90_000)
    verdicts = dict(page.locator(".feedback-part").evaluate_all(
        "(els) => els.map((e) => [e.dataset.part, e.dataset.verdict])"))
    assert verdicts == dict.fromkeys(verdicts, "correct"), verdicts
    assert len(verdicts) == 6
    assert horizontal_overflow(page) == 0
    keep_screenshot(page, "phone-item-feedback")


def test_mcts_tables_and_the_assignment_list_scroll_inside_their_own_boxes(
    live_server: Any, phone: Callable[[], Any], instructor: Any, student: Any, course: Any,
) -> None:
    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course,
        title="Monte Carlo tree search, with a long title that wraps on a phone screen",
        seed="phone-mcts",
        items=[{"kind": kind, "params": {}, "points": Decimal(1)}
               for kind in ("mcts_backprop", "ucb1", "expectiminimax", "vector")],
    ))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    page = phone()
    log_in(page, live_server.url, user.username)
    assert horizontal_overflow(page) == 0
    for position in range(1, 5):
        page.goto(f"{live_server.url}/assignments/{variant.pk}/items/{position}/")
        page.wait_for_selector("#submit-answer")
        assert horizontal_overflow(page) == 0, position
        for table in page.locator("table").all():
            assert table.evaluate("(t) => t.closest('.table-scroll') !== null"), position
        keep_screenshot(page, f"phone-kind-{position}")

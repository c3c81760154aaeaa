"""The replay in headless Chromium: opened per item, the α/β window as the engine changes it,
and the drawing following the node of the current step on a depth-4 tree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from grading.scoring import format_number
from tests.conftest import wait_until
from tests.pages.conftest import ALPHABETA_PARAMS, variant_of_user
from tests.pages.test_browser import log_in, with_password
from tests.pages.tree_pages import DEEP_PARAMS, keep_screenshot, tree_set

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_replay_opens_per_item_once_its_attempts_are_used_up(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from grading.models import Submission
    from grading.services import submit_answer

    problem_set = tree_set(instructor[0], course, ALPHABETA_PARAMS, items=2, max_attempts=1)
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    submission, _ = submit_answer(student=user, variant_id=variant.pk, position=1,
                                  answer={"value": "0"})
    assert wait_until(
        lambda: Submission.objects.get(pk=submission.pk).status == Submission.Status.GRADED)
    page = new_page()
    log_in(page, live_server.url, user.username)

    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector("#replay")
    keep_screenshot(page, "replay-item-used-up")
    # Item 2 still has its attempt: no replay yet, and the page says the real rule.
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/2/")
    page.wait_for_selector("#submit-answer")
    assert page.locator("#replay").count() == 0
    rule = page.locator("#replay-rule").inner_text()
    assert "this item's attempts are used up" in rule and "due date" in rule


def test_the_replay_shows_the_window_as_it_changes_and_follows_its_node(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = tree_set(instructor[0], course, DEEP_PARAMS, past_due=True)
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    events = variant.items.get().trace["answer"]["trace"]
    page = new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector("[data-tree-view='replay-tree'][data-scale]")
    page.locator("[data-tree-view='replay-tree'] [data-zoom='actual']").click()

    # Step through every event; after each, read the current node's window and whether the
    # node is inside the visible part of the scroll box.
    seen = page.evaluate("""(count) => {
      const next = document.querySelector('[data-replay-action=next]');
      const scroller = document.querySelector("[data-tree-view='replay-tree'] .tree-scroll");
      const out = [];
      for (let i = 0; i < count; i += 1) {
        next.click();
        const current = document.querySelector('#replay-tree .is-current');
        const name = current.dataset.node;
        const box = scroller.getBoundingClientRect();
        const node = current.querySelector('.tree-shape').getBoundingClientRect();
        const windowText = document.querySelector(
          '#replay-tree [data-window-for="' + name + '"]').textContent;
        out.push({node: name, window: windowText, visible: node.left >= box.left
          && node.right <= box.right && node.top >= box.top && node.bottom <= box.bottom
          && node.top >= 0 && node.bottom <= window.innerHeight});
      }
      return out;
    }""", len(events))
    assert [step["node"] for step in seen] == [str(event["node"]) for event in events]
    assert all(step["visible"] for step in seen), [s["node"] for s in seen if not s["visible"]]

    cutoffs = [(index, event) for index, event in enumerate(events) if event["event"] == "cutoff"]
    assert cutoffs
    for index, event in cutoffs:
        expected = f"α={format_number(event['alpha'])} β={format_number(event['beta'])}"
        assert seen[index]["window"] == expected, (index, event)

    # After a child returns, its parent shows the window it hands its next child.
    tree = variant.items.get().problem["tree"]
    parent_of = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in node.get("children") or []:
            parent_of[str(child["name"])] = str(node["name"])
            stack.append(child)
    index, returned = next(
        (i, event) for i, event in enumerate(events[:-1])
        if event["event"] == "exit" and events[i + 1]["event"] == "enter"
        and parent_of.get(str(events[i + 1]["node"])) == parent_of.get(str(event["node"]))
        and events[i + 1]["beta"] != "inf"
    )
    following = events[index + 1]
    page.locator("[data-replay-action=first]").click()
    for _ in range(index + 1):
        page.locator("[data-replay-action=next]").click()
    parent = parent_of[str(returned["node"])]
    window = page.locator(f"#replay-tree [data-window-for='{parent}']").text_content()
    assert window == f"α={format_number(following['alpha'])} β={format_number(following['beta'])}"
    assert "β=∞" not in (window or "")
    keep_screenshot(page, "replay-deep-window", full_page=False)

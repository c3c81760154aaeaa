"""The tree a student reads, in headless Chromium: marks on their nodes, the expected answer,
big trees fitted and zoomed, the tree's structure, players, legend glyphs and the favicon."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from tests.conftest import wait_until
from tests.pages.conftest import publish_now, variant_of_user
from tests.pages.test_browser import log_in, with_password
from tests.pages.tree_pages import (
    DEEP_PARAMS,
    DEPTH3_PARAMS,
    horizontal_overflow,
    keep_screenshot,
    tree_set,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# For every feedback mark: its box, its own node's shape box, and every other node's box.
MARK_BOXES = """(tree) => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const nodes = Array.from(document.querySelectorAll('#' + tree + ' .tree-node'));
  return Array.from(document.querySelectorAll('#' + tree + ' .tree-mark')).map((mark) => {
    const own = mark.closest('.tree-node');
    return {node: own.dataset.node, mark: box(mark), own: box(own.querySelector('.tree-shape')),
            others: nodes.filter((n) => n !== own).map((n) => ({
              node: n.dataset.node, box: box(n.querySelector('.tree-shape'))}))};
  });
}"""


def gap(a: dict[str, float], b: dict[str, float]) -> float:
    """Return the distance between two boxes (0 when they touch or overlap)."""
    dx = max(0.0, max(a["left"], b["left"]) - min(a["right"], b["right"]))
    dy = max(0.0, max(a["top"], b["top"]) - min(a["bottom"], b["bottom"]))
    return max(dx, dy)


def centre(box: dict[str, float]) -> tuple[float, float]:
    """Return a box's centre."""
    return (box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2


def test_marks_sit_on_their_own_nodes_and_the_expected_answer_is_drawn(
    live_server: Any, celery_worker_process: Any, new_page: Callable[[], Any],
    instructor: Any, student: Any, course: Any,
) -> None:
    from grading.models import Submission
    from grading.services import submit_answer

    problem_set = tree_set(instructor[0], course, DEPTH3_PARAMS, max_attempts=1)
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    variant_item = variant.items.get()
    key = variant_item.answer_key
    leaves = _leaf_names(variant_item.problem["tree"])
    # Every leaf ticked: the key's pruned leaves come back right, all others wrong.
    submission, _ = submit_answer(student=user, variant_id=variant.pk, position=1,
                                  answer={"value": str(key["value"]), "pruned_leaves": leaves})
    assert wait_until(
        lambda: Submission.objects.get(pk=submission.pk).status == Submission.Status.GRADED)
    page = new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector("#feedback-heading")
    page.locator("[data-tree-view='answer-tree'] [data-zoom='actual']").click()

    marks = page.evaluate(MARK_BOXES, "answer-tree")
    assert {mark["node"] for mark in marks} >= {"root", *leaves}
    for mark in marks:
        assert gap(mark["mark"], mark["own"]) <= 2, mark["node"]
        mx, my = centre(mark["mark"])
        own_distance = abs(mx - centre(mark["own"])[0]) + abs(my - centre(mark["own"])[1])
        for other in mark["others"]:
            assert gap(mark["mark"], other["box"]) > 0, (mark["node"], other["node"])
            ox, oy = centre(other["box"])
            assert own_distance < abs(mx - ox) + abs(my - oy), (mark["node"], other["node"])
    legend = page.locator("[data-tree-view='answer-tree'] .tree-legend").inner_text()
    assert "right" in legend and "wrong" in legend
    keep_screenshot(page, "tree-marks-on-their-nodes")

    # After the last attempt the key is drawn on a tree of its own and written in words.
    expected = page.locator("#expected-tree")
    assert (expected.locator(".tree-expected").first.text_content() or "").strip() == (
        f"= {key['value']}")
    greyed = expected.locator(".tree-node.is-pruned")
    assert sorted(greyed.evaluate_all("(els) => els.map((e) => e.dataset.node)")) == sorted(
        key["pruned_leaves"])
    for text in page.locator(".expected-answer").all_inner_texts():
        assert not any(mark in text for mark in '[]{}"'), text
    words = page.locator(".feedback-part[data-part='pruned_leaves'] .expected-answer")
    assert all(name in words.inner_text() for name in key["pruned_leaves"])
    keep_screenshot(page, "tree-expected-answer")


def _leaf_names(tree: dict[str, Any]) -> list[str]:
    children = tree.get("children") or []
    if not children:
        return [tree["name"]]
    return [name for child in children for name in _leaf_names(child)]


def test_a_deep_tree_fits_zooms_pans_and_is_exposed_as_a_structure(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any, course: Any,
) -> None:
    problem_set = tree_set(instructor[0], course, DEEP_PARAMS)
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    page = new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector("[data-tree-view='answer-tree'][data-scale]")
    view = page.locator("[data-tree-view='answer-tree']")
    scroller = view.locator(".tree-scroll")
    svg = page.locator("svg#answer-tree")
    assert svg.get_attribute("data-width") == "4648"

    # Fitted at load: the drawing is no wider than its box, the root's answer box in view.
    box = scroller.bounding_box()
    assert svg.bounding_box()["width"] <= box["width"]
    root_input = page.locator("#answer-tree-value-root").bounding_box()
    assert box["x"] <= root_input["x"] and root_input["x"] + root_input["width"] <= (
        box["x"] + box["width"])
    assert root_input["y"] + root_input["height"] <= 900
    assert horizontal_overflow(page) == 0
    keep_screenshot(page, "tree-deep-fitted")

    fitted = float(view.get_attribute("data-scale"))
    view.locator("[data-zoom='in']").click()
    assert float(view.get_attribute("data-scale")) > fitted
    view.locator("[data-zoom='out']").click()
    view.locator("[data-zoom='out']").click()
    assert float(view.get_attribute("data-scale")) < fitted or fitted <= 0.2
    view.locator("[data-zoom='actual']").click()
    assert round(svg.bounding_box()["width"]) == 4648
    assert horizontal_overflow(page) == 0

    # Pan by dragging with the mouse, then with the arrow keys on the focused box.
    # Measured again: the zoom buttons may have scrolled the page. The top strip above the
    # root holds no control, so the press starts a drag there.
    scroller.scroll_into_view_if_needed()
    box = scroller.bounding_box()
    start = scroller.evaluate("(el) => el.scrollLeft")
    page.mouse.move(box["x"] + 600, box["y"] + 8)
    page.mouse.down()
    page.mouse.move(box["x"] + 300, box["y"] + 8, steps=5)
    page.mouse.up()
    dragged = scroller.evaluate("(el) => el.scrollLeft")
    assert dragged > start
    scroller.focus()
    page.keyboard.press("ArrowRight")
    assert scroller.evaluate("(el) => el.scrollLeft") > dragged
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") != "none"
    keep_screenshot(page, "tree-deep-actual-size", full_page=False)
    view.locator("[data-zoom='fit']").click()
    assert float(view.get_attribute("data-scale")) == pytest.approx(fitted, abs=0.002)

    # A structure, not a flat list: nested lists four levels deep, each node named by its
    # type, name and (for leaves) value.
    structure = page.evaluate("""() => {
      const items = Array.from(document.querySelectorAll('#answer-tree [role=listitem]'));
      const depth = (el) => { let d = 0; for (let p = el.parentElement; p; p = p.parentElement)
        if (p.getAttribute && p.getAttribute('role') === 'listitem') d += 1; return d; };
      return items.map((el) => ({name: el.dataset.itemFor, depth: depth(el),
        title: el.querySelector(':scope > title').textContent}));
    }""")
    assert len(structure) == 1 + 3 + 9 + 27 + 81
    assert max(item["depth"] for item in structure) == 4
    root = structure[0]
    assert root["depth"] == 0 and root["title"].startswith("MAX node root") and (
        "3 children" in root["title"])
    leaf = next(item for item in structure if item["depth"] == 4)
    assert leaf["title"].startswith(f"leaf {leaf['name']}, value ")


def test_players_legend_glyphs_and_favicon(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any, course: Any,
) -> None:
    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Max^n", seed="players",
        items=[{"kind": "vector", "params": {}, "points": Decimal(1)}],
    ))
    user = with_password(student[0])
    variant = variant_of_user(problem_set, user)
    page = new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/assignments/{variant.pk}/items/1/")
    page.wait_for_selector("svg#answer-tree")
    names = set(page.locator("#answer-tree .tree-node").evaluate_all(
        "(els) => els.map((e) => e.dataset.node)"))
    movers = page.locator("#answer-tree .tree-player").evaluate_all(
        "(els) => els.map((e) => e.textContent)")
    assert movers and all(text.startswith("P") and text not in names for text in movers)
    legend = page.locator("[data-tree-view='answer-tree'] .tree-legend")
    assert "P1 = player A" in legend.inner_text()
    # Every legend glyph is drawn (an SVG shape, not a character a font may lack).
    for glyph in legend.locator(".legend-shape").all():
        size = glyph.bounding_box()
        assert size and size["width"] > 5 and size["height"] > 5
    assert legend.locator(".legend-shape--leaf").count() == 1
    icon = page.locator("link[rel=icon]").get_attribute("href")
    assert icon and icon.startswith("/")
    response = page.request.get(live_server.url + icon)
    assert response.ok and "svg" in response.headers["content-type"]
    keep_screenshot(page, "tree-players")

"""The builder in a real headless Chromium: the tree editor, named trees, ordered items."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.pages.test_browser import a11y_problems, log_in, screenshot, with_password

"""The browser tests' fixtures: one Chromium per module, a page factory per test."""

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLICKER = "[data-tree-clicker='item-0-tree']"


def open_builder(live_server: Any, new_page: Callable[[], Any], instructor: Any) -> Any:
    page = new_page()
    log_in(page, live_server.url, with_password(instructor[0]).username)
    page.goto(f"{live_server.url}/teach/problem-sets/new/")
    return page


def test_a_typed_tree_is_drawn_with_its_key_and_errors_name_the_node(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, course: Any,
) -> None:
    page = open_builder(live_server, new_page, instructor)
    page.fill("#item-0-tree", "MAX(A: MIN(3, 5), B: MIN(2, 9))")
    page.wait_for_selector("#preview-0 .tree-text-form")
    preview = page.locator("#preview-0")
    assert preview.locator(".tree-text-form").inner_text() == "MAX(MIN(3, 5), MIN(2, 9))"
    assert '["B2"]' in preview.locator(".preview-key").inner_text()  # the pruned leaf
    assert preview.locator(".preview-student svg.tree").count() == 1
    assert preview.locator(".preview-student fieldset[disabled]").count() == 1
    assert a11y_problems(page) == []
    screenshot(page, "builder-typed-tree")

    page.fill("#item-0-tree", "MAX(A: MIN(3, 5), B: CHANCE(2, 9))")
    page.wait_for_selector("#preview-0 [role=alert]")
    error = page.locator("#preview-0 [role=alert]").inner_text()
    assert "tree.children[1]" in error and 'node "B"' in error
    assert "alphabeta trees have only max, min inner nodes" in error

    page.fill("#item-0-tree", "MAX(A: MIN(3, 5), B: MIN(2 9))")
    page.wait_for_function("() => document.querySelector('#preview-0 [role=alert]')"
                           ".textContent.includes('column 28')")


def test_a_named_tree_is_posed_and_grown_by_clicking(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, course: Any,
) -> None:
    page = open_builder(live_server, new_page, instructor)
    page.select_option("#item-0-tree-library",
                       "A: MAX(B: MIN(3, 12, 8), C: MIN(2, 4, 6), D: MIN(14, 5, 2))")
    page.wait_for_selector("#preview-0 .tree-text-form")
    assert page.input_value("#item-0-tree").startswith("A: MAX(B: MIN(3, 12, 8)")
    page.wait_for_selector("[data-tree-clicker='item-0-tree'] [data-node='C']")

    # Give the root a fourth child by clicking, then make it a MIN node with one leaf.
    root = page.locator(f"{CLICKER} [data-node='A']")
    root.locator(":scope > button", has_text="Add child").click()
    page.wait_for_function("() => document.getElementById('item-0-tree').value.startsWith('{')")
    tree = json.loads(page.input_value("#item-0-tree"))
    assert [child["name"] for child in tree["children"]] == ["B", "C", "D", "E"]
    page.locator(f"{CLICKER} [data-node='E'] > label > select").select_option("min")
    page.wait_for_function(
        "() => JSON.parse(document.getElementById('item-0-tree').value).children[3].type"
        " === 'min'")
    page.locator(f"{CLICKER} [data-node='E1'] > label > input").nth(1).fill("1")
    page.locator(f"{CLICKER} [data-node='E1'] > label > input").nth(1).dispatch_event("change")
    page.wait_for_selector("#preview-0 .tree-text-form:has-text('E: MIN(1)')")
    assert a11y_problems(page) == []
    screenshot(page, "builder-clicked-tree")


def test_items_keep_the_instructors_order_each_with_its_params_and_policies(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, course: Any,
) -> None:
    from exercises.models import ProblemSet

    page = open_builder(live_server, new_page, instructor)
    page.fill("#id_title", "Lecture trees")
    page.fill("#item-0-tree", "MAX(A: MIN(3, 5), B: MIN(2, 9))")
    page.select_option("#id_add_kind", "minimax")
    page.click("#add-item")
    page.wait_for_selector("#item-1")
    page.select_option("#id_add_kind", "alphabeta")
    page.click("#add-item")
    page.wait_for_selector("#item-2")
    assert page.input_value("#item-0-tree") == "MAX(A: MIN(3, 5), B: MIN(2, 9))"
    page.fill("#item-2-depth", "3")
    page.click("#item-1 button[name=move_up]")
    page.wait_for_selector(".item-row:first-child#item-1")
    assert page.locator("#item-1 legend").inner_text().startswith("Item 1: Minimax")
    assert page.locator("label[for='item-1-min_branching']").inner_text() == (
        "Fewest children of an inner node")

    # Another seed draws another variant of the random minimax item.
    page.click("#item-1 button[data-preview-item='1']:not([data-another-seed])")
    page.wait_for_selector("#preview-1 svg.tree")
    first = page.inner_html("#preview-1 .preview-key")
    page.click("#item-1 button[data-another-seed]")
    page.wait_for_function(
        "(first) => document.querySelector('#preview-1 .preview-key') &&"
        " document.querySelector('#preview-1 .preview-key').innerHTML !== first", arg=first)

    page.fill("#id_time_limit_minutes", "45")
    page.select_option("#id_late_policy", "penalty")
    page.fill("#id_late_penalty", "20")
    page.select_option("#id_score_policy", "last")
    page.select_option("#id_feedback_policy", "score_only")
    assert a11y_problems(page) == []
    screenshot(page, "builder-ordered-items")
    page.click("#create-problem-set")
    page.wait_for_selector("#publish-button")

    problem_set = ProblemSet.objects.get(title="Lecture trees")
    items = list(problem_set.items.order_by("position"))
    assert [item.kind for item in items] == ["minimax", "alphabeta", "alphabeta"]
    assert items[1].params["tree"]["children"][0]["name"] == "A"
    assert items[2].params["depth"] == 3 and items[2].params["tree"] is None
    assert problem_set.time_limit_minutes == 45 and problem_set.late_policy == "penalty"
    assert str(problem_set.late_penalty) == "0.200" and problem_set.score_policy == "last"
    assert problem_set.feedback_policy == "score_only"


def test_labels_follow_the_language(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, course: Any,
) -> None:
    page = open_builder(live_server, new_page, instructor)
    for lang, label in (("pt", "A sua própria árvore"), ("ca", "El vostre propi arbre")):
        page.context.add_cookies([{"name": "django_language", "value": lang,
                                   "url": live_server.url}])
        page.goto(f"{live_server.url}/teach/problem-sets/new/")
        assert page.locator("label[for='item-0-tree']").inner_text() == label

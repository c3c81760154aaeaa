"""The tree layout: readable up to depth 4 with branching 4, shapes by node type."""

from __future__ import annotations

import string
from itertools import pairwise
from typing import Any

from django.template.loader import render_to_string as render_any_language
from django.utils import translation

from pages.tree_drawing import CHAR_WIDTH, lay_out


def render_to_string(template: str, context: dict[str, Any]) -> str:
    """Render in English: another test's request may leave its language active."""
    with translation.override("en"):
        return render_any_language(template, context)


LAYER_TYPES = ["max", "min", "max", "min"]


def full_tree(depth: int, branching: int) -> dict[str, Any]:
    """Return a complete tree named like the generators name theirs (root, A, A1, A1a, …)."""

    def build(name: str, level: int) -> dict[str, Any]:
        if level == depth:
            return {"name": name, "value": (len(name) * 7 + ord(name[-1])) % 41 - 9}
        symbols = string.ascii_lowercase if level % 2 == 0 else string.digits[1:]
        children = []
        for index in range(branching):
            child = string.ascii_uppercase[index] if level == 0 else name + symbols[index]
            children.append(build(child, level + 1))
        return {"name": name, "type": LAYER_TYPES[level], "children": children}

    return build("root", 0)


def test_depth_four_branching_four_is_laid_out_without_overlaps() -> None:
    drawing = lay_out(full_tree(4, 4))
    assert len(drawing.leaves) == 256
    rows: dict[int, list[Any]] = {}
    for node in drawing.nodes:
        rows.setdefault(node.y, []).append(node)
    assert len(rows) == 5
    for row in rows.values():
        xs = sorted(node.x for node in row)
        gaps = [b - a for a, b in pairwise(xs)]
        assert min(gaps, default=999) >= 40
    leaves = drawing.leaves
    for left, right in pairwise(leaves):
        # Boxes and names (monospace) of neighbouring leaves keep apart.
        widest = max(left.box_width, len(left.name) * CHAR_WIDTH, len(right.name) * CHAR_WIDTH)
        assert right.x - left.x >= widest + 8
    assert leaves[0].x - leaves[0].box_width / 2 > 0
    assert leaves[-1].x + leaves[-1].box_width / 2 < drawing.width
    # Every parent sits centred over its children.
    by_name = drawing.by_name
    for node in drawing.inner_nodes:
        xs = [by_name[child].x for child in node.children]
        assert abs(node.x - (min(xs) + max(xs)) / 2) <= 1


def test_shapes_probabilities_and_players_are_drawn() -> None:
    tree = {"name": "root", "type": "max", "children": [
        {"name": "C", "type": "chance", "probabilities": ["1/3", "2/3"], "children": [
            {"name": "C1", "value": 4}, {"name": "C2", "type": "min", "children": [
                {"name": "C2a", "value": "7/2"}]}]},
        {"name": "P", "type": "player", "player": "blue", "children": [
            {"name": "P1", "value": [1, 2]}]},
    ]}
    drawing = lay_out(tree, ["red", "blue"])
    shapes = {node.name: node.shape for node in drawing.nodes}
    assert shapes == {"root": "max", "C": "chance", "C1": "leaf", "C2": "min", "C2a": "leaf",
                      "P": "player", "P1": "leaf"}
    assert [edge.label for edge in drawing.edges if edge.parent == "C"] == ["1/3", "2/3"]
    assert drawing.by_name["C2a"].value_text == "7/2"
    assert drawing.by_name["P1"].value_text == "(1, 2)"
    svg = render_to_string("pages/tree/svg.html", {
        "drawing": drawing, "prefix": "t", "title": "A tree", "interactive": False})
    assert 'role="list"' in svg and "<title id=\"t-title\">A tree</title>" in svg
    # Players are drawn by payoff position (P2), so they never read as a node's name.
    assert ">1/3</text>" in svg and ">P2</text>" in svg and "P2 = player blue" in svg
    assert "chance node C" in svg and "MAX node root" in svg and "leaf C1, value 4" in svg


def test_coordinates_are_never_localised() -> None:
    from django.utils import translation

    drawing = lay_out(full_tree(2, 3))
    with translation.override("pt"):
        svg = render_any_language("pages/tree/svg.html", {
            "drawing": drawing, "prefix": "t", "title": "x", "interactive": False})
    assert "," not in svg.split('viewBox="')[1].split('"')[0]
    for edge in drawing.edges:
        assert f'x1="{edge.x1}" y1="{edge.y1}"' in svg


def test_a_transposed_nodes_position_is_drawn_beside_its_name() -> None:
    tree = {"name": "root", "type": "max", "position": "p1", "children": [
        {"name": "A", "type": "min", "position": "p2", "children": [{"name": "A1", "value": 3}]},
        {"name": "B", "type": "min", "position": "p2", "children": [{"name": "B1", "value": 3}]},
    ]}
    drawing = lay_out(tree)
    assert [node.position for node in drawing.nodes] == ["p1", "p2", "", "p2", ""]
    svg = render_to_string("pages/tree/svg.html", {
        "drawing": drawing, "prefix": "t", "title": "A tree", "interactive": False})
    assert svg.count('class="tree-position"') == 3 and ">[p2]</text>" in svg
    assert "MIN node B (position p2)" in svg


def test_an_inner_nodes_static_evaluation_is_drawn_next_to_it() -> None:
    tree = {"name": "root", "type": "max", "children": [
        {"name": "A", "type": "min", "value": 6, "children": [{"name": "A1", "value": 2}]},
        {"name": "B", "type": "min", "children": [{"name": "B1", "value": 3}]},
    ]}
    drawing = lay_out(tree)
    estimates = {node.name: node.estimate_text for node in drawing.nodes}
    assert estimates == {"root": "", "A": "6", "B": "", "A1": "", "B1": ""}
    svg = render_to_string("pages/tree/svg.html", {"drawing": drawing, "prefix": "t"})
    assert svg.count('class="tree-estimate"') == 1 and ">(6)</text>" in svg


def test_three_outcomes_probabilities_never_overlap_in_chromium(
    new_page: Any,
) -> None:
    # Beside each edge's midpoint, the middle outcome's label ran into its right neighbour's
    # ("1/31/2"); now each sits on its own edge, lower down, with the leaves spaced for it.
    from pathlib import Path

    tree = {"name": "root", "type": "max", "children": [
        {"name": name, "type": "chance", "probabilities": probabilities, "children": [
            {"name": f"{name}{index}", "value": index} for index in range(1, 4)]}
        for name, probabilities in (("A", ["1/6", "1/3", "1/2"]),
                                    ("B", ["11/36", "13/36", "1/3"]))]}
    svg = render_to_string("pages/tree/svg.html", {
        "drawing": lay_out(tree), "prefix": "t", "title": "A tree", "interactive": False})
    css = (Path(__file__).resolve().parents[2] / "pages/static/pages/pages.css").read_text()
    page = new_page()
    page.set_content(f"<style>{css}</style>{svg}")
    boxes = page.evaluate("""() => Array.from(document.querySelectorAll('.tree-probability'))
        .map((label) => { const b = label.getBoundingClientRect();
                          return {text: label.textContent, left: b.left, right: b.right,
                                  top: b.top, bottom: b.bottom}; })""")
    assert [box["text"] for box in boxes] == ["1/6", "1/3", "1/2", "11/36", "13/36", "1/3"]
    for left, right in pairwise(boxes):
        if left["top"] < right["bottom"] and right["top"] < left["bottom"]:  # one row
            assert right["left"] - left["right"] >= 4, (left, right)

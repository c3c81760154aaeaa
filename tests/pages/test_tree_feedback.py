"""The tree's feedback data without a browser: mark places, nesting, the expected answer on
the tree and in words, the replay's per-item rule and the windows it draws."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone, translation

from exercises.kinds.base import AnswerPart, PartType
from exercises.selectors import RULES_CACHE, Rules
from pages.answer_form import part_fields
from pages.feedback_view import expected_in_words, paint_expected
from pages.replay import replay_open, replay_steps
from pages.tree_drawing import lay_out

TREE = {"name": "root", "type": "max", "children": [
    {"name": "A", "type": "min",
     "children": [{"name": "A1", "value": 3}, {"name": "A2", "value": 5}]},
    {"name": "B", "type": "min",
     "children": [{"name": "B1", "value": 2}, {"name": "B2", "value": 9}]},
]}
PARTS = [
    AnswerPart("value", PartType.NUMBER, "root value"),
    AnswerPart("move", PartType.NAME, "decision"),
    AnswerPart("pruned_leaves", PartType.SET, "pruned leaves"),
    AnswerPart("node_values", PartType.NODE_VALUES, "node values"),
]


def test_a_leafs_mark_sits_on_its_own_box_never_towards_its_neighbour() -> None:
    drawing = lay_out(TREE)
    leaf = drawing.by_name["A2"]
    neighbour = drawing.by_name["A1"]
    assert leaf.box_left < leaf.mark_x <= leaf.box_width // 2
    # The mark's 9 px badge stays right of the left neighbour's box.
    assert leaf.x + leaf.mark_x - 9 > neighbour.x + neighbour.box_width // 2


def test_the_outline_nests_every_node_under_its_parent() -> None:
    drawing = lay_out(TREE)
    opened = [node.name if node else ")" for node, _ in drawing.outline]
    assert opened == ["root", "A", "A1", "A2", ")", "B", "B1", "B2", ")", ")"]


def test_expected_answers_read_as_words() -> None:
    assert expected_in_words("7/2") == "7/2"
    assert expected_in_words("-inf") == "-∞"
    assert expected_in_words(["A2", "B2"]) == "A2, B2"
    assert expected_in_words([]) == "none"
    assert expected_in_words({"A": 3, "B": 2}) == "A = 3, B = 2"
    assert expected_in_words({"A2": {"alpha": "-inf", "beta": 39}}) == "A2: α = -∞, β = 39"
    assert expected_in_words([{"node": "B", "pruned": ["B2"]}]) == "at B: B2 pruned"
    with translation.override("pt"):
        assert expected_in_words([{"node": "B", "pruned": ["B2"]}]) == "em B: B2 podados"


def test_the_expected_answer_is_painted_on_its_own_drawing() -> None:
    drawing = lay_out(TREE)
    problem = {"tree": TREE, "ask": {"node_values": ["A", "B"]}}
    fields = part_fields(PARTS, problem, drawing, None)
    results = [
        {"part": "value", "expected": 3}, {"part": "move", "expected": "A"},
        {"part": "pruned_leaves", "expected": ["B2"]},
        {"part": "node_values", "expected": {"A": 3, "B": 2}},
    ]
    assert paint_expected(drawing, fields, results)
    by_name = drawing.by_name
    assert (by_name["root"].expected_text, by_name["A"].expected_text,
            by_name["B"].expected_text) == ("3", "3", "2")
    assert by_name["A"].expected_move and not by_name["B"].expected_move
    assert [n.name for n in drawing.nodes if n.expected_pruned] == ["B2"]
    svg = render_to_string("pages/tree/svg.html", {
        "drawing": drawing, "prefix": "x", "title": "Expected", "expected": True})
    assert ">= 3</text>" in svg and "is-expected-move" in svg
    assert not paint_expected(lay_out(TREE), fields, [{"part": "value"}])


def with_rules(due_at: Any, max_attempts: int | None, late_policy: str = "refuse") -> Any:
    """Return a stand-in variant whose rules (as rules_for caches them) are the given ones."""
    variant = SimpleNamespace(problem_set=SimpleNamespace(late_policy=late_policy))
    setattr(variant, RULES_CACHE, Rules(due_at=due_at, max_attempts=max_attempts,
                                        time_limit_minutes=None))
    return variant


def test_the_replay_opens_per_item() -> None:
    now = timezone.now()
    limited = with_rules(None, 2)
    assert not replay_open(limited, 1, now)
    assert replay_open(limited, 2, now)
    assert replay_open(with_rules(now - timedelta(hours=1), None), 0, now)
    assert not replay_open(with_rules(now + timedelta(hours=1), None), 5, now)
    # An extension's extra attempts are the student's own limit: the replay stays closed.
    assert not replay_open(with_rules(None, 3), 2, now)
    # Late answers still taken: the due date opens nothing (the replay shows the key).
    assert not replay_open(with_rules(now - timedelta(hours=1), None, "penalty"), 0, now)


def test_replay_steps_carry_the_window_each_event_changes() -> None:
    events: list[dict[str, Any]] = [
        {"event": "enter", "node": "root", "alpha": "-inf", "beta": "inf"},
        {"event": "enter", "node": "A", "alpha": "-inf", "beta": "inf"},
        {"event": "leaf", "node": "A1", "value": 3},
        {"event": "enter", "node": "A2", "alpha": "-inf", "beta": 3},
        {"event": "leaf", "node": "A2", "value": 5},
        {"event": "exit", "node": "A", "value": 3},
        {"event": "enter", "node": "B", "alpha": 3, "beta": "inf"},
        {"event": "leaf", "node": "B1", "value": 2},
        {"event": "cutoff", "node": "B", "number": 1, "alpha": 3, "beta": 2, "pruned": ["B2"]},
        {"event": "exit", "node": "B", "value": 2},
        {"event": "exit", "node": "root", "value": 3},
    ]
    item = SimpleNamespace(trace={"answer": {"trace": events}}, problem={"tree": TREE})
    steps = replay_steps(item)  # type: ignore[arg-type]
    assert steps is not None
    windows = [(s.get("window_node"), s.get("window")) for s in steps]
    assert windows[0] == ("root", "α=-∞ β=∞")
    assert windows[2] == ("A", "α=-∞ β=3")  # A1 returned 3: A hands β=3 to A2
    assert windows[5] == ("root", "α=3 β=∞")  # A returned 3: the root's α rose
    assert windows[8] == ("B", "α=3 β=2")
    assert windows[10] == (None, None)


def test_the_tree_views_controls_are_translated() -> None:
    with translation.override("ca"):
        svg = render_to_string("pages/tree/svg.html", {
            "drawing": lay_out(TREE), "prefix": "t", "title": "Arbre", "interactive": True})
    assert "Ajusta a l'amplada" in svg and "Amplieu i desplaceu l'arbre" in svg

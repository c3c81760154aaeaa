"""Painting grading's results on the tree: which nodes turn right, wrong or missed."""

from __future__ import annotations

from exercises.kinds.base import AnswerPart, PartType
from pages.answer_form import part_fields
from pages.feedback_view import paint_feedback
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


def states(answer: dict, results: list[dict]) -> dict[str, str]:
    """Return node → state after painting ``results`` for ``answer``."""
    drawing = lay_out(TREE)
    problem = {"tree": TREE, "ask": {"node_values": ["A", "B"]}}
    paint_feedback(drawing, part_fields(PARTS, problem, drawing, answer), results)
    return {node.name: node.state for node in drawing.nodes if node.state}


def test_wrong_parts_are_painted_on_their_nodes() -> None:
    answer = {"value": "5", "move": "A", "pruned_leaves": ["A2"],
              "node_values": {"A": "3", "B": "9"}}
    results = [
        {"part": "value", "verdict": "wrong", "messages": [{"code": "value_wrong", "text": "no"}]},
        {"part": "move", "verdict": "correct", "messages": []},
        {"part": "pruned_leaves", "verdict": "wrong", "messages": [
            {"code": "pruned_too_early_min", "params": {"pruned": "A2"}, "text": "why"},
            {"code": "missed_cutoff", "params": {"leaf": "B2", "pruned": ["B2"]}, "text": "cut"},
        ]},
        {"part": "node_values", "verdict": "partial", "messages": [
            {"code": "node_values_wrong", "params": {"nodes": ["B"]}, "text": "B wrong"}]},
    ]
    assert states(answer, results) == {
        "root": "wrong", "A": "right", "A2": "wrong", "B2": "missed", "B": "wrong",
    }


def test_expected_leaves_show_as_missed_once_answers_are_visible() -> None:
    results = [{"part": "pruned_leaves", "verdict": "partial", "expected": ["B2", "B1"],
                "messages": [{"code": "set_missing", "params": {"count": 1}, "text": "1"}]}]
    assert states({"pruned_leaves": ["B2"]}, results) == {"B2": "right", "B1": "missed"}


def test_withheld_wrong_leaves_leave_the_other_listed_ones_unmarked() -> None:
    # Under the verdicts policy the wrongly listed leaves are not named: none is called right.
    results = [{"part": "pruned_leaves", "verdict": "wrong", "messages": [
        {"code": "set_extra_withheld", "params": {}, "text": "some should not be included"},
        {"code": "pruned_too_early", "params": {"pruned": "A2"}, "text": "why"}]}]
    assert states({"pruned_leaves": ["A2", "B1", "B2"]}, results) == {"A2": "wrong"}


def test_a_set_not_exact_leaves_its_listed_leaves_unmarked() -> None:
    # An all-or-nothing set under the verdicts policy: no listed leaf is known to be right.
    results = [{"part": "pruned_leaves", "verdict": "wrong", "messages": [
        {"code": "set_not_exact_withheld", "params": {}, "text": "not exact"}]}]
    assert states({"pruned_leaves": ["A2", "B1"]}, results) == {}


def test_withheld_wrong_values_leave_the_other_given_ones_unmarked() -> None:
    # Under the verdicts policy the wrong values are not named but for the first wrong step.
    results = [{"part": "node_values", "verdict": "partial", "messages": [
        {"code": "node_value_min_withheld", "params": {"node": "A", "given": "9"},
         "text": "A is a MIN node"},
        {"code": "node_values_wrong_withheld", "params": {}, "text": "some are wrong"}]}]
    assert states({"node_values": {"A": 9, "B": 3}}, results) == {"A": "wrong"}

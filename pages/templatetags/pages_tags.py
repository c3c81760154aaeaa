"""Template tags of the pages: game trees and boards as SVG, score histograms, the late
policy."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django import template

from exercises.kinds.eval_function import FEATURE_LABELS, SIDE_LABELS
from pages.boards import board_picture
from pages.tree_drawing import TreeDrawing

register = template.Library()


@register.inclusion_tag("pages/tree/svg.html")
def tree_svg(
    drawing: TreeDrawing, prefix: str, title: str, *, interactive: bool = False,
    replay: bool = False, expected: bool = False,
) -> dict[str, Any]:
    """Draw a laid-out tree; ``interactive`` when it holds inputs, ``replay`` for the replay,
    ``expected`` for the expected answer drawn on it."""
    return {
        "drawing": drawing, "prefix": prefix, "title": title, "interactive": interactive,
        "replay": replay, "expected": expected,
    }


@register.inclusion_tag("pages/board.html")
def board_svg(problem: dict[str, Any]) -> dict[str, Any]:
    """Draw the tic-tac-toe or Connect Four position of a problem, if it has one."""
    return {"board": board_picture(problem)}


@register.inclusion_tag("pages/late_policy.html")
def late_policy(problem_set: Any) -> dict[str, Any]:
    """Say what happens to answers after the due date: refused, or taken with a penalty."""
    percent = (Decimal(problem_set.late_penalty) * 100).normalize()
    return {"refused": problem_set.late_policy == "refuse",
            "percent": f"{percent:f}"}


@register.filter
def pages_json(value: Any) -> str:
    """Return ``value`` as compact JSON text (for showing an expected answer)."""
    return json.dumps(value, ensure_ascii=False)


@register.inclusion_tag("pages/problem_facts.html")
def problem_facts(problem: dict[str, Any]) -> dict[str, Any]:
    """Show the facts a problem gives outside its tree, e.g. a position's feature counts."""
    features = problem.get("features") or {}
    names = list(next(iter(features.values()), {})) if features else []
    return {
        "problem": problem,
        "feature_sides": [SIDE_LABELS.get(side, side) for side in features],
        "feature_rows": [(FEATURE_LABELS.get(name, name), [side.get(name) for side in
                                                           features.values()])
                         for name in names],
    }

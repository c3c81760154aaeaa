"""Show a graded submission: grading's per-part results in words, and painted on the tree.

The results are data (verdicts, message codes and params, misconception codes) stored by
grading; :func:`grading.feedback.render_results` turns them into text in the reader's
language. Painting only reads which names the messages and answers mention.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from exercises.kinds.base import AnswerPart
from grading.feedback import CORRECT, render_results
from grading.feedback_policy import served_results
from grading.grader import all_or_nothing_sets
from grading.models import Submission
from grading.scoring import format_number
from pages.answer_form import COLUMN_LABELS, PartField
from pages.tree_drawing import TreeDrawing


def rendered_results(
    submission: Submission, parts: Sequence[AnswerPart], *, show_expected: bool, policy: str
) -> list[dict[str, Any]]:
    """Return the submission's part results as ``policy`` serves them, their texts in the
    active language."""
    results = render_results(
        served_results(submission.results or [], policy,
                       all_or_nothing=all_or_nothing_sets(submission.variant_item.item)),
        labels={part.name: str(part.label) for part in parts},
        show_expected=show_expected,
    )
    for result in results:
        if show_expected and result.get("expected") is not None:
            result["expected_text"] = expected_in_words(result["expected"])
    return results


def expected_in_words(value: Any) -> str:
    """Return an expected answer as a sentence fragment people read, never as JSON.

    Numbers as people write them (3, 7/2, ∞), names and lists joined by commas, node values
    as "A = 3", cutoffs as "at B: B2, B3 pruned", records as "A: wins = 1, visits = 2".
    """
    if isinstance(value, Mapping):
        if not value:
            return _("none")
        if all(isinstance(entry, Mapping) for entry in value.values()):
            return "; ".join(f"{name}: {_fields_in_words(entry)}" for name, entry in value.items())
        return _fields_in_words(value)
    if isinstance(value, list | tuple):
        if not value:
            return _("none")
        if all(isinstance(entry, Mapping) and "node" in entry for entry in value):
            return "; ".join(
                _("at %(node)s: %(pruned)s pruned") % {
                    "node": entry["node"],
                    "pruned": ", ".join(str(name) for name in entry.get("pruned") or []),
                }
                for entry in value
            )
        return ", ".join(expected_in_words(entry) for entry in value)
    if isinstance(value, bool) or value is None:
        return str(value)
    return format_number(value)


def _names_in(messages: Sequence[Mapping[str, Any]], code_prefix: str, key: str) -> set[str]:
    """Return the names under ``key`` in the messages whose code starts with ``code_prefix``."""
    names: set[str] = set()
    for message in messages:
        if not str(message.get("code", "")).startswith(code_prefix):
            continue
        value = (message.get("params") or {}).get(key)
        if isinstance(value, list):
            names.update(str(v) for v in value)
        elif value is not None:
            names.add(str(value))
    return names


def _mark(drawing: TreeDrawing, name: str, state: str, note: str = "") -> None:
    node = drawing.by_name.get(name)
    if node is None or node.state == "wrong":
        return
    node.state = state
    if note:
        node.note = note


def paint_feedback(
    drawing: TreeDrawing, fields: Sequence[PartField], results: Sequence[Mapping[str, Any]]
) -> None:
    """Mark the tree's nodes right, wrong or missed from the results of the on-tree parts."""
    by_part = {result["part"]: result for result in results}
    for part_field in fields:
        result = by_part.get(part_field.part.name)
        if result is None or part_field.given is None:
            continue
        messages = result.get("messages") or []
        note = " ".join(message["text"] for message in messages)
        correct = result.get("verdict") == CORRECT
        match part_field.widget:
            case "tree_value":
                _mark(drawing, drawing.nodes[0].name, "right" if correct else "wrong", note)
            case "tree_move":
                _mark(drawing, str(part_field.given), "right" if correct else "wrong", note)
            case "tree_leaves":
                extra = _names_in(messages, "set_extra", "names")
                extra |= _names_in(messages, "pruned_", "pruned")
                missed = _names_in(messages, "missed_cutoff", "leaf")
                expected = result.get("expected")
                if isinstance(expected, list):
                    missed |= set(expected) - set(part_field.given)
                # Under the verdicts policy the wrongly listed leaves are not named: a wrong
                # part's other listed leaves are then not known to be right either.
                unnamed = not correct and any(
                    message["code"] in ("set_extra_withheld", "set_not_exact_withheld")
                    for message in messages)
                for name in part_field.given:
                    if name in extra:
                        _mark(drawing, name, "wrong")
                    elif not unnamed:
                        _mark(drawing, name, "right")
                for name in missed:
                    _mark(drawing, name, "missed", note)
            case "tree_node_values":
                wrong = _names_in(messages, "node_values_wrong", "nodes")
                wrong |= _names_in(messages, "node_value_", "node")
                # Under the verdicts policy the wrong values are not named (but for the first
                # wrong step's node): the part's other values are not known to be right.
                unnamed = not correct and any(
                    message["code"] == "node_values_wrong_withheld" for message in messages)
                for name in part_field.given:
                    if name in wrong:
                        _mark(drawing, name, "wrong", note)
                    elif not unnamed:
                        _mark(drawing, name, "right")


def _fields_in_words(fields: Mapping[str, Any]) -> str:
    """Return "A = 3, B = 5" or, for a record's fields, "α = -∞, β = 39"."""
    return ", ".join(
        f"{COLUMN_LABELS.get(str(name), name)} = {expected_in_words(entry)}"
        for name, entry in fields.items()
    )


def paint_expected(
    drawing: TreeDrawing, fields: Sequence[PartField], results: Sequence[Mapping[str, Any]]
) -> bool:
    """Draw the expected answers of the on-tree parts on ``drawing``; return whether any was.

    The root gets the expected value, asked nodes their expected values, the leaves the key
    prunes are greyed and the key's move is circled.
    """
    by_part = {result["part"]: result for result in results}
    drawn = False
    for part_field in fields:
        expected = (by_part.get(part_field.part.name) or {}).get("expected")
        if expected is None:
            continue
        match part_field.widget:
            case "tree_value":
                drawing.nodes[0].expected_text = format_number(expected)
                drawn = True
            case "tree_move":
                accepted = expected if isinstance(expected, list) else [expected]
                for name in accepted:
                    if str(name) in drawing.by_name:
                        drawing.by_name[str(name)].expected_move = drawn = True
            case "tree_leaves" if isinstance(expected, list):
                for name in expected:
                    if str(name) in drawing.by_name:
                        drawing.by_name[str(name)].expected_pruned = True
                drawn = True
            case "tree_node_values" if isinstance(expected, Mapping):
                for name, value in expected.items():
                    if str(name) in drawing.by_name:
                        drawing.by_name[str(name)].expected_text = format_number(value)
                        drawn = True
    return drawn

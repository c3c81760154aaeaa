"""The steps of the reference search's replay, read from the engine's stored trace.

Generation keeps the engine's answer with the variant item (``trace["answer"]``); for
searches that record one it holds the event ``trace``: ``enter`` (with the α/β window),
``leaf``, ``cutoff`` (numbered, with the pruned children) and ``exit``. Each becomes one step
of the replay, described in the reader's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from exercises.models import Variant, VariantItem
from exercises.selectors import answers_visible as due_date_passed
from exercises.selectors import rules_for
from grading.scoring import format_number


def describe(event: Mapping[str, Any]) -> str:
    """Return one trace event in words."""
    node = str(event.get("node", ""))
    match event.get("event"):
        case "enter":
            return _("Enter %(node)s with α = %(alpha)s, β = %(beta)s.") % {
                "node": node, "alpha": format_number(event.get("alpha")),
                "beta": format_number(event.get("beta")),
            }
        case "leaf":
            return _("Evaluate leaf %(node)s: %(value)s.") % {
                "node": node, "value": format_number(event.get("value")),
            }
        case "cutoff":
            return _(
                "Cutoff %(number)s at %(node)s: α = %(alpha)s, β = %(beta)s meet, so "
                "%(pruned)s are pruned."
            ) % {
                "number": event.get("number"), "node": node,
                "alpha": format_number(event.get("alpha")),
                "beta": format_number(event.get("beta")),
                "pruned": ", ".join(str(name) for name in event.get("pruned") or []),
            }
        case "exit" if "upper" in event or "lower" in event:
            return _("%(node)s returns %(value)s (a bound: between %(lower)s and %(upper)s).") % {
                "node": node, "value": format_number(event.get("value")),
                "lower": format_number(event.get("lower", "-inf")),
                "upper": format_number(event.get("upper", "inf")),
            }
        case "exit":
            return _("%(node)s returns %(value)s.") % {
                "node": node, "value": format_number(event.get("value")),
            }
    return node


def returned_text(event: Mapping[str, Any]) -> str:
    """Return what an exit event passes up: "= v", or "≤ v" / "≥ v" for a bound."""
    lower, upper = event.get("lower"), event.get("upper")
    if lower is None and upper is None:
        return f"= {format_number(event.get('value'))}"
    if lower in (None, "-inf"):
        return f"≤ {format_number(upper)}"
    if upper in (None, "inf"):
        return f"≥ {format_number(lower)}"
    return f"∈ [{format_number(lower)}, {format_number(upper)}]"


def window_text(alpha: Any, beta: Any) -> str:
    """Return an α/β window as drawn beside its node: "α=3 β=∞"."""
    return f"α={format_number(alpha)} β={format_number(beta)}"


def _parents(tree: Mapping[str, Any]) -> dict[str, str]:
    parents: dict[str, str] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in node.get("children") or []:
            parents[str(child["name"])] = str(node["name"])
            stack.append(child)
    return parents


def _window_after(
    events: list[Mapping[str, Any]], index: int, parents: Mapping[str, str]
) -> tuple[str, str] | None:
    """Return (node, window) that changes with event ``index``, or None.

    Entering a node and a cutoff state the window outright. When a child returns, its
    parent's window is the one the engine hands to the parent's next child, so it is read
    from that child's "enter" event rather than recomputed here.
    """
    event = events[index]
    node = str(event.get("node", ""))
    if event.get("event") in ("enter", "cutoff"):
        return node, window_text(event.get("alpha"), event.get("beta"))
    if event.get("event") in ("exit", "leaf") and index + 1 < len(events):
        following = events[index + 1]
        parent = parents.get(node)
        if (following.get("event") == "enter" and parent is not None
                and parents.get(str(following.get("node", ""))) == parent):
            return parent, window_text(following.get("alpha"), following.get("beta"))
    return None


def replay_steps(variant_item: VariantItem) -> list[dict[str, Any]] | None:
    """Return the replay steps of a variant item's reference search, or None without a trace.

    Each step carries the window it changes (``window_node``, ``window``), so the drawn
    window follows the search: at "Cutoff 1 at B: α = 3, β = 3 meet" node B shows α=3 β=3.
    """
    answer = (variant_item.trace or {}).get("answer") or {}
    events = answer.get("trace")
    if not isinstance(events, list) or not events:
        return None
    events = [event for event in events if isinstance(event, Mapping)]
    parents = _parents((variant_item.problem or {}).get("tree") or {})
    steps = []
    for index, event in enumerate(events):
        step = {
            "event": event.get("event"),
            "node": str(event.get("node", "")),
            "text": describe(event),
        }
        for key in ("alpha", "beta", "value"):
            if key in event:
                step[key] = format_number(event[key])
        if event.get("event") == "exit":
            step["returned"] = returned_text(event)
        if event.get("event") == "cutoff":
            step["number"] = event.get("number")
            step["pruned"] = [str(name) for name in event.get("pruned") or []]
        changed = _window_after(events, index, parents)
        if changed is not None:
            step["window_node"], step["window"] = changed
        steps.append(step)
    return steps


def replay_open(variant: Variant, attempts_used: int, now: datetime) -> bool:
    """Return whether one item's replay is shown: its attempts are used up or the set is due
    (and takes no late answers).

    The rule is per item: a student who used up item 1 replays it while still answering
    item 2. A set without an attempt limit opens its replays at the due date only, and under
    a late penalty not at all. The limit is the student's own (an extension's extra attempts
    keep the replay closed longer).
    """
    max_attempts = rules_for(variant).max_attempts
    if max_attempts and attempts_used >= max_attempts:
        return True
    return due_date_passed(variant, now)

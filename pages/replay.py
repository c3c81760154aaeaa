"""The steps of the reference search's replay, read from the engine's stored trace.

Generation keeps the engine's answer with the variant item (``trace["answer"]``); for
searches that record one it holds the event ``trace``: ``enter`` (with the α/β window),
``leaf``, ``cutoff`` (numbered, with the pruned children) and ``exit``. Each becomes one step
of the replay, described in the reader's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from exercises.models import VariantItem
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


def replay_steps(variant_item: VariantItem) -> list[dict[str, Any]] | None:
    """Return the replay steps of a variant item's reference search, or None without a trace."""
    answer = (variant_item.trace or {}).get("answer") or {}
    events = answer.get("trace")
    if not isinstance(events, list) or not events:
        return None
    steps = []
    for event in events:
        if not isinstance(event, Mapping):
            continue
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
        steps.append(step)
    return steps

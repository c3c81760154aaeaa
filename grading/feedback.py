"""Explain a graded part as data, and turn that data into text only when it is shown.

A part's result is JSON stored with the submission::

    {"part": "pruned_leaves", "type": "set", "verdict": "partial",
     "points": 0.5, "max_points": 1.0,
     "messages": [{"code": "pruned_too_early", "params": {"pruned": "C3", ...}}],
     "misconception": "alpha_updated_at_min" | null,
     "trace_step": {"index": 7, "event": "enter", "node": "C"} | null,
     "expected": ...}

``verdict`` is ``correct``, ``partial``, ``wrong`` or ``missing``. ``messages`` carry a code
and named parameters, never text: :func:`render_results` translates them with Django's
gettext in the reader's language, so pages, the API and LMSs all say the same thing.
``trace_step`` points at the event of the engine's reference trace where the student's
answer first departs from the search. ``expected`` is the part's correct value; the API
removes it while the answers are hidden.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy as _

from exercises.kinds.base import AnswerPart, PartType
from grading.feedback_policy import WITHHELD_MESSAGES
from grading.scoring import PartScore, as_written, format_number, to_number
from grading.wording import Plural, template_text

if TYPE_CHECKING:
    from grading.grader import GradingContext

CORRECT, PARTIAL, WRONG, MISSING = "correct", "partial", "wrong", "missing"


MESSAGES: dict[str, Any] = {
    "part_missing": _("You did not answer this part."),
    "value_wrong": _("%(given)s is not the right value."),
    "value_inexact": _(
        "%(given)s is close but not exact: this part wants the exact value; write it exactly, "
        "for example as a fraction."
    ),
    "name_wrong": _("%(given)s is not the right answer."),
    "set_extra": _("These should not be included: %(names)s."),
    "set_missing": _("Names missing from your answer: %(count)s."),
    "sequence_diverges": _(
        "Your list departs from the correct order at position %(position)s (you wrote %(given)s)."
    ),
    "sequence_too_short": Plural(
        "Your list stops after %(count)s entry; it is too short.",
        "Your list stops after %(count)s entries; it is too short.", "count",
    ),
    "sequence_too_long": Plural(
        "Your list goes on after %(count)s entry; it is too long.",
        "Your list goes on after %(count)s entries; it is too long.", "count",
    ),
    "node_values_wrong": _("Wrong values at: %(nodes)s."),
    "node_values_inexact": _(
        "Close but not exact at: %(nodes)s; write those values exactly, for example as "
        "fractions."
    ),
    "node_values_missing": _("No value given for: %(nodes)s."),
    "node_values_extra": _("Not asked, so not graded: %(nodes)s."),
    "vector_wrong": _("%(given)s is not the right payoff vector."),
    "cutoff_wrong_node": _("Your cutoff %(number)s at %(given)s does not happen there."),
    "cutoff_count": Plural(
        "The search makes %(expected)s cutoff; you listed %(given)s.",
        "The search makes %(expected)s cutoffs; you listed %(given)s.", "expected",
    ),
    # Results graded before cutoffs named the wrong child still carry this code.
    "cutoff_wrong_pruned": _("The cutoff at %(node)s skips other children than the ones you list."),
    "cutoff_pruned_extra": Plural(
        "The cutoff at %(node)s does not skip %(names)s: it is searched.",
        "The cutoff at %(node)s does not skip %(names)s: they are searched.", "names",
    ),
    "cutoff_pruned_missing": Plural(
        "The cutoff at %(node)s skips %(count)s more child than you list.",
        "The cutoff at %(node)s skips %(count)s more children than you list.", "count",
    ),
    "records_wrong": _("Wrong entries: %(cells)s."),
    "records_inexact": _(
        "Close but not exact: %(cells)s; write those values exactly, for example as fractions."
    ),
    "pruned_too_early_min": _(
        "You pruned %(pruned)s, but at %(node)s the window was α=%(alpha)s, β=%(beta)s and "
        "%(child)s=%(value)s does not reach α; MIN only stops when its value ≤ α."
    ),
    "pruned_too_early_min_strict": _(
        "You pruned %(pruned)s, but at %(node)s the window was α=%(alpha)s, β=%(beta)s and "
        "%(child)s=%(value)s does not go below α; with this convention MIN only stops when "
        "its value < α."
    ),
    "pruned_too_early_max": _(
        "You pruned %(pruned)s, but at %(node)s the window was α=%(alpha)s, β=%(beta)s and "
        "%(child)s=%(value)s does not reach β; MAX only stops when its value ≥ β."
    ),
    "pruned_too_early_max_strict": _(
        "You pruned %(pruned)s, but at %(node)s the window was α=%(alpha)s, β=%(beta)s and "
        "%(child)s=%(value)s does not go above β; with this convention MAX only stops when "
        "its value > β."
    ),
    "pruned_too_early_chance": _(
        "You pruned %(pruned)s, but at chance node %(node)s the window was α=%(alpha)s, "
        "β=%(beta)s and the outcomes searched before it (%(children)s) leave its value "
        "between %(lower)s and %(upper)s: a chance node stops only once its upper bound is at "
        "most α or its lower bound at least β."
    ),
    "pruned_too_early_chance_strict": _(
        "You pruned %(pruned)s, but at chance node %(node)s the window was α=%(alpha)s, "
        "β=%(beta)s and the outcomes searched before it (%(children)s) leave its value "
        "between %(lower)s and %(upper)s: with this convention a chance node stops only once "
        "its upper bound is below α or its lower bound above β."
    ),
    "pruned_first_child": _(
        "You pruned %(pruned)s, but it is the first child of %(node)s: a node always examines "
        "its first child before it can stop."
    ),
    "missed_cutoff": Plural(
        "You evaluated %(leaf)s, but cutoff %(number)s happens before it at %(node)s: there "
        "α=%(alpha)s and β=%(beta)s meet, so %(pruned)s is skipped.",
        "You evaluated %(leaf)s, but cutoff %(number)s happens before it at %(node)s: there "
        "α=%(alpha)s and β=%(beta)s meet, so %(pruned)s are skipped.", "pruned",
    ),
    "missed_cutoff_chance_upper": Plural(
        "You evaluated %(leaf)s, but cutoff %(number)s happens before it at chance node "
        "%(node)s: there its upper bound, %(bound)s, leaves it no value above α=%(alpha)s, so "
        "%(pruned)s is skipped.",
        "You evaluated %(leaf)s, but cutoff %(number)s happens before it at chance node "
        "%(node)s: there its upper bound, %(bound)s, leaves it no value above α=%(alpha)s, so "
        "%(pruned)s are skipped.", "pruned",
    ),
    "missed_cutoff_chance_lower": Plural(
        "You evaluated %(leaf)s, but cutoff %(number)s happens before it at chance node "
        "%(node)s: there its lower bound, %(bound)s, leaves it no value below β=%(beta)s, so "
        "%(pruned)s is skipped.",
        "You evaluated %(leaf)s, but cutoff %(number)s happens before it at chance node "
        "%(node)s: there its lower bound, %(bound)s, leaves it no value below β=%(beta)s, so "
        "%(pruned)s are skipped.", "pruned",
    ),
    "node_value_max": _(
        "%(node)s is a MAX node: its value is the largest of its children's values "
        "(%(children)s), not %(given)s."
    ),
    "node_value_min": _(
        "%(node)s is a MIN node: its value is the smallest of its children's values "
        "(%(children)s), not %(given)s."
    ),
    "node_value_chance": _(
        "%(node)s is a chance node: its value is the average of its children's values "
        "(%(children)s) weighted by their probabilities (%(probabilities)s), not %(given)s."
    ),
    "node_value_chance_cut_upper": _(
        "%(node)s stops at cutoff %(number)s, so it returns the bound that justified the "
        "cutoff: its upper bound, the weighted values of the outcomes it searched "
        "(%(children)s; probabilities %(probabilities)s) plus the probability of the others "
        "times U=%(bound)s, not %(given)s."
    ),
    "node_value_chance_cut_lower": _(
        "%(node)s stops at cutoff %(number)s, so it returns the bound that justified the "
        "cutoff: its lower bound, the weighted values of the outcomes it searched "
        "(%(children)s; probabilities %(probabilities)s) plus the probability of the others "
        "times L=%(bound)s, not %(given)s."
    ),
    "node_value_leaf": _("%(node)s is a leaf: its value is printed in the tree, not %(given)s."),
}
# A chance node of a search with value bounds (Star1) that searches every outcome: worded as
# any chance node, but withheld like one that cuts (which one cuts is part of the key).
MESSAGES["node_value_chance_bounded"] = MESSAGES["node_value_chance"]


MISCONCEPTIONS = {
    "alpha_beta_swapped": _("You wrote alpha where beta belongs and beta where alpha does."),
    "no_cut_on_equality": _(
        "You cut only when alpha is strictly greater than beta; here a cut also happens when "
        "they are equal."
    ),
    "cut_on_equality_not_asked": _(
        "You cut when alpha equalled beta; here a cut happens only when alpha is strictly "
        "greater than beta."
    ),
    "cut_too_early": _(
        "You cut as soon as a MIN node's value was above alpha (or a MAX node's below beta); "
        "the test is on the other side."
    ),
    "beta_updated_at_max": _(
        "At a MAX node you lowered beta to the node's best value so far, as a MIN node does; "
        "a MAX node raises alpha and leaves beta as it came."
    ),
    "alpha_updated_at_min": _(
        "At a MIN node you raised alpha to the node's best value so far, as a MAX node does; "
        "a MIN node lowers beta and leaves alpha as it came."
    ),
    "no_pruning": _("You evaluated every leaf: this is plain minimax, without alpha-beta's "
                    "pruning."),
    "right_to_left": _(
        "You searched the children right to left; they are searched left to right, in the "
        "order the tree shows them."
    ),
    "root_alpha_not_raised": _(
        "You did not narrow the root's window between its children (a MAX root raises alpha, a "
        "MIN root lowers beta), so you searched every root child with the full window."
    ),
    "root_alpha_raised_not_asked": _(
        "You narrowed the root's window between its children (raising alpha at a MAX root, "
        "lowering beta at a MIN root); here the root does not narrow its window: every root "
        "child is searched with the full window."
    ),
    "chance_unweighted_average": _(
        "You averaged the chance outcomes without their probabilities."
    ),
    "star1_bounds_ignored": _(
        "You searched every outcome of every chance node: with the values' bounds known, a "
        "chance node stops as soon as its upper bound is at most alpha or its lower bound at "
        "least beta."
    ),
    "star1_bounds_swapped": _(
        "You bounded a chance node from the wrong ends: its upper bound adds the unsearched "
        "probability times U (the greatest value), its lower bound times L (the least)."
    ),
    "chance_as_min": _("You treated chance nodes as MIN nodes, as if luck were an opponent."),
    "vector_entrywise_max": _(
        "You maximised every entry of the payoff vector separately instead of passing up the "
        "vector the mover picks."
    ),
    "vector_wrong_player_entry": _(
        "Each mover maximised the previous player's entry instead of its own."
    ),
    "mcts_credit_every_node": _(
        "You credited the winner's reward to every node on the path, whoever moved into it."
    ),
    "final_move_by_ucb1": _(
        "You played the child with the best UCB1 score; the move played is the most visited "
        "child."
    ),
    "other_ucb1_form": _(
        "You used the other UCB1 formula: sqrt(c·ln(N) / n) and c·sqrt(ln(N) / n) differ when "
        "c ≠ 1."
    ),
    "depth_off_by_one": _(
        "You counted the root as depth 1, so your depth-limited search stopped one ply too "
        "early."
    ),
    "largest_leaf_branch": _(
        "You picked the branch holding the largest leaf, as if every node were MAX's choice."
    ),
    "tt_every_entry_exact": _(
        "You stored every table entry as exact: a node whose value is at or below alpha "
        "only gives an upper bound, one at or above beta only a lower bound."
    ),
    "tt_bounds_swapped": _(
        "You swapped the bounds: a value at or below alpha is an upper bound (the true value "
        "is at most it), a value at or above beta a lower bound."
    ),
    "unfinished_iteration_played": _(
        "You played the best move of the interrupted iteration; its partial result is "
        "discarded, so the best move of the last completed iteration is played."
    ),
}
"""Misconception code (``engine.misconceptions``) → what it tells the student."""


def misconception_text(code: str) -> str:
    """Return what a misconception tells the student, in the active language."""
    if code in MISCONCEPTIONS:
        return str(MISCONCEPTIONS[code])
    from engine.misconceptions import MISCONCEPTIONS as ENGINE_MISCONCEPTIONS

    known = ENGINE_MISCONCEPTIONS.get(code)
    return known.explanation if known is not None else code


@dataclass(frozen=True)
class Step:
    """The first wrong step of an answer: a message and where it is in the reference trace."""

    message: dict[str, Any]
    trace_step: dict[str, Any] | None


def message(code: str, **params: Any) -> dict[str, Any]:
    """Return a message as data: its code and its named parameters (JSON values)."""
    return {"code": code, "params": params}


def verdict(fraction: Fraction) -> str:
    """Return the verdict for the fraction of a part's points earned."""
    if fraction >= 1:
        return CORRECT
    return WRONG if fraction <= 0 else PARTIAL


def as_points(value: Fraction) -> float:
    """Return points as a float with four decimals, for JSON."""
    return round(float(value), 4)


def missing_part(part: AnswerPart, max_points: Fraction, expected: Any) -> dict[str, Any]:
    """Return the result of a part the student left out."""
    return {
        "part": part.name, "type": str(part.type), "verdict": MISSING,
        "points": 0.0, "max_points": as_points(max_points),
        "messages": [message("part_missing")], "misconception": None, "trace_step": None,
        "expected": expected,
    }


def part_result(
    part: AnswerPart, scored: PartScore, *, earned: Fraction, max_points: Fraction,
    given: Any, expected: Any,
) -> dict[str, Any]:
    """Return the result of an answered part with the messages its score's facts call for."""
    return {
        "part": part.name, "type": str(part.type), "verdict": verdict(scored.fraction),
        "points": as_points(earned), "max_points": as_points(max_points),
        "messages": [] if scored.fraction >= 1 else fact_messages(part, scored, given, expected),
        "misconception": None, "trace_step": None, "expected": expected,
    }


def fact_messages(part: AnswerPart, scored: PartScore, given: Any, expected: Any) -> list[dict]:
    """Return the messages that describe what is wrong in a part, from its score's facts."""
    facts = scored.facts
    match part.type:
        case PartType.NUMBER:
            code = "value_inexact" if facts.get("inexact") else "value_wrong"
            return [message(code, given=as_written(given))]
        case PartType.NAME | PartType.CHOICE:
            return [message("name_wrong", given=_shown(given))]
        case PartType.VECTOR:
            return [message("vector_wrong", given=as_written(given))]
        case PartType.SET:
            found = []
            if facts["extra"]:
                found.append(message("set_extra", names=facts["extra"]))
            if facts["missing"]:
                found.append(message("set_missing", count=len(facts["missing"])))
            return found
        case PartType.SEQUENCE:
            return sequence_messages(list(given), list(expected), facts["first_divergence"])
        case PartType.NODE_VALUES:
            return [
                message(code, nodes=facts[key])
                for code, key in (("node_values_wrong", "wrong"),
                                  ("node_values_inexact", "inexact"),
                                  ("node_values_missing", "missing"),
                                  ("node_values_extra", "extra"))
                if facts.get(key)
            ]
        case PartType.CUTOFFS:
            return cutoff_messages(given, expected, facts)
        case PartType.RECORDS:
            found = [message("records_wrong", cells=_cells(facts["wrong"]))]
            if facts.get("inexact"):
                found.append(message("records_inexact", cells=_cells(facts["inexact"])))
            return found
    return []


def _cells(cells: Iterable[Mapping[str, Any]]) -> list[str]:
    """Return record cells as "name.field" (a whole row as its name)."""
    return [
        cell["name"] if cell["field"] is None else f"{cell['name']}.{cell['field']}"
        for cell in cells
    ]


def sequence_messages(given: list, expected: list, divergence: int | None) -> list[dict]:
    """Say where an ordered list first departs from the correct one."""
    if divergence is None:
        return []
    if divergence >= len(given):
        return [message("sequence_too_short", count=len(given))]
    if divergence >= len(expected):
        return [message("sequence_too_long", count=len(expected))]
    return [message("sequence_diverges", position=divergence + 1, given=str(given[divergence]))]


def cutoff_messages(given: list, expected: list, facts: Mapping[str, Any]) -> list[dict]:
    """Say which listed cutoff is first out of place, how many there are, and which listed
    skipped child is searched (or how many skipped children are missing) at each cutoff."""
    found = []
    if facts["unmatched"]:
        first = facts["unmatched"][0]
        found.append(message("cutoff_wrong_node", number=first + 1,
                             given=str(given[first]["node"])))
    # Cuts that skip nothing, listed without children, are not counted (grading.scoring);
    # results stored before that was recorded count every listed entry.
    given_count = facts.get("given_count", len(given))
    if given_count != facts["expected_count"]:
        found.append(message("cutoff_count", expected=facts["expected_count"],
                             given=given_count))
    for wrong in facts["wrong_pruned"]:
        if wrong["extra"]:
            found.append(message("cutoff_pruned_extra", node=wrong["node"], names=wrong["extra"]))
        if wrong["missing"]:
            found.append(message("cutoff_pruned_missing", node=wrong["node"],
                                 count=wrong["missing"]))
    return found


# --- the first wrong step, located in the reference trace ---------------------------------


def first_wrong_step(
    context: GradingContext, part: AnswerPart, answer: Mapping[str, Any], scored: PartScore
) -> Step | None:
    """Return the first step where ``part`` of ``answer`` departs from the reference search.

    Alpha-beta leaf sets and orders are traced through the windows of the search; node values
    through the rule of the first node (in evaluation order) whose value is wrong.
    """
    tree = TreeIndex(context.problem.get("tree"))
    if not tree.nodes:
        return None
    trace = ReferenceTrace(context.engine_answer.get("trace"))
    pruning_parts = ("pruned_leaves", "evaluated_leaves", "cutoffs")
    bounds = utility_bounds(context.problem)
    if part.name in pruning_parts and trace.events:
        pruned = student_pruned(part.name, answer[part.name], tree)
        cut_on_equality = bool(context.item.params.get("cut_on_equality", True))
        return pruning_step(tree, trace, pruned, cut_on_equality, bounds)
    if part.type is PartType.NODE_VALUES:
        values = context.engine_answer.get("node_values") or {}
        return node_value_step(tree, trace, values, answer[part.name], scored.facts["wrong"],
                               bounds)
    return None


def utility_bounds(problem: Mapping[str, Any]) -> tuple[Fraction, Fraction] | None:
    """Return the problem's printed value bounds (L, U), if its chance nodes search with them."""
    raw = (problem.get("params") or {}).get("utility_bounds")
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        return None
    low, high = (_number(bound) for bound in raw)
    if not (isinstance(low, Fraction) and isinstance(high, Fraction)):
        return None
    return low, high


def chance_cut_side(trace: ReferenceTrace, node: str, cutoff: Mapping[str, Any]) -> str:
    """Return which bound stopped chance node ``node`` at ``cutoff``: "upper" or "lower".

    The engine reports an upper bound at most alpha as the cutoff's beta (its alpha the
    window's), a lower bound at least beta as its alpha; the window was open on entry, so
    the cutoff's alpha is the entry's exactly when the upper bound cut.
    """
    index = trace.index_of("enter", node)
    entry = trace.events[index] if index is not None else {}
    return "upper" if _number(cutoff.get("alpha")) == _number(entry.get("alpha")) else "lower"


class TreeIndex:
    """A ``gametree/1`` tree indexed by node name: parents, children, types and leaves."""

    def __init__(self, root: Any) -> None:
        self.nodes: dict[str, Mapping[str, Any]] = {}
        self.parent: dict[str, str] = {}
        self.order: list[str] = []
        stack = [root] if isinstance(root, Mapping) else []
        while stack:
            node = stack.pop()
            self.nodes[node["name"]] = node
            self.order.append(node["name"])
            children = node.get("children") or []
            for child in children:
                self.parent[child["name"]] = node["name"]
            stack.extend(reversed(children))

    def children(self, name: str) -> list[str]:
        """Return the names of a node's children, left to right."""
        return [child["name"] for child in self.nodes[name].get("children") or []]

    def leaves_under(self, name: str) -> list[str]:
        """Return the leaves of the subtree rooted at ``name``, in tree order."""
        if not self.children(name):
            return [name]
        return [leaf for child in self.children(name) for leaf in self.leaves_under(child)]

    def leaves(self) -> list[str]:
        """Return every leaf in tree order."""
        return [name for name in self.order if not self.children(name)]

    def ancestors(self, name: str) -> list[str]:
        """Return a node's ancestors from its parent up to the root."""
        found = []
        while name in self.parent:
            name = self.parent[name]
            found.append(name)
        return found


class ReferenceTrace:
    """The engine's trace of the reference search, read as a list of events.

    Each event is ``{"event": "enter" | "leaf" | "cutoff" | "exit", "node", ...}`` with
    ``alpha``/``beta`` on enter and cutoff events, ``value`` on leaf and exit events, and
    ``number``/``pruned`` on cutoffs.
    """

    def __init__(self, raw: Any) -> None:
        self.events: list[Mapping[str, Any]] = [
            event for event in raw or [] if isinstance(event, Mapping)
        ]

    def index_of(self, kind: str, node: str) -> int | None:
        """Return the index of the first ``kind`` event at ``node``."""
        for index, event in enumerate(self.events):
            if event.get("event") == kind and event.get("node") == node:
                return index
        return None

    def step(self, index: int | None) -> dict[str, Any] | None:
        """Return a reference to event ``index`` for a result's ``trace_step``."""
        if index is None:
            return None
        event = self.events[index]
        return {"index": index, "event": event.get("event"), "node": event.get("node")}

    def returned_before(self, node: str, child: str, children: Sequence[str]) -> list[tuple]:
        """Return ``(name, value)`` for the children of ``node`` that returned before ``child``."""
        start = self.index_of("enter", node)
        if start is None:
            return []
        earlier = set(children[: children.index(child)])
        found: list[tuple[Any, Any]] = []
        for event in self.events[start:]:
            name = event.get("node")
            if event.get("event") in ("exit", "leaf") and name in earlier:
                if name not in dict(found):
                    found.append((name, event.get("value")))
            if event.get("event") == "enter" and name == child:
                break
        return found

    def cutoffs(self) -> list[tuple[int, Mapping[str, Any]]]:
        """Return ``(index, event)`` for every cutoff, in the order they happen."""
        return [(i, e) for i, e in enumerate(self.events) if e.get("event") == "cutoff"]


def student_pruned(part_name: str, value: Any, tree: TreeIndex) -> set[str]:
    """Return the leaves a student's answer says are pruned.

    Cutoffs prune every leaf below the children they skip.
    """
    if part_name == "pruned_leaves":
        return set(value)
    if part_name == "cutoffs":
        return {
            leaf for cut in value for child in cut.get("pruned", [])
            if child in tree.nodes for leaf in tree.leaves_under(child)
        }
    return set(tree.leaves()) - set(value)


def pruning_step(
    tree: TreeIndex,
    trace: ReferenceTrace,
    pruned: set[str],
    cut_on_equality: bool,
    bounds: tuple[Fraction, Fraction] | None = None,
) -> Step | None:
    """Return the first leaf (in tree order) the student prunes or evaluates wrongly, explained.

    A leaf the student prunes but the search evaluates is explained from the window at the
    node where the student stopped; a leaf the student evaluates but the search skips, from
    the cutoff that skipped it.
    """
    evaluated = {e.get("node") for e in trace.events if e.get("event") == "leaf"}
    for leaf in tree.leaves():
        if leaf in pruned and leaf in evaluated:
            return too_early_step(tree, trace, leaf, pruned, cut_on_equality, bounds)
        if leaf not in pruned and leaf not in evaluated:
            step = missed_cutoff_step(tree, trace, leaf)
            if step is not None:
                return step
    return None


def too_early_step(
    tree: TreeIndex,
    trace: ReferenceTrace,
    leaf: str,
    pruned: set[str],
    cut_on_equality: bool,
    bounds: tuple[Fraction, Fraction] | None = None,
) -> Step:
    """Explain why the search does not stop before ``leaf`` where the student stopped.

    A MAX or MIN node is explained by its best child so far against the window; a chance
    node (searched with the value ``bounds``) by the range its searched outcomes leave it.
    """
    skipped = leaf
    # The student stopped at the highest ancestor whose whole subtree they pruned.
    for ancestor in tree.ancestors(leaf):
        if ancestor not in tree.parent or not set(tree.leaves_under(ancestor)) <= pruned:
            break
        skipped = ancestor
    node = tree.parent[skipped]
    index = trace.index_of("enter", node)
    siblings = tree.children(node)
    seen = trace.returned_before(node, skipped, siblings)
    if not seen:
        return Step(message("pruned_first_child", pruned=skipped, node=node), trace.step(index))
    enter = trace.events[index] if index is not None else {}
    window = {"pruned": skipped, "node": node, "alpha": format_number(enter.get("alpha")),
              "beta": format_number(enter.get("beta"))}
    if tree.nodes[node].get("type") == "chance" and bounds is not None:
        lower, upper = chance_range(tree, node, seen, bounds)
        code = "pruned_too_early_chance" if cut_on_equality else "pruned_too_early_chance_strict"
        children = [f"{name}={format_number(value)}" for name, value in seen]
        return Step(message(code, **window, children=children, lower=format_number(lower),
                            upper=format_number(upper)), trace.step(index))
    maximising = tree.nodes[node].get("type") == "max"
    values = [(name, _number(value)) for name, value in seen]
    child, value = (max if maximising else min)(values, key=lambda pair: pair[1])
    code = "pruned_too_early_max" if maximising else "pruned_too_early_min"
    if not cut_on_equality:
        code += "_strict"
    return Step(message(code, **window, child=child, value=format_number(value)),
                trace.step(index))


def chance_range(
    tree: TreeIndex, node: str, seen: Sequence[tuple[Any, Any]], bounds: tuple[Fraction, Fraction]
) -> tuple[Fraction, Fraction]:
    """Return the (lower, upper) bound of chance node ``node`` after its ``seen`` outcomes.

    As the engine's Star1 search: the searched outcomes' weighted values plus the others'
    probability times L (lower) or U (upper).
    """
    probability = dict(zip(tree.children(node),
                           (Fraction(p) for p in tree.nodes[node].get("probabilities", [])),
                           strict=False))
    weighted = sum((probability[name] * Fraction(_number(value)) for name, value in seen),
                   Fraction(0))
    rest = 1 - sum((probability[name] for name, _ in seen), Fraction(0))
    low, high = bounds
    return weighted + rest * low, weighted + rest * high


def missed_cutoff_step(tree: TreeIndex, trace: ReferenceTrace, leaf: str) -> Step | None:
    """Explain which cutoff skips ``leaf`` (or the subtree holding it)."""
    ancestors = {leaf, *tree.ancestors(leaf)}
    for index, event in trace.cutoffs():
        skipped = [str(name) for name in event.get("pruned") or []]
        if not ancestors & set(skipped):
            continue
        node = str(event.get("node"))
        params = {"leaf": leaf, "number": event.get("number"), "node": node,
                  "alpha": format_number(event.get("alpha")),
                  "beta": format_number(event.get("beta")), "pruned": skipped}
        if tree.nodes.get(node, {}).get("type") != "chance":
            return Step(message("missed_cutoff", **params), trace.step(index))
        # The engine reports the bound that cut as the cutoff's beta (upper) or alpha (lower).
        side = chance_cut_side(trace, node, event)
        bound = params["beta"] if side == "upper" else params["alpha"]
        if side == "lower":
            params["beta"] = format_number(_entry_bound(trace, node, "beta"))
        return Step(message(f"missed_cutoff_chance_{side}", **params, bound=bound),
                    trace.step(index))
    return None


def _entry_bound(trace: ReferenceTrace, node: str, which: str) -> Any:
    """Return ``which`` ("alpha" or "beta") of the window ``node`` was entered with."""
    index = trace.index_of("enter", node)
    return trace.events[index].get(which) if index is not None else None


def node_value_step(
    tree: TreeIndex,
    trace: ReferenceTrace,
    reference: Mapping[str, Any],
    given: Mapping[str, Any],
    wrong: Iterable[str],
    bounds: tuple[Fraction, Fraction] | None = None,
) -> Step | None:
    """Explain the first wrong node value, in evaluation order, by its node's rule.

    A chance node of a search with value ``bounds`` that stops early returns the bound
    that justified its cutoff.
    """
    wrong = set(wrong)
    exits = [e.get("node") for e in trace.events if e.get("event") == "exit"]
    postorder = exits or list(reversed(tree.order))
    node = next((name for name in postorder if name in wrong), None)
    if node is None:
        return None
    kind = tree.nodes[node].get("type", "leaf")
    if kind not in ("max", "min", "chance"):
        return Step(message("node_value_leaf", node=node, given=as_written(given[node])),
                    trace.step(trace.index_of("exit", node)))
    children = [
        f"{name}={format_number(reference[name])}"
        for name in tree.children(node) if name in reference
    ]
    params = {"node": node, "children": children, "given": as_written(given[node])}
    code = f"node_value_{kind}"
    if kind == "chance":
        params["probabilities"] = [str(p) for p in tree.nodes[node].get("probabilities", [])]
    if kind == "chance" and bounds is not None:
        code = "node_value_chance_bounded"
        cut = trace.index_of("cutoff", node)
        if cut is not None:
            side = chance_cut_side(trace, node, trace.events[cut])
            code = f"node_value_chance_cut_{side}"
            params["number"] = trace.events[cut].get("number")
            params["bound"] = format_number(bounds[1] if side == "upper" else bounds[0])
    return Step(message(code, **params), trace.step(trace.index_of("exit", node)))


def _number(value: Any) -> Fraction | float:
    try:
        return to_number(value)
    except ValueError:
        return math.nan


# --- rendering ------------------------------------------------------------------------


def render_message(data: Mapping[str, Any]) -> str:
    """Return one message in the active language (unknown codes fall back to the code)."""
    code = data.get("code", "")
    template = MESSAGES.get(code) or WITHHELD_MESSAGES.get(code)
    if template is None:
        return str(data.get("code", ""))
    raw = data.get("params") or {}
    try:
        return template_text(template, raw) % {key: _shown(value) for key, value in raw.items()}
    except (KeyError, TypeError, ValueError):
        return str(data.get("code", ""))


def _shown(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def render_results(
    results: Sequence[Mapping[str, Any]],
    *,
    labels: Mapping[str, str],
    show_expected: bool,
    misconception_texts: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Return part results with every message's text (and the misconception's) rendered.

    ``expected`` is dropped unless ``show_expected``; nothing else of the data changes.
    ``misconception_texts`` words misconceptions grading has no translated text for.
    """
    fallback = misconception_texts or {}
    rendered = []
    for result in results:
        out = {key: value for key, value in result.items() if key != "expected"}
        out["label"] = labels.get(result.get("part", ""), result.get("part", ""))
        out["messages"] = [
            {**msg, "text": render_message(msg)} for msg in result.get("messages", [])
        ]
        code = result.get("misconception")
        if not code:
            out["misconception_text"] = None
        elif code in MISCONCEPTIONS or code not in fallback:
            out["misconception_text"] = misconception_text(code)
        else:
            out["misconception_text"] = fallback[code]
        if show_expected:
            out["expected"] = result.get("expected")
        rendered.append(out)
    return rendered

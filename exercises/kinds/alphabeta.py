"""``alphabeta``: pruned leaves, leaves evaluated, numbered cutoffs and windows at chosen nodes."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext

from exercises.kinds import register
from exercises.kinds.authored import TreeRules, is_authored
from exercises.kinds.base import SET_SCORING, AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.minimax import ROOT_PLAYER, decision_key, minimax_values, tie_issues
from exercises.kinds.params import BoolParam, IntParam, ParamError
from exercises.kinds.trees import (
    TREE_PARAMS,
    alternating_layers,
    check_tree_params,
    draw_tree,
    inner_names,
    leaves,
    pick_names,
    walk,
)

TRIVIAL_WINDOW = {"alpha": "-inf", "beta": "inf"}
"""The window every search starts with: asking only for it teaches nothing."""

CONVENTION_PARAMS = (
    BoolParam(
        "cut_on_equality", True,
        gettext_noop("cut when alpha >= beta (true) or only when alpha > beta"),
        convention=True,
    ),
    BoolParam(
        "root_raises_alpha", True,
        gettext_noop(
            "the root narrows its window (MAX raises alpha, MIN lowers beta) between its children; "
            "when false every root child is searched with the full window, so a depth-2 tree "
            "cannot cut at all"
        ),
        convention=True,
    ),
)


def conventions_of(params: dict[str, Any]) -> dict[str, bool]:
    """Return the engine params for the alpha-beta conventions in ``params``."""
    return {name: params[name] for name in ("cut_on_equality", "root_raises_alpha")}


def check_cuts_possible(params: dict[str, Any], field: str, wanted: str) -> None:
    """Refuse ``field`` when the conventions make every cutoff impossible in such a tree.

    Without the root narrowing its window, the root's children are entered with (-inf, inf);
    in a depth-2 tree they only see leaves, so nothing ever closes a window.
    """
    if not params["root_raises_alpha"] and params["depth"] <= 2:
        raise ParamError(
            field,
            f"with root_raises_alpha false and depth {params['depth']} alpha-beta never cuts "
            "(every root child is searched with the full window (-inf, inf) and sees only "
            f"leaves), so {wanted}; set depth to 3 or more, or root_raises_alpha to true",
        )


def render_conventions(problem_params: dict[str, Any]) -> str:
    """Return the sentences stating the cut rule and the root's window, in the active language.

    The order children are searched in is stated by each kind (it differs between them).
    """
    text = (
        _("A node stops searching its children (a cutoff) as soon as alpha >= beta, equality "
          "included.")
        if problem_params["cut_on_equality"]
        else _("A node stops searching its children (a cutoff) only when alpha > beta, not on "
               "equality.")
    )
    text += " " + (
        _("The root starts with the window (-inf, inf) and narrows it after each child like "
          "every other node (MAX raises alpha, MIN lowers beta).")
        if problem_params["root_raises_alpha"]
        else _("The root does not narrow its window between its children: each root child is "
               "searched with the full window (-inf, inf).")
    )
    return text


def _bound(raw: Any) -> Fraction | float:
    """Return a trace's value or bound (an int, "p/q", "inf" or "-inf") as a number."""
    if isinstance(raw, str) and raw.endswith("inf"):
        return -math.inf if raw.startswith("-") else math.inf
    return Fraction(raw)


def cutoff_key(problem: dict[str, Any], answer: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the cutoffs in the order they happen, cuts at a node's last child included.

    The engine reports only cutoffs that skip a child. A node whose last child meets the
    cut condition skips nothing; the prompt says not to list it, but a student who does
    (with no skipped children) is right too, so it is keyed as ``"optional": true``. Such
    a node is one whose exit value meets its entry window: a MAX node's beta and a MIN
    node's alpha never change while it searches.
    """
    nodes = {node["name"]: node for node in walk(problem["tree"])}
    cut_on_equality = problem["params"]["cut_on_equality"]
    entered: dict[str, dict[str, Any]] = {}
    reported: set[str] = set()
    cuts = []
    for event in answer.get("trace") or []:
        name = event["node"]
        if event["event"] == "enter":
            entered[name] = event
        elif event["event"] == "cutoff":
            reported.add(name)
            cuts.append({"node": name, "pruned": event["pruned"]})
        elif event["event"] == "exit" and "children" in nodes[name] and name not in reported:
            value, window = _bound(event["value"]), entered[name]
            if nodes[name]["type"] == "max":
                beta = _bound(window["beta"])
                cut = value >= beta if cut_on_equality else value > beta
            else:
                alpha = _bound(window["alpha"])
                cut = value <= alpha if cut_on_equality else value < alpha
            if cut:
                cuts.append({"node": name, "pruned": [], "optional": True})
    return cuts


def entry_windows(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return node → the window (alpha, beta) it was entered with, from the answer's trace."""
    return {
        event["node"]: {"alpha": event["alpha"], "beta": event["beta"]}
        for event in answer.get("trace") or []
        if event["event"] == "enter"
    }


def returned_bound(answer: dict[str, Any], node: str) -> dict[str, Any] | None:
    """Return the (lower, upper) bound ``node`` returned in ``answer``'s search.

    A node the search left with a bound is in ``node_bounds``; one it searched fully has
    its exact value on both sides; one it never entered has none (None).
    """
    if node in answer.get("node_bounds", {}):
        return dict(answer["node_bounds"][node])
    if node in answer["node_values"]:
        return {"lower": answer["node_values"][node], "upper": answer["node_values"][node]}
    return None


class AlphaBetaKind(Kind):
    """Ask what alpha-beta evaluates, prunes and cuts, with the conventions printed."""

    name = "alphabeta"
    title = gettext_lazy("Alpha-beta pruning")
    description = gettext_lazy(
        "Trace alpha-beta on a MAX/MIN tree: evaluated and pruned leaves, cutoffs, windows."
    )
    params = (
        *TREE_PARAMS,
        ROOT_PLAYER,
        *CONVENTION_PARAMS,
        IntParam(
            "min_cuts", 1,
            gettext_noop(
                "fewest cutoffs the tree must cause (cutoffs that skip at least one child); with "
                "root_raises_alpha false a depth-2 tree has none, so set 0 there"
            ),
            minimum=0, maximum=10,
        ),
        IntParam(
            "ask_windows", 1, gettext_noop("inner nodes whose entry window (alpha, beta) is asked"),
            minimum=0, maximum=4,
        ),
        BoolParam(
            "ask_cut_bound", False,
            gettext_noop(
                "also ask, for one node where a cutoff happens, the bound on its value it returns "
                "(lower, upper: e.g. -inf, 2 for a MIN node that stops at 2)"
            ),
        ),
        SET_SCORING,
    )
    choice_part = "evaluated_count"
    tree_rules = TreeRules(("max", "min"))

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the tree params, and that the cutoffs asked for can happen in such a tree.

        An instructor's tree is searched when the item is created instead (see
        :func:`exercises.services.validate_item`): its own shape says how it cuts.
        """
        check_tree_params(params)
        if is_authored(params):
            return
        if params["min_cuts"]:
            check_cuts_possible(params, "min_cuts", f"min_cuts {params['min_cuts']} cannot be met")
        if params["ask_cut_bound"]:
            check_cuts_possible(params, "ask_cut_bound", "no cut node's bound can be asked")
        inner_nodes = sum(params["max_branching"] ** d for d in range(params["depth"]))
        if params["min_cuts"] >= inner_nodes:
            raise ParamError(
                "min_cuts",
                f"a tree with at most {inner_nodes} inner nodes cannot have "
                f"{params['min_cuts']} cutoffs",
            )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return value, decision, evaluated count, pruned leaves, cutoffs and windows."""
        parts = [
            AnswerPart("value", PartType.NUMBER, gettext_lazy("minimax value of the root")),
            AnswerPart("move", PartType.NAME, gettext_lazy("decision at the root (child name)")),
            AnswerPart(
                "evaluated_count", PartType.NUMBER, gettext_lazy("number of leaves evaluated")
            ),
            AnswerPart(
                "pruned_leaves", PartType.SET, gettext_lazy("leaves that are pruned"),
                points=Fraction(2),
            ),
            AnswerPart(
                "cutoffs", PartType.CUTOFFS,
                gettext_lazy("cutoffs in the order they happen (node and pruned children)"),
                points=Fraction(2),
            ),
        ]
        if params["ask_windows"]:
            parts.append(
                AnswerPart(
                    "windows", PartType.RECORDS,
                    gettext_lazy("(alpha, beta) when the named nodes are entered"),
                    fields=("alpha", "beta"),
                )
            )
        if params["ask_cut_bound"]:
            parts.append(
                AnswerPart(
                    "cut_bound", PartType.RECORDS,
                    gettext_lazy("bound on the value the named cut node returns (lower, upper)"),
                    fields=("lower", "upper"),
                )
            )
        return parts

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a MAX/MIN tree and the inner nodes whose windows are asked."""
        tree = self.tree_for(rng, params, lambda: draw_tree(
            rng, params, alternating_layers(params["root_player"], params["depth"])))
        ask: dict[str, list[str]] = {
            "windows": pick_names(rng, inner_names(tree), params["ask_windows"])
        }
        problem = {
            "format": "gametree/1",
            "kind": "alphabeta",
            "tree": tree,
            "params": conventions_of(params),
            "ask": ask,
        }
        if params["ask_cut_bound"]:
            # Which node to ask about is read off the search (only cut nodes qualify); the
            # key still comes from solve(). Without the param nothing is drawn, so existing
            # variants stay byte-identical.
            cut = [c["node"] for c in solve_problem(problem)["cutoffs"]]
            ask["cut_bound"] = pick_names(rng, cut, 1)
        return problem

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's alpha-beta answer plus the window each node was entered with.

        ``root_child_values`` are the root children's exact minimax values (alpha-beta only
        bounds the ones it prunes), to accept every equally good decision.
        """
        answer = solve_problem(problem)
        answer["windows"] = entry_windows(answer)
        answer["root_child_values"] = minimax_values(problem)
        return answer

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the parts read off the engine's answer."""
        children = [child["name"] for child in problem["tree"]["children"]]
        key = {
            "value": answer["value"],
            "move": decision_key(answer["move"], answer.get("root_child_values"), children),
            "evaluated_count": len(answer["evaluated_leaves"]),
            "pruned_leaves": answer["pruned_leaves"],
            "cutoffs": (
                cutoff_key(problem, answer) if answer.get("trace") else
                [{"node": cut["node"], "pruned": cut["pruned"]} for cut in answer["cutoffs"]]
            ),
        }
        asked = problem["ask"]["windows"]
        if asked:
            # Misconceptions' answers come straight from the engine, without "windows": read
            # them off their own trace (where, e.g., alpha_beta_swapped has swapped them).
            windows = answer["windows"] if "windows" in answer else entry_windows(answer)
            # A node the search never entered was pruned: its window is "not entered" (None).
            key["windows"] = {name: windows.get(name) for name in asked}
        if "cut_bound" in problem["ask"]:
            key["cut_bound"] = {node: returned_bound(answer, node)
                                for node in problem["ask"]["cut_bound"]}
        return key

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return the leaves evaluated under the other conventions, then with no pruning."""
        found = []
        for cut_on_equality, root_raises_alpha in itertools.product((True, False), repeat=2):
            other = {**problem, "params": {"cut_on_equality": cut_on_equality,
                                           "root_raises_alpha": root_raises_alpha}}
            if other["params"] != problem["params"]:
                counted = len(solve_problem(other)["evaluated_leaves"])
                found.append((counted, "other_convention"))
        found.append((len(leaves(problem["tree"])), "no_pruning"))
        return found

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Require no false premise, enough cutoffs, a telling asked window and (unless
        allowed) no tied decision."""
        issues = self.false_premises(problem, answer, params)
        if len(answer["cutoffs"]) < params["min_cuts"]:
            issues.append(f"{len(answer['cutoffs'])} cutoffs, fewer than min_cuts")
        asked = problem["ask"]["windows"]
        if asked and all(answer["windows"].get(name) == TRIVIAL_WINDOW for name in asked):
            issues.append("every asked window is the initial (-inf, inf)")
        if not params["allow_ties"]:
            # By the exact values: a pruned root child has only a bound, which may hide a tie.
            exact = {"node_values": answer["root_child_values"], "move": answer["move"]}
            issues += tie_issues(exact, [child["name"] for child in problem["tree"]["children"]])
        return issues

    def false_premises(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Return the asked windows of nodes never entered, and the asked cut nodes that do
        not cut or none asked (the prompt says a cutoff happens there)."""
        issues = []
        if any(name not in answer["windows"] for name in problem["ask"]["windows"]):
            issues.append("a node whose window is asked is never entered")
        if "cut_bound" in problem["ask"] and not problem["ask"]["cut_bound"]:
            issues.append("no cutoff happens, so no cut node's bound can be asked")
        cut_nodes = {cut["node"] for cut in answer["cutoffs"]}
        issues += [f"the asked cut node {node} does not cut"
                   for node in problem["ask"].get("cut_bound") or () if node not in cut_nodes]
        return issues

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the root player, the conventions and the nodes whose windows are asked."""
        return {
            "root_player": problem["tree"]["type"],
            "conventions": conventions_of(params),
            "windows": problem["ask"]["windows"],
            **({"cut_bound": problem["ask"]["cut_bound"][0]} if problem["ask"].get("cut_bound")
               else {}),
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        text = (
            _("Run alpha-beta on this tree; MAX moves at the root.")
            if args["root_player"] == "max"
            else _("Run alpha-beta on this tree; MIN moves at the root.")
        )
        text += " " + _("Children are searched left to right.")
        text += " " + render_conventions(args["conventions"])
        text += " " + _(
            "Give the root's value and decision, how many leaves are evaluated, which leaves "
            "are pruned, and each cutoff in order with the children of that node it skips (the "
            "children themselves, not the leaves below them)."
        )
        text += " " + _(
            "A cutoff skips at least one child: when the condition is met at a node's last "
            "child nothing is left to skip, so it is not a cutoff to list (listing it with no "
            "skipped children is accepted too)."
        )
        text += " " + _("If several moves are equally good, any of them is accepted.")
        if args["windows"]:
            text += " " + ngettext(
                "Give also the window (alpha, beta) with which %(nodes)s is entered; for a "
                "node that is never entered (it is pruned) give no window (null).",
                "Give also the windows (alpha, beta) with which %(nodes)s are entered; for a "
                "node that is never entered (it is pruned) give no window (null).",
                len(args["windows"]),
            ) % {"nodes": ", ".join(args["windows"])}
        if args.get("cut_bound"):
            text += " " + _(
                "A cutoff happens at %(node)s: it stops before searching all its children and "
                "returns the best value it has found so far, which is only a bound on its "
                "value. Give that bound as a lower and an upper bound, -inf or inf on the open "
                "side (for example a MIN node that stops at a child worth 2 returns at most 2: "
                "lower -inf, upper 2)."
            ) % {"node": args["cut_bound"]}
        return text


register(AlphaBetaKind())

"""``alphabeta``: pruned leaves, leaves evaluated, numbered cutoffs and windows at chosen nodes."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from exercises.kinds import register
from exercises.kinds.base import SET_SCORING, AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.minimax import ROOT_PLAYER, tie_issues
from exercises.kinds.params import BoolParam, IntParam, ParamError
from exercises.kinds.trees import (
    TREE_PARAMS,
    alternating_layers,
    check_tree_params,
    draw_tree,
    inner_names,
    pick_names,
)

TRIVIAL_WINDOW = {"alpha": "-inf", "beta": "inf"}
"""The window every search starts with: asking only for it teaches nothing."""

CONVENTION_PARAMS = (
    BoolParam(
        "cut_on_equality", True, "cut when alpha >= beta (true) or only when alpha > beta",
        convention=True,
    ),
    BoolParam(
        "root_raises_alpha", True, "the root raises alpha between its children", convention=True
    ),
)


def conventions_of(params: dict[str, Any]) -> dict[str, bool]:
    """Return the engine params for the alpha-beta conventions in ``params``."""
    return {name: params[name] for name in ("cut_on_equality", "root_raises_alpha")}


def render_conventions(problem_params: dict[str, Any]) -> str:
    """Return the sentence stating the alpha-beta conventions, in the active language."""
    text = (
        _("Children are searched left to right; a node is cut off as soon as alpha >= beta.")
        if problem_params["cut_on_equality"]
        else _("Children are searched left to right; a node is cut off only when alpha > beta.")
    )
    if not problem_params["root_raises_alpha"]:
        text += " " + _("The root does not raise alpha between its children.")
    return text


def entry_windows(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return node → the window (alpha, beta) it was entered with, from the answer's trace."""
    return {
        event["node"]: {"alpha": event["alpha"], "beta": event["beta"]}
        for event in answer.get("trace") or []
        if event["event"] == "enter"
    }


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
        IntParam("min_cuts", 1, "fewest cutoffs the tree must cause", minimum=0, maximum=10),
        IntParam(
            "ask_windows", 1, "inner nodes whose entry window (alpha, beta) is asked",
            minimum=0, maximum=4,
        ),
        SET_SCORING,
    )
    choice_part = "evaluated_count"

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the tree params, and that the cutoffs asked for can happen in such a tree."""
        check_tree_params(params)
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
                )
            )
        return parts

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a MAX/MIN tree and the inner nodes whose windows are asked."""
        tree = draw_tree(rng, params, alternating_layers(params["root_player"], params["depth"]))
        return {
            "format": "gametree/1",
            "kind": "alphabeta",
            "tree": tree,
            "params": conventions_of(params),
            "ask": {"windows": pick_names(rng, inner_names(tree), params["ask_windows"])},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's alpha-beta answer plus the window each node was entered with."""
        answer = solve_problem(problem)
        answer["windows"] = entry_windows(answer)
        return answer

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the parts read off the engine's answer."""
        key = {
            "value": answer["value"],
            "move": answer["move"],
            "evaluated_count": len(answer["evaluated_leaves"]),
            "pruned_leaves": answer["pruned_leaves"],
            "cutoffs": [
                {"node": cut["node"], "pruned": cut["pruned"]} for cut in answer["cutoffs"]
            ],
        }
        asked = problem["ask"]["windows"]
        if asked:
            # Misconceptions' answers come straight from the engine, without "windows": read
            # them off their own trace (where, e.g., alpha_beta_swapped has swapped them).
            windows = answer["windows"] if "windows" in answer else entry_windows(answer)
            # A node the search never entered was pruned: its window is "not entered" (None).
            key["windows"] = {name: windows.get(name) for name in asked}
        return key

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Require enough cutoffs, entered asked nodes and (unless allowed) no tied decision."""
        issues = []
        if len(answer["cutoffs"]) < params["min_cuts"]:
            issues.append(f"{len(answer['cutoffs'])} cutoffs, fewer than min_cuts")
        asked = problem["ask"]["windows"]
        if any(name not in answer["windows"] for name in asked):
            issues.append("a node whose window is asked is never entered")
        elif asked and all(answer["windows"][name] == TRIVIAL_WINDOW for name in asked):
            issues.append("every asked window is the initial (-inf, inf)")
        if not params["allow_ties"]:
            issues += tie_issues(answer, [child["name"] for child in problem["tree"]["children"]])
        return issues

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the root player, the conventions and the nodes whose windows are asked."""
        return {
            "root_player": params["root_player"],
            "conventions": conventions_of(params),
            "windows": problem["ask"]["windows"],
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        text = (
            _("Run alpha-beta on this tree; MAX moves at the root.")
            if args["root_player"] == "max"
            else _("Run alpha-beta on this tree; MIN moves at the root.")
        )
        text += " " + render_conventions(args["conventions"])
        text += " " + _(
            "Give the root's value and decision, how many leaves are evaluated, which leaves "
            "are pruned, and each cutoff in order with the children it skips."
        )
        if args["windows"]:
            text += " " + _(
                "Give also the window (alpha, beta) with which %(nodes)s is entered."
            ) % {"nodes": ", ".join(args["windows"])}
        return text


register(AlphaBetaKind())

"""``iterative_deepening``: best move per depth, evaluations per iteration, interrupted search.

The tree is a random MAX/MIN tree whose inner nodes below the root carry a static evaluation
(their ``"value"``, the engine's depth-limit estimate). Iteration d runs alpha-beta with a
depth limit of d plies, the previous iteration's best move searched first at the root. The
key comes from the engine twice: with that ordering and with plain left-to-right order, whose
last iterations' evaluations give what the ordering saves.
"""

from __future__ import annotations

import random
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.kinds import register
from exercises.kinds.alphabeta import CONVENTION_PARAMS, conventions_of, render_conventions
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.params import IntParam, ParamError
from exercises.kinds.trees import (
    TREE_PARAMS,
    alternating_layers,
    check_tree_params,
    draw_tree,
    draw_values,
    walk,
)

DEPTH = IntParam(
    "depth", 3,
    gettext_noop("plies of the tree, and so of the deepest iteration (the root is at depth 0)"),
    minimum=2, maximum=4,
)
MIN_CHANGES = IntParam(
    "min_changes", 1,
    gettext_noop("fewest times the best root move must change from one iteration to the next"),
    minimum=0, maximum=3,
)


def _tree_params() -> tuple[Any, ...]:
    return tuple(DEPTH if param.name == "depth" else param for param in TREE_PARAMS)


def evaluations(tree: dict[str, Any]) -> dict[str, Any]:
    """Return inner node name → its static evaluation, the root's excepted, in tree order."""
    return {
        node["name"]: node["value"] for node in walk(tree)
        if "children" in node and "value" in node
    }


class IterativeDeepeningKind(Kind):
    """Ask what each iteration of iterative deepening decides and costs, and what is played."""

    name = "iterative_deepening"
    title = gettext_lazy("Iterative deepening")
    description = gettext_lazy(
        "Alpha-beta at depth 1, 2, 3...: best move and evaluations per iteration, the move "
        "played when interrupted, what ordering by the previous best move saves."
    )
    params = (*_tree_params(), *CONVENTION_PARAMS, MIN_CHANGES)
    choice_part = "interrupted_move"
    default_options = 2  # one named misconception; the other root children fill in

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the tree params, and that the best move can change often enough."""
        check_tree_params(params)
        if params["min_changes"] > params["depth"] - 1:
            raise ParamError(
                "min_changes",
                f"{params['depth']} iterations give at most {params['depth'] - 1} changes of "
                f"the best move, not {params['min_changes']}",
            )

    def max_options(self, params: dict[str, Any]) -> int:
        """Return the fewest root children: each option names one."""
        return int(params["min_branching"])

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return best moves, evaluations per iteration, interrupted move and the saving."""
        return [
            AnswerPart(
                "best_moves", PartType.SEQUENCE,
                gettext_lazy("best root move after each iteration, depth 1 first"),
            ),
            AnswerPart(
                "evaluations", PartType.VECTOR,
                gettext_lazy("evaluations made by each iteration, depth 1 first"),
                options={"length": params["depth"]},
            ),
            AnswerPart(
                "interrupted_move", PartType.NAME,
                gettext_lazy("move played when the search is stopped during the named iteration"),
            ),
            AnswerPart(
                "ordering_saving", PartType.NUMBER,
                gettext_lazy("evaluations the last iteration saves by searching the previous "
                             "best move first"),
            ),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a MAX-rooted tree, evaluations for its inner nodes, and the interrupted depth."""
        tree = draw_tree(rng, params, alternating_layers("max", params["depth"]))
        inner = [node for node in walk(tree) if "children" in node and node is not tree]
        values = draw_values(rng, len(inner), params["min_value"], params["max_value"],
                             distinct=False)
        for node, value in zip(inner, values, strict=True):
            node["value"] = value
        return {
            "format": "gametree/1",
            "kind": "iterative_deepening",
            "tree": tree,
            "params": {
                **conventions_of(params),
                "max_depth": params["depth"],
                "reuse": "root",
                "interrupted_depth": rng.randint(2, params["depth"]),
            },
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's answer, its iterations' evaluations in plain order added.

        ``depth_limited_values`` are the root children's exact depth-limited minimax values
        per iteration (alpha-beta only bounds the ones it prunes), to refuse tied decisions.
        """
        answer = solve_problem(problem)
        answer["unordered_evaluations"] = _unordered_evaluations(problem)
        answer["depth_limited_values"] = [
            {name: values[name] for name in (c["name"] for c in problem["tree"]["children"])}
            for values in (
                solve_problem({"format": "gametree/1", "kind": "minimax", "tree": problem["tree"],
                               "params": {"depth_limit": depth}})["node_values"]
                for depth in range(1, answer["depth"] + 1)
            )
        ]
        return answer

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the parts read off the engine's answer.

        A misconception's answer comes straight from the engine, without the plain-order
        evaluations: those are asked of the engine again.
        """
        unordered = answer.get("unordered_evaluations") or _unordered_evaluations(problem)
        counts = [iteration["evaluations"] for iteration in answer["iterations"]]
        return {
            "best_moves": [iteration["move"] for iteration in answer["iterations"]],
            "evaluations": counts,
            "interrupted_move": answer["interrupted_move"],
            "ordering_saving": unordered[-1] - counts[-1],
        }

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return the other root children: the deepest iteration's move first."""
        moves = [answer["move"], *(c["name"] for c in problem["tree"]["children"])]
        return [(move, "other_root_move") for move in dict.fromkeys(moves)]

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Require every iteration, enough changes of the best move, and no tied decisions."""
        issues = []
        moves = [iteration["move"] for iteration in answer["iterations"]]
        if len(moves) < params["depth"]:
            issues.append(f"only {len(moves)} iterations, fewer than depth {params['depth']}")
            return issues
        changes = sum(a != b for a, b in zip(moves, moves[1:], strict=False))
        if changes < params["min_changes"]:
            issues.append(f"the best move changes {changes} times, fewer than min_changes")
        interrupted = problem["params"]["interrupted_depth"]
        if params["min_changes"] and moves[interrupted - 1] == moves[interrupted - 2]:
            issues.append("the interrupted iteration would play the same move as the last "
                          "completed one")
        if not params["allow_ties"]:
            for depth, values in enumerate(answer["depth_limited_values"], start=1):
                best = max(values.values())
                if sum(value == best for value in values.values()) > 1:
                    issues.append(f"iteration {depth} has tied best moves")
        return issues

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the depth, the conventions, the interrupted iteration and the evaluations."""
        return {
            "depth": params["depth"],
            "conventions": conventions_of(params),
            "interrupted_depth": problem["params"]["interrupted_depth"],
            "evaluations": evaluations(problem["tree"]),
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        listed = ", ".join(f"{name} = {value}" for name, value in args["evaluations"].items())
        text = _(
            "Iterative deepening runs alpha-beta on this tree (MAX moves at the root, the "
            "players alternate) with a depth limit of 1 ply, then 2 plies, and so on up to "
            "%(depth)s plies: the root is at depth 0, and iteration d searches only the nodes "
            "at most d plies below it. A node at the depth limit that is not a leaf is scored "
            "by its static evaluation; leaves are scored by their value. The static "
            "evaluations (for MAX, like the leaf values) are: %(evaluations)s."
        ) % {"depth": args["depth"], "evaluations": listed}
        text += " " + _(
            "Children are searched left to right, except at the root from iteration 2 on: "
            "there the best move of the previous iteration is searched first, then the other "
            "children left to right (below the root nothing is reordered, and no "
            "transposition table is kept)."
        )
        text += " " + render_conventions(args["conventions"])
        text += " " + _(
            "A root child becomes the best move only when it is strictly better than the best "
            "so far. An iteration that is stopped before it completes is discarded."
        )
        text += " " + _(
            "Give the best root move after each iteration, depth 1 first; the number of "
            "evaluations each iteration makes (an evaluation scores one node: a node at the "
            "depth limit, or a leaf; nodes searched through are not counted); the move played "
            "if the search is stopped during iteration %(interrupted)s; and how many "
            "evaluations iteration %(depth)s saves by searching the previous best move first "
            "instead of searching the root's children left to right too (negative if it costs "
            "more)."
        ) % {"interrupted": args["interrupted_depth"], "depth": args["depth"]}
        return text


def _unordered_evaluations(problem: dict[str, Any]) -> list[int]:
    """Return the engine's evaluations per iteration when nothing is reordered."""
    plain = {**problem, "params": {**problem["params"], "reuse": "none"}}
    return [iteration["evaluations"] for iteration in solve_problem(plain)["iterations"]]


register(IterativeDeepeningKind())

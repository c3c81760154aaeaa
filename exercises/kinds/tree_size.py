"""``tree_size``: leaves and nodes of a uniform tree, perfect-ordering alpha-beta leaves, plies.

The engine counts them by searching the uniform tree itself: with every leaf equal, alpha-beta
cutting on equality evaluates exactly the minimal tree of perfect ordering, and alpha-beta
cutting only on strict inequality never cuts, so it evaluates every leaf and node.
"""

from __future__ import annotations

import random
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from exercises.kinds import register
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.games import NODE_COUNTINGS
from exercises.kinds.params import ChoiceParam, IntParam, ParamError
from exercises.kinds.trees import ROOT, alternating_layers, child_name

MAX_SEARCHED_LEAVES = 10_000
"""Largest uniform tree the engine is asked to search (b^d leaves)."""


def uniform_tree(branching: int, plies: int) -> dict[str, Any]:
    """Return the uniform MAX/MIN tree of ``branching`` and ``plies`` with every leaf worth 0."""
    layers = alternating_layers("max", plies)

    def build(name: str, depth: int) -> dict[str, Any]:
        if depth == plies:
            return {"name": name, "value": 0}
        return {
            "name": name, "type": layers[depth],
            "children": [build(_name(name, i, depth + 1), depth + 1) for i in range(branching)],
        }

    return build(ROOT, 0)


def _name(parent: str, index: int, depth: int) -> str:
    # Wide trees outgrow one letter or digit per level; a separator keeps names unique.
    return child_name(parent, index, depth) if index < 9 else f"{parent}.{index}"


class TreeSizeKind(Kind):
    """Ask how big a uniform game tree is, and how much perfect ordering saves."""

    name = "tree_size"
    title = gettext_lazy("Tree size")
    description = gettext_lazy(
        "Leaves and nodes of a uniform tree, perfect-ordering alpha-beta leaves, plies."
    )
    params = (
        IntParam("min_branching", 2, "smallest branching factor b", minimum=2, maximum=10),
        IntParam("max_branching", 5, "largest branching factor b", minimum=2, maximum=10),
        IntParam("min_moves", 1, "fewest moves each player looks ahead", minimum=1, maximum=4),
        IntParam("max_moves", 2, "most moves each player looks ahead", minimum=1, maximum=4),
        ChoiceParam(
            "node_counting", "root_included", "whether the root counts as a node",
            choices=NODE_COUNTINGS, convention=True,
        ),
    )

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the ranges, and that the largest tree stays small enough to search."""
        if params["min_branching"] > params["max_branching"]:
            raise ParamError("max_branching", "must be at least min_branching")
        if params["min_moves"] > params["max_moves"]:
            raise ParamError("max_moves", "must be at least min_moves")
        largest = params["max_branching"] ** (2 * params["max_moves"])
        if largest > MAX_SEARCHED_LEAVES:
            raise ParamError(
                "max_branching",
                f"b={params['max_branching']} over {2 * params['max_moves']} plies gives "
                f"{largest} leaves; keep b^plies at most {MAX_SEARCHED_LEAVES}",
            )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return plies, leaves, nodes and perfect-ordering leaves."""
        return [
            AnswerPart("plies", PartType.NUMBER, gettext_lazy("depth in plies")),
            AnswerPart("leaves", PartType.NUMBER, gettext_lazy("leaves of the full tree")),
            AnswerPart("nodes", PartType.NUMBER, gettext_lazy("nodes of the full tree")),
            AnswerPart(
                "perfect_leaves", PartType.NUMBER,
                gettext_lazy("leaves alpha-beta evaluates with perfect ordering"),
            ),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw the branching factor and how many moves each player looks ahead."""
        return {
            "format": "gametree/1",
            "kind": "tree_size",
            "branching": rng.randint(params["min_branching"], params["max_branching"]),
            "moves": rng.randint(params["min_moves"], params["max_moves"]),
            "params": {"node_counting": params["node_counting"]},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's counts on the uniform tree with equal leaves."""
        plies = 2 * problem["moves"]
        tree = uniform_tree(problem["branching"], plies)
        full, perfect = (
            solve_problem({"format": "gametree/1", "kind": "alphabeta", "tree": tree,
                           "params": {"cut_on_equality": cut}})
            for cut in (False, True)
        )
        nodes = len(full["node_values"])
        if problem["params"]["node_counting"] == "root_excluded":
            nodes -= 1
        return {
            "plies": plies,
            "leaves": len(full["evaluated_leaves"]),
            "nodes": nodes,
            "perfect_leaves": len(perfect["evaluated_leaves"]),
        }

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the four counts."""
        return dict(answer)

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return b, the moves per player and the node counting."""
        return {
            "branching": problem["branching"],
            "moves": problem["moves"],
            "node_counting": params["node_counting"],
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        text = ngettext(
            "A game tree has branching factor b = %(b)s everywhere, and the search looks "
            "%(moves)s move ahead for each of the two players. How many plies deep is it "
            "(the root is at depth 0)? How many leaves and how many nodes does the full tree "
            "have? How many leaves does alpha-beta evaluate with perfect move ordering?",
            "A game tree has branching factor b = %(b)s everywhere, and the search looks "
            "%(moves)s moves ahead for each of the two players. How many plies deep is it "
            "(the root is at depth 0)? How many leaves and how many nodes does the full tree "
            "have? How many leaves does alpha-beta evaluate with perfect move ordering?",
            args["moves"],
        ) % {"b": args["branching"], "moves": args["moves"]}
        text += " " + (
            _("Count the root as a node.")
            if args["node_counting"] == "root_included"
            else _("Do not count the root as a node.")
        )
        return text


register(TreeSizeKind())

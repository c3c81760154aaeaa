"""``tree_size``: leaves and nodes of a uniform tree, perfect-ordering alpha-beta leaves, plies.

The depth is given either as moves per player (an even number of plies, which is asked) or,
with ``depth_given_in: "plies"``, directly as any number of plies from 1 to 9, odd ones
included (then only the counts are asked).

The engine counts them by searching the uniform tree itself: with every leaf equal, alpha-beta
cutting on equality evaluates exactly the minimal tree of perfect ordering, and alpha-beta
cutting only on strict inequality never cuts, so it evaluates every leaf and node.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext

from exercises.kinds import register
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.games import NODE_COUNTINGS
from exercises.kinds.params import ChoiceParam, IntParam, ParamError
from exercises.kinds.trees import ROOT, alternating_layers, child_name

DEPTH_UNITS = ("moves", "plies")
"""How a problem gives its depth: moves per player (2 plies each) or plies."""

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


@lru_cache(maxsize=128)
def searched_counts(branching: int, plies: int) -> tuple[int, int, int]:
    """Return the engine's counts on the uniform tree of ``branching`` and ``plies``: its
    nodes (the root included), its leaves, and the leaves perfect ordering evaluates.

    Kept per process: every student's problem is one of a few (b, plies), and a search of
    10^4 leaves takes a tenth of a second, so a class of hundreds searched the same trees
    hundreds of times when a set was published or its conventions changed.
    """
    tree = uniform_tree(branching, plies)
    full, perfect = (
        solve_problem({"format": "gametree/1", "kind": "alphabeta", "tree": tree,
                       "params": {"cut_on_equality": cut}})
        for cut in (False, True)
    )
    return (len(full["node_values"]), len(full["evaluated_leaves"]),
            len(perfect["evaluated_leaves"]))


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
        IntParam("min_branching", 2, gettext_noop("smallest branching factor b"),
                 minimum=2, maximum=10),
        IntParam("max_branching", 5, gettext_noop("largest branching factor b"),
                 minimum=2, maximum=10),
        IntParam("min_moves", 1, gettext_noop("fewest moves each player looks ahead"),
                 minimum=1, maximum=4),
        IntParam("max_moves", 2, gettext_noop("most moves each player looks ahead"),
                 minimum=1, maximum=4),
        ChoiceParam(
            "depth_given_in", "moves",
            gettext_noop(
                "moves: the prompt gives moves per player and asks the plies; plies: it gives the "
                "plies (min_plies..max_plies, odd ones included) and asks only the counts"
            ),
            choices=DEPTH_UNITS,
        ),
        IntParam("min_plies", 1,
                 gettext_noop("fewest plies when depth_given_in is plies"),
                 minimum=1, maximum=9),
        IntParam("max_plies", 5,
                 gettext_noop("most plies when depth_given_in is plies"),
                 minimum=1, maximum=9),
        ChoiceParam(
            "node_counting", "root_included", gettext_noop("whether the root counts as a node"),
            choices=NODE_COUNTINGS, convention=True,
        ),
    )

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the ranges, and that the largest tree stays small enough to search."""
        if params["min_branching"] > params["max_branching"]:
            raise ParamError("max_branching", "must be at least min_branching")
        if params["min_moves"] > params["max_moves"]:
            raise ParamError("max_moves", "must be at least min_moves")
        if params["min_plies"] > params["max_plies"]:
            raise ParamError("max_plies", "must be at least min_plies")
        in_plies = params["depth_given_in"] == "plies"
        deepest = params["max_plies"] if in_plies else 2 * params["max_moves"]
        largest = params["max_branching"] ** deepest
        if largest > MAX_SEARCHED_LEAVES:
            raise ParamError(
                "max_branching",
                f"b={params['max_branching']} over {deepest} plies gives "
                f"{largest} leaves; keep b^plies at most {MAX_SEARCHED_LEAVES} (lower "
                f"max_branching or {'max_plies' if in_plies else 'max_moves'})",
            )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return plies (unless the prompt gives them), leaves, nodes, perfect-ordering leaves."""
        plies = [] if params["depth_given_in"] == "plies" else [
            AnswerPart("plies", PartType.NUMBER, gettext_lazy("depth in plies")),
        ]
        return [
            *plies,
            AnswerPart("leaves", PartType.NUMBER, gettext_lazy("leaves of the full tree")),
            AnswerPart("nodes", PartType.NUMBER, gettext_lazy("nodes of the full tree")),
            AnswerPart(
                "perfect_leaves", PartType.NUMBER,
                gettext_lazy("leaves alpha-beta evaluates with perfect ordering"),
            ),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw the branching factor and the depth: moves per player, or plies."""
        branching = rng.randint(params["min_branching"], params["max_branching"])
        depth = (
            {"plies": rng.randint(params["min_plies"], params["max_plies"])}
            if params["depth_given_in"] == "plies"
            else {"moves": rng.randint(params["min_moves"], params["max_moves"])}
        )
        return {
            "format": "gametree/1",
            "kind": "tree_size",
            "branching": branching,
            **depth,
            "params": {"node_counting": params["node_counting"]},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's counts on the uniform tree with equal leaves."""
        plies = problem["plies"] if "plies" in problem else 2 * problem["moves"]
        nodes, leaves, perfect_leaves = searched_counts(problem["branching"], plies)
        if problem["params"]["node_counting"] == "root_excluded":
            nodes -= 1
        return {"plies": plies, "leaves": leaves, "nodes": nodes,
                "perfect_leaves": perfect_leaves}

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the counts asked: the plies too unless the problem gives them."""
        return {name: value for name, value in answer.items()
                if name != "plies" or "plies" not in problem}

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return b, the moves per player or the plies, and the node counting."""
        depth = ({"plies": problem["plies"]} if "plies" in problem
                 else {"moves": problem["moves"]})
        return {
            "branching": problem["branching"],
            **depth,
            "node_counting": params["node_counting"],
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        text = self._plies_question(args) if "plies" in args else ngettext(
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
        # Without the root narrowing its window a 2-ply tree never cuts (b² leaves, not 2b - 1).
        text += " " + _(
            "Alpha-beta starts with the window (-inf, inf) and the root narrows it after each "
            "child (MAX raises alpha to its best value so far); perfect ordering means every "
            "node searches its best child first."
        )
        text += " " + (
            _("Count the root as a node.")
            if args["node_counting"] == "root_included"
            else _("Do not count the root as a node.")
        )
        return text

    def _plies_question(self, args: dict[str, Any]) -> str:
        return ngettext(
            "A game tree has branching factor b = %(b)s everywhere and is %(plies)s ply deep: "
            "a ply is one move by one player, MAX moves at the root (depth 0) and the players "
            "alternate, so the leaves are at depth %(plies)s. How many leaves and how many "
            "nodes does the full tree have? How many leaves does alpha-beta evaluate with "
            "perfect move ordering?",
            "A game tree has branching factor b = %(b)s everywhere and is %(plies)s plies deep: "
            "a ply is one move by one player, MAX moves at the root (depth 0) and the players "
            "alternate, so the leaves are at depth %(plies)s. How many leaves and how many "
            "nodes does the full tree have? How many leaves does alpha-beta evaluate with "
            "perfect move ordering?",
            args["plies"],
        ) % {"b": args["branching"], "plies": args["plies"]}


register(TreeSizeKind())

"""``minimax``: the root value, the decision and the values of named inner nodes."""

from __future__ import annotations

import random
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext

from exercises.kinds import register
from exercises.kinds.authored import TreeRules
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.params import ChoiceParam, IntParam
from exercises.kinds.trees import (
    TREE_PARAMS,
    alternating_layers,
    check_tree_params,
    draw_tree,
    inner_names,
    moves_in_turn,
    other_node_values,
    pick_names,
)

ROOT_PLAYER = ChoiceParam(
    "root_player", "max", gettext_noop("who moves at the root"), choices=("max", "min")
)
ASK_NODES = IntParam(
    "ask_nodes", 2, gettext_noop("how many inner nodes' values are asked"), minimum=0, maximum=8
)


def minimax_values(problem: dict[str, Any]) -> dict[str, Any]:
    """Return each root child's exact minimax value in ``problem``'s tree, by the engine."""
    answer = solve_problem({"format": "gametree/1", "kind": "minimax", "tree": problem["tree"],
                            "params": {}})
    return {child["name"]: answer["node_values"][child["name"]]
            for child in problem["tree"]["children"]}


def decision_key(move: str, values: dict[str, Any] | None, children: list[str]) -> Any:
    """Return a decision's key: ``move``, or the list of every child as good as it.

    Prompts that accept any of several equally good moves key them all (grading accepts
    any name of a listed key); ``values`` are the children's values, absent for answers
    that lack them (a misconception's), which then key ``move`` alone.
    """
    if not values or move not in values:
        return move
    tied = [child for child in children if values.get(child) == values[move]]
    return tied if len(tied) > 1 else move


def tie_issues(answer: dict[str, Any], children: list[str]) -> list[str]:
    """Return an issue when two root children share the best value (an ambiguous decision)."""
    values = [answer["node_values"].get(name) for name in children]
    best = answer["node_values"].get(answer["move"])
    if values.count(best) > 1:
        return [f"the root decision is a tie between children worth {best}"]
    return []


class MinimaxKind(Kind):
    """Ask for the minimax value of the root, the decision and some inner nodes' values."""

    name = "minimax"
    title = gettext_lazy("Minimax")
    description = gettext_lazy("Back up leaf values to the root of a MAX/MIN tree.")
    params = (*TREE_PARAMS, ROOT_PLAYER, ASK_NODES)
    tree_rules = TreeRules(("max", "min"))
    choice_part = "value"
    default_options = 2  # the engine names one way to get a plain minimax value wrong

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the shared tree params."""
        check_tree_params(params)

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the value, the decision and (if asked) the inner nodes' values."""
        parts = [
            AnswerPart("value", PartType.NUMBER, gettext_lazy("minimax value of the root")),
            AnswerPart("move", PartType.NAME, gettext_lazy("decision at the root (child name)")),
        ]
        if params["ask_nodes"]:
            parts.append(
                AnswerPart(
                    "node_values", PartType.NODE_VALUES, gettext_lazy("values of the named nodes"),
                    points=params["ask_nodes"] // 2 + 1,
                )
            )
        return parts

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a MAX/MIN tree and which inner nodes to ask about."""
        tree = self.tree_for(rng, params, lambda: draw_tree(
            rng, params, alternating_layers(params["root_player"], params["depth"])))
        return {
            "format": "gametree/1",
            "kind": "minimax",
            "tree": tree,
            "params": {},
            "ask": {"node_values": pick_names(rng, inner_names(tree), params["ask_nodes"])},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's minimax answer."""
        return solve_problem(problem)

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return value, move and the asked nodes' values."""
        key = {"value": answer["value"], "move": answer["move"]}
        asked = problem["ask"]["node_values"]
        if asked:
            key["node_values"] = {name: answer["node_values"].get(name) for name in asked}
        return key

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return the other nodes' minimax values, the root's children first."""
        return other_node_values(problem, answer)

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Refuse an ambiguous root decision unless ties are allowed."""
        if params["allow_ties"]:
            return []
        return tie_issues(answer, [child["name"] for child in problem["tree"]["children"]])

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return who moves at the root (the tree's: an instructor's may differ from the
        param), the asked nodes, and ``players_alternate: False`` for a tree whose players
        do not alternate (only an instructor's can be so)."""
        tree = problem["tree"]
        alternate = moves_in_turn(tree, alternating_layers(tree["type"], 2),
                                  lambda node: node["type"])
        return {
            "root_player": tree["type"],
            "nodes": problem["ask"]["node_values"],
            **({} if alternate else {"players_alternate": False}),
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        # Alternating trees store no flag, so random trees' args stay as they were stored.
        if args.get("players_alternate", True):
            text = (
                _("MAX moves at the root of this game tree and the players alternate.")
                if args["root_player"] == "max"
                else _("MIN moves at the root of this game tree and the players alternate.")
            )
        else:
            text = (
                _("MAX moves at the root of this game tree, but the players do not always "
                  "alternate: each inner node is marked MAX or MIN by who moves there.")
                if args["root_player"] == "max"
                else _("MIN moves at the root of this game tree, but the players do not always "
                       "alternate: each inner node is marked MAX or MIN by who moves there.")
            )
        text += " " + _(
            "Compute the minimax value of the root and the decision (the leftmost best child)."
        )
        if args["nodes"]:
            text += " " + ngettext(
                "Give also the minimax value of node %(nodes)s.",
                "Give also the minimax values of nodes %(nodes)s.",
                len(args["nodes"]),
            ) % {"nodes": ", ".join(args["nodes"])}
        return text


register(MinimaxKind())

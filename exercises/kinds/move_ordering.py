"""``move_ordering``: one tree searched by alpha-beta in two orders; same value, other leaves."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.kinds import register
from exercises.kinds.alphabeta import (
    CONVENTION_PARAMS,
    check_cuts_possible,
    conventions_of,
    render_conventions,
)
from exercises.kinds.authored import TreeRules, is_authored
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.minimax import ROOT_PLAYER
from exercises.kinds.params import ChoiceParam, IntParam
from exercises.kinds.trees import TREE_PARAMS, alternating_layers, check_tree_params, draw_tree

SECOND_ORDERS = ("best-first", "reverse")


class MoveOrderingKind(Kind):
    """Ask for the leaves alpha-beta evaluates left to right, and under a second ordering."""

    name = "move_ordering"
    title = gettext_lazy("Move ordering")
    description = gettext_lazy(
        "Search the same tree in two orders: the value stays, the evaluated leaves change."
    )
    tree_rules = TreeRules(("max", "min"))
    params = (
        *TREE_PARAMS,
        ROOT_PLAYER,
        *CONVENTION_PARAMS,
        ChoiceParam(
            "second_order", "best-first",
            gettext_noop(
                "the second search's order: best-first (each node takes its children from best "
                "to worst by their true minimax value, equal values left to right, and "
                "alpha-beta cuts as usual) or reverse (right to left)"
            ),
            choices=SECOND_ORDERS,
        ),
        IntParam(
            "min_difference", 2,
            gettext_noop(
                "fewest leaves by which the two searches must differ (with root_raises_alpha false "
                "a depth-2 tree never cuts, so both searches evaluate every leaf: use depth 3)"
            ),
            minimum=1, maximum=40,
        ),
    )

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the shared tree params, and that the two orders can evaluate other leaves.

        An instructor's tree is searched when the item is created instead.
        """
        check_tree_params(params)
        if is_authored(params):
            return
        check_cuts_possible(
            params, "min_difference",
            "both searches evaluate every leaf and cannot differ by min_difference",
        )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the value and the evaluation sequences under both orders."""
        return [
            AnswerPart("value", PartType.NUMBER, gettext_lazy("minimax value of the root")),
            AnswerPart(
                "evaluated_first", PartType.SEQUENCE,
                gettext_lazy("leaves evaluated, in order, searching left to right"),
                points=Fraction(2),
            ),
            AnswerPart(
                "evaluated_second", PartType.SEQUENCE,
                gettext_lazy("leaves evaluated, in order, under the second ordering"),
                points=Fraction(2),
            ),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a MAX/MIN tree; the orders are named in the params."""
        tree = self.tree_for(rng, params, lambda: draw_tree(
            rng, params, alternating_layers(params["root_player"], params["depth"])))
        return {
            "format": "gametree/1",
            "kind": "move_ordering",
            "tree": tree,
            "params": {**conventions_of(params), "orders": ["natural", params["second_order"]]},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's alpha-beta answers under each of the two orders."""
        params = {k: v for k, v in problem["params"].items() if k != "orders"}
        first, second = (
            solve_problem({**problem, "kind": "alphabeta", "params": {**params, "order": order}})
            for order in problem["params"]["orders"]
        )
        return {"first": first, "second": second}

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the value and both evaluation sequences."""
        return {
            "value": answer["first"]["value"],
            "evaluated_first": answer["first"]["evaluated_leaves"],
            "evaluated_second": answer["second"]["evaluated_leaves"],
        }

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Require the two searches to differ by at least ``min_difference`` leaves."""
        difference = abs(
            len(answer["first"]["evaluated_leaves"]) - len(answer["second"]["evaluated_leaves"])
        )
        if difference < params["min_difference"]:
            return [f"the orders differ by {difference} leaves, fewer than min_difference"]
        return []

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the conventions, the second order and who moves at the root."""
        return {"conventions": conventions_of(params), "second_order": params["second_order"],
                "root_player": problem["tree"]["type"]}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        # Variants stored before the root player was printed have no "root_player".
        opening = {
            "max": _("Run alpha-beta on this tree twice; MAX moves at the root."),
            "min": _("Run alpha-beta on this tree twice; MIN moves at the root."),
        }.get(args.get("root_player", ""), _("Run alpha-beta on this tree twice."))
        text = opening + " " + render_conventions(args["conventions"])
        text += " " + _("The first time, every node searches its children left to right.")
        text += " " + (
            # "Searches all its children" read as a second search without cutoffs.
            _("The second time, every node takes its children from best to worst by their "
              "true minimax value (MAX from the highest value down, MIN from the lowest up, "
              "children of equal value left to right), and alpha-beta cuts as usual.")
            if args["second_order"] == "best-first"
            else _("The second time, every node searches its children right to left.")
        )
        text += " " + _(
            "Give the root's value and, for each search, the leaves evaluated in order."
        )
        return text


register(MoveOrderingKind())

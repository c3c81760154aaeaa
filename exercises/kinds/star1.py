"""``star1``: alpha-beta through chance nodes with known value bounds (Ballard's Star1).

The tree is a decision root over chance nodes whose outcomes are leaves. Every leaf lies in
the bounds [L, U] printed in the prompt; the engine's bounded chance search
(:func:`engine.search.chance.expectiminimax_alphabeta`) computes which outcomes a chance node
never searches, and the bound (upper against alpha, lower against beta) that let it stop.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.kinds import register
from exercises.kinds.authored import TreeRules, is_authored, is_fixed
from exercises.kinds.base import SET_SCORING, AnswerPart, Kind, PartType
from exercises.kinds.chance import BIASED_SPLITS
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.minimax import ROOT_PLAYER
from exercises.kinds.params import BoolParam, ChoiceParam, IntParam, ParamError
from exercises.kinds.trees import ROOT, child_name, draw_values, fill_leaves, leaves

STAR1_CHANCE_MODES = ("fair_coin", "biased")


class Star1Kind(Kind):
    """Ask which outcomes Star1 prunes at chance nodes, and the bound behind each cutoff."""

    name = "star1"
    title = gettext_lazy("Star1 pruning at chance nodes")
    description = gettext_lazy(
        "Prune chance nodes with known value bounds: which outcomes are skipped, and why."
    )
    params = (
        IntParam("chance_nodes", 3, gettext_noop("chance nodes below the root"),
                 minimum=2, maximum=4),
        ChoiceParam(
            "chance", "biased",
            gettext_noop(
                "fair_coin (two outcomes of 1/2) or biased (2 or 3 outcomes, probabilities on the "
                "branches)"
            ),
            choices=STAR1_CHANCE_MODES,
        ),
        ROOT_PLAYER,
        IntParam("lower_bound", 0,
                 gettext_noop("L: every leaf value is at least L (printed)"),
                 minimum=-99, maximum=99),
        IntParam("upper_bound", 10,
                 gettext_noop("U: every leaf value is at most U (printed)"),
                 minimum=-99, maximum=99),
        BoolParam(
            "cut_on_equality", True,
            gettext_noop(
                "a chance node cuts when its upper bound <= alpha or its lower bound >= beta "
                "(true), or only on strict inequality (false)"
            ),
            convention=True,
        ),
        IntParam(
            "min_cuts", 1, gettext_noop("fewest chance nodes that cut (skip at least one outcome)"),
            minimum=0, maximum=3,
        ),
        SET_SCORING,
    )
    choice_part = "evaluated_count"
    tree_rules = TreeRules(("max", "min", "chance"))

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the bounds, and that the first chance node (never cut) leaves room for cuts.

        An instructor's tree must have Star1's shape (a MAX or MIN root over chance nodes
        whose outcomes are leaves) and, with its own values, leaves within [L, U].
        """
        if params["lower_bound"] >= params["upper_bound"]:
            raise ParamError("upper_bound", "must be greater than lower_bound")
        if is_authored(params):
            check_star1_tree(params)
            return
        if params["min_cuts"] >= params["chance_nodes"]:
            raise ParamError(
                "min_cuts",
                f"the first chance node is searched with the full window and never cuts, so "
                f"{params['chance_nodes']} chance nodes allow at most "
                f"{params['chance_nodes'] - 1} cutoffs",
            )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the root value, evaluated count, pruned leaves, cutoffs and chance values."""
        return [
            AnswerPart("value", PartType.NUMBER, gettext_lazy("expectiminimax value of the root")),
            AnswerPart(
                "evaluated_count", PartType.NUMBER, gettext_lazy("number of leaves evaluated")
            ),
            AnswerPart(
                "pruned_leaves", PartType.SET, gettext_lazy("leaves that are pruned"),
                points=Fraction(2),
            ),
            AnswerPart(
                "cutoffs", PartType.CUTOFFS,
                gettext_lazy("cutoffs in the order they happen (chance node and skipped outcomes)"),
                points=Fraction(2),
            ),
            AnswerPart(
                "chance_values", PartType.NODE_VALUES,
                gettext_lazy("value each chance node returns (at a cutoff, the bound that "
                             "justified it)"),
                points=Fraction(2),
            ),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a root over chance nodes whose outcomes are leaves within [L, U]."""

        def draw() -> dict[str, Any]:
            chance_nodes = []
            for index in range(params["chance_nodes"]):
                name = child_name(ROOT, index, 1)
                split = (
                    ("1/2", "1/2") if params["chance"] == "fair_coin"
                    else BIASED_SPLITS[rng.randint(0, len(BIASED_SPLITS) - 1)]
                )
                chance_nodes.append({
                    "name": name, "type": "chance", "probabilities": list(split),
                    "children": [{"name": child_name(name, i, 2)} for i in range(len(split))],
                })
            tree = {"name": ROOT, "type": params["root_player"], "children": chance_nodes}
            self.fill_values(rng, params, tree)
            return tree

        tree = self.tree_for(rng, params, draw)
        return {
            "format": "gametree/1",
            "kind": "expectiminimax",
            "tree": tree,
            "params": {
                "utility_bounds": [params["lower_bound"], params["upper_bound"]],
                "cut_on_equality": params["cut_on_equality"],
            },
        }

    def fill_values(self, rng: random.Random, params: dict[str, Any], tree: dict[str, Any]
                    ) -> None:
        """Give the leaves values within the printed bounds [L, U]; they may repeat."""
        fill_leaves(tree, draw_values(
            rng, len(leaves(tree)), params["lower_bound"], params["upper_bound"], distinct=False
        ))

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's bounded expectiminimax answer (with the alpha-beta keys)."""
        return solve_problem(problem)

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the parts read off the engine's answer.

        A chance node that searches every outcome returns its exact value. One that cuts
        returns the bound that justified the cut: below MAX its upper bound, which the engine
        reports as the cutoff's beta (alpha stays the window's); below MIN its lower bound,
        reported as the cutoff's alpha.
        """
        below_max = problem["tree"]["type"] == "max"
        cut_bounds = {
            cut["node"]: cut["beta"] if below_max else cut["alpha"] for cut in answer["cutoffs"]
        }
        return {
            "value": answer["value"],
            "evaluated_count": len(answer["evaluated_leaves"]),
            "pruned_leaves": answer["pruned_leaves"],
            "cutoffs": [{"node": cut["node"], "pruned": cut["pruned"]}
                        for cut in answer["cutoffs"]],
            "chance_values": {
                name: cut_bounds[name] if name in cut_bounds else answer["node_values"].get(name)
                for name in (node["name"] for node in problem["tree"]["children"])
            },
        }

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return the leaves evaluated under the other cut rule, then with no pruning."""
        other_rule = {**problem, "params": {**problem["params"],
                                            "cut_on_equality": not params["cut_on_equality"]}}
        return [
            (len(solve_problem(other_rule)["evaluated_leaves"]), "other_convention"),
            (len(leaves(problem["tree"])), "no_pruning"),
        ]

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Require ``min_cuts`` cutoffs, and mistakes that each give their own answer.

        When two named misconceptions answer alike, grading cannot tell which one a student
        holds (it names none), so such trees are redrawn; an instructor's tree with its own
        values cannot be redrawn and no param loosens that rule, so it is taken as written.
        """
        issues = []
        if len(answer["cutoffs"]) < params["min_cuts"]:
            issues.append(f"{len(answer['cutoffs'])} cutoffs, fewer than min_cuts")
        if is_fixed(params):
            return issues
        key = self.project(problem, answer)
        wrong = [
            projected for projected in (
                self.project(problem, other)
                for other in self.misconception_answers(problem).values()
            )
            if projected != key
        ]
        if any(first == second for i, first in enumerate(wrong) for second in wrong[i + 1:]):
            issues.append("two misconceptions give the same answer")
        return issues

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the root player, the chance mode, the bounds and the cut rule.

        An instructor's tree says who moves at the root, and its probabilities are printed
        on its branches.
        """
        return {
            "root_player": problem["tree"]["type"],
            "chance": "biased" if is_authored(params) else params["chance"],
            "lower_bound": params["lower_bound"],
            "upper_bound": params["upper_bound"],
            "cut_on_equality": params["cut_on_equality"],
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language, every convention of the key stated."""
        text = (
            _("MAX moves at the root of this tree; each of its children is a chance node whose "
              "outcomes are leaves.")
            if args["root_player"] == "max"
            else _("MIN moves at the root of this tree; each of its children is a chance node "
                   "whose outcomes are leaves.")
        )
        text += " " + (
            _("Each chance node tosses a fair coin.") if args["chance"] == "fair_coin"
            else _("Each chance node's probabilities are written on its branches.")
        )
        text += " " + _(
            "Every leaf value lies between L = %(low)s and U = %(high)s, and the search knows "
            "these bounds."
        ) % {"low": args["lower_bound"], "high": args["upper_bound"]}
        text += " " + _(
            "Run alpha-beta with Star1 pruning at the chance nodes. The root starts with the "
            "window (-inf, inf) and narrows it after each child (MAX raises alpha to its best "
            "value so far, MIN lowers beta); the root's children and each chance node's "
            "outcomes are searched left to right, and a chance node is searched with the "
            "root's current window. After searching outcomes of total probability P whose "
            "probability-weighted values sum to S, a chance node's value is at most "
            "S + (1 - P)·U (its upper bound) and at least S + (1 - P)·L (its lower bound)."
        )
        # At P = 0 the upper bound is U itself: without this, U <= alpha read as a cutoff
        # before the first outcome, which the search never makes.
        text += " " + _(
            "A chance node always searches its first outcome: it checks its bounds after each "
            "outcome it searches, never before the first."
        )
        text += " " + (
            _("A chance node stops searching (a cutoff) as soon as its upper bound is <= alpha "
              "or its lower bound is >= beta, equality included.")
            if args["cut_on_equality"]
            else _("A chance node stops searching (a cutoff) only when its upper bound is < "
                   "alpha or its lower bound is > beta, not on equality.")
        )
        text += " " + _(
            "The outcomes a chance node never searches are pruned, and so are their leaves. "
            "A cutoff skips at least one outcome: a bound that meets the condition only after "
            "the last outcome is not a cutoff."
        )
        text += " " + _(
            "Give the root's value exactly (fractions such as 19/3 are allowed, rounded "
            "decimals are not), how many leaves are evaluated, which leaves are pruned, each "
            "cutoff in order with the outcomes (children) of that chance node it skips, and "
            "the value each chance node returns: its expected value if it searches every "
            "outcome, or the bound that justified its cutoff (its upper bound when compared "
            "with alpha, its lower bound when compared with beta)."
        )
        return text


def check_star1_tree(params: dict[str, Any]) -> None:
    """Refuse an instructor's tree without Star1's shape, or with values outside [L, U].

    Raise :class:`ParamError` at the offending node's path (``tree.children[1]``).
    """
    tree = params["tree"]
    if tree["type"] not in ("max", "min"):
        raise ParamError("tree", f'node "{tree["name"]}": a star1 root is a MAX or MIN node')
    low, high = Fraction(params["lower_bound"]), Fraction(params["upper_bound"])
    for i, chance in enumerate(tree["children"]):
        path = f"tree.children[{i}]"
        if chance.get("type") != "chance":
            raise ParamError(path, f'node "{chance["name"]}": every child of a star1 root is a '
                                   "chance node")
        for j, leaf in enumerate(chance["children"]):
            if "children" in leaf:
                raise ParamError(f"{path}.children[{j}]", f'node "{leaf["name"]}": a star1 '
                                 "chance node's outcomes are leaves")
            if is_fixed(params) and not low <= Fraction(str(leaf["value"])) <= high:
                raise ParamError(f"{path}.children[{j}]", f'node "{leaf["name"]}": its value '
                                 f"{leaf['value']} is outside the bounds L = {low}, U = {high}")


register(Star1Kind())

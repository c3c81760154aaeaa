"""``expectiminimax`` and ``expectimax``: exact values with chance nodes, and the decision.

Chance nodes toss a fair coin, a biased coin (or three-way split), or roll two dice grouped
into the 21 distinct unordered rolls (doubles 1/36, others 1/18, the engine's distribution).
With ``contrast_minimax`` the tree is drawn so that a worst-case (minimax) player, who treats
every chance node as an opponent, decides differently from the expectation player.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext

from engine.games.dice import two_dice_rolls
from exercises.kinds import register
from exercises.kinds.authored import TreeRules, is_authored
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.minimax import decision_key, tie_issues
from exercises.kinds.params import BoolParam, ChoiceParam, IntParam, ParamError
from exercises.kinds.trees import (
    ROOT,
    child_name,
    draw_values,
    fill_leaves,
    inner_names,
    leaves,
    other_node_values,
    pick_names,
    walk,
)

CHANCE_MODES = ("fair_coin", "biased", "dice")
BIASED_SPLITS: tuple[tuple[str, ...], ...] = (
    ("1/4", "3/4"), ("3/4", "1/4"), ("1/3", "2/3"), ("2/3", "1/3"), ("1/5", "4/5"),
    ("2/5", "3/5"), ("3/5", "2/5"), ("1/2", "1/4", "1/4"), ("1/6", "1/3", "1/2"),
    ("1/4", "1/2", "1/4"),
)  # fmt: skip
"""The probability splits a biased chance node draws from (simple fractions, exact sums)."""


def dice_outcomes() -> list[tuple[str, str]]:
    """Return (roll label like "25", probability) for the 21 unordered rolls, from the engine."""
    return [(f"{low}{high}", str(p)) for (low, high), p in two_dice_rolls()]


class ChanceKind(Kind):
    """Share the machinery of the two chance kinds; subclasses give the decision layers."""

    layer_cycle: ClassVar[tuple[str, ...]]
    choice_part = "value"

    shared_params = (
        IntParam("min_branching", 2, gettext_noop("fewest children of a decision node"),
                 minimum=2, maximum=4),
        IntParam("max_branching", 2, gettext_noop("most children of a decision node"),
                 minimum=2, maximum=4),
        ChoiceParam("chance", "fair_coin", gettext_noop("what the chance nodes are"),
                    choices=CHANCE_MODES),
        IntParam("min_value", 0, gettext_noop("smallest leaf value"), minimum=-99, maximum=99),
        IntParam("max_value", 10, gettext_noop("largest leaf value"), minimum=-99, maximum=99),
        BoolParam("allow_ties", False, gettext_noop("allow a tied root decision")),
        BoolParam(
            "contrast_minimax", False,
            gettext_noop(
                "require that treating chance as an opponent (minimax) picks another move, and ask "
                "for that move too"
            ),
        ),
        IntParam("ask_nodes", 1, gettext_noop("how many chance nodes' values are asked"), minimum=0,
                 maximum=6),
    )

    def __init__(self, default_depth: int) -> None:
        """Declare the params, the depth default depending on the kind's layers."""
        self.default_depth = default_depth
        # Kind.params is a class variable; here it depends on the instance's default depth.
        self.params = (  # type: ignore[misc]
            IntParam("depth", default_depth,
                     gettext_noop("plies below the root, chance levels included"),
                     minimum=2, maximum=4),
            *self.shared_params,
        )

    def check_params(self, params: dict[str, Any]) -> None:
        """Check bounds that only make sense together, and keep dice trees small.

        An instructor's tree has its own shape and chance nodes: only the values are checked.
        """
        if params["min_value"] >= params["max_value"]:
            raise ParamError("max_value", "must be greater than min_value")
        if is_authored(params):
            if params["contrast_minimax"] and not root_decides(params):
                raise ParamError("contrast_minimax", "the tree's root is a chance node: there "
                                 "is no decision at the root to contrast")
            return
        if params["min_branching"] > params["max_branching"]:
            raise ParamError("max_branching", "must be at least min_branching")
        if params["chance"] == "dice" and params["depth"] != 2:
            raise ParamError(
                "depth", "dice chance nodes have 21 outcomes, so dice trees must have depth 2"
            )

    def layers(self, depth: int) -> list[str]:
        """Return the node type of each level, root first."""
        return [self.layer_cycle[d % len(self.layer_cycle)] for d in range(depth)]

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the root value, decision, chance node values and the minimax move if asked.

        An instructor's tree rooted at a chance node has no decision at the root to ask.
        """
        parts = [AnswerPart("value", PartType.NUMBER, gettext_lazy("value of the root"))]
        if root_decides(params):
            parts.append(AnswerPart("move", PartType.NAME,
                                    gettext_lazy("decision at the root (child name)")))
        if params["ask_nodes"]:
            parts.append(AnswerPart(
                "node_values", PartType.NODE_VALUES, gettext_lazy("values of the named nodes")
            ))
        if params["contrast_minimax"]:
            parts.append(AnswerPart(
                "minimax_move", PartType.NAME,
                gettext_lazy("decision of a player treating chance nodes as MIN"),
            ))
        return parts

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a tree with decision and chance levels; leaves may repeat values."""
        layers = self.layers(params["depth"])

        def build(name: str, depth: int) -> dict[str, Any]:
            if depth == len(layers):
                return {"name": name}
            node_type = layers[depth]
            if node_type != "chance":
                count = rng.randint(params["min_branching"], params["max_branching"])
                children = [child_name(name, i, depth + 1) for i in range(count)]
                return {"name": name, "type": node_type,
                        "children": [build(child, depth + 1) for child in children]}
            if params["chance"] == "dice":
                outcomes = dice_outcomes()
            elif params["chance"] == "fair_coin":
                outcomes = [(str(i), "1/2") for i in range(2)]
            else:
                split = BIASED_SPLITS[rng.randint(0, len(BIASED_SPLITS) - 1)]
                outcomes = [(str(i), p) for i, p in enumerate(split)]
            names = (
                [f"{name}{label}" for label, _p in outcomes] if params["chance"] == "dice"
                else [child_name(name, i, depth + 1) for i in range(len(outcomes))]
            )
            return {
                "name": name, "type": "chance",
                "probabilities": [p for _label, p in outcomes],
                "children": [build(child, depth + 1) for child in names],
            }

        def draw() -> dict[str, Any]:
            tree = build(ROOT, 0)
            self.fill_values(rng, params, tree)
            return tree

        tree = self.tree_for(rng, params, draw)
        chance_nodes = [n["name"] for n in walk(tree) if n.get("type") == "chance"]
        asked = pick_names(rng, chance_nodes or inner_names(tree), params["ask_nodes"])
        return {
            "format": "gametree/1",
            "kind": self.name,
            "tree": tree,
            "params": {},
            "ask": {"node_values": asked, "minimax_move": params["contrast_minimax"]},
        }

    def fill_values(self, rng: random.Random, params: dict[str, Any], tree: dict[str, Any]
                    ) -> None:
        """Give the leaves values from ``min_value..max_value``; chance leaves may repeat."""
        fill_leaves(tree, draw_values(
            rng, len(leaves(tree)), params["min_value"], params["max_value"], distinct=False
        ))

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's answer, plus its answer with chance nodes as MIN when asked."""
        answer = solve_problem(problem)
        if problem["ask"]["minimax_move"]:
            worst_case = {**problem, "kind": "minimax", "tree": _chance_as_min(problem["tree"])}
            answer["worst_case"] = solve_problem(worst_case)
        return answer

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return value, move, asked node values and the worst-case move.

        Each decision is keyed with every root child as good as the engine's move.
        """
        children = [child["name"] for child in problem["tree"]["children"]]
        key: dict[str, Any] = {"value": answer["value"]}
        if problem["tree"]["type"] != "chance":
            key["move"] = decision_key(answer["move"], answer.get("node_values"), children)
        if problem["ask"]["node_values"]:
            key["node_values"] = {
                name: answer["node_values"].get(name) for name in problem["ask"]["node_values"]
            }
        if problem["ask"]["minimax_move"] and "worst_case" in answer:
            worst = answer["worst_case"]
            key["minimax_move"] = decision_key(worst["move"], worst.get("node_values"), children)
        return key

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return the other nodes' values, the root's children first."""
        return other_node_values(problem, answer)

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Refuse tied decisions, and equal decisions when a contrast is asked."""
        issues = []
        children = [child["name"] for child in problem["tree"]["children"]]
        if not params["allow_ties"]:
            issues += tie_issues(answer, children)
            if "worst_case" in answer:
                issues += tie_issues(answer["worst_case"], children)
        if "worst_case" in answer and answer["worst_case"]["move"] == answer["move"]:
            issues.append("minimax and expectation choose the same move")
        return issues

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the chance mode, the asked nodes, whether the contrast is asked and the
        tree's depth, or for an instructor's tree the type of its root instead.

        An instructor's tree prints its probabilities on its branches, and its levels follow
        no fixed order: the prompt names its root and leaves the rest to the node marks.
        """
        args = {
            "chance": "biased" if is_authored(params) else params["chance"],
            "nodes": problem["ask"]["node_values"],
            "contrast": params["contrast_minimax"],
        }
        if is_authored(params):
            return {**args, "root": problem["tree"]["type"]}
        return {**args, "depth": params["depth"]}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        if "root" in args:
            text = self.authored_intro(args["root"])
        else:
            # Variants stored before the depth was kept in the prompt's args: dice trees are
            # always depth 2, other trees were drawn at the kind's default depth.
            text = self.intro(
                args.get("depth", 2 if args["chance"] == "dice" else self.default_depth)
            )
        text += " " + {
            "fair_coin": _("Each chance node tosses a fair coin."),
            "biased": _("Each chance node's probabilities are written on its branches."),
            "dice": _(
                "Each chance node rolls two dice; the 21 distinct rolls are grouped without "
                "order, so a double such as 3-3 has probability 1/36 and any other roll such "
                "as 2-5 has probability 1/18."
            ),
        }[args["chance"]]
        if args.get("root") == "chance":
            text += " " + _(
                "Give the value of the root. Give every value exactly: fractions such as 19/3 "
                "are allowed, rounded decimals such as 6.33 are not."
            )
        else:
            text += " " + _(
                "Give the value of the root and the decision. Give every value exactly: "
                "fractions such as 19/3 are allowed, rounded decimals such as 6.33 are not."
            )
            text += " " + _("If several moves are equally good, any of them is accepted.")
        if args["nodes"]:
            text += " " + ngettext(
                "Give also the value of node %(nodes)s.",
                "Give also the values of nodes %(nodes)s.",
                len(args["nodes"]),
            ) % {"nodes": ", ".join(args["nodes"])}
        if args["contrast"]:
            text += " " + _(
                "Which move would a player choose who treats every chance node as a MIN "
                "opponent (plain minimax)?"
            )
        return text

    def intro(self, depth: int) -> str:
        """Return the sentence saying who moves where in a random tree ``depth`` plies deep."""
        raise NotImplementedError

    def authored_intro(self, root: str) -> str:
        """Return the sentence saying who moves where in an instructor's tree rooted at a
        ``root`` ("max", "min" or "chance") node."""
        raise NotImplementedError


def root_decides(params: dict[str, Any]) -> bool:
    """Return whether a player chooses at the root: always in a random tree, in an
    instructor's tree unless its root is a chance node."""
    tree = params.get("tree")
    return not (isinstance(tree, dict) and tree.get("type") == "chance")


def _chance_as_min(tree: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of ``tree`` whose chance nodes are MIN nodes (the worst-case reading)."""
    if "children" not in tree:
        return dict(tree)
    node = {key: value for key, value in tree.items() if key != "probabilities"}
    if tree["type"] == "chance":
        node["type"] = "min"
    node["children"] = [_chance_as_min(child) for child in tree["children"]]
    return node


class ExpectiminimaxKind(ChanceKind):
    """Ask about MAX, chance, MIN, chance… trees: the two-player game with luck."""

    name = "expectiminimax"
    tree_rules = TreeRules(("max", "min", "chance"))
    title = gettext_lazy("Expectiminimax")
    description = gettext_lazy("MAX, MIN and chance nodes: exact expected values.")
    layer_cycle = ("max", "chance", "min", "chance")

    def intro(self, depth: int) -> str:
        """Return the sentence saying who moves where (a depth-2 tree has no MIN level)."""
        if depth <= 2:
            return _(
                "In this tree MAX moves at the root and a chance node follows each move; its "
                "outcomes are the leaves, so MIN never moves."
            )
        return _(
            "In this tree MAX moves at the root, chance nodes follow each move, and MIN moves "
            "below them."
        )

    def authored_intro(self, root: str) -> str:
        """Return the sentence naming the root's mover, the other nodes marked as drawn."""
        return {
            "max": _("In this tree MAX moves at the root; below it, each inner node is marked "
                     "with who moves there: MAX, MIN or chance."),
            "min": _("In this tree MIN moves at the root; below it, each inner node is marked "
                     "with who moves there: MAX, MIN or chance."),
            "chance": _("In this tree the root is a chance node; below it, each inner node is "
                        "marked with who moves there: MAX, MIN or chance."),
        }[root]


class ExpectimaxKind(ChanceKind):
    """Ask about MAX against chance only: a one-player game with luck."""

    name = "expectimax"
    tree_rules = TreeRules(("max", "chance"))
    title = gettext_lazy("Expectimax")
    description = gettext_lazy("MAX and chance nodes only: maximise the expected value.")
    layer_cycle = ("max", "chance")

    def intro(self, depth: int) -> str:
        """Return the sentence saying who moves where."""
        return _("In this tree MAX plays against chance: there is no opponent.")

    def authored_intro(self, root: str) -> str:
        """Return the sentence saying who moves where: MAX and chance, whichever is the root."""
        return self.intro(self.default_depth)


register(ExpectiminimaxKind(default_depth=3))
register(ExpectimaxKind(default_depth=2))

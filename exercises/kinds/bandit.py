"""``ucb1`` and ``mcts_backprop``: the selection score and the backpropagation of MCTS."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.kinds import register
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.params import (
    BoolParam,
    ChoiceListParam,
    ChoiceParam,
    DecimalParam,
    IntParam,
    ParamError,
)

UCB1_FORMS = ("c*sqrt(ln N/n)", "sqrt(c*ln N/n)")
SCORE_TOLERANCE = Fraction(1, 100)
"""UCB1 scores are irrational: answers within 0.01 of the engine's float are right."""
UNVISITED_REFUSED = (
    "must be at least 1: it bounds the visits of the visited children; ask for unvisited "
    "children (n = 0, score infinity) with the unvisited param"
)
INFINITE_SCORE = "∞"
"""How the key shows an unvisited child's score (grading reads "inf" and "∞" alike)."""


def score_value(score: Any) -> float:
    """Return an engine UCB1 score as a float: a number, or the string "inf" (unvisited)."""
    return math.inf if score == "inf" else float(score)


class Ucb1Kind(Kind):
    """Ask for each child's UCB1 score, the next selection and the move played now."""

    name = "ucb1"
    title = gettext_lazy("UCB1 selection")
    description = gettext_lazy("Score children with UCB1; select, and pick the final move.")
    params = (
        IntParam("children", 3, gettext_noop("number of children of the root"),
                 minimum=2, maximum=6),
        IntParam(
            "unvisited", 0,
            gettext_noop(
                "how many children have no visits yet (score infinity; the first of them from the "
                "left is selected); at least one child stays visited"
            ),
            minimum=0, maximum=5,
        ),
        IntParam(
            "min_visits", 2, gettext_noop("fewest visits of a visited child (at least 1)"),
            minimum=1, maximum=1000,
        ),
        IntParam("max_visits", 30, gettext_noop("most visits of a child"), minimum=1, maximum=1000),
        DecimalParam("c", "2", gettext_noop("exploration constant"),
                     convention=True, maximum=Fraction(100)),
        # With c = 2 the default is the textbook sqrt(2 ln N/n); the engine's default for a
        # problem without "form" is the other one, so items always pass theirs (README).
        ChoiceParam(
            "form", "sqrt(c*ln N/n)",
            gettext_noop(
                "exploration term: c*sqrt(ln N/n) or sqrt(c*ln N/n) (printed in the prompt)"
            ),
            choices=UCB1_FORMS, convention=True,
        ),
        BoolParam(
            "forms_disagree", False,
            gettext_noop("require that the other UCB1 form would select a different child"),
        ),
    )
    choice_part = "selected"
    default_options = 2  # one misconception changes the selection: the other formula

    def clean_params(self, raw: Any) -> dict[str, Any]:
        """Refuse unvisited children by name before the generic range check."""
        if isinstance(raw, dict):
            for name in ("min_visits", "max_visits"):
                if raw.get(name) == 0 and not isinstance(raw.get(name), bool):
                    raise ParamError(name, UNVISITED_REFUSED)
        return super().clean_params(raw)

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the visit range, and that some child is visited (the move to play)."""
        if params["min_visits"] > params["max_visits"]:
            raise ParamError("max_visits", "must be at least min_visits")
        if params["unvisited"] >= params["children"]:
            raise ParamError(
                "unvisited",
                f"must be less than children ({params['children']}): the move played is the "
                "most visited child, so at least one child must have visits",
            )
        if params["unvisited"] and params["forms_disagree"]:
            raise ParamError(
                "forms_disagree",
                "cannot hold with unvisited children: both UCB1 forms select the first "
                "unvisited child (its score is infinite in either)",
            )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return scores, selection and final move."""
        return [
            AnswerPart(
                "scores", PartType.NODE_VALUES, gettext_lazy("UCB1 score of each child"),
                points=Fraction(2), tolerance=SCORE_TOLERANCE,
            ),
            AnswerPart("selected", PartType.NAME, gettext_lazy("child selected next")),
            AnswerPart(
                "final_move", PartType.NAME, gettext_lazy("move played if the search stops now")
            ),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw visit and win counts; the parent's visits are the children's total.

        ``unvisited`` children, at random places, have no visits and no wins.
        """
        unvisited = set(rng.sample(range(params["children"]), params["unvisited"]))
        children = []
        for index in range(params["children"]):
            visits = (
                0 if index in unvisited else rng.randint(params["min_visits"], params["max_visits"])
            )
            children.append({
                "name": "ABCDEF"[index], "wins": rng.randint(0, visits), "visits": visits,
            })
        return {
            "format": "gametree/1",
            "kind": "ucb1",
            "params": {
                "parent_visits": sum(child["visits"] for child in children),
                "children": children,
                "c": params["c"],
                "form": params["form"],
            },
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's UCB1 answer."""
        return solve_problem(problem)

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return scores (an unvisited child's as "∞"), selection and final move."""
        return {
            "scores": {
                name: INFINITE_SCORE if score == "inf" else score
                for name, score in answer["scores"].items()
            },
            "selected": answer["selected"],
            "final_move": answer["final_move"],
        }

    def max_options(self, params: dict[str, Any]) -> int:
        """Return the number of children: each option names one."""
        return int(params["children"])

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return the other children, the most visited first, then by win rate.

        A child whose score is within the tolerance of the selected one's would be a second
        right answer, so it is left out (quality constraints already refuse such near-ties).
        When the selected child is unvisited, every other child is wrong: the other unvisited
        ones by the stated first-from-the-left rule.
        """
        children = problem["params"]["children"]
        best = score_value(answer["scores"][answer["selected"]])
        ranked = sorted(
            children,
            key=lambda child: (
                -child["visits"],
                -Fraction(child["wins"], child["visits"]) if child["visits"] else 0,
            ),
        )
        return [
            (child["name"], "other_child") for child in ranked
            if child["name"] != answer["selected"] and (
                best == math.inf
                or abs(score_value(answer["scores"][child["name"]]) - best)
                > float(SCORE_TOLERANCE)
            )
        ]

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Refuse near-ties in the selection or the final move; enforce disagreeing forms."""
        issues = []
        scores = sorted((score_value(s) for s in answer["scores"].values()), reverse=True)
        # Unvisited children tie at infinity on purpose: the prompt's rule picks the first.
        if scores[0] != math.inf and scores[0] - scores[1] < 2 * float(SCORE_TOLERANCE):
            issues.append("the two best UCB1 scores are within the tolerance")
        visits = sorted((c["visits"] for c in problem["params"]["children"]), reverse=True)
        if visits[0] == visits[1]:
            issues.append("two children share the most visits")
        if params["forms_disagree"]:
            other = self.misconception_answers(problem).get("other_ucb1_form")
            if other is None or other["selected"] == answer["selected"]:
                issues.append("both UCB1 forms select the same child")
        return issues

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the constant, the form, the parent's visits and whether a child is unvisited."""
        return {
            "c": params["c"],
            "form": params["form"],
            "parent_visits": problem["params"]["parent_visits"],
            "unvisited": params["unvisited"],
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        formula = (
            # ln(N) / n, not ln(N / n): written so it reads one way.
            "UCB1 = w/n + c·sqrt(ln(N) / n)" if args["form"] == UCB1_FORMS[0]
            else "UCB1 = w/n + sqrt(c·ln(N) / n)"
        )
        text = _(
            "The root has been visited N = %(n)s times; each child shows its wins w and visits "
            "n. Use %(formula)s with c = %(c)s (natural logarithm). Give each child's score "
            "(any value within %(tolerance)s of the exact score is accepted, e.g. rounded to "
            "two decimals), the child selected next (the highest score), and the move played "
            "if the search stopped now (the most visited child)."
        ) % {"n": args["parent_visits"], "formula": formula, "c": args["c"],
             "tolerance": f"{float(SCORE_TOLERANCE):g}"}
        # Prompts stored before unvisited children existed have no "unvisited": none were.
        if args.get("unvisited"):
            text += " " + _(
                "A child with no visits (n = 0) scores infinity: write its score as ∞ (or "
                "inf). If several children are unvisited, the first of them from the left is "
                "selected."
            )
        return text


register(Ucb1Kind())


OUTCOMES = ("win", "loss", "draw")
MCTS_PLAYERS = ("MAX", "MIN")


class MctsBackpropKind(Kind):
    """Ask for the visit and reward counts along a path after one MCTS iteration."""

    name = "mcts_backprop"
    title = gettext_lazy("MCTS backpropagation")
    description = gettext_lazy(
        "Update visits and rewards along the selected path, crediting who moved into each node."
    )
    params = (
        IntParam("path_length", 3, gettext_noop("nodes on the path below the root"),
                 minimum=1, maximum=6),
        IntParam("max_visits", 20, gettext_noop("most visits of the path's first node"), minimum=2,
                 maximum=1000),
        ChoiceListParam(
            "outcomes", list(OUTCOMES), gettext_noop("playout results to draw from (for MAX)"),
            choices=OUTCOMES,
        ),
        DecimalParam(
            "draw_reward", "1/2", gettext_noop("reward a draw gives each player"), convention=True,
            maximum=Fraction(1),
        ),
    )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the updated path."""
        return [
            AnswerPart(
                "path", PartType.RECORDS,
                gettext_lazy("visits and reward of each node on the path after the update"),
                points=Fraction(2), fields=("visits", "reward"),
            )
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a path of shrinking visit counts, movers alternating from MAX, and an outcome.

        Each node's total reward is that of a history under the stated rule: some of its
        visits won (1 each), some drew (``draw_reward`` each), the rest lost.
        """
        path = []
        visits = rng.randint(max(2, params["max_visits"] // 2), params["max_visits"])
        draw_reward = Fraction(params["draw_reward"])
        name = ""
        for depth in range(params["path_length"]):
            name = name + ("ABC"[rng.randint(0, 2)] if depth == 0 else str(rng.randint(1, 3)))
            draws = rng.randint(0, visits)
            reward = rng.randint(0, visits - draws) + draws * draw_reward
            path.append({
                "name": name, "moved_by": MCTS_PLAYERS[depth % 2], "visits": visits,
                "reward": str(reward) if reward.denominator != 1 else int(reward),
            })
            visits = rng.randint(1, max(1, visits - 1))
        result = params["outcomes"][rng.randint(0, len(params["outcomes"]) - 1)]
        outcome = {"win": "MAX", "loss": "MIN", "draw": "draw"}[result]
        return {
            "format": "gametree/1",
            "kind": "mcts_backprop",
            "params": {"path": path, "outcome": outcome, "draw_reward": params["draw_reward"]},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's updated path."""
        return solve_problem(problem)

    def false_premises(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Return the statistics shown that no history makes under the stated draw reward
        (wins worth 1, draws ``draw_reward``, losses 0): a new draw reward after publishing
        may leave none."""
        worth = Fraction(problem["params"]["draw_reward"])
        return [f"{node['name']}'s reward {node['reward']} over {node['visits']} visits comes "
                f"from no history where a draw is worth {worth}"
                for node in problem["params"]["path"]
                if not _reward_possible(int(node["visits"]), Fraction(node["reward"]), worth)]

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return node name → updated visits and reward."""
        return {
            "path": {
                node["name"]: {"visits": node["visits"], "reward": node["reward"]}
                for node in answer["path"]
            }
        }

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the outcome and the draw reward."""
        return {"outcome": problem["params"]["outcome"], "draw_reward": params["draw_reward"]}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        text = _(
            "One MCTS iteration selected the path shown (root excluded); each node lists who "
            "moved into it, its visits and its total reward."
        )
        text += " " + {
            "MAX": _("The playout ended in a win for MAX."),
            "MIN": _("The playout ended in a win for MIN."),
            "draw": _("The playout ended in a draw."),
        }[args["outcome"]]
        text += " " + _(
            "A win is worth 1 and a loss 0 to the player who moved into a node; a draw is "
            "worth %(draw)s. Give every node's visits and reward after backpropagation."
        ) % {"draw": args["draw_reward"]}
        return text


def _reward_possible(visits: int, reward: Fraction, draw_worth: Fraction) -> bool:
    """Return whether ``visits`` playouts can total ``reward``: some draws, some wins."""
    return any((reward - draws * draw_worth).denominator == 1
               and 0 <= reward - draws * draw_worth <= visits - draws
               for draws in range(visits + 1))


register(MctsBackpropKind())

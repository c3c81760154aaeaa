"""``price_war``: a pricing decision against a competitor who answers it, read two ways.

The firm picks a price, the competitor sees it and responds; each outcome pays both their
margins (general-sum). Minimax gives the firm's guaranteed floor, as if the competitor only
wanted to hurt it; a rational competitor instead maximises its own margin, and anticipating
that best response usually earns the firm more. The engine computes both (max^n and the
paranoid floor).
"""

from __future__ import annotations

import random
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.kinds import register
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.params import BoolParam, IntParam, ParamError
from exercises.kinds.trees import ROOT, child_name, draw_values

FIRM, RIVAL = "firm", "rival"
PLAYER_LABELS = {FIRM: gettext_lazy("firm"), RIVAL: gettext_lazy("competitor")}
"""How pages name the players of a price-war tree (the ids stay in the stored problem)."""


class PriceWarKind(Kind):
    """Ask for the minimax floor and the margin against a rational competitor, with decisions."""

    name = "price_war"
    title = gettext_lazy("Price war")
    description = gettext_lazy(
        "Guaranteed floor (minimax) versus the rational competitor's best response."
    )
    params = (
        IntParam("prices", 3, gettext_noop("prices the firm can set"), minimum=2, maximum=4),
        IntParam("responses", 2, gettext_noop("responses the competitor can make"),
                 minimum=2, maximum=4),
        IntParam("min_margin", -5, gettext_noop("smallest margin (k€)"), minimum=-99, maximum=99),
        IntParam("max_margin", 20, gettext_noop("largest margin (k€)"), minimum=-99, maximum=99),
        BoolParam(
            "decisions_differ", True,
            gettext_noop(
                "require the floor and the rational reading to recommend different prices"
            ),
        ),
    )

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the margin range."""
        if params["min_margin"] >= params["max_margin"]:
            raise ParamError("max_margin", "must be greater than min_margin")

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return floor and rational values with their decisions."""
        return [
            AnswerPart("floor_value", PartType.NUMBER,
                       gettext_lazy("margin the firm can guarantee (minimax)")),
            AnswerPart("floor_move", PartType.NAME, gettext_lazy("price that guarantees it")),
            AnswerPart("rational_value", PartType.NUMBER,
                       gettext_lazy("firm's margin if the competitor maximises its own")),
            AnswerPart("rational_move", PartType.NAME,
                       gettext_lazy("best price against a rational competitor")),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw both margins of every (price, response) outcome."""
        low, high = params["min_margin"], params["max_margin"]
        prices = []
        for i in range(params["prices"]):
            price = child_name(ROOT, i, 1)
            prices.append({
                "name": price, "type": "player", "player": RIVAL,
                "children": [
                    {"name": child_name(price, j, 2),
                     "value": draw_values(rng, 2, low, high, distinct=False)}
                    for j in range(params["responses"])
                ],
            })
        return {
            "format": "gametree/1",
            "kind": "vector",
            "tree": {"name": ROOT, "type": "player", "player": FIRM, "children": prices},
            "params": {"players": [FIRM, RIVAL], "tie_break": "first"},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's max^n answer, which includes the paranoid (minimax) floor."""
        return solve_problem(problem)

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return both readings' firm margin and price.

        The engine's misconceptions (``vector_*``) are mistakes of the rational, max^n
        reading: their answers have no floor (``vector_entrywise_max``), or the floor of a
        tree whose movers were swapped (``vector_wrong_player_entry``: the rival's). Neither
        is the firm's floor, so the floor parts are projected as null (nothing to diagnose).
        """
        floor = answer.get("paranoid")
        if not isinstance(floor, dict) or floor.get("player") != FIRM:
            floor = {"value": None, "move": None}
        return {
            "floor_value": floor["value"],
            "floor_move": floor["move"],
            "rational_value": answer["value"][0],
            "rational_move": answer["move"],
        }

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Refuse ties for either side, and (if asked) readings that agree."""
        issues = []
        values = answer["node_values"]
        for price in problem["tree"]["children"]:
            rival = [values[leaf["name"]][1] for leaf in price["children"]]
            firm = [values[leaf["name"]][0] for leaf in price["children"]]
            if rival.count(max(rival)) > 1 or firm.count(min(firm)) > 1:
                issues.append(f"a tie among the responses to {price['name']}")
        firm_rational = [values[price["name"]][0] for price in problem["tree"]["children"]]
        if firm_rational.count(max(firm_rational)) > 1:
            issues.append("two prices tie against a rational competitor")
        if params["decisions_differ"] and answer["move"] == answer["paranoid"]["move"]:
            issues.append("both readings recommend the same price")
        return issues

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the price and response names."""
        return {"prices": [price["name"] for price in problem["tree"]["children"]]}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        return _(
            "Your firm sets one of the prices %(prices)s; the competitor sees it and chooses a "
            "response. Each outcome shows (your margin, the competitor's margin) in k€, and a "
            "tie goes to the leftmost option. (a) Which price maximises the margin you can "
            "guarantee whatever the competitor does (minimax), and what margin is that? (b) "
            "If the competitor instead maximises its own margin, which price is best for you "
            "and what margin do you get?"
        ) % {"prices": ", ".join(args["prices"])}


register(PriceWarKind())

"""``eval_function``: a weighted linear evaluation, material plus mobility, for one position.

The engine has no weighted-feature evaluator (its evaluators are game-specific: open lines,
Connect Four windows), so the key is the exact weighted sum computed here with fractions;
when the engine grows one, :meth:`EvalFunctionKind.solve` should call it instead.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.kinds import register
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.params import BoolParam, DecimalParam, IntParam, ParamError

FEATURES: tuple[tuple[str, int, int], ...] = (
    ("pawns", 0, 8), ("knights", 0, 2), ("bishops", 0, 2), ("rooks", 0, 2), ("queens", 0, 1),
)  # fmt: skip
"""Material features with the range each side's count is drawn from."""

FEATURE_LABELS = {
    "pawns": gettext_lazy("pawns"),
    "knights": gettext_lazy("knights"),
    "bishops": gettext_lazy("bishops"),
    "rooks": gettext_lazy("rooks"),
    "queens": gettext_lazy("queens"),
    "mobility": gettext_lazy("legal moves (mobility)"),
}

SIDE_LABELS = {"white": gettext_lazy("White"), "black": gettext_lazy("Black")}
"""How pages name the sides of the features table (the ids stay in the stored problem)."""


def exact_json(number: Fraction) -> int | str:
    """Return ``number`` as the spec writes exact numbers: an int or a "p/q" string."""
    if number.denominator == 1:
        return number.numerator
    return f"{number.numerator}/{number.denominator}"


class EvalFunctionKind(Kind):
    """Ask for Eval = sum of weight × (White's feature − Black's feature)."""

    name = "eval_function"
    title = gettext_lazy("Weighted evaluation function")
    description = gettext_lazy("Material plus mobility: a weighted linear evaluation.")
    params = (
        IntParam("pawn", 1, gettext_noop("weight of a pawn"), minimum=0, maximum=20),
        IntParam("knight", 3, gettext_noop("weight of a knight"), minimum=0, maximum=20),
        IntParam("bishop", 3, gettext_noop("weight of a bishop"), minimum=0, maximum=20),
        IntParam("rook", 5, gettext_noop("weight of a rook"), minimum=0, maximum=20),
        IntParam("queen", 9, gettext_noop("weight of a queen"), minimum=0, maximum=20),
        BoolParam("mobility", True, gettext_noop("include the mobility feature")),
        DecimalParam("mobility_weight", "1/10", gettext_noop("weight of one legal move"),
                     maximum=Fraction(5)),
        IntParam("max_mobility", 40, gettext_noop("most legal moves of a side"),
                 minimum=5, maximum=80),
        BoolParam("allow_zero", False,
                  gettext_noop("allow a position that evaluates to exactly 0")),
    )

    def check_params(self, params: dict[str, Any]) -> None:
        """Require at least one non-zero weight."""
        weights = [params[name] for name in ("pawn", "knight", "bishop", "rook", "queen")]
        if not any(weights) and not params["mobility"]:
            raise ParamError("pawn", "every weight is 0 and mobility is off: nothing to evaluate")

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the evaluation."""
        return [AnswerPart("value", PartType.NUMBER, gettext_lazy("evaluation for White"))]

    def weights(self, params: dict[str, Any]) -> dict[str, str]:
        """Return feature → weight (exact strings) for the params."""
        weights = {
            "pawns": str(params["pawn"]), "knights": str(params["knight"]),
            "bishops": str(params["bishop"]), "rooks": str(params["rook"]),
            "queens": str(params["queen"]),
        }
        if params["mobility"]:
            weights["mobility"] = params["mobility_weight"]
        return weights

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw each side's feature counts."""
        counts: dict[str, dict[str, int]] = {"white": {}, "black": {}}
        for side in ("white", "black"):
            for feature, low, high in FEATURES:
                counts[side][feature] = rng.randint(low, high)
            if params["mobility"]:
                counts[side]["mobility"] = rng.randint(5, params["max_mobility"])
        return {
            "format": "gametree/1",
            "kind": "eval_function",
            "features": counts,
            "params": {"weights": self.weights(params)},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the exact weighted sum and each feature's contribution."""
        weights = problem["params"]["weights"]
        white, black = problem["features"]["white"], problem["features"]["black"]
        terms = {
            feature: Fraction(weight) * (white[feature] - black[feature])
            for feature, weight in weights.items()
        }
        return {
            "value": exact_json(sum(terms.values(), Fraction(0))),
            "terms": {feature: exact_json(term) for feature, term in terms.items()},
        }

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the value."""
        return {"value": answer["value"]}

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Refuse a zero evaluation unless allowed (it hides sign mistakes)."""
        if answer["value"] == 0 and not params["allow_zero"]:
            return ["the position evaluates to 0"]
        return []

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the weights."""
        return {"weights": problem["params"]["weights"]}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        weights = "; ".join(
            f"{FEATURE_LABELS[feature]} {weight}" for feature, weight in args["weights"].items()
        )
        return _(
            "Evaluate the position for White with Eval = sum of weight × (White's count − "
            "Black's count) over the features in the table. Weights: %(weights)s. Give the "
            "exact value (fractions allowed)."
        ) % {"weights": weights}


register(EvalFunctionKind())

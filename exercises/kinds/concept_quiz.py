"""``concept_quiz``: one multiple-choice concept question from the bank, options shuffled."""

from __future__ import annotations

import random
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.concept_bank import BANK, BY_ID, TOPICS
from exercises.kinds import register
from exercises.kinds.base import CHOICE_PART, AnswerPart, Kind, PartType
from exercises.kinds.params import ChoiceListParam

OPTION_IDS = "abcd"


class ConceptQuizKind(Kind):
    """Ask a concept question; the key is the bank's answer, the explanation goes with it."""

    name = "concept_quiz"
    title = gettext_lazy("Concept question")
    description = gettext_lazy("A multiple-choice question on the ideas behind the algorithms.")
    params = (
        ChoiceListParam("topics", list(TOPICS), gettext_noop("topics to draw the question from"),
                        choices=TOPICS),
    )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the single choice."""
        return [AnswerPart(CHOICE_PART, PartType.CHOICE, gettext_lazy("your choice"))]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Pick a question of the chosen topics and shuffle its options."""
        candidates = [question for question in BANK if question.topic in params["topics"]]
        question = candidates[rng.randint(0, len(candidates) - 1)]
        order = list(range(len(question.options)))
        rng.shuffle(order)
        return {
            "format": "gametree/1",
            "kind": "concept_quiz",
            "question": question.id,
            # Only the text is shown: the bank's option index would give the answer away.
            "options": [
                {"id": OPTION_IDS[slot], "text": question.options[index]}
                for slot, index in enumerate(order)
            ],
            "params": {},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the option holding the bank's answer (listed first in the bank)."""
        right = BY_ID[problem["question"]].options[0]
        correct = next(option["id"] for option in problem["options"] if option["text"] == right)
        return {"choice": correct, "explanation": BY_ID[problem["question"]].explanation}

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the choice."""
        return {CHOICE_PART: answer["choice"]}

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the question id and the shuffled options."""
        return {
            "question": problem["question"],
            "options": [[option["id"], option["text"]] for option in problem["options"]],
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the question and its lettered options in the active language."""
        question = BY_ID[args["question"]]
        lines = [_(question.question)]
        lines += [f"({option_id}) {_(text)}" for option_id, text in args["options"]]
        return "\n".join(lines)

    def explanation(self, problem: dict[str, Any]) -> str:
        """Return the bank's worked explanation of the question, in the active language."""
        return _(BY_ID[problem["question"]].explanation)


register(ConceptQuizKind())

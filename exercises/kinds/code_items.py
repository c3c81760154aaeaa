"""Code items: the student writes a search function or a game agent, graded in the sandbox.

The problem a student sees says which function to write and under which conventions (the
starter file at ``/api/v1/assignments/{id}/items/{n}/starter.py`` spells it out); the hidden
tests are built only at grading time (``grading.code.cases``), so neither the stored problem
nor the answer key holds them. Code items have no typed answer parts: students submit code
to ``/api/v1/assignments/{id}/items/{n}/code-submissions/``.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.kinds import register
from exercises.kinds.alphabeta import CONVENTION_PARAMS, conventions_of
from exercises.kinds.base import AnswerPart, Kind
from exercises.kinds.params import (
    ChoiceListParam,
    DecimalParam,
    IntParam,
    JsonParam,
    Param,
    ParamError,
)
from grading.code.cases import SEARCH_TEST_SETS
from grading.code.contract import (
    contract_for,
    convention_values,
    conventions_template,
    fill_placeholders,
)
from grading.code.sandboxing import grading_budget_seconds
from grading.sandbox.limits import DEFAULT_LIMITS, MIB

CODE_FORMAT = "code/1"


LIMIT_MAXIMA: dict[str, int] = {
    "cpu_seconds": 60,
    "wall_seconds": 100,
    "memory_bytes": 2048 * MIB,
    "max_processes": 64,
    "max_output_bytes": 16 * MIB,
    "max_file_bytes": 64 * MIB,
    "max_open_files": 1024,
    "max_game_calls": 10_000_000,
}
"""The most an item may ask of one sandboxed run: what a worker can give it within a grading
task's time limit (120 s by default) without starving the runs beside it."""


def clean_limits(name: str, value: Any) -> dict[str, Any]:
    """Return per-item sandbox limit overrides, e.g. ``{"cpu_seconds": 10}``, checked."""
    if not isinstance(value, dict):
        raise ParamError(name, f"must be an object of limit name → number, got {value!r}")
    try:
        DEFAULT_LIMITS.override(value)
    except (ValueError, TypeError) as error:
        raise ParamError(name, str(error)) from None
    for limit, most in LIMIT_MAXIMA.items():
        if limit in value and value[limit] > most:
            raise ParamError(f"{name}.{limit}", f"must be at most {most} (what the sandbox "
                                                f"serves), got {value[limit]}")
    budget = grading_budget_seconds()
    if value.get("wall_seconds", 0) > budget:
        # A run never gets more than the time all runs of its submission share.
        raise ParamError(f"{name}.wall_seconds",
                         f"must be at most {budget:g}, the seconds all runs of one submission "
                         f"share (CUTOFF_CODE_BUDGET_SECONDS), got {value['wall_seconds']}")
    return dict(value)


LIMITS_PARAM = JsonParam(
    "limits", {},
    gettext_noop('sandbox limits overriding the site\'s for this item, e.g. {"cpu_seconds": 10}'),
    validator=clean_limits,
    json_schema={"type": "object", "additionalProperties": False, "properties": {
        limit: {"type": "number", "exclusiveMinimum": 0, "maximum": most}
        for limit, most in LIMIT_MAXIMA.items()
    }},
)


def search_params(kind_name: str) -> tuple[Param, ...]:
    """Return which hidden test sets a search item uses and how many trees it draws."""
    return (
        ChoiceListParam(
            "test_sets", list(SEARCH_TEST_SETS[kind_name]), gettext_noop("groups of hidden tests"),
            choices=SEARCH_TEST_SETS[kind_name],
        ),
        IntParam(
            "generated_trees", 2,
            gettext_noop("hidden trees drawn per student from the variant's seed"),
            minimum=0, maximum=4,
        ),
    )



def translated_conventions(template: str, values: dict[str, str]) -> str:
    """Return a contract's conventions (a heading and ``*`` bullets) in the active language.

    The bullets live in grading.code.contract (pure Python, also the starter file's English
    docstring); each one's translation is a catalogue entry keyed by its text on one line,
    placeholders included (``%(draw_reward)s``), which are filled from ``values`` after
    translating, so an unusual draw reward is stated in the reader's language too.
    """
    body = template.strip().split("-----------\n", 1)[-1]
    if not body:
        return ""
    bullets = [" ".join(bullet.split()) for bullet in re.split(r"\n(?=\* )", body)]
    return "\n".join([str(_("Conventions")) + ":",
                      *("* " + fill_placeholders(_(bullet.removeprefix("* ")), values)
                        for bullet in bullets)])

class CodeKind(Kind):
    """A code item: no typed parts; the problem names the function and its conventions."""

    params: ClassVar[tuple[Param, ...]] = (LIMITS_PARAM,)

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return no parts: the answer is code."""
        return []

    def conventions(self, params: dict[str, Any]) -> dict[str, Any]:
        """Return the params that change the reference search (stored with the problem)."""
        return {}

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Return the public problem: the function to write and the conventions."""
        contract = contract_for(self.name)
        return {
            "format": CODE_FORMAT,
            "kind": self.name,
            "entry_point": contract.entry_point,
            "signature": contract.signature,
            "params": self.conventions(params),
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return an empty key: the reference runs at grading time, on the hidden tests."""
        return {}

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return no parts."""
        return {}

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the signature and the conventions the prompt states."""
        return {"signature": problem["signature"], "conventions": problem["params"]}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        contract = contract_for(self.name)
        text = _("Write %(signature)s in Python and submit it as code.") % {
            "signature": args["signature"]
        }
        # The tasks live in grading.code.contract (pure Python, also the starter file's
        # English docstring); their translations are catalogue entries keyed by the text.
        text += " " + _(contract.task).replace("``", "")
        conventions = translated_conventions(conventions_template(self.name, args["conventions"]),
                                             convention_values(args["conventions"]))
        if conventions:
            text += "\n\n" + conventions.replace("``", "")
        text += "\n\n" + _("The starter file explains the game interface and the conventions.")
        return text


class MinimaxCodeKind(CodeKind):
    """Write ``minimax_decision(game, state)``."""

    name = "code_minimax"
    title = gettext_lazy("Code: minimax")
    description = gettext_lazy("Write minimax; graded on the states it generates and evaluates.")
    params = (*search_params(name), LIMITS_PARAM)


class AlphaBetaCodeKind(CodeKind):
    """Write ``alphabeta_decision(game, state, depth)`` under the item's conventions."""

    name = "code_alphabeta"
    title = gettext_lazy("Code: alpha-beta")
    description = gettext_lazy(
        "Write depth-limited alpha-beta; graded on what it prunes, in which order."
    )
    params = (*search_params(name), *CONVENTION_PARAMS, LIMITS_PARAM)

    def conventions(self, params: dict[str, Any]) -> dict[str, Any]:
        """Return the alpha-beta conventions."""
        return conventions_of(params)


class ExpectimaxCodeKind(CodeKind):
    """Write ``expectimax_value(game, state)`` over trees with chance nodes."""

    name = "code_expectimax"
    title = gettext_lazy("Code: expectiminimax")
    description = gettext_lazy("Write expectiminimax over MAX, MIN and chance nodes.")
    params = (*search_params(name), LIMITS_PARAM)


class Ucb1CodeKind(CodeKind):
    """Write ``ucb1_select(game, state, stats, parent_visits, c)``: MCTS's selection step."""

    name = "code_ucb1"
    title = gettext_lazy("Code: UCB1 selection")
    description = gettext_lazy("Write MCTS's selection step: the child UCB1 descends to.")


class MctsBackpropCodeKind(CodeKind):
    """Write ``mcts_backprop(game, state, path, winner)``: MCTS's backpropagation step."""

    name = "code_mcts_backprop"
    title = gettext_lazy("Code: MCTS backpropagation")
    description = gettext_lazy(
        "Write MCTS's backpropagation: visits and rewards along a path, credited to who moved."
    )
    params = (
        DecimalParam("draw_reward", "1/2",
                     gettext_noop("reward a draw gives each player"),
                     convention=True, maximum=Fraction(1)),
        LIMITS_PARAM,
    )

    def conventions(self, params: dict[str, Any]) -> dict[str, Any]:
        """Return the draw reward."""
        return {"draw_reward": params.get("draw_reward", "1/2")}


class TicTacToeAgentKind(CodeKind):
    """Write a tic-tac-toe agent that never loses."""

    name = "code_tictactoe_agent"
    title = gettext_lazy("Code: tic-tac-toe agent")
    description = gettext_lazy("Write an agent that never loses, against every opponent line.")


class Connect4AgentKind(CodeKind):
    """Write a Connect Four agent, scored on a seeded series of games."""

    name = "code_connect4_agent"
    title = gettext_lazy("Code: Connect Four agent")
    description = gettext_lazy(
        "Write an agent; it plays a seeded series against a random player and a depth-2 searcher."
    )


CODE_KINDS = (
    register(MinimaxCodeKind()),
    register(AlphaBetaCodeKind()),
    register(ExpectimaxCodeKind()),
    register(Ucb1CodeKind()),
    register(MctsBackpropCodeKind()),
    register(TicTacToeAgentKind()),
    register(Connect4AgentKind()),
)
"""Every code kind; importing this module registers them."""

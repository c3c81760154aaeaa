"""What an exercise kind is: params schema, generator, solver call, prompt, answer parts.

Every kind lives in one module of ``exercises.kinds`` and registers itself with
:func:`exercises.kinds.register`; nothing else in the project lists kinds, so adding a kind
touches one module. Grading reads :class:`AnswerPart` declarations to know how to score each
part of an answer; pages read them to know which input to draw.
"""

from __future__ import annotations

import enum
import json
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from django.utils.functional import Promise, lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from engine.misconceptions import applicable
from exercises.kinds.authored import AUTHORED_PARAMS, TreeRules, check_tree, problem_tree
from exercises.kinds.engine_bridge import as_json
from exercises.kinds.params import (
    ChoiceParam,
    IntParam,
    Param,
    ParamError,
    clean_params,
    json_schema,
)
from exercises.kinds.trees import draw_values, fill_leaves, leaves

logger = logging.getLogger(__name__)


class PartType(enum.StrEnum):
    """How an answer part is written and scored (see grading.scoring)."""

    NUMBER = "number"  # exact value: int, "7/2", "3.5"; floats only within `tolerance`
    NAME = "name"  # one node / move / child name; a key may list every accepted name
    CHOICE = "choice"  # one option id of a multiple-choice item
    SET = "set"  # unordered names, e.g. pruned leaves (net-correct or all-or-nothing)
    SEQUENCE = "sequence"  # ordered names, e.g. evaluation order (LCS partial credit)
    NODE_VALUES = "node_values"  # name → number, scored per node
    VECTOR = "vector"  # list of numbers, e.g. a payoff vector
    CUTOFFS = "cutoffs"  # ordered list of {"node", "pruned"} (LCS on the nodes)
    RECORDS = "records"  # list of name → {field: number} rows, e.g. MCTS counts after an update


NUMBER_PARTS = frozenset({PartType.NUMBER, PartType.NODE_VALUES, PartType.VECTOR,
                          PartType.RECORDS})
"""Part types whose answers are numbers: their labels say how exactly they are graded."""


def _within(tolerance: Fraction) -> str:
    return gettext("within ±%(tolerance)s") % {"tolerance": f"{float(tolerance):g}"}


_within_lazy = lazy(_within, str)


@dataclass(frozen=True)
class AnswerPart:
    """One part of an item's answer: its key, type, default points and scoring options.

    ``title`` says what the part asks; :attr:`label`, which pages, the API and exports show,
    adds for number parts whether the value must be exact or within the tolerance.
    """

    name: str
    type: PartType
    title: str | Promise  # often gettext_lazy(...): translated when shown, with str()
    points: Fraction = Fraction(1)
    tolerance: Fraction | None = None  # absolute; only for parts whose key is a float
    key_path: str | None = None  # key in the engine's answer when it differs from `name`
    options: dict[str, Any] = field(default_factory=dict)
    fields: tuple[str, ...] = ()  # records parts: the fields a row has; others are refused

    @property
    def label(self) -> Any:
        """Return the title, with "(exact)" or "(within ±t)" for number parts (lazily)."""
        if self.type not in NUMBER_PARTS:
            return self.title
        precision = gettext_lazy("exact") if self.tolerance is None else _within_lazy(
            self.tolerance
        )
        return format_lazy("{} ({})", self.title, precision)


ANSWER_FORMATS = ("open", "multiple_choice")
CHOICE_PART = "choice"

NET_CORRECT = "net_correct"
ALL_OR_NOTHING = "all_or_nothing"
SET_SCORING_RULES = (NET_CORRECT, ALL_OR_NOTHING)
SET_SCORING = ChoiceParam(
    "set_scoring", NET_CORRECT,
    gettext_noop(
        "how set parts (e.g. pruned leaves) are scored: net_correct (right names minus wrong ones, "
        "floored at 0) or all_or_nothing (full marks only for the exact set)"
    ),
    choices=SET_SCORING_RULES,
)
"""The instructor's per-item rule for :attr:`PartType.SET` parts, read by grading.

Every kind with a set part declares it among its params, so the default is stored
explicitly with the item."""


class Kind:
    """Define an exercise kind: params, generator, engine call, key, prompt and answer parts.

    Subclasses set :attr:`name`, :attr:`title`, :attr:`params` and implement :meth:`generate`,
    :meth:`solve`, :meth:`open_parts`, :meth:`project`, :meth:`prompt_args` and
    :meth:`render_prompt`. Kinds whose :attr:`choice_part` is set can also be asked as multiple
    choice, the wrong options coming from the engine's named misconceptions. Kinds that set
    :attr:`tree_rules` also pose an instructor's own tree (``params.tree``, see
    :mod:`exercises.kinds.authored`), drawing their trees through :meth:`tree_for`.
    """

    name: ClassVar[str]
    title: ClassVar[Any]
    description: ClassVar[Any] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    choice_part: ClassVar[str | None] = None
    default_options: ClassVar[int] = 3
    most_options: ClassVar[int] = 6
    tree_rules: ClassVar[TreeRules | None] = None

    # --- params -------------------------------------------------------------------------

    def declared_params(self) -> tuple[Param, ...]:
        """Return every parameter, the multiple-choice ones included when supported."""
        own = (*self.params, *AUTHORED_PARAMS) if self.tree_rules is not None else self.params
        if self.choice_part is None:
            return own
        return (
            *own,
            ChoiceParam(
                "answer_format", "open",
                gettext_noop("open answers, or one multiple-choice question"),
                choices=ANSWER_FORMATS,
            ),
            IntParam(
                "options", self.default_options,
                gettext_noop(
                    "options of a multiple-choice question (the key and one wrong answer per named "
                    "misconception)"
                ),
                minimum=2, maximum=self.most_options,
            ),
        )

    def clean_params(self, raw: Any) -> dict[str, Any]:
        """Return validated params with every default explicit; raise :class:`ParamError`."""
        params = clean_params(self.declared_params(), raw)
        if self.tree_rules is not None and params["tree"] is not None:
            params["tree"] = check_tree(self.tree_rules, self.name, params["tree"], params)
        elif self.tree_rules is not None and params["randomize_values"]:
            raise ParamError("randomize_values", "needs params.tree: random trees get fresh "
                             "values for every student anyway")
        self.check_params(params)
        if self.is_multiple_choice(params) and params["options"] > self.max_options(params):
            raise ParamError(
                "options",
                f"these params allow at most {self.max_options(params)} distinct answers, "
                f"so at most {self.max_options(params)} options; got {params['options']}",
            )
        return params

    def check_params(self, params: dict[str, Any]) -> None:
        """Raise :class:`ParamError` when params are valid one by one but not together."""

    def params_schema(self) -> dict[str, Any]:
        """Return the JSON Schema of this kind's params."""
        return json_schema(self.declared_params())

    def convention_names(self) -> set[str]:
        """Return the params that only change the answer key, not the generated problem."""
        return {param.name for param in self.declared_params() if param.convention}

    # --- answers ------------------------------------------------------------------------

    def is_multiple_choice(self, params: dict[str, Any]) -> bool:
        """Return whether ``params`` ask this item as one multiple-choice question."""
        return params.get("answer_format") == "multiple_choice"

    def answer_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the parts a student answers for an item with ``params``."""
        if self.is_multiple_choice(params):
            asked = next(p for p in self.open_parts(params) if p.name == self.choice_part)
            return [AnswerPart(CHOICE_PART, PartType.CHOICE, asked.title)]
        return self.open_parts(params)

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the parts of the open (not multiple-choice) form of the item."""
        raise NotImplementedError

    def prompt_text(self, args: dict[str, Any], params: dict[str, Any]) -> str:
        """Return the prompt of an item with ``params`` from its stored ``args``, in the active
        language: :meth:`render_prompt`'s, which asks for every open part, after, for a
        multiple-choice item, which one question its options answer."""
        text = self.render_prompt(args)
        if not self.is_multiple_choice(params):
            return text
        asked = next(p for p in self.open_parts(params) if p.name == self.choice_part)
        # First, so that the open exercise's questions below read as its setting, not as
        # questions this item also asks.
        return gettext(
            "Multiple choice: answer one question only, %(question)s, by choosing the option "
            "that answers it. The rest of this text describes the exercise in full, as it is "
            "posed with open answers: its other questions are not asked here."
        ) % {"question": asked.title} + " " + text

    def choice_part_type(self, params: dict[str, Any]) -> PartType:
        """Return the type of the open part a multiple-choice item asks about."""
        return next(p.type for p in self.open_parts(params) if p.name == self.choice_part)

    def max_options(self, params: dict[str, Any]) -> int:
        """Return how many options (key included) an item with ``params`` can always offer.

        Number and vector answers have neighbours without end; kinds whose asked answer is
        one of a few names say how many there are.
        """
        return self.most_options

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return (wrong value of the choice part, where it comes from), most plausible first.

        Multiple choice falls back on these when too few named misconceptions give distinct
        wrong answers: answers under other conventions, other nodes' values. None of them
        may be a second correct answer; the generator drops those equal to the key.
        """
        return []

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the open parts' expected values read off an engine-format ``answer``.

        Grading applies the same projection to a misconception's answer to recognise it.
        """
        raise NotImplementedError

    # --- generation ---------------------------------------------------------------------

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Return a new problem (``gametree/1`` JSON plus kind fields) drawn from ``rng``."""
        raise NotImplementedError

    def tree_for(
        self, rng: random.Random, params: dict[str, Any], draw: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """Return the tree of a generation attempt: ``draw()``, or the instructor's tree.

        With ``params.randomize_values`` the instructor's tree gets leaf values from
        :meth:`fill_values`; ``draw`` is not called, so it alone consumes ``rng`` otherwise.
        """
        return problem_tree(params, draw, lambda tree: self.fill_values(rng, params, tree))

    def fill_values(self, rng: random.Random, params: dict[str, Any], tree: dict[str, Any]
                    ) -> None:
        """Give ``tree``'s leaves fresh values as this kind's random trees get them.

        The default draws integers from ``min_value..max_value``, all different unless
        ``allow_ties``.
        """
        count = len(leaves(tree))
        fill_leaves(tree, draw_values(rng, count, params["min_value"], params["max_value"],
                                      distinct=not params["allow_ties"]))

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's answer to ``problem`` (JSON, with its trace when it has one)."""
        raise NotImplementedError

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Return why ``problem`` breaks the quality constraints (empty: it is fine); its
        :meth:`false_premises` are among them."""
        return self.false_premises(problem, answer, params)

    def false_premises(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Return what ``problem``'s prompt states that ``answer`` makes false (empty: none).

        Generation never draws such a problem; a convention change after publishing that
        would make one is refused, since the key recomputed for it would mark wrong the
        student who believes the prompt.
        """
        return []

    def legal_moves(self, problem: dict[str, Any]) -> frozenset[str]:
        """Return the moves a decision part may name in a position without a tree (a board);
        empty for kinds whose decisions name a tree's nodes."""
        return frozenset()

    def misconception_answers(self, problem: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Return misconception code → the answer the engine says that mistake produces.

        Only the engine's misconceptions that apply to ``problem`` are asked.
        """
        return {m.code: as_json(m.answer(problem)) for m in applicable(problem)}

    def misconception_parts(self, problem: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Return misconception code → the answer-part values that mistake produces.

        Generation stores it with the variant item (``trace["misconceptions"]``), so grading
        does not run the misconceptions' searches. Diagnosis is a bonus: a misconception
        that cannot be answered or projected is left out (and logged) rather than failing.
        """
        try:
            answers = self.misconception_answers(problem)
        except Exception:
            logger.warning("misconceptions of %s failed", self.name, exc_info=True)
            return {}
        parts = {}
        for code, answer in answers.items():
            try:
                parts[code] = self.project(problem, answer)
            except Exception:
                logger.warning("projecting misconception %s of %s failed", code, self.name,
                               exc_info=True)
        return json.loads(json.dumps(parts, default=str))

    # --- prompt -------------------------------------------------------------------------

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the JSON data the prompt is rendered from (stored with the variant)."""
        raise NotImplementedError

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt text in the active language."""
        raise NotImplementedError

    def explanation(self, problem: dict[str, Any]) -> str | None:
        """Return a worked explanation of the answer in the active language, if the kind has one.

        Shown with the answer key, never before.
        """
        return None


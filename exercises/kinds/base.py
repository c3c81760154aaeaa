"""What an exercise kind is: params schema, generator, solver call, prompt, answer parts.

Every kind lives in one module of ``exercises.kinds`` and registers itself with
:func:`exercises.kinds.register`; nothing else in the project lists kinds, so adding a kind
touches one module. Grading reads :class:`AnswerPart` declarations to know how to score each
part of an answer; pages read them to know which input to draw.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


class PartType(enum.StrEnum):
    """How an answer part is written and scored (see grading.scoring)."""

    NUMBER = "number"  # exact value: int, "7/2", "3.5"; floats only within `tolerance`
    NAME = "name"  # one node / move / child name, e.g. the decision
    CHOICE = "choice"  # one option id of a multiple-choice item
    SET = "set"  # unordered names, e.g. pruned leaves (net-correct or all-or-nothing)
    SEQUENCE = "sequence"  # ordered names, e.g. evaluation order (LCS partial credit)
    NODE_VALUES = "node_values"  # name → number, scored per node
    VECTOR = "vector"  # list of numbers, e.g. a payoff vector
    CUTOFFS = "cutoffs"  # ordered list of {"node", "pruned"} (LCS on the nodes)
    RECORDS = "records"  # list of name → {field: number} rows, e.g. MCTS counts after an update


@dataclass(frozen=True)
class AnswerPart:
    """One part of an item's answer: its key, type, default points and scoring options."""

    name: str
    type: PartType
    label: str
    points: Fraction = Fraction(1)
    tolerance: Fraction | None = None  # absolute; only for parts whose key is a float
    key_path: str | None = None  # key in the engine's answer when it differs from `name`
    options: dict[str, Any] = field(default_factory=dict)

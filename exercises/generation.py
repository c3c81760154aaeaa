"""Generate one student's item from seeds: deterministic, constraint-checked, engine-solved.

Seeds are SHA-256 digests of the set's seed, the student and the item position, so a variant
is byte-identical on any machine and Python version (``hash()`` is salted per process and is
never used). Randomness comes only from ``random.Random`` seeded with an integer.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any

from exercises.kinds import get_kind
from exercises.kinds.base import CHOICE_PART, Kind
from exercises.kinds.engine_bridge import EngineFailure, as_json, engine_version

OPTION_IDS = "abcdef"


class GenerationError(Exception):
    """Signal that an item could not be generated within its constraints, saying which and why."""


def derive_seed(*parts: object) -> str:
    """Return the hex SHA-256 of ``parts`` joined unambiguously."""
    text = "\x1f".join(str(part) for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def variant_seed(set_seed: str, student_id: int) -> str:
    """Return the seed of a student's variant of a problem set."""
    return derive_seed("cutoff/variant", set_seed, student_id)


def item_seed(set_seed: str, student_id: int, position: int) -> str:
    """Return the seed of item ``position`` of a student's variant."""
    return derive_seed("cutoff/item", set_seed, student_id, position)


def attempt_rng(seed: str, attempt: int) -> random.Random:
    """Return the random generator of generation attempt ``attempt`` (0-based) from ``seed``."""
    digest = hashlib.sha256(f"{seed}/{attempt}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


@dataclass(frozen=True)
class GeneratedItem:
    """Hold a generated item: the problem shown, its prompt data, the key and how it was reached."""

    problem: dict[str, Any]
    prompt: dict[str, Any]
    answer_key: dict[str, Any]
    trace: dict[str, Any]
    engine_version: str
    attempt: int


def generate_item(kind_name: str, params: dict[str, Any], seed: str) -> GeneratedItem:
    """Return the item of kind ``kind_name`` with validated ``params`` for ``seed``.

    Each attempt draws a problem, has the engine solve it and checks the kind's quality
    constraints; the first attempt meeting them wins. Raise :class:`GenerationError` naming
    the kind and the last unmet constraint when none does within the kind's attempt budget.
    """
    kind = get_kind(kind_name)
    issues: list[str] = []
    for attempt in range(kind.max_attempts):
        rng = attempt_rng(seed, attempt)
        problem = as_json(kind.generate(rng, params))
        try:
            answer = kind.solve(problem)
        except EngineFailure as error:
            raise GenerationError(str(error)) from error
        issues = kind.quality_issues(problem, answer, params)
        key = kind.project(problem, answer)
        trace: dict[str, Any] = {"answer": answer}
        if not issues and kind.is_multiple_choice(params):
            issues = _ask_as_choice(kind, rng, problem, key, params, trace)
        if not issues and kind.is_multiple_choice(params):
            key = {CHOICE_PART: trace["correct_option"]}
        if not issues:
            return GeneratedItem(
                problem=problem,
                prompt={"kind": kind.name, "args": as_json(kind.prompt_args(problem, params))},
                answer_key=as_json(key),
                trace=as_json(trace),
                engine_version=engine_version(),
                attempt=attempt,
            )
    raise GenerationError(
        f"{kind.name}: no problem met the constraints in {kind.max_attempts} attempts "
        f"(last unmet: {'; '.join(issues)}); loosen the params behind that constraint"
    )


def _ask_as_choice(
    kind: Kind,
    rng: random.Random,
    problem: dict[str, Any],
    key: dict[str, Any],
    params: dict[str, Any],
    trace: dict[str, Any],
) -> list[str]:
    """Add shuffled options (the key and misconceptions' answers) to ``problem`` and ``trace``.

    Every wrong option is what exactly one named misconception of the engine answers, so
    choosing it diagnoses that mistake. Return an issue when too few misconceptions give
    wrong answers of their own.
    """
    part = kind.choice_part
    assert part is not None  # only kinds with a choice part accept answer_format
    by_value: dict[str, list[tuple[Any, str]]] = {}
    for code, answer in sorted(kind.misconception_answers(problem).items()):
        value = kind.project(problem, answer).get(part)
        if value is not None and _canonical(value) != _canonical(key[part]):
            by_value.setdefault(_canonical(value), []).append((value, code))
    # A value two misconceptions give diagnoses neither (grading names none on a tie).
    wrong = [found[0] for found in by_value.values() if len(found) == 1]
    needed = params["options"] - 1
    if len(wrong) < needed:
        return [f"only {len(wrong)} misconceptions give a wrong answer no other gives, "
                f"{needed} needed"]
    rng.shuffle(wrong)
    options: list[tuple[Any, str | None]] = [(key[part], None), *wrong[:needed]]
    rng.shuffle(options)
    problem["options"] = [
        {"id": OPTION_IDS[index], "value": value} for index, (value, _) in enumerate(options)
    ]
    trace["option_misconceptions"] = {
        OPTION_IDS[index]: code for index, (_, code) in enumerate(options)
    }
    trace["correct_option"] = next(
        OPTION_IDS[index] for index, (_, code) in enumerate(options) if code is None
    )
    return []


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)

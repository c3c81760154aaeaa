"""Generate one student's item from seeds: deterministic, constraint-checked, engine-solved.

Seeds are SHA-256 digests of the set's seed, the student and the item position, so a variant
is byte-identical on any machine and Python version (``hash()`` is salted per process and is
never used). Randomness comes only from ``random.Random`` seeded with an integer.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.solve import exact
from exercises.kinds import get_kind
from exercises.kinds.authored import is_authored, is_fixed
from exercises.kinds.base import CHOICE_PART, Kind, PartType
from exercises.kinds.engine_bridge import EngineFailure, as_json, engine_version

OPTION_IDS = "abcdef"
NUMBER_OFFSETS = tuple(d for d in range(-6, 7) if d)
"""How far generic numeric distractors lie from the key, drawn in a random order."""


class GenerationError(Exception):
    """Signal that an item could not be generated within its constraints, saying which and why.

    ``field`` names the param whose constraint could not be met (``params`` when it is the
    kind's quality constraints together); the message names the constraint.
    """

    def __init__(self, message: str, *, field: str = "params") -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    @property
    def param_path(self) -> str:
        """Return where the failing param sits in an item: ``params`` or ``params.<name>``."""
        return self.field if self.field == "params" else f"params.{self.field}"


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


def judged_quality_issues(kind: Kind, problem: dict[str, Any], answer: dict[str, Any],
                          params: dict[str, Any]) -> list[str]:
    """Return why ``problem`` (solved as ``answer``) breaks ``kind``'s quality rules under
    ``params``.

    An instructor's fixed tree is judged by what its prompt would state falsely alone
    (:meth:`Kind.false_premises`): its key is that tree's (problem-format.md, "Instructor-
    authored trees"), so its ties, its cutoffs or their absence, and its orders' difference
    are the instructor's to choose; the quality rules (``min_cuts``, ``min_difference``, no
    ties, ...) shape random values.
    """
    if is_fixed(params):
        return kind.false_premises(problem, answer, params)
    return kind.quality_issues(problem, answer, params)


ATTEMPT_BUDGET = 20_000
"""Most generation attempts at one seed's item before it fails.

Only params meeting their constraints in enough sample attempts are stored (see
:func:`check_generates`); a seed runs out of these attempts only at rates the sample almost
never passes: at the worst rate (about 1 in 4,000 attempts) params pass the sample with
probability 0.2 %, and a class of 200 then has a seed that fails, so such a set fails with
probability under 2 in 1,000. Attempts cost
CPU only at the rare seeds needing them. The first 200 attempts are those of earlier versions
(attempt ``n`` draws the same problem in each), so the larger budget changes no variant that
generated before."""

SAMPLE_ATTEMPTS = 1000
SAMPLE_SUCCESSES = 3
"""Params must meet their constraints in ``SAMPLE_SUCCESSES`` of at most ``SAMPLE_ATTEMPTS``
sample attempts to be stored: params met once in 100 attempts are refused 0.3 % of the
time, once in 200 12 %, once in 1,000 92 %."""

SAMPLE_SEED = derive_seed("cutoff/sample")
"""The seed of the sample attempts: the same params always get the same verdict."""

FIXED_TREE_SAMPLE_ATTEMPTS = 100
"""Sample attempts at an instructor's fixed tree: they differ only in the nodes asked, so a
tree whose premises fail in 100 draws of them fails them for good (1,000 solves of a
200-node tree took 11 s before its 400)."""


@dataclass(frozen=True)
class Unmet:
    """Hold why a generation attempt failed: the constraints unmet and the field behind them."""

    issues: list[str]
    field: str


@dataclass(frozen=True)
class _Attempt:
    """Hold an attempt that met the constraints: its problem, key and trace so far."""

    problem: dict[str, Any]
    key: dict[str, Any]
    trace: dict[str, Any]


def _attempt(kind: Kind, params: dict[str, Any], seed: str, attempt: int) -> _Attempt | Unmet:
    """Draw, solve and judge attempt ``attempt`` at ``seed``'s problem."""
    rng = attempt_rng(seed, attempt)
    problem = as_json(kind.generate(rng, params))
    try:
        answer = kind.solve(problem)
    except EngineFailure as error:
        raise GenerationError(str(error)) from error
    issues = judged_quality_issues(kind, problem, answer, params)
    if issues:
        # The key is only read off answers that met the constraints: a finished game,
        # for one, has no move to project.
        return Unmet(issues, "tree" if is_authored(params) else "params")
    key = kind.project(problem, answer)
    trace: dict[str, Any] = {"answer": answer}
    if kind.is_multiple_choice(params):
        correct = _ask_as_choice(kind, rng, problem, key, params, trace)
        if correct is None:
            return Unmet([f"fewer than {params['options']} distinct answers"], "options")
        key = {CHOICE_PART: correct}
    return _Attempt(problem, key, trace)


def generate_item(kind_name: str, params: dict[str, Any], seed: str) -> GeneratedItem:
    """Return the item of kind ``kind_name`` with validated ``params`` for ``seed``.

    Each attempt draws a problem, has the engine solve it and checks the kind's quality
    constraints; the first attempt meeting them wins. Raise :class:`GenerationError` naming
    the kind and the last unmet constraint when none does within :data:`ATTEMPT_BUDGET`.

    An instructor's tree with its own values (``params.tree`` without ``randomize_values``)
    is judged by its premises alone (:func:`judged_quality_issues`): its ties, cutoffs and
    orders are as the instructor wrote them. A constraint no attempt meets on an
    instructor's tree is reported on ``tree``.
    """
    kind = get_kind(kind_name)
    unmet = Unmet([], "params")
    for attempt in range(ATTEMPT_BUDGET):
        tried = _attempt(kind, params, seed, attempt)
        if isinstance(tried, Unmet):
            unmet = tried
            continue
        # Grading names the misconception an answer reproduces; its searches run here, once,
        # rather than while students wait for their grade.
        tried.trace["misconceptions"] = kind.misconception_parts(tried.problem)
        return GeneratedItem(
            problem=tried.problem,
            prompt={"kind": kind.name, "args": as_json(kind.prompt_args(tried.problem, params))},
            answer_key=as_json(tried.key),
            trace=as_json(tried.trace),
            engine_version=engine_version(),
            attempt=attempt,
        )
    raise GenerationError(
        f"{kind.name}: no problem met the constraints in {ATTEMPT_BUDGET} attempts "
        f"(last unmet: {'; '.join(unmet.issues)}); loosen the params behind that constraint",
        field=unmet.field,
    )


def check_generates(kind_name: str, params: dict[str, Any], *,
                    needed: int | None = None) -> None:
    """Raise :class:`GenerationError` unless validated ``params`` meet their kind's constraints
    often enough for every student's variant to generate.

    Sample attempts run until :data:`SAMPLE_SUCCESSES` of them meet the constraints, at most
    :data:`SAMPLE_ATTEMPTS`; fewer than ``needed`` (default :data:`SAMPLE_SUCCESSES`) is
    refused, naming the last unmet constraint and how many met it. Without this, params met
    about once in 100 attempts passed a one-seed check and failed a whole class's set on the
    worker, where about 1 student's seed in 10 ran out of the 200 attempts it then had. The
    verdict depends on the params alone, so it is kept.
    """
    met, found = _sample_verdict(kind_name, json.dumps(params, sort_keys=True))
    if found is not None and met < (SAMPLE_SUCCESSES if needed is None else needed):
        raise GenerationError(found.message, field=found.field)


@functools.lru_cache(maxsize=1024)
def _sample_verdict(kind_name: str, params_json: str) -> tuple[int, GenerationError | None]:
    """Return how many sample problems of the params written as ``params_json`` met their
    constraints, and why that is too few (None when enough)."""
    kind, params = get_kind(kind_name), json.loads(params_json)
    met = 0
    unmet = Unmet([], "params")
    attempts = FIXED_TREE_SAMPLE_ATTEMPTS if is_fixed(params) else SAMPLE_ATTEMPTS
    for attempt in range(attempts):
        tried = _attempt(kind, params, SAMPLE_SEED, attempt)
        if isinstance(tried, Unmet):
            unmet = tried
            continue
        met += 1
        if met == SAMPLE_SUCCESSES:
            return met, None
    if is_fixed(params):
        return met, GenerationError(
            f"{kind.name}: this tree cannot be asked as the params set it: "
            f"{'; '.join(unmet.issues)} (in {attempts - met} of {attempts} choices of the "
            f"asked nodes); change the tree, or the params asking about it",
            field=unmet.field,
        )
    if met == 0:
        found = f"no problem met the constraints in {attempts} attempts"
    else:
        found = (f"only {met} of {attempts} sample problems met the constraints; at "
                 f"least {SAMPLE_SUCCESSES} must, or some students' variants may fail to "
                 f"generate")
    return met, GenerationError(
        f"{kind.name}: {found} (last unmet: {'; '.join(unmet.issues)}); loosen the params "
        f"behind that constraint",
        field=unmet.field,
    )


def _ask_as_choice(
    kind: Kind,
    rng: random.Random,
    problem: dict[str, Any],
    key: dict[str, Any],
    params: dict[str, Any],
    trace: dict[str, Any],
) -> str | None:
    """Add shuffled options to ``problem`` and ``trace``; return the correct option's id.

    Wrong options are first what exactly one of the engine's named misconceptions answers,
    so choosing one diagnoses that mistake (a value two misconceptions give diagnoses neither:
    grading names none on a tie). When too few of those differ from the key and from each
    other, values several misconceptions share, the kind's near misses (other conventions,
    other nodes' values) and then values near the key fill in;
    ``trace["option_misconceptions"]`` maps those to ``None``, so choosing one names no
    misconception, and ``trace["option_sources"]`` says where every option came from. Return
    ``None`` when even these give too few distinct wrong answers.
    """
    part = kind.choice_part
    assert part is not None  # only kinds with a choice part accept answer_format
    by_value: dict[str, list[tuple[Any, str]]] = {}
    for code, answer in sorted(kind.misconception_answers(problem).items()):
        value = kind.project(problem, answer).get(part)
        if value is not None and canonical_answer(value) != canonical_answer(key[part]):
            by_value.setdefault(canonical_answer(value), []).append((value, code))
    seen = {canonical_answer(key[part])}
    wrong: list[tuple[Any, str | None, str]] = []
    shared: list[tuple[Any, str]] = []
    for found in by_value.values():
        if len(found) == 1:
            seen.add(canonical_answer(found[0][0]))
            wrong.append((found[0][0], found[0][1], "misconception"))
        else:
            shared.append((found[0][0], "misconceptions_tied"))
    needed = params["options"] - 1
    if len(wrong) < needed:
        fallbacks = [
            *shared,
            *kind.near_misses(problem, trace["answer"], params),
            *_values_near(rng, kind.choice_part_type(params), key[part]),
        ]
        for value, source in fallbacks:
            if len(wrong) == needed:
                break
            if canonical_answer(value) not in seen:
                seen.add(canonical_answer(value))
                wrong.append((value, None, source))
        if len(wrong) < needed:
            return None
    rng.shuffle(wrong)
    options: list[tuple[Any, str | None, str]] = [(key[part], None, "key"), *wrong[:needed]]
    rng.shuffle(options)
    problem["options"] = [
        {"id": OPTION_IDS[index], "value": value} for index, (value, _, _) in enumerate(options)
    ]
    trace["option_misconceptions"] = {
        OPTION_IDS[index]: code for index, (_, code, _) in enumerate(options)
    }
    trace["option_sources"] = {
        OPTION_IDS[index]: source for index, (_, _, source) in enumerate(options)
    }
    trace["correct_option"] = next(
        OPTION_IDS[index] for index, (_, _, source) in enumerate(options) if source == "key"
    )
    return str(trace["correct_option"])


def _values_near(rng: random.Random, part_type: PartType, value: Any) -> list[tuple[Any, str]]:
    """Return wrong answers a few units from ``value``, in a random order, for number parts.

    Numbers move by up to 6 (never below 0 when the key is not negative); vectors move one
    entry by one. Other part types have no such neighbours.
    """
    if part_type is PartType.NUMBER:
        number = Fraction(str(value))
        offsets = list(NUMBER_OFFSETS)
        rng.shuffle(offsets)
        return [
            (exact(number + offset), "near_key")
            for offset in offsets
            if number < 0 or number + offset >= 0
        ]
    if part_type is PartType.VECTOR:
        entries = [Fraction(str(entry)) for entry in value]
        moved = [
            [exact(e + step) if i == index else exact(e) for i, e in enumerate(entries)]
            for index in range(len(entries))
            for step in (1, -1)
        ]
        rng.shuffle(moved)
        return [(vector, "near_key") for vector in moved]
    return []


def canonical_answer(value: Any) -> Any:
    """Return a hashable form of an answer value under which equal answers coincide.

    Numbers compare exactly whatever their spelling (``7/2``, ``"7/2"`` and ``3.5`` are one
    value), lists entry by entry; anything else by its JSON text.
    """
    if isinstance(value, list):
        return tuple(canonical_answer(entry) for entry in value)
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        try:
            return Fraction(str(value))
        except (ValueError, ZeroDivisionError):
            return json.dumps(value)
    return json.dumps(value, sort_keys=True)

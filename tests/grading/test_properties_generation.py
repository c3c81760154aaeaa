"""Generation properties of issue 13: default params never raise, multiple choice is distinct.

Every registered kind (code kinds included) is generated with its default params over 50
seeds, and each kind offering multiple choice also in that format.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from exercises.generation import GenerationError, check_generates, generate_item
from exercises.kinds import all_kinds, get_kind
from exercises.kinds.base import CHOICE_PART, PartType
from exercises.kinds.params import BoolParam, ChoiceParam, IntParam, ParamError
from tests.grading.property_cases import (
    SEEDS,
    Checker,
    case_seed,
    cases,
    format_params,
    formats_of,
    number,
    register_figures,
)

EVERY_KIND_FORMAT = [(kind.name, fmt) for kind in all_kinds() for fmt in formats_of(kind.name)]
CHOICE_KINDS = [(name, fmt) for name, fmt in EVERY_KIND_FORMAT if fmt == "multiple_choice"]


@pytest.fixture(autouse=True, scope="module")
def _figures(request: pytest.FixtureRequest) -> None:
    register_figures(request.config)


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("generation_never_raises", EVERY_KIND_FORMAT))
def test_generation_with_default_params_never_raises(kind_name: str, answer_format: str) -> None:
    checker = Checker("generation_never_raises", kind_name, answer_format)
    params = format_params(kind_name, answer_format)
    for index in range(SEEDS):
        try:
            made = generate_item(kind_name, params, case_seed(kind_name, answer_format, index))
        except Exception as error:  # noqa: BLE001 - any exception is the failure counted
            checker.check(False, f"seed {index}: {type(error).__name__}: {error}",
                          "GenerationError" if isinstance(error, GenerationError)
                          else type(error).__name__)
            continue
        keyed = {part.name for part in get_kind(kind_name).answer_parts(params)}
        checker.check(keyed <= set(made.answer_key),
                      f"seed {index}: key {made.answer_key} lacks parts {keyed}",
                      "key lacks parts")
    checker.finish(SEEDS)


def canonical(part_type: PartType, value: Any) -> str:
    """Return a value as its meaning, so "7/2" and 3.5 (or [1, 2] and [2, 1]) compare equal."""
    def meaning(v: Any) -> Any:
        if isinstance(v, list):
            return [meaning(x) for x in v]
        if isinstance(v, dict):
            return {k: meaning(x) for k, x in sorted(v.items())}
        try:
            return str(number(v))
        except (ValueError, TypeError, ZeroDivisionError):
            return str(v).strip()

    shown = meaning(value)
    if part_type is PartType.SET and isinstance(shown, list):
        shown = sorted(shown)
    return json.dumps(shown, sort_keys=True)


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("choice_options_distinct", CHOICE_KINDS))
def test_multiple_choice_options_are_distinct_and_one_is_the_key(kind_name: str,
                                                                answer_format: str) -> None:
    checker = Checker("choice_options_distinct", kind_name, answer_format)
    kind = get_kind(kind_name)
    params = format_params(kind_name, answer_format)
    open_params = {**params, "answer_format": "open"}
    asked = next(p for p in kind.open_parts(open_params) if p.name == kind.choice_part)
    for index, context in checker.contexts(kind_name, answer_format):
        options = context.problem["options"]
        shown = [canonical(asked.type, option["value"]) for option in options]
        ids = [option["id"] for option in options]
        open_key = kind.project(context.problem, context.trace["answer"])[asked.name]
        correct = [o["id"] for o in options
                   if canonical(asked.type, o["value"]) == canonical(asked.type, open_key)]
        checker.check(
            len(set(shown)) == len(shown) == params["options"] and len(set(ids)) == len(ids)
            and correct == [context.expected[CHOICE_PART]],
            f"seed {index}: options {options}, key {open_key}, "
                    f"correct option {context.expected[CHOICE_PART]}")
    checker.finish(SEEDS - checker.skipped)


BOUNDARY_SEEDS = 5


def one_param_changes(kind_name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (label, raw params) setting one param to a bound, another choice, or its negation.

    Combinations the kind refuses (a 400 naming the field) are left out: only params an
    instructor can store are generated.
    """
    kind = get_kind(kind_name)
    for param in kind.declared_params():
        if isinstance(param, IntParam):
            values: list[Any] = [param.minimum, param.maximum]
        elif isinstance(param, ChoiceParam):
            values = [c for c in param.choices if c != param.default]
        elif isinstance(param, BoolParam):
            values = [not param.default]
        else:
            continue
        for value in values:
            raw = {param.name: value}
            try:
                kind.clean_params(raw)
            except ParamError:
                continue
            yield f"{param.name}={value}", raw


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("stored_params_generate",
                               [(kind.name, "bounds") for kind in all_kinds()], BOUNDARY_SEEDS))
def test_params_at_a_bound_are_refused_when_stored_or_generate_for_every_seed(
        kind_name: str, answer_format: str) -> None:
    """Check that one param at a bound is refused when stored, or generates for every seed.

    Params at their bounds may be unsatisfiable or met too rarely: storing them is refused
    with a GenerationError naming the constraint (``check_generates``, run by
    ``validate_item``). Params it accepts must generate every student's item: a seed that
    fails would fail the whole set on the worker. Any other exception is a crash.
    """
    checker = Checker("stored_params_generate", kind_name, answer_format)
    kind = get_kind(kind_name)
    for label, raw in one_param_changes(kind_name):
        params = kind.clean_params(raw)
        try:
            check_generates(kind_name, params)
        except GenerationError:
            continue
        for index in range(BOUNDARY_SEEDS):
            try:
                generate_item(kind_name, params, case_seed(kind_name, label, index))
                failure = None
            except Exception as error:  # noqa: BLE001 - the failure is what is counted
                failure = f"{type(error).__name__}: {error}"
            checker.check(failure is None, f"{label} seed {index}: {failure}", label)
    checker.finish(0)

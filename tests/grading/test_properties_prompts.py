"""Issue 13: every convention a key depends on is printed in the prompt, in every language.

For each answered kind and each of its convention params (``Param.convention``: they change
the key, never the problem), the same seed is generated under the default and under every
other value; the prompts must differ in en, pt and ca, or a student could not know which
convention the key was computed under. The latitude a key gives (any of several equally good
moves, a cut at a node's last child listed or not) is announced in the prompt too.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from django.utils import translation
from django.utils.translation import gettext

from exercises.generation import GenerationError, derive_seed, generate_item
from exercises.kinds import get_kind
from exercises.kinds.base import PartType
from exercises.kinds.params import (
    BoolParam,
    ChoiceParam,
    DecimalParam,
    IntParam,
    Param,
    ParamError,
)
from tests.grading.property_cases import Checker, answered_kinds, cases, register_figures

LANGUAGES = ("en", "pt", "pt-br", "ca")
PROMPT_SEEDS = 5
"""Seeds per kind: a prompt depends on the seed only through the nodes it names."""


@pytest.fixture(autouse=True, scope="module")
def _figures(request: pytest.FixtureRequest) -> None:
    register_figures(request.config)


def other_values(param: Param) -> list[Any]:
    """Return valid values of a convention param other than its default."""
    if isinstance(param, BoolParam):
        return [not param.default]
    if isinstance(param, ChoiceParam):
        return [choice for choice in param.choices if choice != param.default]
    if isinstance(param, DecimalParam):
        default = Fraction(str(param.default))
        return [str(value) for value in (default + Fraction(1, 2), default / 2)
                if param.minimum <= value <= param.maximum and value != default]
    if isinstance(param, IntParam):
        return [value for value in (param.default + 1, param.default - 1)
                if param.minimum <= value <= param.maximum]
    return []


CONVENTIONS = [
    (kind_name, "open") for kind_name in answered_kinds()
    if any(p.convention for p in get_kind(kind_name).declared_params())
]


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("conventions_in_prompt", CONVENTIONS, PROMPT_SEEDS))
def test_every_convention_is_printed_in_every_language(kind_name: str,
                                                       answer_format: str) -> None:
    checker = Checker("conventions_in_prompt", kind_name, answer_format)
    kind = get_kind(kind_name)
    # Deeper trees let every convention matter (at depth 2 a root that does not raise alpha
    # cuts nothing, so min_cuts could not be met).
    base = {"depth": 3} if any(p.name == "depth" for p in kind.declared_params()) else {}
    for param in (p for p in kind.declared_params() if p.convention):
        values = [param.default, *other_values(param)]
        for index in range(PROMPT_SEEDS):
            seed = derive_seed("issue-13/prompts", kind_name, index)
            args = [generate_item(kind_name, kind.clean_params({**base, param.name: value}),
                                  seed).prompt["args"] for value in values]
            for language in LANGUAGES:
                with translation.override(language):
                    prompts = [kind.render_prompt(arg) for arg in args]
                checker.check(len(set(prompts)) == len(prompts),
                              f"seed {index} {language}: {param.name} = {values} all print "
                              f"{prompts[0]!r}", param.name)
    checker.finish(1)


TIES_ACCEPTED = "If several moves are equally good, any of them is accepted."
LAST_CHILD_CUT = (
    "A cutoff skips at least one child: when the condition is met at a node's last child "
    "nothing is left to skip, so it is not a cutoff to list (listing it with no skipped "
    "children is accepted too).")
"""The prompt sentences announcing the key's latitude (grading/README.md, part types)."""
LATITUDE_SEEDS = 20
TIE_PRONE = {"allow_ties": True, "max_value": 3}
"""Params making tied root children (and so keys listing several moves) common."""

DECIDING = [(kind_name, "open") for kind_name in answered_kinds()
            if any(part.type is PartType.NAME
                   for part in get_kind(kind_name).open_parts(
                       get_kind(kind_name).clean_params({})))]


def tie_prone_params(kind_name: str) -> dict[str, Any]:
    """Return the kind's params with ties allowed and few leaf values, where it has them."""
    kind = get_kind(kind_name)
    declared = {p.name for p in kind.declared_params()}
    raw = {name: value for name, value in TIE_PRONE.items() if name in declared}
    try:
        return kind.clean_params(raw)
    except ParamError:
        return kind.clean_params({})


def said_in_every_language(sentence: str, kind_name: str, args: dict[str, Any]) -> list[str]:
    """Return the languages whose prompt lacks ``sentence`` translated (or has it untranslated)."""
    kind = get_kind(kind_name)
    missing = []
    for language in LANGUAGES:
        with translation.override(language):
            translated, prompt = gettext(sentence), kind.render_prompt(args)
        if translated not in prompt or (language != "en" and translated == sentence):
            missing.append(language)
    return missing


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("latitude_in_prompt", DECIDING, LATITUDE_SEEDS))
def test_a_key_listing_several_moves_or_optional_cuts_is_announced_in_every_language(
        kind_name: str, answer_format: str) -> None:
    """A key accepting any of several moves, or a cut listed or not, says so in the prompt."""
    checker = Checker("latitude_in_prompt", kind_name, answer_format)
    kind = get_kind(kind_name)
    params = tie_prone_params(kind_name)
    parts = kind.open_parts(params)
    for index in range(LATITUDE_SEEDS):
        try:
            made = generate_item(kind_name, params,
                                 derive_seed("issue-13/latitude", kind_name, index))
        except GenerationError:
            continue  # generation is a property of its own (test_properties_generation)
        args = made.prompt["args"]
        for part in parts:
            key = made.answer_key.get(part.name)
            if part.type is PartType.NAME and isinstance(key, list):
                missing = said_in_every_language(TIES_ACCEPTED, kind_name, args)
                checker.check(not missing, f"seed {index}: {part.name} keys {key} but the "
                              f"prompt in {missing} does not say any is accepted", part.name)
            if part.type is PartType.CUTOFFS and any(c.get("optional") for c in key or []):
                missing = said_in_every_language(LAST_CHILD_CUT, kind_name, args)
                checker.check(not missing, f"seed {index}: {part.name} keys {key} but the "
                              f"prompt in {missing} does not say a last-child cut is optional",
                              part.name)
    checker.finish(1 if kind_name in ("alphabeta", "expectimax", "expectiminimax") else 0)

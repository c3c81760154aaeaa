"""Issue 13: every convention a key depends on is printed in the prompt, in every language.

For each answered kind and each of its convention params (``Param.convention``: they change
the key, never the problem), the same seed is generated under the default and under every
other value; the prompts must differ in en, pt and ca, or a student could not know which
convention the key was computed under.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from django.utils import translation

from exercises.generation import derive_seed, generate_item
from exercises.kinds import get_kind
from exercises.kinds.params import BoolParam, ChoiceParam, DecimalParam, IntParam, Param
from tests.grading.property_cases import Checker, answered_kinds, cases, register_figures

LANGUAGES = ("en", "pt", "ca")
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

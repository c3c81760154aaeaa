"""Every public worked tree example (the shared seed file) solved by the engine."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from engine.solve import solve

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("CUTOFF_SHARED_DIR", REPO.parent / "shared"))
SEED = SHARED / "examples" / "seed-worked-examples.json"
APPROX = 0.0015


def _examples() -> list[dict[str, Any]]:
    if not SEED.exists():
        return []
    examples: list[dict[str, Any]] = json.loads(SEED.read_text())["trees"]
    return examples


def as_number(value: Any) -> Fraction:
    return Fraction(str(value))


def matches(got: Any, want: Any) -> bool:
    """Return whether ``got`` equals ``want``, numbers compared exactly in any spelling."""
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            matches(g, w) for g, w in zip(got, want, strict=True)
        )
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and matches(got[k], v)
                                             for k, v in want.items())
    try:
        wanted = as_number(want)
    except (TypeError, ValueError):
        return bool(got == want)  # a name, not a number
    try:
        return as_number(got) == wanted
    except (TypeError, ValueError):
        return False


EXAMPLES = _examples()


def test_the_seed_file_is_there() -> None:
    assert SEED.exists(), f"set CUTOFF_SHARED_DIR; {SEED} is missing"
    assert len(EXAMPLES) >= 13


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_seed_example(example: dict[str, Any]) -> None:
    answer = solve(example["problem"])
    for key, want in example["expect"].items():
        if key == "node_values_minimax":
            minimax_problem = {**example["problem"], "kind": "minimax"}
            assert matches(solve(minimax_problem)["node_values"], want)
        elif key.endswith("_approx"):
            got = answer[key.removesuffix("_approx")]
            for name, value in want.items():
                assert abs(float(got[name]) - value) <= APPROX, (key, name)
        elif key.endswith("_count"):
            assert len(answer[key.removesuffix("_count")]) == want, key
        elif key == "pruned_leaves":
            assert sorted(answer[key]) == sorted(want)
        else:
            assert matches(answer[key], want), (key, answer[key], want)

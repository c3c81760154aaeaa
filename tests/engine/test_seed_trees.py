"""Every public worked tree example (the repository's copy of the seed file) solved by the
engine through ``python -m engine solve``, as ``shared/tools/check-seed-examples`` runs them."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.solve import solve
from tests.seed_examples import seed_examples

APPROX = 0.0015
# Spelled out rather than read from the file at collection, so a missing or broken seed file
# fails these tests instead of collection, and an example dropped from the file is noticed.
TREE_SEEDS = [
    "two-by-two",
    "three-by-three",
    "exercise-1",
    "abc-left-to-right",
    "abc-best-first",
    "uniform-opponent",
    "coin-then-min",
    "three-players",
    "ucb1-c1",
    "ucb1-c-half",
    "ucb1-sqrt-form",
    "mcts-black-wins",
    "price-war",
]


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


def solve_with_cli(
    problem: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    """Return the answer ``python -m engine solve PROBLEM.json`` prints for ``problem``."""
    problem_file = tmp_path / "problem.json"
    problem_file.write_text(json.dumps(problem), encoding="utf-8")
    assert main(["solve", str(problem_file)]) == 0
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)
    return answer


def test_every_tree_seed_is_covered() -> None:
    assert list(seed_examples("trees")) == TREE_SEEDS


@pytest.mark.parametrize("seed_id", TREE_SEEDS)
def test_seed_example(
    seed_id: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = seed_examples("trees")[seed_id]
    answer = solve_with_cli(example["problem"], tmp_path, capsys)
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

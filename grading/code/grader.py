"""Grade one code submission: run its hidden tests in the sandbox and report test by test.

Pure Python over the sandbox and the engine (no database), so the Celery task, the tests and
the benchmark all call :func:`grade_code` the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.search.alphabeta import AlphaBetaConventions
from grading.code.agents import connect4_reports, tictactoe_reports
from grading.code.backprop import backprop_reports
from grading.code.cases import SEARCH_TEST_SETS, search_cases
from grading.code.contract import contract_for
from grading.code.reference import Method, explain
from grading.code.runs import Budget, run_cases
from grading.code.search_grading import PASSED, grade_case
from grading.code.selection import selection_reports
from grading.sandbox import SandboxConfig, SandboxLimits

DEFAULT_BUDGET_SECONDS = 90.0
"""Wall-clock seconds all runs of one submission may take together (the Celery task's soft
time limit is 120 s)."""


@dataclass(frozen=True)
class CodeGrade:
    """A submission's fraction of the item's points, one report per test and a summary."""

    fraction: Fraction
    tests: list[dict[str, Any]]
    summary: dict[str, Any] = field(default_factory=dict)


Grader = Callable[[str, dict[str, Any], str, str, SandboxLimits, Budget, SandboxConfig | None],
                  CodeGrade]


def method_for(kind_name: str, params: dict[str, Any]) -> Method:
    """Return the reference search of a search item, under the item's conventions."""
    if kind_name == "code_alphabeta":
        return Method("alphabeta", AlphaBetaConventions(
            cut_on_equality=params.get("cut_on_equality", True),
            root_raises_alpha=params.get("root_raises_alpha", True)))
    return Method("minimax")


def grade_search_item(kind_name: str, params: dict[str, Any], seed: str, source: str,
                      limits: SandboxLimits, budget: Budget, config: SandboxConfig | None
                      ) -> CodeGrade:
    """Run and judge the hidden tests of a minimax, alpha-beta or expectimax item."""
    contract = contract_for(kind_name)
    cases = search_cases(kind_name, params, seed)
    runs = run_cases(source, contract.entry_point, cases, limits=limits, budget=budget,
                     config=config)
    method = method_for(kind_name, params)
    reports = [grade_case(run, method, returns_move=contract.returns_decision) for run in runs]
    return CodeGrade(_mean(reports), reports, summarise(reports))


CHOICE_TESTS = {
    "code_ucb1": selection_reports,
    "code_tictactoe_agent": tictactoe_reports,
    "code_connect4_agent": connect4_reports,
}


def grade_choice_item(kind_name: str, params: dict[str, Any], seed: str, source: str,
                     limits: SandboxLimits, budget: Budget, config: SandboxConfig | None
                     ) -> CodeGrade:
    """Judge the choices of an agent or selection item, test by test."""
    entry_point = contract_for(kind_name).entry_point
    reports = CHOICE_TESTS[kind_name](source, entry_point, seed, limits, budget, config)
    return CodeGrade(_mean(reports), reports, summarise(reports))


def grade_backprop_item(kind_name: str, params: dict[str, Any], seed: str, source: str,
                        limits: SandboxLimits, budget: Budget, config: SandboxConfig | None
                        ) -> CodeGrade:
    """Judge the statistics an MCTS backpropagation item returns, test by test."""
    entry_point = contract_for(kind_name).entry_point
    reports = backprop_reports(source, entry_point, seed, limits, budget, config, params)
    return CodeGrade(_mean(reports), reports, summarise(reports))


def summarise(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Return verdict counts and the misconception most tests' traces match, if any."""
    verdicts = Counter(report["verdict"] for report in reports)
    codes = Counter(code for report in reports for code in report.get("misconceptions", []))
    summary: dict[str, Any] = {"passed": verdicts[PASSED], "tests": len(reports),
                               "verdicts": dict(verdicts), "misconception": None}
    if codes:
        # Ties go to the misconception listed first on the first test that shows it.
        order = [code for report in reports for code in report.get("misconceptions", [])]
        best = max(codes, key=lambda code: (codes[code], -order.index(code)))
        summary["misconception"] = {"code": best, "tests": codes[best],
                                    "explanation": explain(best)}
    return summary


def _mean(reports: list[dict[str, Any]]) -> Fraction:
    if not reports:
        return Fraction(0)
    total = sum((Fraction(str(report["score"])) for report in reports), Fraction(0))
    return total / len(reports)


GRADERS: dict[str, Grader] = {
    **{name: grade_search_item for name in SEARCH_TEST_SETS},
    **{name: grade_choice_item for name in CHOICE_TESTS},
    "code_mcts_backprop": grade_backprop_item,
}
"""Code kind name → the function grading its submissions."""


def grade_code(kind_name: str, params: dict[str, Any], seed: str, source: str, *,
               limits: SandboxLimits, budget_seconds: float = DEFAULT_BUDGET_SECONDS,
               config: SandboxConfig | None = None) -> CodeGrade:
    """Return the grade of ``source`` for a code item of kind ``kind_name``.

    All sandbox runs together take at most ``budget_seconds``. Raise
    :class:`grading.code.runs.SandboxFailed` when the sandbox itself failed and
    :class:`grading.sandbox.SandboxUnavailable` when the host cannot run it.
    """
    budget = Budget.of(budget_seconds)
    return GRADERS[kind_name](kind_name, params, seed, source, limits, budget, config)

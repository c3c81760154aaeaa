"""Grade one code submission: run its hidden tests in the sandbox and report test by test.

Pure Python over the sandbox and the engine (no database), so the Celery task, the tests and
the benchmark all call :func:`grade_code` the same way. :func:`check_code` runs a check: the
item's public example test alone (one of the hidden tests), judged by the same grader.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.search.alphabeta import AlphaBetaConventions
from grading.code.agents import (
    TICTACTOE_PUBLIC_SIDES,
    connect4_public_reports,
    connect4_reports,
    tictactoe_reports,
)
from grading.code.backprop import (
    backprop_reports,
    draw_reward_of,
    grade_backprop,
    public_backprop_test,
)
from grading.code.cases import SEARCH_TEST_SETS, SearchCase, public_cases, search_cases
from grading.code.contract import contract_for
from grading.code.reference import Method, explain
from grading.code.runs import Budget, CaseRun, run_case_alone, run_cases
from grading.code.search_grading import PASSED, grade_case
from grading.code.selection import grade_selection, public_selection_case, selection_reports
from grading.sandbox import RunRecord, SandboxConfig, SandboxLimits

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
    """Return verdict counts and the misconception more tests' traces match than any other,
    if one does: when two match as many tests, the tests cannot tell them apart and naming
    either would be a guess."""
    verdicts = Counter(report["verdict"] for report in reports)
    codes = Counter(code for report in reports for code in report.get("misconceptions", []))
    summary: dict[str, Any] = {"passed": verdicts[PASSED], "tests": len(reports),
                               "verdicts": dict(verdicts), "misconception": None}
    ranked = codes.most_common(2)
    if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
        best, tests = ranked[0]
        summary["misconception"] = {"code": best, "tests": tests, "explanation": explain(best)}
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


@dataclass(frozen=True)
class CheckRun:
    """What a check gave: one report per public example test, graded as the hidden tests
    are, and the records of its sandbox runs (whose printed output the check shows)."""

    reports: list[dict[str, Any]]
    records: list[RunRecord]


Checker = Callable[[str, dict[str, Any], str, SandboxLimits, Budget, SandboxConfig | None],
                   CheckRun]


def _run_each(source: str, entry_point: str, cases: list[SearchCase],
              grade: Callable[[CaseRun], dict[str, Any]], limits: SandboxLimits, budget: Budget,
              config: SandboxConfig | None) -> CheckRun:
    """Run each case alone (so its output is its own) and grade it with ``grade``."""
    reports, records = [], []
    for case in cases:
        run, record = run_case_alone(source, entry_point, case, limits=limits, budget=budget,
                                     config=config)
        reports.append(grade(run))
        if record is not None:
            records.append(record)
    return CheckRun(reports, records)


def check_search_item(kind_name: str, params: dict[str, Any], source: str,
                      limits: SandboxLimits, budget: Budget, config: SandboxConfig | None
                      ) -> CheckRun:
    """Run a search item's public tree ("textbook tree", "chance tree") and judge the trace."""
    contract = contract_for(kind_name)
    method = method_for(kind_name, params)
    return _run_each(source, contract.entry_point, public_cases(kind_name, params),
                     lambda run: grade_case(run, method, returns_move=contract.returns_decision),
                     limits, budget, config)


def check_selection_item(kind_name: str, params: dict[str, Any], source: str,
                         limits: SandboxLimits, budget: Budget, config: SandboxConfig | None
                         ) -> CheckRun:
    """Run the UCB1 item's public node ("a child never visited") and judge the choice."""
    return _run_each(source, contract_for(kind_name).entry_point, [public_selection_case()],
                     grade_selection, limits, budget, config)


def check_backprop_item(kind_name: str, params: dict[str, Any], source: str,
                        limits: SandboxLimits, budget: Budget, config: SandboxConfig | None
                        ) -> CheckRun:
    """Run the backpropagation item's public path ("a path where MIN wins") and judge the
    statistics under the item's draw reward."""
    test, draw_reward = public_backprop_test(), draw_reward_of(params)
    return _run_each(source, contract_for(kind_name).entry_point, [test.case],
                     lambda run: grade_backprop(run, test, draw_reward), limits, budget, config)


def check_tictactoe_agent(kind_name: str, params: dict[str, Any], source: str,
                          limits: SandboxLimits, budget: Budget, config: SandboxConfig | None
                          ) -> CheckRun:
    """Play the tic-tac-toe agent's public test: as X against every opponent line."""
    records: list[RunRecord] = []
    reports = tictactoe_reports(source, contract_for(kind_name).entry_point, "", limits,
                                budget, config, playing_as=TICTACTOE_PUBLIC_SIDES,
                                records=records)
    return CheckRun(reports, records)


def check_connect4_agent(kind_name: str, params: dict[str, Any], source: str,
                         limits: SandboxLimits, budget: Budget, config: SandboxConfig | None
                         ) -> CheckRun:
    """Play the Connect Four agent's public test: one game as X against the depth-2 searcher."""
    records: list[RunRecord] = []
    reports = connect4_public_reports(source, contract_for(kind_name).entry_point, limits,
                                      budget, config, records)
    return CheckRun(reports, records)


CHECKERS: dict[str, Checker] = {
    **{name: check_search_item for name in SEARCH_TEST_SETS},
    "code_ucb1": check_selection_item,
    "code_mcts_backprop": check_backprop_item,
    "code_tictactoe_agent": check_tictactoe_agent,
    "code_connect4_agent": check_connect4_agent,
}
"""Code kind name → the function running its public example test (every code kind has one)."""


def check_code(kind_name: str, params: dict[str, Any], source: str, *, limits: SandboxLimits,
               budget: Budget, config: SandboxConfig | None = None) -> CheckRun:
    """Run ``source`` on the public example test of a code item of kind ``kind_name``.

    The test is one of the item's hidden tests, the same for every student, graded by the
    same grader. Raise :class:`grading.code.runs.SandboxFailed` or
    :class:`grading.sandbox.SandboxUnavailable` as :func:`grade_code` does.
    """
    return CHECKERS[kind_name](kind_name, params, source, limits, budget, config)

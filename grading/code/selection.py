"""The UCB1 selection step of MCTS as a code item: which child does the student descend to?

Each hidden test is a node whose children carry ``[wins, visits]`` statistics; the student's
``ucb1_select`` must return the action of the child the engine's
:func:`engine.search.bandit.select` picks. Statistics are drawn per student so that the
correct choice differs from what each named mistake would choose, and with no near-ties, so
float rounding in the student's arithmetic cannot change the answer.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from engine.search.bandit import SQRT2, UCB1_FORMS, Arm, most_visited, select, ucb1
from grading.code.cases import SearchCase, tests_rng, tree_case
from grading.code.feedback import message, misconception_messages, shown
from grading.code.runs import Budget, CaseRun, run_cases
from grading.code.search_grading import new_report
from grading.sandbox import SandboxConfig, SandboxLimits

CONSTANTS = (SQRT2, 2.0, 0.5)
"""Exploration constants of drawn tests; none is 1, where both UCB1 forms agree."""
GENERATED_TESTS = 4
MAX_DRAWS = 10_000
"""Draws of a test's statistics before the last one is used: about one draw in 300 tells
the right choice and the three mistakes apart, so a seed's tests take about 0.06 s of CPU and
running out of draws is practically impossible (about e^-32)."""
MIN_SCORE_GAP = 1e-6

Choice = Callable[[list[Arm], int, float], str]

MISTAKES: dict[str, Choice] = {
    "other_ucb1_form": lambda arms, n, c: select(arms, n, c, UCB1_FORMS[1]),
    "ucb1_without_exploration": lambda arms, n, c: select(arms, n, 0),
    "selected_most_visited": lambda arms, n, c: most_visited(arms),
}
"""Named wrong selections; the first is the engine's misconception code."""

def selection_case(name: str, stats: list[list[int]], constant: float) -> SearchCase:
    """Return the test of a node whose children have ``stats`` (``[wins, visits]`` each)."""
    children = [{"name": child, "value": 0} for child in _child_names(len(stats))]
    case = tree_case(name, {"name": "root", "type": "max", "children": children}, None)
    parent_visits = sum(visits for _, visits in stats)
    return SearchCase(case.name, case.game, case.root, tree=case.tree,
                      state_names=case.state_names, args=(stats, parent_visits, constant))


def arms_of(case: SearchCase) -> list[Arm]:
    """Return the children of a selection test as the engine's arms."""
    stats = case.args[0]
    return [Arm(action, wins, visits)
            for action, (wins, visits) in zip(case.game.actions(case.root), stats, strict=True)]


def public_selection_case() -> SearchCase:
    """Return the fixed test, also the public example test a check runs: a node with a child
    never visited, the same for every student."""
    return selection_case("a child never visited", [[3, 5], [0, 0], [4, 6]], SQRT2)


def selection_cases(seed: str) -> list[SearchCase]:
    """Return the fixed test (an unvisited child) and the tests drawn for ``seed``."""
    rng = tests_rng(seed, "ucb1")
    cases = [public_selection_case()]
    for number in range(1, GENERATED_TESTS + 1):
        cases.append(_drawn_case(rng, f"your node {number}"))
    return cases


def _drawn_case(rng: random.Random, name: str) -> SearchCase:
    for _ in range(MAX_DRAWS):
        stats = []
        for _child in range(rng.randint(3, 5)):
            visits = rng.randint(1, 20)
            stats.append([rng.randint(0, visits), visits])
        constant = rng.choice(CONSTANTS)
        if _telling(stats, constant):
            break
    return selection_case(name, stats, constant)


def _child_names(count: int) -> list[str]:
    """Return the names of a selection test's children: A, B, C…"""
    return [chr(ord("A") + index) for index in range(count)]


def _telling(stats: list[list[int]], constant: float) -> bool:
    """Return whether, for children with ``stats``, the right choice and every mistake's are
    all different (so a wrong choice names its one mistake) and no two scores nearly tie.

    Judged on the statistics alone: most draws fail, and building each one's game took half
    of the drawing's CPU time."""
    arms = [Arm(child, wins, visits)
            for child, (wins, visits) in zip(_child_names(len(stats)), stats, strict=True)]
    parent_visits = sum(visits for _, visits in stats)
    choices = [select(arms, parent_visits, constant),
               *(mistake(arms, parent_visits, constant) for mistake in MISTAKES.values())]
    if len(set(choices)) < len(choices):
        return False
    scores = sorted(ucb1(arm.wins, arm.visits, parent_visits, constant) for arm in arms)
    return scores[-1] - scores[-2] > MIN_SCORE_GAP


def grade_selection(run: CaseRun) -> dict[str, Any]:
    """Return the report of one selection test: passed, wrong (with the mistake) or a verdict."""
    report = new_report(run)
    if run.verdict != "ok":
        return report
    chosen = run.return_value
    if not run.was_offered(chosen):
        report["verdict"] = "illegal_operation"
        report["messages"].append(message("selection_not_offered", returned=shown(chosen)))
        return report
    arms, parent_visits, constant = arms_of(run.case), run.case.args[1], run.case.args[2]
    right = select(arms, parent_visits, constant)
    if chosen == right:
        report.update(verdict="passed", score=1.0)
        return report
    report["verdict"] = "wrong"
    scores = {arm.name: ucb1(arm.wins, arm.visits, parent_visits, constant) for arm in arms}
    report["messages"].append(message(
        "selection_differs", yours=str(chosen), your_score=_score_text(scores[chosen]),
        reference=str(right), reference_score=_score_text(scores[right])))
    codes = [code for code, mistake in MISTAKES.items()
             if mistake(arms, parent_visits, constant) == chosen]
    report["misconceptions"] = codes
    report["messages"] += misconception_messages(codes)
    return report



def _score_text(score: float) -> str:
    return "infinite: never visited" if math.isinf(score) else f"{score:.4f}"


def selection_reports(source: str, entry_point: str, seed: str, limits: SandboxLimits,
                      budget: Budget, config: SandboxConfig | None) -> list[dict[str, Any]]:
    """Run the student's selection on every test in one sandbox run and judge each choice."""
    runs = run_cases(source, entry_point, selection_cases(seed), limits=limits, budget=budget,
                     config=config)
    return [grade_selection(run) for run in runs]

"""MCTS backpropagation as a code item: update the statistics along one simulated path.

A hidden test is a position (``state``, the root of the MCTS tree) and the path an iteration
selected and expanded below it: for each node on the path, the player to move there (None
at a terminal node) and its ``[reward, visits]``; plus the simulation's winner (None for a
draw). The student returns each node's new ``[reward, visits]``. Who moved into a node is
never given: it is the player to move at its parent (``game.to_move(state)`` for the first
node), which is exactly what the engine's :func:`engine.search.bandit.mcts_backprop` credits.

The reference and the named mistakes are the engine's backpropagation run on the same path
with other movers: the winner as every node's mover (``mcts_credit_every_node``, as the
typed ``mcts_backprop`` kind diagnoses it) or each node's own player to move
(``mcts_credit_wrong_player``). Paths and statistics are drawn per student from the variant
seed, with decisive results so that both mistakes show.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.game import Game
from engine.games import tictactoe
from engine.search.bandit import DRAW, PathNode, mcts_backprop
from engine.tree import TreeGame, parse_tree
from grading.code.cases import SearchCase, random_tree, tests_rng
from grading.code.feedback import message, misconception_messages, shown
from grading.code.runs import Budget, CaseRun, run_cases
from grading.code.search_grading import new_report
from grading.sandbox import SandboxConfig, SandboxLimits

DEFAULT_DRAW_REWARD = Fraction(1, 2)
GENERATED_TESTS = 3
MAX_DRAWS = 50
TOLERANCE = Fraction(1, 10**9)
"""Rewards may come back as floats (a draw reward of 1/3 is not exact in binary)."""


@dataclass(frozen=True)
class BackpropCase:
    """One hidden test: the sandbox case, each path node's name, mover and the result."""

    case: SearchCase
    names: tuple[str, ...]
    movers: tuple[str | None, ...]
    winner: str | None

    @property
    def path(self) -> list[list[Any]]:
        """Return the path as the student receives it: ``[to_move, reward, visits]`` each."""
        return self.case.args[0]


def draw_reward_of(params: dict[str, Any]) -> Fraction:
    """Return the reward a draw gives each player under the item's conventions."""
    return Fraction(str(params.get("draw_reward", DEFAULT_DRAW_REWARD)))


def backprop_case(name: str, game: Game[Any, Any], root: Hashable, actions: list[Any],
                  counts: list[tuple[Fraction, int]], winner: str | None,
                  label: Callable[[Hashable, list[Any]], str]) -> BackpropCase:
    """Return the test of the path ``actions`` below ``root`` with ``counts`` per node."""
    state, movers, names, path = root, [], [], []
    for depth, action in enumerate(actions):
        movers.append(game.to_move(state))
        state = game.result(state, action)
        to_move = None if game.is_terminal(state) else game.to_move(state)
        reward, visits = counts[depth]
        # Arguments cross as JSON: rewards in halves are exact floats (or ints).
        path.append([to_move, int(reward) if reward.denominator == 1 else float(reward),
                     visits])
        names.append(label(state, actions[:depth + 1]))
    case = SearchCase(name, game, root, args=(path, winner))
    return BackpropCase(case, tuple(names), tuple(movers), winner)


def reference(test: BackpropCase, draw_reward: Fraction,
              movers: tuple[str | None, ...] | None = None) -> list[tuple[Fraction, int]]:
    """Return each node's ``(reward, visits)`` after the engine's backpropagation.

    ``movers`` replaces who moved into each node (how the mistakes are run).
    """
    nodes = [PathNode(name, mover or "", visits, Fraction(reward).limit_denominator(2))
             for name, mover, (_, reward, visits)
             in zip(test.names, movers or test.movers, test.path, strict=True)]
    outcome = DRAW if test.winner is None else test.winner
    return [(Fraction(node.reward), node.visits)
            for node in mcts_backprop(nodes, outcome, draw_reward)]


MISTAKES: dict[str, Callable[[BackpropCase], tuple[str | None, ...]]] = {
    "mcts_credit_every_node": lambda test: tuple(test.winner for _ in test.movers),
    "mcts_credit_wrong_player": lambda test: tuple(player for player, _, _ in test.path),
}
"""Named wrong backpropagations: the movers they credit instead of who moved into a node."""


def public_backprop_test() -> BackpropCase:
    """Return the first fixed test, also the public example test a check runs (the same for
    every student): a decisive path, so both named mistakes show on it."""
    return _fixed_tree_case("a path where MIN wins", ["B", "B1", "B1b"], "min", [
        (Fraction(3), 7), (Fraction(5, 2), 4), (Fraction(1), 2)])


def backprop_cases(seed: str) -> list[BackpropCase]:
    """Return the fixed tests and the tests drawn for ``seed``."""
    cases = [public_backprop_test(),
             _fixed_tree_case("a drawn game", ["B", "B2"], None, [
                 (Fraction(4), 9), (Fraction(3, 2), 5)])]
    rng = tests_rng(seed, "mcts_backprop")
    for number in range(1, GENERATED_TESTS):
        cases.append(_drawn(rng, f"your path {number}", _tree_path))
    cases.append(_drawn(rng, f"your path {GENERATED_TESTS}", _tictactoe_path))
    return cases


def _tree_label(state: Hashable, actions: list[Any]) -> str:
    return str(state)


def _fixed_tree_case(name: str, actions: list[str], winner: str | None,
                     counts: list[tuple[Fraction, int]]) -> BackpropCase:
    game = TreeGame(parse_tree({"name": "root", "type": "max", "children": [
        {"name": "A", "type": "min", "value": 0, "children": [{"name": "A1", "value": 1}]},
        {"name": "B", "type": "min", "value": 0, "children": [
            {"name": "B1", "type": "max", "value": 0, "children": [
                {"name": "B1a", "value": 1}, {"name": "B1b", "value": -1}]},
            {"name": "B2", "value": 0}]},
    ]}))
    return backprop_case(name, game, "root", actions, counts, winner, _tree_label)


def _counts(rng: random.Random, length: int) -> list[tuple[Fraction, int]]:
    """Return shrinking visit counts down a path, rewards in halves up to the visits."""
    counts, visits = [], rng.randint(6, 20)
    for _ in range(length):
        counts.append((Fraction(rng.randint(0, 2 * visits), 2), visits))
        visits = rng.randint(1, max(1, visits - 1))
    return counts


def _tree_path(rng: random.Random, name: str) -> BackpropCase:
    """Return a path of three non-terminal nodes: the playout went on below the last."""
    raw = random_tree(rng, ("max", "min", "max", "min"), branching=(2, 3))
    game = TreeGame(parse_tree(raw))
    state, actions = "root", []
    for _ in range(3):
        action = rng.choice(list(game.actions(state)))
        actions.append(action)
        state = game.result(state, action)
    winner = rng.choice(["max", "min"])
    return backprop_case(name, game, "root", actions, _counts(rng, len(actions)), winner,
                         _tree_label)


def _tictactoe_label(state: Hashable, actions: list[Any]) -> str:
    return "after " + ", ".join(str(action) for action in actions)


def _tictactoe_path(rng: random.Random, name: str) -> BackpropCase:
    game = tictactoe.TicTacToe()
    root = tictactoe.EMPTY_BOARD
    for _ in range(2):
        root = game.result(root, rng.choice(list(game.actions(root))))
    state, actions = root, []
    for _ in range(rng.randint(3, 4)):
        if game.is_terminal(state):
            break
        action = rng.choice(list(game.actions(state)))
        actions.append(action)
        state = game.result(state, action)
    winner: str | None = rng.choice(["X", "O"])
    if game.is_terminal(state):
        # The game ended on the path: the result is the game's, not a playout's.
        utility = game.utility(state, "X")
        winner = None if utility == 0 else "X" if utility > 0 else "O"
    board = root.board.replace(" ", "_")
    title = f"{name}: tic-tac-toe from {board[:3]}/{board[3:6]}/{board[6:]}, squares 0-8"
    return backprop_case(title, game, root, actions, _counts(rng, len(actions)), winner,
                         _tictactoe_label)


def _drawn(rng: random.Random, name: str,
           draw: Callable[[random.Random, str], BackpropCase]) -> BackpropCase:
    """Return a drawn test where every mistake gives other statistics than the reference."""
    for _ in range(MAX_DRAWS):
        test = draw(rng, name)
        right = reference(test, DEFAULT_DRAW_REWARD)
        if all(reference(test, DEFAULT_DRAW_REWARD, movers(test)) != right
               for movers in MISTAKES.values()):
            return test
    return test


def _number(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        return None
    try:
        return Fraction(value)
    except (ValueError, OverflowError):
        return None


def _answer(returned: Any, length: int) -> list[tuple[Fraction, Fraction]] | None:
    """Return the student's ``[reward, visits]`` pairs as numbers, or None if malformed."""
    if not isinstance(returned, list | tuple) or len(returned) != length:
        return None
    pairs = []
    for pair in returned:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            return None
        reward, visits = _number(pair[0]), _number(pair[1])
        if reward is None or visits is None:
            return None
        pairs.append((reward, visits))
    return pairs


def grade_backprop(run: CaseRun, test: BackpropCase, draw_reward: Fraction) -> dict[str, Any]:
    """Return the report of one test: passed, wrong (first wrong node, mistake) or a verdict."""
    report = new_report(run)
    if run.verdict != "ok":
        return report
    length = len(test.names)
    answer = _answer(run.return_value, length)
    if answer is None:
        report["verdict"] = "wrong"
        report["messages"].append(message("backprop_shape", count=length,
                                          returned=shown(run.return_value)))
        return report
    right = reference(test, draw_reward)
    if _matches(answer, right):
        report.update(verdict="passed", score=1.0)
        return report
    report["verdict"] = "wrong"
    for n, ((reward, visits), (yours, your_visits)) in enumerate(
            zip(right, answer, strict=True), start=1):
        if not _matches([(yours, your_visits)], [(reward, visits)]):
            report["messages"].append(message(
                "backprop_differs", n=n, node=test.names[n - 1], yours=_shown(yours),
                your_visits=_shown(your_visits), reference=_shown(reward),
                reference_visits=visits))
            break
    codes = [code for code, movers in MISTAKES.items()
             if _matches(answer, reference(test, draw_reward, movers(test)))]
    report["misconceptions"] = codes
    report["messages"] += misconception_messages(codes)
    return report


def _matches(answer: list[tuple[Fraction, Fraction]],
             expected: list[tuple[Fraction, int]]) -> bool:
    """Return whether every node's reward (within :data:`TOLERANCE`) and visits agree."""
    return len(answer) == len(expected) and all(
        abs(yours - reward) <= TOLERANCE and your_visits == visits
        for (yours, your_visits), (reward, visits) in zip(answer, expected, strict=True))


def _shown(number: Fraction) -> str:
    if abs(number - round(number)) <= TOLERANCE:
        return str(round(number))
    return str(number) if number.denominator < 1000 else f"{float(number):.6g}"


def backprop_reports(source: str, entry_point: str, seed: str, limits: SandboxLimits,
                     budget: Budget, config: SandboxConfig | None,
                     params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Run the student's backpropagation on every test in one sandbox run and judge each."""
    tests = backprop_cases(seed)
    draw_reward = draw_reward_of(params or {})
    runs = run_cases(source, entry_point, [test.case for test in tests], limits=limits,
                     budget=budget, config=config)
    return [grade_backprop(run, test, draw_reward)
            for run, test in zip(runs, tests, strict=True)]


"""Run the reference engine on a hidden test, correctly or the way a misconception would.

A :class:`Trace` is what grading compares with the student's call log: the decision, the
value, the set of states generated and the order of states evaluated. Misconceptions are the
engine's own searches run with other conventions, another depth, another order, or on a
rewritten tree; their codes are the engine's (``engine.misconceptions``) where it names
them, so feedback explains them the same way for typed answers and for code.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from django.utils.translation import gettext_lazy as _

from engine.search.alphabeta import AlphaBetaConventions, alphabeta
from engine.search.minimax import minimax
from engine.search.ordering import reversed_order
from engine.search.trace import Exit, RecordingTracer
from grading.code.cases import SearchCase, tree_case

Algorithm = Literal["minimax", "alphabeta"]


@dataclass(frozen=True)
class Method:
    """How a search is run: the algorithm, its conventions, a depth shift, the child order.

    ``partial_ply`` cuts the opponent's levels one ply early, as that misconception does
    (:attr:`engine.search.common.Horizon.partial_ply`).
    """

    algorithm: Algorithm
    conventions: AlphaBetaConventions = AlphaBetaConventions()
    depth_shift: int = 0
    right_to_left: bool = False
    partial_ply: bool = False


@dataclass(frozen=True)
class Trace:
    """What a search did: its decision and value, the states it generated and evaluated.

    ``evaluated`` has consecutive repeats collapsed, so asking a leaf's utility twice in a
    row is not a different search; ``paths`` names each generated state by the moves from the
    root (feedback uses it for games whose states have no names); ``root_values`` lists each
    root move searched with the value its child returned, in search order.
    """

    move: Hashable | None
    value: Fraction
    generated: frozenset[Hashable]
    evaluated: tuple[Hashable, ...]
    paths: dict[Hashable, str]
    root_values: tuple[tuple[Hashable, Fraction], ...] = ()


def collapse_repeats(states: Iterator[Hashable] | list[Hashable]) -> tuple[Hashable, ...]:
    """Return ``states`` without consecutive duplicates."""
    collapsed: list[Hashable] = []
    for state in states:
        if not collapsed or collapsed[-1] != state:
            collapsed.append(state)
    return tuple(collapsed)


class _PathRecorder:
    """Wrap a game to name every state a search generates by the moves leading to it."""

    def __init__(self, game: Any, root: Hashable) -> None:
        self._game = game
        self._root = root
        self.paths: dict[Hashable, str] = {root: ""}
        self.root_moves: dict[Hashable, Hashable] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def result(self, state: Hashable, action: Hashable) -> Hashable:
        """Return the game's result, noting the moves that reach it."""
        child = self._game.result(state, action)
        if state == self._root:
            self.root_moves[child] = action
        if child not in self.paths:
            before = self.paths.get(state, "?")
            self.paths[child] = f"{before}, {action}" if before else f"after {action}"
        return child


def run_reference(case: SearchCase, method: Method) -> Trace:
    """Return the trace of ``method`` on ``case`` (the correct search or a misconception)."""
    tracer = RecordingTracer()
    game = _PathRecorder(case.game, case.root)
    depth = None if case.depth is None else max(case.depth + method.depth_shift, 0)
    options: dict[str, Any] = {
        "depth_limit": depth,
        "evaluator": case.evaluator if depth is not None else None,
        "order": reversed_order if method.right_to_left else None,
        "tracer": tracer,
        "partial_ply": method.partial_ply,
    }
    if method.algorithm == "alphabeta":
        result = alphabeta(game, case.root, conventions=method.conventions, **options)
    else:
        result = minimax(game, case.root, **options)
    entered = tracer.entered()
    # Two-player games: every value is a number, never a vector.
    root_values = tuple((game.root_moves[event.state], Fraction(event.value))  # type: ignore[arg-type]
                        for event in tracer.events
                        if isinstance(event, Exit) and event.depth == 1)
    return Trace(
        move=result.move,
        value=Fraction(result.value),
        generated=frozenset(entered[1:]),
        evaluated=collapse_repeats(tracer.evaluated()),
        paths=game.paths,
        root_values=root_values,
    )


@dataclass(frozen=True)
class Misconception:
    """A named wrong way to search: its code and how to run it on a case (None: n/a)."""

    code: str
    run: Callable[[SearchCase, Method], Trace | None]


def _with_depth_shift(shift: int) -> Callable[[SearchCase, Method], Trace | None]:
    def run(case: SearchCase, method: Method) -> Trace | None:
        if case.depth is None:
            return None
        return run_reference(case, replace(method, depth_shift=shift))

    return run


def _partial_ply(case: SearchCase, method: Method) -> Trace | None:
    """Return the search that stops after MAX's move without the opponent's reply.

    The student counts a ply as a full move pair ending with MAX's move: below a depth
    limit, a state where the opponent is to move is evaluated one ply early (at ``depth - 1``
    plies below the root) instead of being expanded, while MAX's states are cut at ``depth``
    as they should be. Only depth-limited searches can make this mistake.
    """
    if case.depth is None or case.depth < 1:
        return None
    return run_reference(case, replace(method, partial_ply=True))


class _HorizonBeforeTerminal:
    """Wrap a game so that a terminal state at the depth limit reads as not terminal: the
    search then scores it with the evaluation function, as a student testing the depth
    limit before ``game.is_terminal`` does.

    A state's depth is that of the state it was first generated from plus one; in the test
    games a position is always the same number of plies below the root.
    """

    def __init__(self, game: Any, root: Hashable, limit: int) -> None:
        self._game = game
        self._limit = limit
        self._depths: dict[Hashable, int] = {root: 0}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def result(self, state: Hashable, action: Hashable) -> Hashable:
        """Return the game's result, noting its depth."""
        child = self._game.result(state, action)
        self._depths.setdefault(child, self._depths.get(state, 0) + 1)
        return child

    def is_terminal(self, state: Hashable) -> bool:
        """Return the game's terminal test, false at the depth limit."""
        return self._depths.get(state, 0) < self._limit and bool(self._game.is_terminal(state))


def _terminal_tested_after_depth(case: SearchCase, method: Method) -> Trace | None:
    if case.depth is None or case.evaluator is None:
        return None
    limit = max(case.depth + method.depth_shift, 0)
    game = _HorizonBeforeTerminal(case.game, case.root, limit)
    return run_reference(replace(case, game=game), method)


def _right_to_left(case: SearchCase, method: Method) -> Trace | None:
    return run_reference(case, replace(method, right_to_left=True))


def _with_conventions(**changes: bool) -> Callable[[SearchCase, Method], Trace | None]:
    def run(case: SearchCase, method: Method) -> Trace | None:
        if method.algorithm != "alphabeta":
            return None
        return run_reference(case, replace(method, conventions=replace(method.conventions,
                                                                        **changes)))

    return run


def _without_pruning(case: SearchCase, method: Method) -> Trace | None:
    if method.algorithm != "alphabeta":
        return None
    return run_reference(case, replace(method, algorithm="minimax"))


def _last_best_move(case: SearchCase, method: Method) -> Trace | None:
    """Return the correct search, except that a later equally good root move wins."""
    correct = run_reference(case, method)
    best = [move for move, value in correct.root_values if value == correct.value]
    return replace(correct, move=best[-1]) if best else None


def _rewritten_tree(rewrite: Callable[[dict[str, Any]], None]
                    ) -> Callable[[SearchCase, Method], Trace | None]:
    def run(case: SearchCase, method: Method) -> Trace | None:
        if case.tree is None:
            return None
        raw = copy.deepcopy(case.tree)
        for node in _nodes(raw):
            rewrite(node)
        return run_reference(tree_case(case.name, raw, case.depth), method)

    return run


def _nodes(raw: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield raw
    for child in raw.get("children", ()):
        yield from _nodes(child)


def _unweighted(node: dict[str, Any]) -> None:
    if node.get("type") == "chance":
        node["probabilities"] = [f"1/{len(node['children'])}"] * len(node["children"])


def _chance_as_min(node: dict[str, Any]) -> None:
    if node.get("type") == "chance":
        node["type"] = "min"
        node.pop("probabilities")
        node["value"] = 0


def _all_max(node: dict[str, Any]) -> None:
    if node.get("type") in ("min", "chance"):
        node["type"] = "max"
        node.pop("probabilities", None)
        node.setdefault("value", 0)


MISCONCEPTIONS: tuple[Misconception, ...] = (
    Misconception("no_cut_on_equality", _with_conventions(cut_on_equality=False)),
    Misconception("root_alpha_not_raised", _with_conventions(root_raises_alpha=False)),
    Misconception("cut_on_equality_not_asked", _with_conventions(cut_on_equality=True)),
    Misconception("root_alpha_raised_not_asked", _with_conventions(root_raises_alpha=True)),
    Misconception("no_pruning", _without_pruning),
    Misconception("depth_off_by_one", _with_depth_shift(-1)),
    Misconception("depth_one_ply_too_deep", _with_depth_shift(1)),
    Misconception("partial_ply", _partial_ply),
    Misconception("terminal_tested_after_depth", _terminal_tested_after_depth),
    Misconception("right_to_left", _right_to_left),
    Misconception("last_best_move", _last_best_move),
    Misconception("chance_unweighted_average", _rewritten_tree(_unweighted)),
    Misconception("chance_as_min", _rewritten_tree(_chance_as_min)),
    Misconception("largest_leaf_branch", _rewritten_tree(_all_max)),
)
"""The mistakes code grading recognises, tried in this order.

The first eight are alpha-beta's (the conventions' four only where the item's conventions
make them a mistake);
the chance ones only change trees that have chance nodes.
"""


CODE_EXPLANATIONS: dict[str, Any] = {
    "depth_one_ply_too_deep": _("You searched one ply deeper than the depth limit: depth "
                                "counts plies from 0 at the root, and states at the limit are "
                                "evaluated."),
    "partial_ply": _("You stopped after your own move without the opponent's reply: you "
                     "evaluated states where the opponent is to move one ply before the depth "
                     "limit. Every ply counts, MAX's and MIN's alike: a state is evaluated only "
                     "when it is depth plies below the root."),
    "terminal_tested_after_depth": _(
        "A finished game at the depth limit was scored with game.evaluate, as happens when the "
        "depth limit is tested before game.is_terminal. Test game.is_terminal first: a "
        "terminal state is worth its utility at any depth."),
    "right_to_left": _("You searched the children right to left; search them in the order "
                       "game.actions gives them."),
    "last_best_move": _("You kept the last of equally good root moves: a later child replaces "
                        "the best only if it is strictly better."),
    "ucb1_without_exploration": _("You chose by win rate alone: UCB1 adds the exploration term "
                                  "c·sqrt(ln(N) / n)."),
    "mcts_credit_wrong_player": _("You credited each node's reward to the player to move "
                                  "there; it belongs to the player who moved into it, the "
                                  "one to move at its parent."),
    "selected_most_visited": _("You descended to the most visited child: that is how the move "
                               "is finally played, not how selection chooses."),
}
"""What code items tell the student for the mistakes only they diagnose, or in their own
words (``right_to_left`` names ``game.actions``); the others are explained by
:func:`grading.feedback.misconception_text`."""


def explain(code: str) -> str:
    """Return what misconception ``code`` tells the student."""
    from grading.feedback import misconception_text

    if code in CODE_EXPLANATIONS:
        return str(CODE_EXPLANATIONS[code])
    return misconception_text(code)


def misconception_traces(case: SearchCase, method: Method, correct: Trace) -> dict[str, Trace]:
    """Return code → trace of every misconception that changes what the search does here."""
    traces: dict[str, Trace] = {}
    for misconception in MISCONCEPTIONS:
        if not _applies(misconception.code, method):
            continue
        trace = misconception.run(case, method)
        if trace is not None and _differs(trace, correct):
            traces[misconception.code] = trace
    return traces


def _applies(code: str, method: Method) -> bool:
    """Return whether ``code`` is a mistake under ``method``'s conventions (not the rule)."""
    if code == "no_cut_on_equality":
        return method.conventions.cut_on_equality
    if code == "root_alpha_not_raised":
        return method.conventions.root_raises_alpha
    if code == "cut_on_equality_not_asked":
        return not method.conventions.cut_on_equality
    if code == "root_alpha_raised_not_asked":
        return not method.conventions.root_raises_alpha
    return True


def _differs(trace: Trace, correct: Trace) -> bool:
    return (trace.move, trace.value, trace.generated, trace.evaluated) != (
        correct.move, correct.value, correct.generated, correct.evaluated)

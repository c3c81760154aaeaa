"""Iterative deepening alpha-beta with an optional budget.

Each iteration searches one ply deeper than the last, sharing a transposition table so the
previous best moves are tried first. When the budget runs out mid-iteration, that iteration
is abandoned and the deepest completed one decides.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic

from engine.game import ActionT, Evaluator, Game, StateT, Utility
from engine.search.alphabeta import STANDARD, AlphaBetaConventions, alphabeta
from engine.search.common import Order, SearchResult, TerminalValue
from engine.search.trace import Bound, NodeCounter, NullTracer, TeeTracer, Tracer
from engine.search.ttable import TranspositionTable

Budget = Callable[[], bool]
"""Called once per node entered; returns True once the search must stop."""


def node_budget(limit: int) -> Budget:
    """Return a budget that runs out after ``limit`` nodes are entered."""
    entered = 0

    def spent() -> bool:
        nonlocal entered
        entered += 1
        return entered > limit

    return spent


def time_budget(seconds: float, clock: Callable[[], float] = time.monotonic) -> Budget:
    """Return a budget that runs out ``seconds`` after this call, as measured by ``clock``."""
    deadline = clock() + seconds
    return lambda: clock() > deadline


class _OutOfBudget(Exception):
    """Abandon the current iteration."""


class _Watch(NullTracer):
    """Consult the budget on every node entered."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget

    def enter(self, state: Hashable, depth: int, alpha: Bound, beta: Bound) -> None:
        """Stop the search when the budget is spent."""
        if self.budget():
            raise _OutOfBudget


class _Flagging(Generic[StateT]):
    """Wrap an evaluator to note whether the search called it."""

    def __init__(self, evaluator: Evaluator[StateT]) -> None:
        self.evaluator = evaluator
        self.used = False

    def __call__(self, state: StateT, player: str) -> Utility:
        """Return the wrapped evaluator's estimate."""
        self.used = True
        return self.evaluator(state, player)


@dataclass(frozen=True)
class Iteration(Generic[ActionT]):
    """Record one completed iteration: its depth, result and nodes entered below the root."""

    depth: int
    result: SearchResult[ActionT]
    nodes: int


@dataclass(frozen=True)
class DeepeningResult(Generic[ActionT]):
    """Hold the deepest completed iteration's answer and every completed iteration.

    ``complete`` is True when that iteration reached the end of the game everywhere (no
    evaluator call), so its value is exact.
    """

    value: Utility
    move: ActionT | None
    principal_variation: tuple[ActionT, ...]
    depth: int
    complete: bool
    iterations: tuple[Iteration[ActionT], ...]


def iterative_deepening(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    evaluator: Evaluator[StateT],
    max_depth: int | None = None,
    budget: Budget | None = None,
    conventions: AlphaBetaConventions = STANDARD,
    max_player: str | None = None,
    order: Order[StateT, ActionT] | None = None,
    table: TranspositionTable[ActionT] | None = None,
    tracer: Tracer | None = None,
    terminal_value: TerminalValue | None = None,
) -> DeepeningResult[ActionT]:
    """Return the result of alpha-beta at depths 1, 2, ... up to ``max_depth``.

    Stops after ``max_depth``, when an iteration needed no evaluation (the game tree was
    searched to the end), or when ``budget`` runs out. The first iteration ignores the
    budget so there is always a move. ``table`` (a fresh one by default) is shared by all
    iterations.
    """
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, got {max_depth}")
    table = table if table is not None else TranspositionTable()
    done: list[Iteration[ActionT]] = []
    complete = False
    depth = 0
    while not complete and (max_depth is None or depth < max_depth):
        depth += 1
        estimate = _Flagging(evaluator)
        counter = NodeCounter()
        watchers: Sequence[Tracer] = (
            [_Watch(budget)] if budget is not None and done else []
        )
        try:
            result = alphabeta(
                game, state, conventions=conventions, max_player=max_player, depth_limit=depth,
                evaluator=estimate, order=order, table=table, terminal_value=terminal_value,
                tracer=TeeTracer(counter, *watchers, *([tracer] if tracer else [])),
            )
        except _OutOfBudget:
            break
        done.append(Iteration(depth, result, counter.nodes))
        complete = not estimate.used
    last = done[-1].result
    return DeepeningResult(
        last.value, last.move, last.principal_variation, done[-1].depth, complete, tuple(done)
    )

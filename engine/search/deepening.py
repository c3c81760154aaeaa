"""Iterative deepening alpha-beta with an optional budget.

Each iteration searches one ply deeper than the last and tries the previous iteration's best
moves first: by default through a shared transposition table (at every node it stored), or,
for exercises worked by hand, only at the root (``reuse="root"``, no table) or not at all
(``reuse="none"``). When the budget runs out mid-iteration, that iteration is abandoned and
the deepest completed one decides.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal

from engine.game import ActionT, Evaluator, Game, StateT, Utility
from engine.search.alphabeta import STANDARD, AlphaBetaConventions, alphabeta
from engine.search.common import Order, SearchResult, TerminalValue, ordered
from engine.search.trace import Bound, NodeCounter, NullTracer, TeeTracer, Tracer
from engine.search.ttable import TranspositionTable

Budget = Callable[[], bool]
"""Called once per node entered; returns True once the search must stop."""

Reuse = Literal["table", "root", "none"]
"""What iteration d keeps of iteration d-1: a shared transposition table (its best move first
at every node it stored), the best root move only (searched first, the other root moves and
every other node in the given order), or nothing."""
REUSES: tuple[Reuse, ...] = ("table", "root", "none")


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
    """Record one completed iteration: its depth, result, nodes entered below the root and
    evaluations (leaves and depth-limit estimates scored)."""

    depth: int
    result: SearchResult[ActionT]
    nodes: int
    evaluations: int


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
    reuse: Reuse = "table",
    tracer: Tracer | None = None,
    terminal_value: TerminalValue | None = None,
) -> DeepeningResult[ActionT]:
    """Return the result of alpha-beta at depths 1, 2, ... up to ``max_depth``.

    Stops after ``max_depth``, when an iteration needed no evaluation (the game tree was
    searched to the end), or when ``budget`` runs out. The first iteration ignores the
    budget so there is always a move. With ``reuse="table"``, ``table`` (a fresh one by
    default) is shared by all iterations; the other reuses take no table (see :data:`Reuse`).
    """
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, got {max_depth}")
    if reuse not in REUSES:
        raise ValueError(f"reuse must be one of {', '.join(REUSES)}, got {reuse!r}")
    if reuse != "table" and table is not None:
        raise ValueError(f'a table is only shared with reuse="table", not {reuse!r}')
    if reuse == "table" and table is None:
        table = TranspositionTable()
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
        previous = done[-1].result.move if done and reuse == "root" else None
        try:
            result = alphabeta(
                game, state, conventions=conventions, max_player=max_player, depth_limit=depth,
                evaluator=estimate, order=_first_at(state, previous, order), table=table,
                terminal_value=terminal_value,
                tracer=TeeTracer(counter, *watchers, *([tracer] if tracer else [])),
            )
        except _OutOfBudget:
            break
        done.append(Iteration(depth, result, counter.nodes, counter.leaves))
        complete = not estimate.used
    last = done[-1].result
    return DeepeningResult(
        last.value, last.move, last.principal_variation, done[-1].depth, complete, tuple(done)
    )


def _first_at(
    root: StateT, move: ActionT | None, order: Order[StateT, ActionT] | None
) -> Order[StateT, ActionT] | None:
    """Return ``order`` with ``move`` tried first at ``root`` (``order`` itself without a move)."""
    if move is None:
        return order

    def first(state: StateT, actions: Sequence[ActionT]) -> Sequence[ActionT]:
        ranked = ordered(order, state, actions)
        if state != root or move not in ranked:
            return ranked
        return [move, *(action for action in ranked if action != move)]

    return first

"""Minimax and negamax over any :class:`engine.game.Game`, optionally depth-limited.

Chance nodes are averaged with their exact probabilities, so :func:`minimax` is also
expectiminimax (:mod:`engine.search.chance` names it so). Ties go to the leftmost child in
search order.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeAlias, cast

from engine.errors import GameError
from engine.game import (
    CHANCE,
    ActionT,
    Evaluator,
    Game,
    StateT,
    Utility,
    as_utility,
    scored_successor_function,
    terminal_utility_function,
)
from engine.search.common import (
    Horizon,
    Order,
    SearchResult,
    TerminalValue,
    ordered,
    root_player,
)
from engine.search.trace import (
    NEG_INF,
    POS_INF,
    BulkCount,
    NullTracer,
    Tracer,
    bulk_count,
    listens,
)


def minimax(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    max_player: str | None = None,
    depth_limit: int | None = None,
    evaluator: Evaluator[StateT] | None = None,
    order: Order[StateT, ActionT] | None = None,
    tracer: Tracer | None = None,
    terminal_value: TerminalValue | None = None,
    partial_ply: bool = False,
) -> SearchResult[ActionT]:
    """Return the minimax value, leftmost best move and principal variation of ``state``.

    ``max_player`` (default: the player to move at ``state``) maximises its utility; every
    other player minimises it; chance nodes take the probability-weighted average. With
    ``depth_limit``, a non-terminal state ``depth_limit`` plies below the root is scored by
    ``evaluator``; terminal states always keep their exact utility (rescored by
    ``terminal_value``, e.g. :func:`engine.search.common.depth_scored`). Every node is
    reported to ``tracer`` with the window (-inf, inf). ``partial_ply`` searches the way that
    misconception does (see :attr:`engine.search.common.Horizon.partial_ply`).

    Without a depth limit, move order or terminal rescoring, and with a tracer that only
    counts (see :func:`engine.search.trace.bulk_count`), the same search runs in a tighter
    loop: it uses the game's optional ``scored_successors`` and ``terminal_utilities`` (see
    :class:`engine.game.Expanding`) and reports its node and leaf totals in one ``count``.
    It visits the same nodes in the same order and returns the same result.
    """
    player = root_player(game, state, max_player)
    tracer = tracer or NullTracer()
    count = bulk_count(tracer)
    if count is not None and depth_limit is None and order is None and terminal_value is None:
        return _counted_minimax(game, state, player, count)
    search = _Minimax(
        game,
        player,
        Horizon(depth_limit, evaluator, terminal_value, partial_ply),
        order,
        tracer,
        listens(tracer, "exit"),
    )
    value, line = search.value(state, 0)
    return SearchResult(value, line[0] if line else None, line)


_Line: TypeAlias = "tuple[Hashable, _Line] | None"
"""A line of actions as nested pairs ``(first action, rest of the line)``, built without copying."""


def _counted_minimax(
    game: Game[StateT, ActionT], root: StateT, max_player: str, count: BulkCount
) -> SearchResult[ActionT]:
    """Search the whole tree below ``root`` as :class:`_Minimax` does, counting in bulk.

    Every node is visited: the game gives each parent's children with their terminal
    utilities (None for a non-terminal child), and each non-terminal child is searched in
    turn. The node and leaf totals go to ``count`` once, when the search ends (also when it
    ends in an error; then they may include children of the failing parents not yet reached,
    since a parent's children are counted as it is expanded).
    """
    successors = scored_successor_function(game, max_player)
    terminal = terminal_utility_function(game, max_player)
    to_move, result, chance_outcomes = game.to_move, game.result, game.chance_outcomes
    nodes = 0  # entered below the root
    expanded = 0  # not leaves (the root included)

    def value(state: StateT) -> tuple[Utility, _Line]:
        """Return non-terminal ``state``'s value and its best line (None at a chance node)."""
        nonlocal nodes, expanded
        expanded += 1
        mover = to_move(state)
        best: Utility | None = None
        line: _Line = None
        below: _Line
        if mover == max_player:
            children = successors(state)
            nodes += len(children)
            for action, child, found in children:
                if found is None:
                    found, below = value(child)
                else:
                    below = None
                if best is None or found > best:
                    best, line = found, (action, below)
        elif mover != CHANCE:
            children = successors(state)
            nodes += len(children)
            for action, child, found in children:
                if found is None:
                    found, below = value(child)
                else:
                    below = None
                if best is None or found < best:
                    best, line = found, (action, below)
        else:
            total = Fraction(0)
            for action, p in chance_outcomes(state):
                nodes += 1
                child = result(state, action)
                found = terminal(child)
                total += p * (value(child)[0] if found is None else found)
            return as_utility(total), None
        if best is None:
            raise GameError(f"non-terminal state {state!r} has no legal actions")
        return best, line

    try:
        at_root = terminal(root)
        if at_root is not None:
            return SearchResult(at_root, None, ())
        best, line = value(root)
    finally:
        count(nodes, nodes + 1 - expanded)
    actions: list[ActionT] = []
    while line is not None:
        action, line = line
        actions.append(cast(ActionT, action))
    return SearchResult(best, actions[0] if actions else None, tuple(actions))


@dataclass(frozen=True)
class _Minimax(Generic[StateT, ActionT]):
    game: Game[StateT, ActionT]
    max_player: str
    horizon: Horizon[StateT]
    order: Order[StateT, ActionT] | None
    tracer: Tracer
    exits: bool = True
    """Whether to send ``exit`` events (not to a tracer that ignores them)."""

    def value(self, state: StateT, depth: int) -> tuple[Utility, tuple[ActionT, ...]]:
        """Return ``state``'s value and the best line of actions below it."""
        game, tracer = self.game, self.tracer
        tracer.enter(state, depth, NEG_INF, POS_INF)
        stop = self.horizon.stop_value(game, state, depth, self.max_player)
        if stop is not None:
            tracer.leaf(state, depth, stop)
            if self.exits:
                tracer.exit(state, depth, stop, None)
            return stop, ()
        mover = game.to_move(state)
        best: Utility
        line: tuple[ActionT, ...] = ()
        if mover == CHANCE:
            # The line stops here: no player chooses the outcome.
            best = as_utility(sum(
                (p * self.value(game.result(state, a), depth + 1)[0]
                 for a, p in game.chance_outcomes(state)),
                start=Fraction(0),
            ))
        else:
            maximising = mover == self.max_player
            found: Utility | None = None
            for action in ordered(self.order, state, game.actions(state)):
                value, below = self.value(game.result(state, action), depth + 1)
                if found is None or (value > found if maximising else value < found):
                    found, line = value, (action, *below)
            if found is None:
                raise GameError(f"non-terminal state {state!r} has no legal actions")
            best = found
        if self.exits:
            tracer.exit(state, depth, best, None)
        return best, line


def negamax(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    player: str | None = None,
    depth_limit: int | None = None,
    evaluator: Evaluator[StateT] | None = None,
    order: Order[StateT, ActionT] | None = None,
    tracer: Tracer | None = None,
    terminal_value: TerminalValue | None = None,
) -> SearchResult[ActionT]:
    """Return the negamax value of ``state`` for ``player`` (default: the player to move).

    Sign convention: a node's value is from the point of view of the player to move there
    (a terminal's from its parent's mover). A child's value is negated when the turn passes
    to the other player and kept when the same player moves again, so this equals minimax
    with ``max_player=player`` on two-player zero-sum games (``utility(s, a) ==
    -utility(s, b)``). Chance nodes are not supported. Options are as for :func:`minimax`;
    ``tracer`` sees each node's value from its own mover's point of view.
    """
    search = _Negamax(
        game, Horizon(depth_limit, evaluator, terminal_value), order, tracer or NullTracer()
    )
    value, line = search.value(state, 0, root_player(game, state, player))
    return SearchResult(value, line[0] if line else None, line)


@dataclass(frozen=True)
class _Negamax(Generic[StateT, ActionT]):
    game: Game[StateT, ActionT]
    horizon: Horizon[StateT]
    order: Order[StateT, ActionT] | None
    tracer: Tracer

    def value(
        self, state: StateT, depth: int, player: str
    ) -> tuple[Utility, tuple[ActionT, ...]]:
        """Return ``state``'s value for ``player`` and the best line below it."""
        game, tracer = self.game, self.tracer
        tracer.enter(state, depth, NEG_INF, POS_INF)
        stop = self.horizon.stop_value(game, state, depth, player)
        if stop is not None:
            tracer.leaf(state, depth, stop)
            tracer.exit(state, depth, stop, None)
            return stop, ()
        if game.to_move(state) != player:
            raise GameError(f"negamax expected {player!r} to move at {state!r}")
        best: Utility | None = None
        line: tuple[ActionT, ...] = ()
        for action in ordered(self.order, state, game.actions(state)):
            child = game.result(state, action)
            if game.is_terminal(child) or game.to_move(child) == player:
                value, below = self.value(child, depth + 1, player)
            else:
                mover = game.to_move(child)
                if mover == CHANCE:
                    raise GameError("negamax does not handle chance nodes; use expectiminimax")
                value, below = self.value(child, depth + 1, mover)
                value = -value
            if best is None or value > best:
                best, line = value, (action, *below)
        if best is None:
            raise GameError(f"non-terminal state {state!r} has no legal actions")
        tracer.exit(state, depth, best, None)
        return best, line

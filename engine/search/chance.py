"""Games with chance nodes: expectiminimax, expectimax, and alpha-beta through chance nodes.

All arithmetic is exact: probabilities are fractions and so are the values they weight.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Generic

from engine.game import CHANCE, ActionT, Evaluator, Game, StateT, Utility
from engine.search.alphabeta import STANDARD, AlphaBetaConventions, alphabeta
from engine.search.common import Order, SearchResult, TerminalValue, root_player
from engine.search.minimax import minimax
from engine.search.trace import Tracer


def expectiminimax(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    max_player: str | None = None,
    depth_limit: int | None = None,
    evaluator: Evaluator[StateT] | None = None,
    order: Order[StateT, ActionT] | None = None,
    tracer: Tracer | None = None,
    terminal_value: TerminalValue | None = None,
) -> SearchResult[ActionT]:
    """Return the expectiminimax value of ``state``: MAX maximises, MIN minimises, chance averages.

    This is :func:`engine.search.minimax.minimax`, which weights chance outcomes by their
    exact probabilities; the line stops at the first chance node.
    """
    return minimax(
        game, state, max_player=max_player, depth_limit=depth_limit, evaluator=evaluator,
        order=order, tracer=tracer, terminal_value=terminal_value,
    )


class UniformOpponents(Generic[StateT, ActionT]):
    """Present ``game`` with every player but ``max_player`` turned into a uniform chance node.

    This is the opponent model of expectimax: the other players are assumed to pick each
    legal move with equal probability.
    """

    def __init__(self, game: Game[StateT, ActionT], max_player: str) -> None:
        self.game = game
        self.max_player = max_player

    def to_move(self, state: StateT) -> str:
        """Return ``max_player`` where it moves, :data:`CHANCE` everywhere else."""
        mover = self.game.to_move(state)
        return mover if mover == self.max_player else CHANCE

    def actions(self, state: StateT) -> Sequence[ActionT]:
        """Return the game's actions."""
        return self.game.actions(state)

    def result(self, state: StateT, action: ActionT) -> StateT:
        """Return the game's result."""
        return self.game.result(state, action)

    def is_terminal(self, state: StateT) -> bool:
        """Return the game's terminal test."""
        return self.game.is_terminal(state)

    def utility(self, state: StateT, player: str) -> Utility:
        """Return the game's utility."""
        return self.game.utility(state, player)

    def chance_outcomes(self, state: StateT) -> Sequence[tuple[ActionT, Fraction]]:
        """Return real chance outcomes, or every opponent move with equal probability."""
        if self.game.to_move(state) == CHANCE:
            return self.game.chance_outcomes(state)
        actions = self.game.actions(state)
        return [(action, Fraction(1, len(actions))) for action in actions]


def expectimax(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    max_player: str | None = None,
    depth_limit: int | None = None,
    evaluator: Evaluator[StateT] | None = None,
    order: Order[StateT, ActionT] | None = None,
    tracer: Tracer | None = None,
    terminal_value: TerminalValue | None = None,
) -> SearchResult[ActionT]:
    """Return the expectimax value of ``state``: ``max_player`` maximises, everyone else is random.

    Opponents' moves are averaged uniformly (:class:`UniformOpponents`); real chance nodes
    keep their probabilities. ``max_player`` defaults to the player to move at ``state``.
    """
    player = root_player(game, state, max_player)
    return minimax(
        UniformOpponents(game, player), state, max_player=player, depth_limit=depth_limit,
        evaluator=evaluator, order=order, tracer=tracer, terminal_value=terminal_value,
    )


def expectiminimax_alphabeta(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    utility_bounds: tuple[Utility, Utility],
    conventions: AlphaBetaConventions = STANDARD,
    max_player: str | None = None,
    depth_limit: int | None = None,
    evaluator: Evaluator[StateT] | None = None,
    order: Order[StateT, ActionT] | None = None,
    tracer: Tracer | None = None,
) -> SearchResult[ActionT]:
    """Return the expectiminimax value of ``state``, pruning at chance nodes with known bounds.

    Every utility (and estimate) must lie in ``utility_bounds = (L, U)``. After seeing
    outcomes with total probability ``P`` and weighted sum ``S``, a chance node is worth at
    least ``S + (1 - P) * L`` and at most ``S + (1 - P) * U``; once that range lies outside
    the window (alpha, beta) the remaining outcomes are skipped and reported to ``tracer`` as a
    cutoff. MAX and MIN nodes prune as in alpha-beta (``*-minimax``, Ballard's Star1).
    """
    return alphabeta(
        game, state, conventions=conventions, max_player=max_player, depth_limit=depth_limit,
        evaluator=evaluator, order=order, tracer=tracer, utility_bounds=utility_bounds,
    )

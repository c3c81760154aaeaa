"""The pieces every search shares: results, move orderings and the search horizon."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from engine.errors import GameError
from engine.game import CHANCE, ActionT, Evaluator, Game, StateT, Utility

S = TypeVar("S", bound=Hashable)
A = TypeVar("A", bound=Hashable)

Order = Callable[[S, Sequence[A]], Sequence[A]]
"""Reorder a state's legal actions for searching: ``order(state, actions) -> actions``."""

TerminalValue = Callable[[Utility, int], Utility]
"""Rescore a terminal utility found ``depth`` plies below the root (see :func:`depth_scored`)."""


@dataclass(frozen=True)
class SearchResult(Generic[ActionT]):
    """Hold the outcome of a two-player search from the root's maximising player's point of view.

    ``move`` is the leftmost best root action (``None`` at a terminal or chance root);
    ``principal_variation`` lists the actions from the root along best play, stopping at a
    chance node or at the horizon.
    """

    value: Utility
    move: ActionT | None
    principal_variation: tuple[ActionT, ...]


def depth_scored(win: int = 100) -> TerminalValue:
    """Return a terminal rescoring that prefers quick wins and slow losses.

    A win found ``d`` plies below the root scores ``win - d``, a loss ``-(win - d)``, a draw 0.
    """

    def rescore(utility: Utility, depth: int) -> Utility:
        if utility > 0:
            return win - depth
        if utility < 0:
            return depth - win
        return 0

    return rescore


@dataclass(frozen=True)
class Horizon(Generic[StateT]):
    """Decide where a search stops: terminal states first, then the depth cutoff."""

    depth_limit: int | None = None
    evaluator: Evaluator[StateT] | None = None
    terminal_value: TerminalValue | None = None
    partial_ply: bool = False
    """Search as the *partial ply* misconception does (grading reproduces it; never a rule).

    A student who thinks a ply ends once MAX has moved stops before the opponent's reply: a
    non-terminal state where an opponent of the maximising player is to move is estimated
    already at ``depth_limit - 1`` plies, while MAX's and chance levels stop at
    ``depth_limit`` as they should. The search is cut one level early on MIN levels only (in a
    strictly alternating game: at even limits it is depth − 1, at odd ones it is correct).
    """

    def __post_init__(self) -> None:
        if self.depth_limit is not None and self.evaluator is None:
            raise ValueError("a depth limit needs an evaluator for the states it cuts off")
        if self.depth_limit is not None and self.depth_limit < 0:
            raise ValueError(f"depth_limit must be >= 0, got {self.depth_limit}")

    def stop_value(
        self, game: Game[StateT, ActionT], state: StateT, depth: int, player: str
    ) -> Utility | None:
        """Return ``player``'s value where the search stops at ``state``, or ``None`` to go on.

        Terminal states keep their exact utility (rescored by ``terminal_value`` if given);
        non-terminal states at ``depth >= depth_limit`` are estimated by the evaluator.
        """
        if game.is_terminal(state):
            utility = game.utility(state, player)
            if self.terminal_value is not None:
                return self.terminal_value(utility, depth)
            return utility
        if self.depth_limit is not None and depth >= self._limit_at(game, state, player):
            assert self.evaluator is not None  # checked in __post_init__
            return self.evaluator(state, player)
        return None

    def _limit_at(self, game: Game[StateT, ActionT], state: StateT, player: str) -> int:
        """Return the depth at which non-terminal ``state`` is cut off (see ``partial_ply``)."""
        assert self.depth_limit is not None
        if self.partial_ply and game.to_move(state) not in (player, CHANCE):
            return self.depth_limit - 1
        return self.depth_limit

    def remaining(self, depth: int) -> int | None:
        """Return how many more plies the search may go below ``depth`` (``None``: unlimited)."""
        return None if self.depth_limit is None else self.depth_limit - depth


def ordered(order: Order[S, A] | None, state: S, actions: Sequence[A]) -> Sequence[A]:
    """Return ``actions`` in search order: ``order``'s if given, else the game's own."""
    return actions if order is None else order(state, actions)


def root_player(game: Game[StateT, ActionT], state: StateT, player: str | None) -> str:
    """Return ``player``, or the player to move at the root when it is ``None``."""
    if player is not None:
        return player
    if game.is_terminal(state):
        raise GameError("the root is terminal: name the player whose value is wanted")
    mover = game.to_move(state)
    if mover == CHANCE:
        raise GameError("the root is a chance node: name the maximising player")
    return mover

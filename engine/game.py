"""The small game protocol every search algorithm in the engine runs over.

Explicit trees (``engine.tree``) and real games (``engine.games``) both implement
:class:`Game`, so one minimax, one alpha-beta, one expectiminimax serve both.
States must be hashable (transposition tables key on them) and immutable.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Protocol, TypeVar

Utility = int | Fraction
"""An exact utility. Floats never enter the engine's arithmetic."""

StateT = TypeVar("StateT", bound=Hashable)
ActionT = TypeVar("ActionT", bound=Hashable)
StateT_contra = TypeVar("StateT_contra", bound=Hashable, contravariant=True)



def as_utility(number: int | Fraction) -> Utility:
    """Return ``number`` as an ``int`` when it is integral, so equal values print alike."""
    if isinstance(number, Fraction) and number.denominator == 1:
        return number.numerator
    return number


CHANCE = "chance"
"""The pseudo-player returned by :meth:`Game.to_move` at chance nodes."""


class Game(Protocol[StateT, ActionT]):
    """Describe a finite, perfect-information game, possibly with chance moves."""

    def to_move(self, state: StateT) -> str:
        """Return the name of the player to move, or :data:`CHANCE` at a chance node."""
        ...

    def actions(self, state: StateT) -> Sequence[ActionT]:
        """Return the legal actions in the game's natural (search) order."""
        ...

    def result(self, state: StateT, action: ActionT) -> StateT:
        """Return the state reached by playing ``action`` in ``state``."""
        ...

    def is_terminal(self, state: StateT) -> bool:
        """Return whether the game is over in ``state``."""
        ...

    def utility(self, state: StateT, player: str) -> Utility:
        """Return the exact payoff of terminal ``state`` for ``player``."""
        ...

    def chance_outcomes(self, state: StateT) -> Sequence[tuple[ActionT, Fraction]]:
        """Return ``(action, probability)`` pairs at a chance node; probabilities sum to 1."""
        ...


class Evaluator(Protocol[StateT_contra]):
    """Estimate the value of a non-terminal state for ``player`` at a depth cutoff."""

    def __call__(self, state: StateT_contra, player: str) -> Utility:
        """Return the heuristic value of ``state`` from ``player``'s point of view."""
        ...

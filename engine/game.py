"""The small game protocol every search algorithm in the engine runs over.

Explicit trees (``engine.tree``) and real games (``engine.games``) both implement
:class:`Game`, so one minimax, one alpha-beta, one expectiminimax serve both.
States must be hashable (transposition tables key on them) and immutable.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any, Protocol, TypeVar

Utility = int | Fraction
"""An exact utility. Floats never enter the engine's arithmetic."""

StateT = TypeVar("StateT", bound=Hashable)
ActionT = TypeVar("ActionT", bound=Hashable)
StateT_contra = TypeVar("StateT_contra", bound=Hashable, contravariant=True)
ActionT_co = TypeVar("ActionT_co", bound=Hashable, covariant=True)


def as_utility(number: int | Fraction) -> Utility:
    """Return ``number`` as an ``int`` when it is integral, so equal values print alike."""
    if isinstance(number, Fraction) and number.denominator == 1:
        return number.numerator
    return number


CHANCE = "chance"
"""The pseudo-player returned by :meth:`Game.to_move` at chance nodes."""


class Game(Protocol[StateT, ActionT]):
    """Describe a finite, perfect-information game, possibly with chance moves.

    A game may also offer the optional methods of :class:`Expanding`, which some searches
    use for speed when present.
    """

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


Successors = Callable[[StateT], Sequence[tuple[ActionT, StateT]]]
"""Expand a state: its ``(action, child)`` pairs, actions in the game's natural order."""

TerminalUtility = Callable[[StateT], Utility | None]
"""Return a state's utility for one fixed player if it is terminal, else ``None``."""

ScoredSuccessors = Callable[[StateT], Sequence[tuple[ActionT, StateT, Utility | None]]]
"""Expand a state: ``(action, child, terminal utility of child or None)`` for one player."""


class Expanding(Protocol[StateT, ActionT_co]):
    """Optional :class:`Game` methods that let a search ask fewer, cheaper questions.

    A game may implement any of them; searches fall back on the plain protocol for those it
    lacks (see :func:`successor_function`, :func:`terminal_utility_function` and
    :func:`scored_successor_function`). Their answers must agree with the plain protocol's.
    A game that tabulates its positions can answer each with a single look-up
    (``engine.games.tictactoe`` does).
    """

    def successors(self, state: StateT) -> Sequence[tuple[ActionT_co, StateT]]:
        """Return ``(action, result(state, action))`` for every action, in search order.

        Only asked at non-chance states; may be asked of a terminal one (then no pairs).
        """
        ...

    def terminal_utilities(self, player: str) -> TerminalUtility[StateT]:
        """Return a function giving ``utility(state, player)`` at terminal states, else None.

        Asked once per search, so the function it returns may be a bound table look-up.
        """
        ...

    def scored_successors(self, player: str) -> ScoredSuccessors[StateT, ActionT_co]:
        """Return a function giving a non-chance state's successors with their utilities.

        For ``state`` it returns ``(action, child, terminal_utility(child))`` for each of
        ``successors(state)``, where ``terminal_utility`` is ``terminal_utilities(player)``.
        Asked once per search, like :meth:`terminal_utilities`.
        """
        ...


def successor_function(game: Game[StateT, ActionT]) -> Successors[StateT, ActionT]:
    """Return ``game.successors`` if the game has it, else one built on actions and result."""
    own: Successors[StateT, ActionT] | None = _optional(game, "successors")
    if own is not None:
        return own
    actions, result = game.actions, game.result

    def successors(state: StateT) -> Sequence[tuple[ActionT, StateT]]:
        return [(action, result(state, action)) for action in actions(state)]

    return successors


def terminal_utility_function(
    game: Game[StateT, ActionT], player: str
) -> TerminalUtility[StateT]:
    """Return ``game.terminal_utilities(player)`` if the game has it, else an equivalent.

    The fallback asks ``is_terminal`` and then ``utility``.
    """
    own: Callable[[str], TerminalUtility[StateT]] | None = _optional(game, "terminal_utilities")
    if own is not None:
        return own(player)
    is_terminal, utility = game.is_terminal, game.utility

    def terminal_utility(state: StateT) -> Utility | None:
        return utility(state, player) if is_terminal(state) else None

    return terminal_utility


def scored_successor_function(
    game: Game[StateT, ActionT], player: str
) -> ScoredSuccessors[StateT, ActionT]:
    """Return ``game.scored_successors(player)`` if the game has it, else an equivalent.

    The fallback pairs :func:`successor_function` with :func:`terminal_utility_function`.
    """
    own: Callable[[str], ScoredSuccessors[StateT, ActionT]] | None = _optional(
        game, "scored_successors"
    )
    if own is not None:
        return own(player)
    successors = successor_function(game)
    terminal = terminal_utility_function(game, player)

    def scored(state: StateT) -> Sequence[tuple[ActionT, StateT, Utility | None]]:
        return [(action, child, terminal(child)) for action, child in successors(state)]

    return scored


def _optional(game: object, name: str) -> Any:
    """Return the game's optional method ``name``, or None when it does not implement it."""
    return getattr(game, name, None)

"""Three-player take-away: a small game with vector payoffs for max^n.

Players A, B and C take turns, in that order, removing 1 to ``max_take`` stones from one
pile and keeping them. The game ends when the pile is empty; each player's payoff is the
number of stones they kept, and whoever took the last stone also gets ``bonus``. The payoffs
always sum to the pile plus the bonus, and the defaults (7 stones, takes of 1 or 2, bonus 2)
keep the tree small enough to check max^n by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import NamedTuple

from engine.errors import GameError

PLAYERS = ("A", "B", "C")


class TakeAwayState(NamedTuple):
    """Hold a position: stones left, stones each player has kept, index of the player to move."""

    pile: int
    kept: tuple[int, int, int]
    mover: int


class TakeAway:
    """Implement :class:`engine.game.Game` for three-player take-away; actions are stone counts."""

    players = PLAYERS

    def __init__(self, pile: int = 7, max_take: int = 2, bonus: int = 2) -> None:
        """Set up a pile of ``pile`` stones, takes of 1..``max_take``, ``bonus`` for the last."""
        if pile < 1 or max_take < 1 or bonus < 0:
            raise GameError(
                f"pile and max_take must be positive and bonus not negative, "
                f"got {pile}, {max_take}, {bonus}"
            )
        self.max_take = max_take
        self.bonus = bonus
        self.initial = TakeAwayState(pile, (0, 0, 0), 0)

    def to_move(self, state: TakeAwayState) -> str:
        """Return the name of the player to move: 'A', 'B' or 'C'."""
        return PLAYERS[state.mover]

    def actions(self, state: TakeAwayState) -> Sequence[int]:
        """Return the legal numbers of stones to take, smallest first."""
        return tuple(range(1, min(self.max_take, state.pile) + 1))

    def result(self, state: TakeAwayState, action: int) -> TakeAwayState:
        """Return the state after the player to move takes ``action`` stones."""
        if not 1 <= action <= min(self.max_take, state.pile):
            raise GameError(
                f"{PLAYERS[state.mover]} may take 1..{min(self.max_take, state.pile)} stones, "
                f"not {action!r}"
            )
        kept = list(state.kept)
        kept[state.mover] += action
        return TakeAwayState(
            state.pile - action, (kept[0], kept[1], kept[2]), (state.mover + 1) % len(PLAYERS)
        )

    def is_terminal(self, state: TakeAwayState) -> bool:
        """Return whether the pile is empty."""
        return state.pile == 0

    def utilities(self, state: TakeAwayState) -> tuple[int, int, int]:
        """Return every player's payoff at a terminal state, in the order A, B, C."""
        last = (state.mover - 1) % len(PLAYERS)
        a, b, c = (
            stones + (self.bonus if index == last else 0) for index, stones in enumerate(state.kept)
        )
        return (a, b, c)

    def utility(self, state: TakeAwayState, player: str) -> int:
        """Return ``player``'s payoff at a terminal state: stones kept, plus the bonus if last."""
        return self.utilities(state)[PLAYERS.index(player)]

    def chance_outcomes(self, state: TakeAwayState) -> Sequence[tuple[int, Fraction]]:
        """Return no outcomes: take-away has no chance nodes."""
        return ()

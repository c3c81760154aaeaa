"""Dice draft: a small two-player dice game for expectiminimax, with exact probabilities.

Each round two dice are rolled (a chance node with the 21 distinct unordered rolls). The
round's picker takes one of the two dice and the other player gets the other; MAX picks in
rounds 1, 3, 5, ... and MIN in rounds 2, 4, .... Each die taken adds its pips to that player's
total. A total above ``limit`` busts: one player busting loses (+1 or -1 for MAX), both
busting in the same round draw (0). After ``rounds`` rounds the higher total wins and equal
totals draw. With the defaults (3 rounds, limit 12) the picker often does better keeping the
low die, since the high one pushes a total towards the limit; the full tree has 75,982 nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from typing import NamedTuple

from engine.errors import GameError
from engine.game import CHANCE

MAX = "MAX"
MIN = "MIN"
PLAYERS = (MAX, MIN)

Roll = tuple[int, int]
"""An unordered roll of two dice, written low die first."""


@cache
def two_dice_rolls() -> tuple[tuple[Roll, Fraction], ...]:
    """Return the 21 distinct unordered rolls of two dice with their exact probabilities.

    Doubles such as (3, 3) come up one way in 36 (1/36); any other roll, written low die
    first such as (2, 5), comes up two ways (1/18). Rolls are in order (1, 1), (1, 2), ...,
    (6, 6); the probabilities sum to 1.
    """
    return tuple(
        ((low, high), Fraction(1 if low == high else 2, 36))
        for low in range(1, 7)
        for high in range(low, 7)
    )


_ROLLS = frozenset(roll for roll, _ in two_dice_rolls())


class DiceState(NamedTuple):
    """Hold a position: rounds played, both totals, and the roll awaiting a pick (or None)."""

    round: int
    max_total: int
    min_total: int
    roll: Roll | None = None


START = DiceState(0, 0, 0)


class DiceDraft:
    """Implement :class:`engine.game.Game` for dice draft.

    Actions at a chance node are rolls; at a decision node they are the pips of the die the
    picker keeps, high die first (a double offers one action).
    """

    players = PLAYERS

    def __init__(self, rounds: int = 3, limit: int = 12) -> None:
        """Set up a game of ``rounds`` rounds in which totals above ``limit`` bust."""
        if rounds < 1 or limit < 1:
            raise GameError(f"rounds and limit must be positive, got {rounds} and {limit}")
        self.rounds = rounds
        self.limit = limit
        self.initial = START

    def picker(self, round_index: int) -> str:
        """Return who picks in round ``round_index`` (0-based): MAX on even, MIN on odd."""
        return MAX if round_index % 2 == 0 else MIN

    def to_move(self, state: DiceState) -> str:
        """Return :data:`CHANCE` before the roll, else the round's picker."""
        return CHANCE if state.roll is None else self.picker(state.round)

    def actions(self, state: DiceState) -> Sequence[int | Roll]:
        """Return the rolls at a chance node, or the distinct dice to keep, high first."""
        if self.is_terminal(state):
            return ()
        if state.roll is None:
            return tuple(roll for roll, _ in two_dice_rolls())
        low, high = state.roll
        return (high,) if low == high else (high, low)

    def chance_outcomes(self, state: DiceState) -> Sequence[tuple[Roll, Fraction]]:
        """Return the 21 rolls with their probabilities at a chance node, else nothing."""
        if state.roll is not None or self.is_terminal(state):
            return ()
        return two_dice_rolls()

    def result(self, state: DiceState, action: int | Roll) -> DiceState:
        """Return the state after a roll (at a chance node) or after the picker keeps a die."""
        if self.is_terminal(state):
            raise GameError("the game is over: no more rolls or picks")
        if state.roll is None:
            if not isinstance(action, tuple) or action not in _ROLLS:
                raise GameError(f"{action!r} is not a roll (low, high) of two dice 1..6")
            return state._replace(roll=action)
        low, high = state.roll
        if isinstance(action, tuple) or action not in (low, high):
            raise GameError(f"the picker must keep one of the rolled dice {state.roll}")
        given = low + high - action
        if self.picker(state.round) == MAX:
            return DiceState(state.round + 1, state.max_total + action, state.min_total + given)
        return DiceState(state.round + 1, state.max_total + given, state.min_total + action)

    def is_terminal(self, state: DiceState) -> bool:
        """Return whether a total has busted or every round has been played."""
        return (
            state.round >= self.rounds
            or state.max_total > self.limit
            or state.min_total > self.limit
        )

    def utility(self, state: DiceState, player: str) -> Fraction:
        """Return +1 for ``player``'s win, -1 for a loss, 0 for a draw, as exact fractions."""
        max_bust = state.max_total > self.limit
        min_bust = state.min_total > self.limit
        if max_bust or min_bust:
            value = int(min_bust) - int(max_bust)
        else:
            value = (state.max_total > state.min_total) - (state.max_total < state.min_total)
        return Fraction(value if player == MAX else -value)

"""Named move orderings: the ``order`` callables ``(state, actions) -> actions`` searches accept.

Orderings only permute the legal actions; an action they don't mention keeps its place after
the ones they do, in the game's order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from engine.game import Game, Utility

S = TypeVar("S", bound=Hashable)
A = TypeVar("A", bound=Hashable)


def natural_order(state: Hashable, actions: Sequence[A]) -> Sequence[A]:
    """Return the actions in the game's own order (left to right)."""
    return actions


def reversed_order(state: Hashable, actions: Sequence[A]) -> Sequence[A]:
    """Return the actions right to left."""
    return tuple(reversed(actions))


def fixed_order(priority: Iterable[A]) -> Callable[[Hashable, Sequence[A]], Sequence[A]]:
    """Return an ordering that tries actions in ``priority`` order, e.g. ``[4, 0, 2, 6, 8, ...]``.

    Actions missing from ``priority`` come last, in the game's order.
    """
    rank = {action: index for index, action in enumerate(priority)}
    last = len(rank)

    def order(state: Hashable, actions: Sequence[A]) -> Sequence[A]:
        return sorted(actions, key=lambda action: rank.get(action, last))

    return order


def centre_first(width: int) -> Callable[[Hashable, Sequence[int]], Sequence[int]]:
    """Return an ordering of 0-based column indices from the centre outwards, left before right.

    For ``width=7`` this is 3, 2, 4, 1, 5, 0, 6.
    """
    centre = (width - 1) / 2
    return fixed_order(sorted(range(width), key=lambda column: (abs(column - centre), column)))


def by_value(
    game: Game[S, A], values: Mapping[S, Utility], max_player: str
) -> Callable[[S, Sequence[A]], Sequence[A]]:
    """Return the perfect ordering for known node ``values`` (e.g. from a minimax run).

    ``max_player`` tries its best child first (highest value), everyone else its lowest;
    ties keep the game's order. Children without a known value come last.
    """

    def order(state: S, actions: Sequence[A]) -> Sequence[A]:
        known = [a for a in actions if game.result(state, a) in values]
        unknown = [a for a in actions if game.result(state, a) not in values]
        sign = -1 if game.to_move(state) == max_player else 1
        return sorted(known, key=lambda a: sign * values[game.result(state, a)]) + unknown

    return order

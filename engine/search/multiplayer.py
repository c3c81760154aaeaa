"""Searches for more than one maximiser: max^n, the paranoid model, and rational competitors.

In max^n every player maximises its own entry of a payoff vector. The paranoid model and the
guaranteed floor reduce to minimax (one player against a coalition of all the others).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, Literal

from engine.errors import GameError
from engine.game import CHANCE, ActionT, Evaluator, Game, StateT, as_utility
from engine.search.common import Horizon, Order, SearchResult, ordered, root_player
from engine.search.minimax import minimax
from engine.search.trace import NEG_INF, POS_INF, NullTracer, Tracer, Vector


@dataclass(frozen=True)
class Prefer:
    """Break a mover's ties by another player's entry: ``prefer`` its ``"min"`` or ``"max"``."""

    player: str
    prefer: Literal["min", "max"]


TieBreak = Literal["first"] | Prefer
"""``"first"``: the leftmost tied child; :class:`Prefer`: the tied child best by a rule."""


@dataclass(frozen=True)
class VectorResult(Generic[ActionT]):
    """Hold the payoff vector the root passes up, its leftmost best move and the best line."""

    value: Vector
    move: ActionT | None
    principal_variation: tuple[ActionT, ...]


def maxn(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    players: Sequence[str],
    tie_break: TieBreak = "first",
    depth_limit: int | None = None,
    evaluator: Evaluator[StateT] | None = None,
    order: Order[StateT, ActionT] | None = None,
    tracer: Tracer | None = None,
) -> VectorResult[ActionT]:
    """Return the max^n payoff vector of ``state``: each mover maximises its own entry.

    Vectors list ``game.utility(state, p)`` for each ``p`` in ``players`` (at a depth cutoff,
    ``evaluator(state, p)``). Among children tied for the mover, ``tie_break`` decides;
    chance nodes pass up the probability-weighted average vector.
    """
    if isinstance(tie_break, Prefer) and tie_break.player not in players:
        raise ValueError(f"tie_break names {tie_break.player!r}, who is not one of {players}")
    search = _MaxN(
        game, tuple(players), tie_break, Horizon(depth_limit, evaluator), order,
        tracer or NullTracer(),
    )
    value, line = search.value(state, 0)
    return VectorResult(value, line[0] if line else None, line)


@dataclass(frozen=True)
class _MaxN(Generic[StateT, ActionT]):
    game: Game[StateT, ActionT]
    players: tuple[str, ...]
    tie_break: TieBreak
    horizon: Horizon[StateT]
    order: Order[StateT, ActionT] | None
    tracer: Tracer

    def value(self, state: StateT, depth: int) -> tuple[Vector, tuple[ActionT, ...]]:
        """Return the vector ``state`` passes up and the best line below it."""
        game, tracer = self.game, self.tracer
        tracer.enter(state, depth, NEG_INF, POS_INF)
        stop = [self.horizon.stop_value(game, state, depth, p) for p in self.players]
        if stop[0] is not None:
            vector = tuple(v for v in stop if v is not None)
            tracer.leaf(state, depth, vector)
            tracer.exit(state, depth, vector, None)
            return vector, ()
        mover = game.to_move(state)
        line: tuple[ActionT, ...] = ()
        if mover == CHANCE:
            total = [Fraction(0)] * len(self.players)
            for action, p in game.chance_outcomes(state):
                vector, _ = self.value(game.result(state, action), depth + 1)
                total = [t + p * v for t, v in zip(total, vector, strict=True)]
            best: Vector = tuple(as_utility(t) for t in total)
        else:
            if mover not in self.players:
                raise GameError(f"{mover!r} moves at {state!r} but is not one of {self.players}")
            children = [
                (action, *self.value(game.result(state, action), depth + 1))
                for action in ordered(self.order, state, game.actions(state))
            ]
            if not children:
                raise GameError(f"non-terminal state {state!r} has no legal actions")
            action, best, below = self.choose(mover, children)
            line = (action, *below)
        tracer.exit(state, depth, best, None)
        return best, line

    def choose(
        self, mover: str, children: list[tuple[ActionT, Vector, tuple[ActionT, ...]]]
    ) -> tuple[ActionT, Vector, tuple[ActionT, ...]]:
        """Return the child ``mover`` picks, breaking ties by the tie-break rule."""
        own = self.players.index(mover)
        top = max(vector[own] for _, vector, _ in children)
        tied = [child for child in children if child[1][own] == top]
        if isinstance(self.tie_break, Prefer):
            other = self.players.index(self.tie_break.player)
            pick = min if self.tie_break.prefer == "min" else max
            # min/max return the first of equal keys, keeping leftmost among full ties.
            return pick(tied, key=lambda child: child[1][other])
        return tied[0]


def paranoid(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    player: str | None = None,
    depth_limit: int | None = None,
    evaluator: Evaluator[StateT] | None = None,
    order: Order[StateT, ActionT] | None = None,
    tracer: Tracer | None = None,
) -> SearchResult[ActionT]:
    """Return ``player``'s paranoid value: everyone else is assumed to minimise its payoff.

    This is minimax with ``max_player=player`` (default: the player to move), so the value
    is the payoff ``player`` can guarantee against any coalition of the others.
    """
    return minimax(
        game, state, max_player=player, depth_limit=depth_limit, evaluator=evaluator,
        order=order, tracer=tracer,
    )


@dataclass(frozen=True)
class CompetitorAnalysis(Generic[ActionT]):
    """Hold both readings of a general-sum game for the player to move at the root.

    ``rational``: both sides maximise their own payoff (max^n); ``guaranteed``: the payoff
    the root player can secure whatever the other does (minimax on its own payoff).
    """

    player: str
    rational: VectorResult[ActionT]
    guaranteed: SearchResult[ActionT]


def rational_competitor(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    players: tuple[str, str],
    tie_break: TieBreak = "first",
    order: Order[StateT, ActionT] | None = None,
) -> CompetitorAnalysis[ActionT]:
    """Return the best response play of a two-player general-sum game next to its minimax floor.

    A rational competitor maximises its own payoff rather than minimising ours, so the
    root player may do better than the guaranteed floor by anticipating it.
    """
    player = root_player(game, state, None)
    return CompetitorAnalysis(
        player,
        maxn(game, state, players=players, tie_break=tie_break, order=order),
        paranoid(game, state, player=player, order=order),
    )

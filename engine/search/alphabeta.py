"""Alpha-beta search over any :class:`engine.game.Game`, fully traced.

The search is fail-soft: a node returns the best value it saw even when that is only a
bound. Besides that value each node computes a sound interval ``(lower, upper)`` on its true
value from what it actually searched; a node is reported exact only when the two meet, so
pruned nodes report bounds, never made-up exact values.

Chance nodes are searched with a full window (nothing below them is pruned) unless
``utility_bounds`` says every utility lies in ``[L, U]``; then a chance node stops as soon as
its seen outcomes prove it cannot matter (``*-minimax``, see
:func:`engine.search.chance.expectiminimax_alphabeta`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic

from engine.errors import GameError
from engine.game import CHANCE, ActionT, Evaluator, Game, StateT, Utility, as_utility
from engine.search.common import Horizon, Order, SearchResult, TerminalValue, ordered, root_player
from engine.search.trace import NEG_INF, POS_INF, Bound, NullTracer, Tracer
from engine.search.ttable import Entry, Flag, TranspositionTable


@dataclass(frozen=True)
class AlphaBetaConventions:
    """Choose the textbook details that change which nodes alpha-beta visits.

    ``cut_on_equality``: cut when alpha >= beta (True) or only when alpha > beta.
    ``root_raises_alpha``: the root raises alpha between its children (True), or searches
    every root child with the original window.
    """

    cut_on_equality: bool = True
    root_raises_alpha: bool = True

    def cuts(self, *, maximising: bool, value: Utility, alpha: Bound, beta: Bound) -> bool:
        """Return whether a node whose best value so far is ``value`` may skip the rest.

        A MAX node is cut once ``value`` reaches ``beta``, a MIN node once it reaches
        ``alpha``; ``alpha``/``beta`` are the node's current window.
        """
        if maximising:
            return value >= beta if self.cut_on_equality else value > beta
        return value <= alpha if self.cut_on_equality else value < alpha

    def narrowed(
        self, *, maximising: bool, value: Utility, alpha: Bound, beta: Bound
    ) -> tuple[Bound, Bound]:
        """Return the window after a node's best value so far became ``value``.

        A MAX node raises ``alpha`` to it, a MIN node lowers ``beta`` to it.
        """
        if maximising:
            return (value if value > alpha else alpha), beta
        return alpha, (value if value < beta else beta)

    def closed(self, alpha: Bound, beta: Bound) -> bool:
        """Return whether the window (``alpha``, ``beta``) leaves nothing to search for."""
        return alpha >= beta if self.cut_on_equality else alpha > beta

    def chance_range(
        self, seen: Fraction, rest: Fraction, low: Utility, high: Utility
    ) -> tuple[Fraction, Fraction]:
        """Return the (lowest, highest) value a chance node can still take (Ballard's Star1).

        ``seen`` is the probability-weighted sum of the outcomes searched, ``rest`` the
        probability of the others, each worth between ``low`` and ``high``.
        """
        return seen + rest * low, seen + rest * high


STANDARD = AlphaBetaConventions()
"""The spec's conventions: cut on equality, alpha raised at the root."""

Outcome = tuple[Utility, Bound, Bound, tuple[ActionT, ...]]
"""What a searched node returns: fail-soft value, lower and upper bound, best line."""


def alphabeta(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    conventions: AlphaBetaConventions = STANDARD,
    max_player: str | None = None,
    depth_limit: int | None = None,
    evaluator: Evaluator[StateT] | None = None,
    order: Order[StateT, ActionT] | None = None,
    tracer: Tracer | None = None,
    table: TranspositionTable[ActionT] | None = None,
    terminal_value: TerminalValue | None = None,
    utility_bounds: tuple[Utility, Utility] | None = None,
    partial_ply: bool = False,
) -> SearchResult[ActionT]:
    """Return the value, leftmost best move and principal variation of ``state`` by alpha-beta.

    Options are as for :func:`engine.search.minimax.minimax`. ``tracer`` sees every node
    entered with its (alpha, beta), every evaluation, every cutoff with the window that caused
    it and the actions it skipped (a cut at a node's last child skips nothing and is not
    reported), and every exit with bounds for inexact nodes. With ``table``, entries are
    probed (their move tried first, so among equally good moves the table's wins; their
    bounds narrow the window below the root) and stored; the key is the state, or
    ``(state, depth)`` when ``terminal_value`` makes values depend on depth. A table must
    only be shared by searches with the same ``max_player``, evaluator and rescoring.
    ``partial_ply`` searches the way that misconception does (see
    :attr:`engine.search.common.Horizon.partial_ply`).
    """
    if utility_bounds is not None and utility_bounds[0] > utility_bounds[1]:
        raise ValueError(f"utility_bounds must be (low, high), got {utility_bounds}")
    search = _AlphaBeta(
        game,
        root_player(game, state, max_player),
        Horizon(depth_limit, evaluator, terminal_value, partial_ply),
        conventions,
        order,
        tracer or NullTracer(),
        table,
        utility_bounds,
    )
    value, _, _, line = search.node(state, 0, NEG_INF, POS_INF)
    return SearchResult(value, line[0] if line else None, line)


def _weighted(p: Fraction, bound: Bound) -> Bound:
    # 0 * inf is nan: an impossible outcome contributes nothing, however unbounded.
    return 0 if p == 0 else p * bound


@dataclass(frozen=True)
class _AlphaBeta(Generic[StateT, ActionT]):
    game: Game[StateT, ActionT]
    max_player: str
    horizon: Horizon[StateT]
    conventions: AlphaBetaConventions
    order: Order[StateT, ActionT] | None
    tracer: Tracer
    table: TranspositionTable[ActionT] | None
    utility_bounds: tuple[Utility, Utility] | None

    @property
    def low(self) -> Bound:
        """Return the lowest utility possible (``-inf`` when unknown)."""
        return NEG_INF if self.utility_bounds is None else self.utility_bounds[0]

    @property
    def high(self) -> Bound:
        """Return the highest utility possible (``inf`` when unknown)."""
        return POS_INF if self.utility_bounds is None else self.utility_bounds[1]

    def node(self, state: StateT, depth: int, alpha: Bound, beta: Bound) -> Outcome[ActionT]:
        """Search ``state`` in the window (``alpha``, ``beta``)."""
        game, tracer = self.game, self.tracer
        tracer.enter(state, depth, alpha, beta)
        stop = self.horizon.stop_value(game, state, depth, self.max_player)
        if stop is not None:
            tracer.leaf(state, depth, stop)
            tracer.exit(state, depth, stop, None)
            return stop, stop, stop, ()
        key: Hashable = state if self.horizon.terminal_value is None else (state, depth)
        remaining = self.horizon.remaining(depth)
        hint = None
        if self.table is not None:
            entry = self.table.probe(key)
            if entry is not None:
                hint = entry.move
                # The root must search to produce its move and line, so it never returns early.
                if depth > 0 and entry.covers(remaining):
                    lower, upper = entry.bounds
                    alpha = lower if lower > alpha else alpha
                    beta = upper if upper < beta else beta
                    if entry.flag is Flag.EXACT or self.conventions.closed(alpha, beta):
                        self.table.hits += 1
                        exact = entry.flag is Flag.EXACT
                        tracer.exit(state, depth, entry.value, None if exact else (lower, upper))
                        known: tuple[ActionT, ...] = () if entry.move is None else (entry.move,)
                        return entry.value, lower, upper, known
        if game.to_move(state) == CHANCE:
            outcome = self.chance(state, depth, alpha, beta)
        else:
            outcome = self.decision(state, depth, alpha, beta, hint)
        value, lower, upper, line = outcome
        if self.table is not None:
            learnt = _entry(value, lower, upper, remaining, line)
            if learnt is not None:
                self.table.store(key, learnt)
        tracer.exit(state, depth, value, None if lower == upper else (lower, upper))
        return outcome

    def decision(
        self, state: StateT, depth: int, alpha: Bound, beta: Bound, hint: ActionT | None
    ) -> Outcome[ActionT]:
        """Search a MAX or MIN node's children until they run out or a cutoff."""
        game, conventions = self.game, self.conventions
        maximising = game.to_move(state) == self.max_player
        actions = list(ordered(self.order, state, game.actions(state)))
        if not actions:
            raise GameError(f"non-terminal state {state!r} has no legal actions")
        if hint is not None and hint in actions:
            actions.remove(hint)
            actions.insert(0, hint)
        moves_window = depth > 0 or conventions.root_raises_alpha
        best: Utility | None = None
        line: tuple[ActionT, ...] = ()
        lower: Bound = NEG_INF if maximising else POS_INF
        upper: Bound = NEG_INF if maximising else POS_INF
        for index, action in enumerate(actions):
            value, low, high, below = self.node(game.result(state, action), depth + 1, alpha, beta)
            if maximising:
                lower, upper = max(lower, low), max(upper, high)
            else:
                lower, upper = min(lower, low), min(upper, high)
            if best is None or (value > best if maximising else value < best):
                best, line = value, (action, *below)
            cut = conventions.cuts(maximising=maximising, value=best, alpha=alpha, beta=beta)
            if moves_window or cut:
                alpha, beta = conventions.narrowed(
                    maximising=maximising, value=best, alpha=alpha, beta=beta
                )
            if cut:
                skipped = actions[index + 1:]
                if skipped:
                    self.tracer.cutoff(state, depth, alpha, beta, skipped)
                    # A skipped child could be anything the utilities allow.
                    if maximising:
                        upper = max(upper, self.high)
                    else:
                        lower = min(lower, self.low)
                break
        assert best is not None
        return best, lower, upper, line

    def chance(self, state: StateT, depth: int, alpha: Bound, beta: Bound) -> Outcome[ActionT]:
        """Search a chance node's outcomes, stopping early when known bounds allow it."""
        outcomes = self.game.chance_outcomes(state)
        low, high = self.low, self.high
        seen: Fraction = Fraction(0)
        seen_p: Fraction = Fraction(0)
        lower: Bound = 0
        upper: Bound = 0
        for index, (action, p) in enumerate(outcomes):
            child_alpha, child_beta = self._child_window(alpha, beta, seen, seen_p, p)
            value, child_low, child_high, _ = self.node(
                self.game.result(state, action), depth + 1, child_alpha, child_beta
            )
            seen += p * value
            seen_p += p
            lower += _weighted(p, max(child_low, low))
            upper += _weighted(p, min(child_high, high))
            if self.utility_bounds is None:
                continue
            rest = 1 - seen_p
            # What the unseen outcomes could still make of this node, at worst and at best.
            floor, ceiling = self.conventions.chance_range(seen, rest, *self.utility_bounds)
            skipped = [a for a, _ in outcomes[index + 1:]]
            for value, maximising in ((ceiling, False), (floor, True)):
                if self.conventions.cuts(
                    maximising=maximising, value=value, alpha=alpha, beta=beta
                ):
                    if skipped:
                        cut_alpha, cut_beta = (alpha, value) if not maximising else (value, beta)
                        self.tracer.cutoff(state, depth, cut_alpha, cut_beta, skipped)
                    return value, lower + _weighted(rest, low), upper + _weighted(rest, high), ()
        return as_utility(seen), lower, upper, ()

    def _child_window(
        self, alpha: Bound, beta: Bound, seen: Fraction, seen_p: Fraction, p: Fraction
    ) -> tuple[Bound, Bound]:
        """Return the window for the next outcome that keeps its parent's window meaningful.

        The next outcome's value ``v`` makes the chance node at most
        ``seen + p*v + rest*U`` and at least ``seen + p*v + rest*L``; solving those against
        alpha and beta gives the child's window.
        """
        if self.utility_bounds is None or p == 0:
            return NEG_INF, POS_INF
        low, high = self.utility_bounds
        rest = 1 - seen_p - p
        child_alpha = NEG_INF if isinstance(alpha, float) else (alpha - seen - rest * high) / p
        child_beta = POS_INF if isinstance(beta, float) else (beta - seen - rest * low) / p
        return child_alpha, child_beta


def _entry(
    value: Utility,
    lower: Bound,
    upper: Bound,
    remaining: int | None,
    line: Sequence[ActionT],
) -> Entry[ActionT] | None:
    """Return the table entry for a node searched to ``(lower, upper)``, if it proved anything.

    When both bounds are finite but apart (only below chance nodes), keep the one the
    fail-soft value sits on.
    """
    move = line[0] if line else None
    if lower == upper:
        return Entry(value, Flag.EXACT, remaining, move)
    if not isinstance(upper, float) and (isinstance(lower, float) or value == upper):
        return Entry(upper, Flag.UPPER, remaining, move)
    if not isinstance(lower, float):
        return Entry(lower, Flag.LOWER, remaining, move)
    return None

"""Observe a search as it runs: the events every algorithm emits and the tracers that read them.

Searches never count nodes or record values themselves; they report events to a
:class:`Tracer`, so a counting convention (what is a "visited node"?) is a choice of tracer,
not code buried in an algorithm. Depths are plies from 0 at the root.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from engine.game import Utility

Bound = int | Fraction | float
"""A search bound: an exact utility, or ``-math.inf``/``math.inf`` (the only floats used)."""

Vector = tuple[Utility, ...]
"""A payoff vector, one exact entry per player (max^n searches)."""

NodeValue = Bound | Vector
"""What a node passes up: a scalar value or bound, or a payoff vector."""

NEG_INF: float = -math.inf
POS_INF: float = math.inf


class Tracer(Protocol):
    """Receive the events of a search, in the order they happen."""

    def enter(self, state: Hashable, depth: int, alpha: Bound, beta: Bound) -> None:
        """Note that the search entered ``state`` with the window (``alpha``, ``beta``)."""
        ...

    def leaf(self, state: Hashable, depth: int, value: NodeValue) -> None:
        """Note that ``state`` was evaluated: a terminal utility or a depth-cutoff estimate."""
        ...

    def cutoff(
        self, state: Hashable, depth: int, alpha: Bound, beta: Bound, pruned: Sequence[Hashable]
    ) -> None:
        """Note that ``state`` stopped early with ``alpha >= beta``, skipping ``pruned`` actions."""
        ...

    def exit(
        self, state: Hashable, depth: int, value: NodeValue, bounds: tuple[Bound, Bound] | None
    ) -> None:
        """Note that ``state`` returned ``value``; ``bounds`` is ``(lower, upper)`` unless exact."""
        ...


BulkCount = Callable[[int, int], None]
"""Take ``(nodes, leaves)`` counted in bulk: see :func:`bulk_count`."""


def bulk_count(tracer: Tracer) -> BulkCount | None:
    """Return ``tracer.count`` if the tracer only counts, else None.

    A tracer class that sets ``counts_only = True`` in its own body promises that its
    events do nothing but count, as :class:`NodeCounter` does: each ``enter`` below the root
    is one node, each ``leaf`` one evaluation, ``exit`` is ignored. It also offers
    ``count(nodes, leaves)``, which adds those totals. A search may then tell it the totals in
    one or more ``count`` calls instead of sending those events node by node (cutoffs are
    still sent one by one). Subclasses do not inherit the promise, since they may override
    an event: they are sent every event unless they set ``counts_only`` themselves.
    """
    if vars(type(tracer)).get("counts_only") is True:
        count: BulkCount = getattr(tracer, "count")  # noqa: B009 -- not in the Tracer protocol
        return count
    return None


def listens(tracer: Tracer, event: str) -> bool:
    """Return whether ``tracer`` may act on ``event`` (``"enter"``, ``"leaf"``, ...).

    False only when its class keeps :class:`NullTracer`'s do-nothing method for that event,
    so a search may skip sending it.
    """
    return getattr(type(tracer), event, None) is not getattr(NullTracer, event)


class NullTracer:
    """Ignore every event (the default tracer)."""

    counts_only = True
    """Its events count nothing, so searches may send it :meth:`count` instead."""

    def enter(self, state: Hashable, depth: int, alpha: Bound, beta: Bound) -> None:
        """Ignore the event."""

    def leaf(self, state: Hashable, depth: int, value: NodeValue) -> None:
        """Ignore the event."""

    def cutoff(
        self, state: Hashable, depth: int, alpha: Bound, beta: Bound, pruned: Sequence[Hashable]
    ) -> None:
        """Ignore the event."""

    def exit(
        self, state: Hashable, depth: int, value: NodeValue, bounds: tuple[Bound, Bound] | None
    ) -> None:
        """Ignore the event."""

    def count(self, nodes: int, leaves: int) -> None:
        """Ignore counts reported in bulk."""


class NodeCounter(NullTracer):
    """Count the nodes a search enters below the root (the root's children included, the root not).

    This is the spec's ``nodes`` convention; ``leaves`` counts evaluations and ``cutoffs``
    the cutoffs that skipped at least one action.
    """

    counts_only = True
    """Its events only count, so searches may report totals through :meth:`count`."""

    def __init__(self) -> None:
        self.nodes = 0
        self.leaves = 0
        self.cutoffs = 0

    def count(self, nodes: int, leaves: int) -> None:
        """Add ``nodes`` entered below the root and ``leaves`` evaluated, counted in bulk."""
        self.nodes += nodes
        self.leaves += leaves

    def enter(self, state: Hashable, depth: int, alpha: Bound, beta: Bound) -> None:
        """Count ``state`` unless it is the root."""
        if depth:
            self.nodes += 1

    def leaf(self, state: Hashable, depth: int, value: NodeValue) -> None:
        """Count one evaluation."""
        self.leaves += 1

    def cutoff(
        self, state: Hashable, depth: int, alpha: Bound, beta: Bound, pruned: Sequence[Hashable]
    ) -> None:
        """Count one cutoff."""
        self.cutoffs += 1


@dataclass(frozen=True)
class Enter:
    """Record that the search entered ``state`` with the window (``alpha``, ``beta``)."""

    state: Hashable
    depth: int
    alpha: Bound
    beta: Bound


@dataclass(frozen=True)
class Leaf:
    """Record that the search evaluated ``state`` to ``value``."""

    state: Hashable
    depth: int
    value: NodeValue


@dataclass(frozen=True)
class Cutoff:
    """Record cutoff ``number`` (from 1) at ``state``, caused by ``alpha >= beta``."""

    number: int
    state: Hashable
    depth: int
    alpha: Bound
    beta: Bound
    pruned: tuple[Hashable, ...]


@dataclass(frozen=True)
class Exit:
    """Record that the search left ``state`` with ``value`` (``bounds``: ``(lower, upper)``)."""

    state: Hashable
    depth: int
    value: NodeValue
    bounds: tuple[Bound, Bound] | None


Event = Enter | Leaf | Cutoff | Exit


class RecordingTracer:
    """Record every event, then answer questions about the search that produced them."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._cutoffs = 0

    def enter(self, state: Hashable, depth: int, alpha: Bound, beta: Bound) -> None:
        """Record the event."""
        self.events.append(Enter(state, depth, alpha, beta))

    def leaf(self, state: Hashable, depth: int, value: NodeValue) -> None:
        """Record the event."""
        self.events.append(Leaf(state, depth, value))

    def cutoff(
        self, state: Hashable, depth: int, alpha: Bound, beta: Bound, pruned: Sequence[Hashable]
    ) -> None:
        """Record the event, numbering cutoffs from 1 in the order they happen."""
        self._cutoffs += 1
        self.events.append(Cutoff(self._cutoffs, state, depth, alpha, beta, tuple(pruned)))

    def exit(
        self, state: Hashable, depth: int, value: NodeValue, bounds: tuple[Bound, Bound] | None
    ) -> None:
        """Record the event."""
        self.events.append(Exit(state, depth, value, bounds))

    def node_values(self) -> dict[Hashable, NodeValue]:
        """Return the exact value of every node the search finished exactly, in exit order."""
        return {e.state: e.value for e in self.events if isinstance(e, Exit) and e.bounds is None}

    def node_bounds(self) -> dict[Hashable, tuple[Bound, Bound]]:
        """Return ``(lower, upper)`` for every node the search left with only a bound."""
        return {
            e.state: e.bounds
            for e in self.events
            if isinstance(e, Exit) and e.bounds is not None
        }

    def evaluated(self) -> list[Hashable]:
        """Return the evaluated states (leaves and depth cutoffs), in evaluation order."""
        return [e.state for e in self.events if isinstance(e, Leaf)]

    def entered(self) -> list[Hashable]:
        """Return every state entered, in order (the root first)."""
        return [e.state for e in self.events if isinstance(e, Enter)]

    def cutoffs(self) -> list[Cutoff]:
        """Return the cutoffs, in the order they happened."""
        return [e for e in self.events if isinstance(e, Cutoff)]


class TeeTracer:
    """Forward every event to several tracers, in order."""

    def __init__(self, *tracers: Tracer) -> None:
        self.tracers = tracers

    def enter(self, state: Hashable, depth: int, alpha: Bound, beta: Bound) -> None:
        """Forward the event."""
        for tracer in self.tracers:
            tracer.enter(state, depth, alpha, beta)

    def leaf(self, state: Hashable, depth: int, value: NodeValue) -> None:
        """Forward the event."""
        for tracer in self.tracers:
            tracer.leaf(state, depth, value)

    def cutoff(
        self, state: Hashable, depth: int, alpha: Bound, beta: Bound, pruned: Sequence[Hashable]
    ) -> None:
        """Forward the event."""
        for tracer in self.tracers:
            tracer.cutoff(state, depth, alpha, beta, pruned)

    def exit(
        self, state: Hashable, depth: int, value: NodeValue, bounds: tuple[Bound, Bound] | None
    ) -> None:
        """Forward the event."""
        for tracer in self.tracers:
            tracer.exit(state, depth, value, bounds)

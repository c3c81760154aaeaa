"""Alpha-beta with a transposition table over an explicit tree that draws positions repeatedly.

A tree may draw one position more than once (a transposition: two move orders that reach the
same position); such inner nodes carry the same position key and identical subtrees. The
search follows the textbook rules, each of them a stated convention of the exercise:

* fail-soft alpha-beta on MAX/MIN nodes, children left to right, the root narrowing its
  window like every other node; a node cuts once ``alpha >= beta`` (``cut_on_equality``) or
  only once ``alpha > beta``;
* an inner node entered with the window (alpha, beta) first probes the table with its
  position: an EXACT entry is returned at once; a LOWER bound raises alpha to it, an UPPER
  bound lowers beta to it, and if that closes the window the entry's value is returned at
  once; otherwise the node searches its children in the narrowed window;
* a node that searched its children stores an entry for its position, replacing any older
  one: its value ``v`` is an UPPER bound when ``v <= alpha``, a LOWER bound when
  ``v >= beta``, and EXACT otherwise, (alpha, beta) being the window it searched with;
* leaves are evaluated, never probed or stored. Every search reaches the leaves, so an
  entry's depth never matters (:class:`~engine.search.ttable.Entry` ``remaining=None``).

``mistake`` replays a student's wrong rule (see :class:`Mistake`) through the whole search.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.errors import ProblemError
from engine.game import Utility
from engine.search.trace import NEG_INF, POS_INF, Bound
from engine.search.ttable import Entry, Flag, TranspositionTable
from engine.tree import Node, Tree


class Mistake(enum.Enum):
    """Name a wrong way of filling the table, searched with as if it were right."""

    ALL_EXACT = "all_exact"  # every entry stored as EXACT, bounds never
    SWAPPED_BOUNDS = "swapped_bounds"  # a fail-low stored as LOWER, a fail-high as UPPER


class Outcome(enum.Enum):
    """Say what a probe did with what it found."""

    MISSED = "missed"  # no entry: the node searched its children
    RETURNED = "returned"  # the entry settled the node, whose children were not searched
    NARROWED = "narrowed"  # a bound narrowed the window, then the node searched its children


@dataclass(frozen=True)
class Probe:
    """Record one probe: the node, what the table held, what it did and what the node returned."""

    node: str
    position: str
    found: Entry[str] | None
    outcome: Outcome
    value: Utility


@dataclass
class TabledSearch:
    """Hold a finished search: root value, the table at the end, probes and stores in order."""

    value: Utility = 0
    table: dict[str, Entry[str]] = field(default_factory=dict)
    probes: list[Probe] = field(default_factory=list)
    stores: list[tuple[str, str, Entry[str]]] = field(default_factory=list)  # node, position
    evaluated: list[str] = field(default_factory=list)


def positions_of(raw: object) -> dict[str, str]:
    """Return node name → position key for every inner node of a raw ``gametree/1`` tree.

    Raise :class:`ProblemError` naming the node when an inner node has no non-empty string
    ``position``.
    """
    found: dict[str, str] = {}
    stack = [raw]
    while stack:
        node = stack.pop()
        if not isinstance(node, Mapping) or not node.get("children"):
            continue
        name, position = str(node.get("name")), node.get("position")
        if not isinstance(position, str) or not position:
            raise ProblemError(
                f'node "{name}": every inner node needs a non-empty string "position"', node=name
            )
        found[name] = position
        stack.extend(node["children"])
    return found


def check_transpositions(tree: Tree, positions: Mapping[str, str]) -> None:
    """Refuse nodes that share a position but not the position's type and subtree.

    Two nodes are the same position when they have the same type and, child by child, the
    same positions (inner children) or the same values (leaves).
    """
    first: dict[str, Node] = {}
    for node in tree.walk():
        if node.is_leaf:
            continue
        seen = first.setdefault(positions[node.name], node)
        if _shape(seen, positions) != _shape(node, positions):
            raise ProblemError(
                f'node "{node.name}": it has position "{positions[node.name]}" like node '
                f'"{seen.name}", so it must have the same type and the same subtree',
                node=node.name,
            )


def _shape(node: Node, positions: Mapping[str, str]) -> object:
    if node.is_leaf:
        return node.value
    return node.type, tuple(_shape(child, positions) for child in node.children)


def tabled_alphabeta(
    tree: Tree,
    positions: Mapping[str, str],
    *,
    cut_on_equality: bool = True,
    mistake: Mistake | None = None,
) -> TabledSearch:
    """Return the search of ``tree`` from its MAX or MIN root with a transposition table."""
    check_transpositions(tree, positions)
    search = _Search(positions, cut_on_equality, mistake, TranspositionTable(), TabledSearch())
    search.result.value = search.node(tree.root, NEG_INF, POS_INF)
    search.result.table = {
        position: entry
        for position in dict.fromkeys(positions.values())
        if (entry := search.table.probe(position)) is not None
    }
    return search.result


def stored_flag(value: Utility, alpha: Bound, beta: Bound, mistake: Mistake | None) -> Flag:
    """Return the flag of an entry for a node whose search in (alpha, beta) gave ``value``."""
    if mistake is Mistake.ALL_EXACT:
        return Flag.EXACT
    fail_low, fail_high = (Flag.LOWER, Flag.UPPER) if mistake is Mistake.SWAPPED_BOUNDS else (
        Flag.UPPER, Flag.LOWER
    )
    if value <= alpha:
        return fail_low
    if value >= beta:
        return fail_high
    return Flag.EXACT


@dataclass(frozen=True)
class _Search:
    positions: Mapping[str, str]
    cut_on_equality: bool
    mistake: Mistake | None
    table: TranspositionTable[str]
    result: TabledSearch

    def closed(self, alpha: Bound, beta: Bound) -> bool:
        return alpha >= beta if self.cut_on_equality else alpha > beta

    def node(self, node: Node, alpha: Bound, beta: Bound) -> Utility:
        """Return ``node``'s fail-soft value searched in (alpha, beta), probing and storing."""
        if node.is_leaf:
            assert node.value is not None and not isinstance(node.value, tuple)
            self.result.evaluated.append(node.name)
            return node.value
        position = self.positions[node.name]
        found = self.table.probe(position)
        outcome = Outcome.MISSED
        if found is not None:
            self.table.hits += 1
            lower, upper = found.bounds
            alpha, beta = max(alpha, lower), min(beta, upper)
            if found.flag is Flag.EXACT or self.closed(alpha, beta):
                self.result.probes.append(
                    Probe(node.name, position, found, Outcome.RETURNED, found.value)
                )
                return found.value
            outcome = Outcome.NARROWED
        value = self.children(node, alpha, beta)
        self.result.probes.append(Probe(node.name, position, found, outcome, value))
        entry = Entry[str](value, stored_flag(value, alpha, beta, self.mistake), None, None)
        self.table.store(position, entry)
        self.result.stores.append((node.name, position, entry))
        return value

    def children(self, node: Node, alpha: Bound, beta: Bound) -> Utility:
        """Return the best value of ``node``'s children searched left to right until a cut."""
        maximising = node.type == "max"
        best: Utility | None = None
        for child in node.children:
            value = self.node(child, alpha, beta)
            if best is None or (value > best if maximising else value < best):
                best = value
            if maximising:
                alpha = max(alpha, best)
            else:
                beta = min(beta, best)
            if self.closed(alpha, beta):
                break
        assert best is not None
        return best

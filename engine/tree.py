"""Explicit game trees: parse and validate ``gametree/1`` tree JSON, and search them as a Game.

A parsed :class:`Tree` is immutable. :class:`TreeGame` adapts it to :class:`engine.game.Game`
with node names as states and child names as actions, so every search in
:mod:`engine.search` runs on exercise trees exactly as on real games.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

from engine.errors import GameError, ProblemError
from engine.game import CHANCE, Utility, as_utility

NodeType = Literal["max", "min", "player", "chance", "leaf"]
DECISION_TYPES = ("max", "min", "player", "chance")
MAX_DEPTH = 200
"""Deeper trees are rejected: no exercise needs them and searches recurse once per ply."""
MAX_EXPONENT = 1000
"""Largest decimal exponent read: well past floats ("1e400" is fine), while "1e999999999" would
build a gigantic exact number."""
MAX_DIGITS = 1000
"""Most digits a number read may have (a fraction's numerator and denominator each): exact
sums and products of such numbers still print (Python refuses ints past 4300 digits)."""
_TOO_MANY_DIGITS = 10**MAX_DIGITS
NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                         r"|[+-]?[0-9]+/[0-9]+")
"""A number string: a decimal (exponent allowed) or a fraction of two integers, in ASCII."""


def _exponent_too_large(text: str) -> bool:
    """Return whether a decimal string's exponent is beyond MAX_EXPONENT."""
    _, _, exponent = text.strip().lower().partition("e")
    try:
        return bool(exponent) and abs(int(exponent)) > MAX_EXPONENT
    except ValueError:
        return False  # not a number at all, which parse_number reports as such


def parse_number(raw: object, *, what: str, node: str | None = None, field: str | None = None
                 ) -> Utility:
    """Return ``raw`` (an int, a decimal like 3.5 or a string like ``"7/2"``) as an exact number.

    Integral values come back as ``int``. Raise :class:`ProblemError` naming ``node`` or
    ``field`` and ``what`` the number is when ``raw`` is not a finite number.
    """
    where = f'node "{node}"' if node is not None else f'field "{field}"'
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ProblemError(
            f"{where}: {what} must be a number or a fraction string like \"7/2\", got {raw!r}",
            node=node, field=field,
        )
    if isinstance(raw, float) and not math.isfinite(raw):
        raise ProblemError(f"{where}: {what} must be finite, got {raw!r}", node=node, field=field)
    if isinstance(raw, str) and _exponent_too_large(raw):
        raise ProblemError(f"{where}: {what} must be at most 1e{MAX_EXPONENT} in size, got {raw!r}",
                           node=node, field=field)
    if isinstance(raw, str) and not NUMBER_TEXT.fullmatch(raw):
        # Fraction() also takes "1_000", " 2 " and non-ASCII digits; other readers of the
        # format would not.
        raise ProblemError(
            f"{where}: {what} must be a number or a fraction string like \"7/2\" (ASCII "
            f"digits, no spaces), got {raw!r}", node=node, field=field)
    if isinstance(raw, str) and len(raw) > 2 * MAX_DIGITS + 1:
        raise ProblemError(f"{where}: {what} may have at most {MAX_DIGITS} digits, got "
                           f"{len(raw)} characters", node=node, field=field)
    try:
        # str() of a float is its shortest round-trip decimal, so 0.1 means exactly 1/10.
        number = Fraction(raw if isinstance(raw, int) else str(raw))
    except (ValueError, ZeroDivisionError):
        raise ProblemError(
            f"{where}: {what} must be a number or a fraction string like \"7/2\", got {raw!r}",
            node=node, field=field,
        ) from None
    # Compared as numbers: no huge number is ever printed here.
    if abs(number.numerator) >= _TOO_MANY_DIGITS or number.denominator >= _TOO_MANY_DIGITS:
        raise ProblemError(f"{where}: {what} may have at most {MAX_DIGITS} digits",
                           node=node, field=field)
    return as_utility(number)


@dataclass(frozen=True)
class Node:
    """Hold one node of an explicit tree.

    ``value`` is a leaf's utility for MAX (``vector`` games: one payoff per player), or an
    inner node's optional heuristic ``estimate`` used when a depth limit cuts the search there.
    """

    name: str
    type: NodeType
    children: tuple[Node, ...] = ()
    probabilities: tuple[Fraction, ...] = ()
    player: str | None = None
    value: Utility | tuple[Utility, ...] | None = None

    @property
    def is_leaf(self) -> bool:
        """Return whether this node is a leaf."""
        return self.type == "leaf"


@dataclass(frozen=True)
class Tree:
    """Hold a validated tree: its root, its nodes by name, and the players of a vector game."""

    root: Node
    nodes: Mapping[str, Node]
    players: tuple[str, ...] | None = None

    def node(self, name: str) -> Node:
        """Return the node called ``name``; raise :class:`GameError` if there is none."""
        try:
            return self.nodes[name]
        except KeyError:
            raise GameError(f'the tree has no node "{name}"') from None

    def walk(self) -> Iterator[Node]:
        """Yield every node in tree order (pre-order, children left to right)."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def leaves(self) -> list[str]:
        """Return the names of the leaves in tree order (left to right)."""
        return [node.name for node in self.walk() if node.is_leaf]

    def types(self) -> set[NodeType]:
        """Return the set of node types the tree uses."""
        return {node.type for node in self.walk()}


def parse_tree(raw: object, *, players: Sequence[str] | None = None) -> Tree:
    """Return the validated :class:`Tree` for a ``gametree/1`` tree object.

    With ``players`` (vector games) leaves hold one payoff per player and player nodes must
    name one of them; without, leaves hold one number (MAX's utility). Raise
    :class:`ProblemError` naming the node and the broken rule.
    """
    nodes: dict[str, Node] = {}
    root = _parse_node(raw, "the root", 0, nodes, tuple(players) if players is not None else None)
    return Tree(root, MappingProxyType(nodes), tuple(players) if players is not None else None)


def _parse_node(
    raw: object, where: str, depth: int, nodes: dict[str, Node], players: tuple[str, ...] | None
) -> Node:
    if not isinstance(raw, dict):
        raise ProblemError(f"{where}: a node must be a JSON object, got {raw!r}", node=where)
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ProblemError(f"{where}: every node needs a non-empty string \"name\"", node=where)
    label = f'node "{name}"'
    if name in nodes:
        raise ProblemError(f"{label}: node names must be unique within a tree", node=name)
    if depth > MAX_DEPTH:
        raise ProblemError(f"{label}: trees may be at most {MAX_DEPTH} levels deep", node=name)
    kind = raw.get("type", "leaf")
    if kind not in (*DECISION_TYPES, "leaf"):
        raise ProblemError(
            f'{label}: unknown node type {kind!r}; use "max", "min", "player", "chance", '
            'or no type for a leaf',
            node=name,
        )
    # Reserve the name before recursing so a duplicate below is reported at its second use.
    nodes[name] = Node(name, "leaf")
    if kind == "leaf":
        if "children" in raw:
            raise ProblemError(
                f'{label}: a node with children needs a "type" (max, min, player or chance)',
                node=name,
            )
        node = Node(name, "leaf", value=_parse_leaf_value(raw, name, players))
    else:
        node = _parse_inner(raw, name, kind, depth, nodes, players)
    nodes[name] = node
    return node


def _parse_leaf_value(
    raw: dict[str, object], name: str, players: tuple[str, ...] | None,
    what: str = "a leaf value",
) -> Utility | tuple[Utility, ...]:
    label = f'node "{name}"'
    if "value" not in raw:
        raise ProblemError(f'{label}: a leaf needs a "value"', node=name)
    value = raw["value"]
    if players is None:
        if isinstance(value, list):
            raise ProblemError(
                f"{label}: {what} must be one number here; payoff vectors need a "
                '"vector" problem with "players"',
                node=name,
            )
        return parse_number(value, what=what, node=name)
    if not isinstance(value, list) or len(value) != len(players):
        count = len(value) if isinstance(value, list) else "not a list"
        raise ProblemError(
            f"{label}: a vector leaf needs {len(players)} values, one per player "
            f"({', '.join(players)}), got {count}",
            node=name,
        )
    return tuple(parse_number(v, what="a payoff", node=name) for v in value)


def _parse_inner(
    raw: dict[str, object],
    name: str,
    kind: NodeType,
    depth: int,
    nodes: dict[str, Node],
    players: tuple[str, ...] | None,
) -> Node:
    label = f'node "{name}"'
    children_raw = raw.get("children")
    if not isinstance(children_raw, list) or not children_raw:
        raise ProblemError(f"{label}: a {kind} node needs at least one child", node=name)
    player = None
    if kind == "player":
        if players is None:
            raise ProblemError(
                f'{label}: player nodes need a "vector" problem with "players"', node=name
            )
        player = next((p for p in players if p == raw.get("player")), None)
        if player is None:
            raise ProblemError(
                f'{label}: "player" must be one of {", ".join(players)}, got '
                f'{raw.get("player")!r}',
                node=name,
            )
    children = tuple(
        _parse_node(child, f"child {i + 1} of {label}", depth + 1, nodes, players)
        for i, child in enumerate(children_raw)
    )
    probabilities: tuple[Fraction, ...] = ()
    if kind == "chance":
        probabilities = _parse_probabilities(raw.get("probabilities"), name, len(children))
    estimate = None
    # An inner node's value is only an estimate for a depth limit: null means none given.
    if raw.get("value") is not None:
        estimate = _parse_leaf_value(raw, name, players, what='its "value" estimate')
    return Node(name, kind, children, probabilities, player, estimate)


def _parse_probabilities(raw: object, name: str, count: int) -> tuple[Fraction, ...]:
    label = f'node "{name}"'
    if not isinstance(raw, list) or len(raw) != count:
        got = len(raw) if isinstance(raw, list) else "none"
        raise ProblemError(
            f'{label}: a chance node needs "probabilities", one per child ({count}), got {got}',
            node=name,
        )
    probabilities = tuple(
        Fraction(parse_number(p, what="a probability", node=name)) for p in raw
    )
    if any(p < 0 for p in probabilities):
        raise ProblemError(f"{label}: probabilities must not be negative", node=name)
    total = sum(probabilities, Fraction(0))
    if total != 1:
        raise ProblemError(
            f"{label}: chance probabilities must sum exactly to 1, they sum to {total}",
            node=name,
        )
    return probabilities


class TreeGame:
    """Play an explicit :class:`Tree` as a :class:`engine.game.Game`.

    States and actions are node names (a move is the name of the child it leads to).
    ``to_move`` is ``"max"``, ``"min"``, a player's name, or :data:`CHANCE`. Scalar leaves
    are zero-sum: worth ``value`` to ``"max"`` and ``-value`` to ``"min"``; vector leaves are
    worth their entry for each player.
    """

    def __init__(self, tree: Tree) -> None:
        self.tree = tree

    def to_move(self, state: str) -> str:
        """Return who moves at ``state``; raise :class:`GameError` at a leaf."""
        node = self.tree.node(state)
        if node.type == "leaf":
            raise GameError(f'node "{state}" is a leaf: nobody moves there')
        if node.type == "player":
            assert node.player is not None  # parse_tree sets it on every player node
            return node.player
        return CHANCE if node.type == "chance" else node.type

    def actions(self, state: str) -> tuple[str, ...]:
        """Return the child names of ``state``, left to right."""
        return tuple(child.name for child in self.tree.node(state).children)

    def result(self, state: str, action: str) -> str:
        """Return the child ``action`` of ``state``; raise :class:`GameError` if it isn't one."""
        if action not in self.actions(state):
            raise GameError(f'node "{action}" is not a child of node "{state}"')
        return action

    def is_terminal(self, state: str) -> bool:
        """Return whether ``state`` is a leaf."""
        return self.tree.node(state).is_leaf

    def utility(self, state: str, player: str) -> Utility:
        """Return the payoff of leaf ``state`` for ``player``."""
        node = self.tree.node(state)
        if not node.is_leaf:
            raise GameError(f'node "{state}" is not a leaf, so it has no utility')
        return self._payoff(node, player)

    def chance_outcomes(self, state: str) -> tuple[tuple[str, Fraction], ...]:
        """Return ``(child name, probability)`` pairs of chance node ``state``."""
        node = self.tree.node(state)
        return tuple(zip((child.name for child in node.children), node.probabilities, strict=True))

    def estimate(self, state: str, player: str) -> Utility:
        """Return inner node ``state``'s ``value`` estimate for ``player`` (an Evaluator).

        Raise :class:`ProblemError` when a depth limit cuts at a node without an estimate.
        """
        node = self.tree.node(state)
        if node.value is None:
            raise ProblemError(
                f'node "{state}": the depth limit cuts the search here, so the node needs a '
                '"value" estimate',
                node=state,
            )
        return self._payoff(node, player)

    def _payoff(self, node: Node, player: str) -> Utility:
        value = node.value
        assert value is not None
        if isinstance(value, tuple):
            players = self.tree.players or ()
            if player not in players:
                raise GameError(f'"{player}" is not a player of this tree')
            return value[players.index(player)]
        if player == "max":
            return value
        if player == "min":
            return -value
        raise GameError(f'scalar trees are played by "max" and "min", not "{player}"')

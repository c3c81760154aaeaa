"""Lay out a ``gametree/1`` tree for drawing: every node's position, shape, label and edges.

Leaves sit side by side in tree order, each parent centred over its children, one row per
ply. The result is plain data; ``pages/tree/svg.html`` turns it into SVG, so the same layout
serves the answer form, the feedback view and the replay.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from exercises.kinds.price_war import PLAYER_LABELS
from grading.scoring import format_number

NODE_SHAPES = {"max": "max", "min": "min", "chance": "chance", "player": "player"}
LEVEL_GAP = 100
MARGIN_X = 36
MARGIN_TOP = 40
LEAF_BLOCK_HEIGHT = 74  # the leaf box, its name and its "pruned" tick box
CHAR_WIDTH = 8  # wide enough for the monospace digits of a leaf value
MIN_LEAF_GAP = 46
SHAPE_HALF_WIDTH = 17  # triangles and circles; leaves are boxes sized by their value
LABEL_ALONG = 0.6
"""Where an edge's probability is written: this fraction of the way from parent to child,
centred on the line. Sibling edges spread apart going down, so lower labels have more room."""
LABEL_CHAR_WIDTH = 8  # the 12px monospace of a probability, rounded up
LABEL_GAP = 8  # clear space between two sibling edges' probabilities


@dataclass
class DrawnNode:
    """One node as drawn: where it is, which shape, what it says and what it answers."""

    name: str
    shape: str  # max, min, chance, player or leaf
    x: int
    y: int
    depth: int
    parent: str | None
    value_text: str = ""  # a leaf's value, shown in its box
    estimate_text: str = ""  # an inner node's static evaluation (a depth limit's estimate)
    player: str = ""  # the player who moves here (vector games)
    position: str = ""  # the position key shared by transposed nodes (transposition tables)
    children: list[str] = field(default_factory=list)
    box_width: int = 0  # leaves only
    # Filled in by the page that draws the tree:
    state: str = ""  # feedback: right, wrong, missed
    note: str = ""  # feedback in words, shown as the node's tooltip
    value_input: str = ""  # form field name when the student types this node's value
    value_given: str = ""
    pruned_input: str = ""  # form field name of the "this leaf is pruned" tick box
    pruned_given: bool = False
    move_input: str = ""  # form field name of the "pick this root child" radio button
    move_given: bool = False
    # Filled in for the expected answer's drawing, once answers are visible:
    expected_text: str = ""  # the value the key gives this node
    expected_pruned: bool = False  # the key prunes this leaf
    expected_move: bool = False  # the key's decision moves here
    player_label: str = ""  # "P1", "P2", …: the mover by payoff position, never a node name

    @property
    def is_leaf(self) -> bool:
        """Return whether this node is a leaf."""
        return self.shape == "leaf"

    @property
    def box_left(self) -> int:
        """Return the left edge of a leaf's box, relative to the node's centre."""
        return -self.box_width // 2

    @property
    def mark_x(self) -> int:
        """Return where the feedback mark sits: on the node's own top-right corner.

        Beside the node (the old place, left of a leaf) lay over the left neighbour's box,
        since leaves sit only ``MIN_LEAF_GAP`` apart.
        """
        return self.box_width // 2 if self.is_leaf else -SHAPE_HALF_WIDTH

    @property
    def mark_y(self) -> int:
        """Return the vertical centre of the feedback mark."""
        return -13 if self.is_leaf else 12

    @property
    def dom_id(self) -> str:
        """Return an id fragment safe in HTML for this node's name."""
        return "".join(c if c.isalnum() else f"_{ord(c):x}" for c in self.name)


@dataclass
class DrawnEdge:
    """A parent-to-child line, with the chance probability written on it if any."""

    parent: str
    child: str
    x1: int
    y1: int
    x2: int
    y2: int
    label: str = ""

    @property
    def label_x(self) -> int:
        """Return the centre of the probability label (:data:`LABEL_ALONG` down the edge).

        Written beside the midpoint, the label of a middle edge ran into its right
        neighbour's under a node with three outcomes ("1/31/2").
        """
        return round(self.x1 + LABEL_ALONG * (self.x2 - self.x1))

    @property
    def label_y(self) -> int:
        """Return the baseline of the probability label, centred on the edge's point."""
        return round(self.y1 + LABEL_ALONG * (self.y2 - self.y1)) + 4


@dataclass
class TreeDrawing:
    """A whole tree laid out: nodes in tree order, edges, and the canvas size."""

    nodes: list[DrawnNode]
    edges: list[DrawnEdge]
    width: int
    height: int
    players: list[str]

    @cached_property
    def by_name(self) -> dict[str, DrawnNode]:
        """Return the drawn nodes by name."""
        return {node.name: node for node in self.nodes}

    @property
    def outline(self) -> list[tuple[DrawnNode | None, bool]]:
        """Return the nodes nested as the template writes them: ``(node, has_children)`` opens
        a node and ``(None, False)`` closes the innermost open inner node."""
        steps: list[tuple[DrawnNode | None, bool]] = []

        def visit(node: DrawnNode) -> None:
            steps.append((node, bool(node.children)))
            if node.children:
                for child in node.children:
                    visit(self.by_name[child])
                steps.append((None, False))

        if self.nodes:
            visit(self.nodes[0])
        return steps

    @property
    def player_labels(self) -> list[tuple[str, str]]:
        """Return (label drawn in the node, player) pairs, for the legend."""
        return [(f"P{index}", player) for index, player in enumerate(self.players, start=1)]

    @property
    def shapes(self) -> set[str]:
        """Return the node shapes this tree uses, for its legend."""
        return {node.shape for node in self.nodes}

    @property
    def states(self) -> set[str]:
        """Return the feedback states painted on this tree, for its legend."""
        return {node.state for node in self.nodes if node.state}

    @property
    def inner_nodes(self) -> list[DrawnNode]:
        """Return the nodes that have children."""
        return [node for node in self.nodes if not node.is_leaf]

    @property
    def leaves(self) -> list[DrawnNode]:
        """Return the leaves in tree order."""
        return [node for node in self.nodes if node.is_leaf]


def shown_value(value: Any) -> str:
    """Return a leaf value as people write it; payoff vectors in parentheses."""
    if isinstance(value, list | tuple):
        return "(" + ", ".join(format_number(v) for v in value) + ")"
    return format_number(value) if value is not None else "?"


def _pre_order(tree: Mapping[str, Any]) -> Iterable[tuple[Mapping[str, Any], int, str | None]]:
    stack: list[tuple[Mapping[str, Any], int, str | None]] = [(tree, 0, None)]
    while stack:
        node, depth, parent = stack.pop()
        yield node, depth, parent
        for child in reversed(node.get("children") or []):
            stack.append((child, depth + 1, node["name"]))


def lay_out(tree: Mapping[str, Any], players: Iterable[str] = ()) -> TreeDrawing:
    """Return the drawing of ``tree``: leaves spaced evenly, parents centred over children."""
    visited = list(_pre_order(tree))
    leaf_texts = [
        text for node, _, _ in visited if not node.get("children")
        for text in (shown_value(node.get("value")), str(node["name"]))
    ]
    widest = max((len(text) for text in leaf_texts), default=1)
    leaf_gap = max(MIN_LEAF_GAP, widest * CHAR_WIDTH + 24)
    # Sibling edges are at least a leaf gap apart at the children, so LABEL_ALONG of it
    # apart where their probabilities are written: enough for the widest, and a gap.
    widest_label = max((len(format_number(probability)) for node, _, _ in visited
                        for probability in node.get("probabilities") or []), default=0)
    if widest_label:
        leaf_gap = max(leaf_gap, math.ceil(
            (widest_label * LABEL_CHAR_WIDTH + LABEL_GAP) / LABEL_ALONG))
    nodes: dict[str, DrawnNode] = {}
    next_leaf_x = MARGIN_X + leaf_gap // 2
    deepest = 0
    for raw, depth, parent in visited:
        deepest = max(deepest, depth)
        children = [child["name"] for child in raw.get("children") or []]
        drawn = DrawnNode(
            name=raw["name"],
            shape=NODE_SHAPES.get(raw.get("type", ""), "leaf") if children else "leaf",
            x=0,
            y=MARGIN_TOP + depth * LEVEL_GAP,
            depth=depth,
            parent=parent,
            player=str(PLAYER_LABELS.get(raw.get("player", ""), raw.get("player", ""))),
            position=str(raw.get("position", "")),
            children=children,
        )
        if drawn.is_leaf:
            drawn.value_text = shown_value(raw.get("value"))
            drawn.box_width = max(34, len(drawn.value_text) * CHAR_WIDTH + 14)
            drawn.x = next_leaf_x
            next_leaf_x += leaf_gap
        elif raw.get("value") is not None:
            drawn.estimate_text = shown_value(raw["value"])
        nodes[drawn.name] = drawn
    # Parents come before children in pre-order, so centre them walking backwards.
    for drawn in reversed(list(nodes.values())):
        if drawn.children:
            xs = [nodes[child].x for child in drawn.children]
            drawn.x = (min(xs) + max(xs)) // 2
    edges = []
    for raw, _, _ in visited:
        probabilities = raw.get("probabilities") or []
        parent_node = nodes[raw["name"]]
        for index, child in enumerate(raw.get("children") or []):
            child_node = nodes[child["name"]]
            label = format_number(probabilities[index]) if index < len(probabilities) else ""
            edges.append(
                DrawnEdge(
                    parent=parent_node.name,
                    child=child_node.name,
                    x1=parent_node.x,
                    y1=parent_node.y + SHAPE_HALF_WIDTH,
                    x2=child_node.x,
                    y2=child_node.y - (13 if child_node.is_leaf else SHAPE_HALF_WIDTH),
                    label=label,
                )
            )
    width = next_leaf_x - leaf_gap // 2 + MARGIN_X + 40  # room for the last node's value input
    height = MARGIN_TOP + deepest * LEVEL_GAP + LEAF_BLOCK_HEIGHT
    players = list(players)
    for drawn in nodes.values():
        if drawn.player in players:
            drawn.player_label = f"P{players.index(drawn.player) + 1}"
        elif drawn.player:
            drawn.player_label = drawn.player
    return TreeDrawing(list(nodes.values()), edges, width, height, players)

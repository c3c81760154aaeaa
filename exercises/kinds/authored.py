"""Instructor-authored trees: ``params.tree`` and ``params.randomize_values`` for tree kinds.

A kind that declares :class:`TreeRules` (see :attr:`exercises.kinds.base.Kind.tree_rules`)
takes a ``gametree/1`` tree in ``params.tree`` instead of drawing a random one; every student
gets that tree, names as written. With ``params.randomize_values`` the shape, names, node
types and probabilities stay and each student's leaves get fresh values, drawn by the kind
(:meth:`~exercises.kinds.base.Kind.fill_values`) under the same quality rules as random trees.

:func:`check_tree` validates a tree against a kind's rules and the engine's, raising
:class:`ParamError` whose ``field`` is the node's path in the JSON
(``tree.children[1].children[0]``) and whose message names the node and the rule.
"""

from __future__ import annotations

import copy
import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext_noop

from engine.errors import ProblemError
from engine.tree import parse_tree
from exercises.kinds.params import BoolParam, JsonParam, ParamError
from exercises.tree_text import TreeTextError, parse_tree_text

MAX_NODES = 200
"""Most nodes an authored tree may have: larger trees do not fit on a page."""

NODE_FIELDS = ("name", "type", "player", "probabilities", "value", "children")
"""The node fields an authored tree keeps; anything else is dropped when it is stored."""


@dataclass(frozen=True)
class TreeRules:
    """Say which authored trees a kind takes: its inner node types and its leaves' values.

    ``vector`` kinds' leaves are payoff lists, one per player: ``players_of(params)``
    names them, in turn order.
    """

    node_types: tuple[str, ...]
    vector: bool = False
    players_of: Callable[[dict[str, Any]], list[str]] | None = None

    def players(self, params: dict[str, Any]) -> list[str] | None:
        """Return the players of a vector game with ``params``, ``None`` for scalar kinds."""
        if not self.vector or self.players_of is None:
            return None
        return self.players_of(params)


def _clean_tree_value(name: str, value: Any) -> Any:
    """Return ``value`` as a tree object: ``None``, a JSON object, or the text form parsed."""
    if value is None or isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            return parse_tree_text(value)
        except TreeTextError as error:
            raise ParamError(name, str(error)) from None
    raise ParamError(
        name, f"must be a gametree/1 tree (a JSON object) or its text form, got "
        f"{type(value).__name__}",
    )


TREE_PARAM = JsonParam(
    "tree", None,
    gettext_noop(
        "the instructor's own gametree/1 tree (or its text form, e.g. MAX(A: MIN(3, 5), B: MIN(2, "
        "9))), posed to every student instead of a random one; null: draw random trees"
    ),
    validator=_clean_tree_value,
    json_schema={"oneOf": [{"type": "null"}, {"type": "object"}, {"type": "string"}]},
)
RANDOMIZE_PARAM = BoolParam(
    "randomize_values", False,
    gettext_noop(
        "keep the tree's shape, names, node types and probabilities, but draw each student's leaf "
        "values from min_value..max_value under the kind's quality rules"
    ),
)
AUTHORED_PARAMS = (TREE_PARAM, RANDOMIZE_PARAM)


def is_authored(params: dict[str, Any]) -> bool:
    """Return whether ``params`` pose an instructor's tree rather than random ones."""
    return params.get("tree") is not None


def is_fixed(params: dict[str, Any]) -> bool:
    """Return whether ``params`` pose an instructor's tree with the instructor's own values."""
    return is_authored(params) and not params.get("randomize_values")


MAX_NUMBER_BITS = 100
"""Most bits of a value or probability of an instructor's tree (about 30 digits; a fraction's
numerator and denominator each): the exact values of its deepest chance paths still print."""
MAX_EXPONENT_BUILT = 100
"""Largest decimal exponent of a number built to check its size: 1e100 is already past
:data:`MAX_NUMBER_BITS`, while building 1e100000000 exactly holds a web process for minutes."""
NAME_SEPARATORS = frozenset(",;:")
"""Characters the answer page reads between names (with whitespace): no name may hold them."""


def _paths(raw: dict[str, Any]) -> tuple[dict[str, str], list[tuple[str, dict[str, Any]]]]:
    """Return name → JSON path of each named node, and (path, node) for every node in order.

    Raise :class:`ParamError` on a node that is not an object, children that are not a list,
    a name holding a separator of the answer page, a name used twice (at its second use, the
    same after Unicode normalisation) and a tree of more than :data:`MAX_NODES` nodes, before
    the engine looks at it.
    """
    by_name: dict[str, str] = {}
    first_of: dict[str, str] = {}
    ordered: list[tuple[str, dict[str, Any]]] = []
    stack: list[tuple[str, Any]] = [("tree", raw)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            raise ParamError(path, f"a node must be a JSON object, got {node!r}")
        ordered.append((path, node))
        if len(ordered) > MAX_NODES:
            raise ParamError("tree", f"a tree may have at most {MAX_NODES} nodes, to fit on a page")
        name = node.get("name")
        if not isinstance(name, str) or not name:
            raise ParamError(path, f'a node needs a "name", a non-empty string, got {name!r}')
        if any(character.isspace() or character in NAME_SEPARATORS for character in name):
            raise ParamError(path, f"node {json.dumps(name)}: a name may not hold spaces, "
                                   "commas, semicolons or colons: the answer page separates "
                                   "names with them")
        # Names that look the same on a page (é written two ways) are the same name.
        same = unicodedata.normalize("NFC", name)
        if same in first_of:
            raise ParamError(path, f'node "{name}": node names must be unique within a tree '
                                   f"(the first is at {first_of[same]})")
        first_of[same] = by_name[name] = path
        _check_number_sizes(path, node)
        children = node.get("children", [])
        if not isinstance(children, list):
            raise ParamError(f"{path}.children", "children must be a list of nodes")
        stack.extend((f"{path}.children[{i}]", child) for i, child in reversed(
            list(enumerate(children))))
    return by_name, ordered


def _check_number_sizes(path: str, node: dict[str, Any]) -> None:
    """Refuse a value or probability of more than :data:`MAX_NUMBER_BITS` (the engine reads
    the rest of what it holds)."""
    value, probabilities = node.get("value"), node.get("probabilities")
    numbers = [*(value if isinstance(value, list) else [value]),
               *(probabilities if isinstance(probabilities, list) else [])]
    for raw in numbers:
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            continue
        if isinstance(raw, str) and _decimal_exponent(raw) > MAX_EXPONENT_BUILT:
            _refuse_number(path, raw)
        try:
            exact = Fraction(raw)
        except (ValueError, ZeroDivisionError):
            continue  # not a number: the engine says so, naming the rule
        if max(exact.numerator.bit_length(), exact.denominator.bit_length()) > MAX_NUMBER_BITS:
            _refuse_number(path, raw)


def _decimal_exponent(text: str) -> int:
    """Return the size of a decimal string's exponent (0 without one or when unreadable)."""
    _, _, exponent = text.strip().lower().partition("e")
    try:
        return abs(int(exponent)) if exponent else 0
    except ValueError:
        return 0  # not a number at all: the engine says so


def _refuse_number(path: str, raw: int | str) -> None:
    raise ParamError(path, f"a value or probability may have at most about 30 digits "
                           f"(numerator and denominator each), got {str(raw)[:40]}...")


def check_tree(rules: TreeRules, kind_name: str, raw: dict[str, Any], params: dict[str, Any]
               ) -> dict[str, Any]:
    """Return ``raw`` validated for a kind with ``rules``, keeping only the gametree/1 fields.

    Raise :class:`ParamError` at the offending node's path naming the node and the rule:
    more than :data:`MAX_NODES` nodes, a node type the kind does not use, a leaf root, or
    any rule of the engine (unique names, probabilities summing to 1, one payoff per player).
    """
    by_name, ordered = _paths(raw)
    allowed = ", ".join(rules.node_types)
    for path, node in ordered:
        if "children" in node and node.get("type") not in rules.node_types:
            label = f'node "{node.get("name")}"' if "name" in node else path
            raise ParamError(path, f"{label}: {kind_name} trees have only {allowed} inner "
                                   f"nodes, not {node.get('type')!r}")
    if "children" not in raw:
        raise ParamError("tree", "the root must have children: the question is its decision")
    try:
        parse_tree(raw, players=rules.players(params))
    except ProblemError as error:
        path = by_name.get(error.node or "", "tree")
        raise ParamError(path, str(error)) from None
    return _kept_fields(raw)


def _kept_fields(node: dict[str, Any]) -> dict[str, Any]:
    kept = {key: copy.deepcopy(node[key]) for key in NODE_FIELDS if key in node}
    if "children" in node:
        # An inner node's null value is no estimate (the engine reads it so): not stored.
        if kept.get("value", 0) is None:
            del kept["value"]
        kept["children"] = [_kept_fields(child) for child in node["children"]]
    return kept


def leaf_count(tree: dict[str, Any]) -> int:
    """Return how many leaves ``tree`` has."""
    stack, count = [tree], 0
    while stack:
        node = stack.pop()
        if "children" in node:
            stack.extend(node["children"])
        else:
            count += 1
    return count


def problem_tree(
    params: dict[str, Any],
    draw: Callable[[], dict[str, Any]],
    fill: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """Return the tree a generation attempt poses: ``draw()``, or a copy of ``params.tree``.

    With ``randomize_values`` the copy's leaves are refilled by ``fill``; without, it is the
    instructor's tree as stored. Random trees come from ``draw`` untouched, so variants of
    items without ``params.tree`` stay byte-identical.
    """
    if not is_authored(params):
        return draw()
    tree = copy.deepcopy(params["tree"])
    if params.get("randomize_values"):
        fill(tree)
    return tree

"""Draw random explicit trees with readable node names, and read them back.

Names follow the classroom habit: the root is ``root``, its children ``A``, ``B``, ``C``…,
theirs ``A1``, ``A2``…, then ``A1a``, ``A1b``…, then ``A1a1``…, alternating digits and
lower-case letters so every name says where its node is.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from django.utils.translation import gettext_noop

from exercises.kinds.authored import leaf_count
from exercises.kinds.params import BoolParam, IntParam, ParamError

ROOT = "root"
MAX_CHILDREN = 9  # names use one digit or letter per level


def child_name(parent: str, index: int, depth: int) -> str:
    """Return the name of the ``index``-th (0-based) child, at ``depth`` plies below the root."""
    if depth == 1:
        return string.ascii_uppercase[index]
    if depth % 2 == 0:
        return f"{parent}{index + 1}"
    return f"{parent}{string.ascii_lowercase[index]}"


def draw_shape(
    rng: random.Random,
    layer_types: list[str],
    min_branching: int,
    max_branching: int,
) -> dict[str, Any]:
    """Return a tree whose level ``d`` nodes have type ``layer_types[d]``; leaves get no value.

    The depth is ``len(layer_types)`` plies; every inner node has between ``min_branching``
    and ``max_branching`` children.
    """

    def build(name: str, depth: int) -> dict[str, Any]:
        if depth == len(layer_types):
            return {"name": name}
        count = rng.randint(min_branching, max_branching)
        return {
            "name": name,
            "type": layer_types[depth],
            "children": [build(child_name(name, i, depth + 1), depth + 1) for i in range(count)],
        }

    return build(ROOT, 0)


def walk(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Yield every node in tree order (pre-order, children left to right)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.get("children", [])))


def leaves(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the leaf nodes in tree order."""
    return [node for node in walk(tree) if "children" not in node]


def inner_names(tree: dict[str, Any], *, include_root: bool = False) -> list[str]:
    """Return the names of the inner nodes in tree order, the root only if asked."""
    return [
        node["name"]
        for node in walk(tree)
        if "children" in node and (include_root or node is not tree)
    ]


def draw_values(
    rng: random.Random, count: int, low: int, high: int, *, distinct: bool
) -> list[int]:
    """Return ``count`` integers in ``[low, high]``, all different when ``distinct``."""
    if not distinct:
        return [rng.randint(low, high) for _ in range(count)]
    pool = list(range(low, high + 1))
    # A partial Fisher-Yates shuffle: only randint, whose output is stable across versions.
    for i in range(count):
        j = rng.randint(i, len(pool) - 1)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:count]


def fill_leaves(
    tree: dict[str, Any], values: list[Any], *, key: str = "value"
) -> dict[str, Any]:
    """Set the leaves' ``key`` to ``values`` in tree order and return the tree."""
    for node, value in zip(leaves(tree), values, strict=True):
        node[key] = value
    return tree


def pick_names(rng: random.Random, names: list[str], count: int) -> list[str]:
    """Return up to ``count`` of ``names`` chosen at random, kept in their original order."""
    chosen = set(draw_values(rng, min(count, len(names)), 0, len(names) - 1, distinct=True))
    return [name for index, name in enumerate(names) if index in chosen]


def alternating_layers(root_type: str, depth: int) -> list[str]:
    """Return MAX/MIN layer types alternating from ``root_type`` for ``depth`` plies."""
    other = {"max": "min", "min": "max"}
    layers = [root_type]
    while len(layers) < depth:
        layers.append(other[layers[-1]])
    return layers


def moves_in_turn(
    tree: dict[str, Any], turns: Sequence[str], mover: Callable[[dict[str, Any]], str]
) -> bool:
    """Return whether every inner node ``d`` plies below the root is ``turns[d % len(turns)]``'s.

    ``mover`` reads who moves at an inner node. Random trees are drawn this way; an
    instructor's tree has whichever mover its author gave each node.
    """
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if "children" not in node:
            continue
        if mover(node) != turns[depth % len(turns)]:
            return False
        stack.extend((child, depth + 1) for child in node["children"])
    return True


TREE_PARAMS = (
    IntParam("depth", 2, gettext_noop("plies below the root (the root is at depth 0)"),
             minimum=1, maximum=4),
    IntParam("min_branching", 2, gettext_noop("fewest children of an inner node"),
             minimum=1, maximum=5),
    IntParam("max_branching", 3, gettext_noop("most children of an inner node"),
             minimum=2, maximum=5),
    IntParam("max_leaves", 16, gettext_noop("most leaves in a generated tree"),
             minimum=2, maximum=81),
    IntParam("min_value", 0, gettext_noop("smallest leaf value"), minimum=-99, maximum=99),
    IntParam("max_value", 20, gettext_noop("largest leaf value"), minimum=-99, maximum=99),
    BoolParam("allow_ties", False,
              gettext_noop("allow equal values (and so ties) in what is asked")),
)
"""The params every random-tree kind shares."""


def check_tree_params(params: dict[str, Any]) -> None:
    """Raise :class:`ParamError` when the shared tree params contradict each other.

    An instructor's tree (``params.tree``) has its own shape: only the value range is
    checked, against its leaves when they are drawn afresh.
    """
    if params["min_value"] >= params["max_value"]:
        raise ParamError("max_value", "must be greater than min_value")
    if params.get("tree") is not None:
        check_value_range(params, leaf_count(params["tree"]), distinct=not params["allow_ties"])
        return
    if params["min_branching"] > params["max_branching"]:
        raise ParamError("max_branching", "must be at least min_branching")
    fewest_leaves = params["min_branching"] ** params["depth"]
    if fewest_leaves > params["max_leaves"]:
        raise ParamError(
            "max_leaves",
            f"a depth-{params['depth']} tree with at least {params['min_branching']} children "
            f"per node has at least {fewest_leaves} leaves; raise max_leaves or lower "
            "min_branching or depth",
        )
    most_leaves = min(params["max_leaves"], params["max_branching"] ** params["depth"])
    span = params["max_value"] - params["min_value"] + 1
    if not params["allow_ties"] and span < most_leaves:
        raise ParamError(
            "max_value",
            f"without ties every leaf needs its own value: {most_leaves} leaves need a range "
            f"of at least {most_leaves} values, min_value..max_value has {span}",
        )


def check_value_range(params: dict[str, Any], count: int, *, distinct: bool) -> None:
    """Refuse a value range too narrow for ``count`` distinct leaves of a randomized tree."""
    span = params["max_value"] - params["min_value"] + 1
    if params.get("randomize_values") and distinct and span < count:
        raise ParamError(
            "max_value",
            f"without ties every leaf needs its own value: the tree's {count} leaves need a "
            f"range of at least {count} values, min_value..max_value has {span}",
        )


def draw_tree(
    rng: random.Random,
    params: dict[str, Any],
    layer_types: list[str],
    value: Callable[[int], Any] | None = None,
) -> dict[str, Any]:
    """Return a random tree under the shared tree params, its leaves valued.

    Leaf values are drawn from ``min_value..max_value`` (all different unless ``allow_ties``);
    ``value`` may turn each drawn integer into the stored leaf value.
    """
    tree = draw_shape(rng, layer_types, params["min_branching"], params["max_branching"])
    count = len(leaves(tree))
    if count > params["max_leaves"]:
        # Cut the surplus leaves' parents down to the fewest children, keeping the shape random.
        tree = _trim(tree, params["max_leaves"], params["min_branching"])
        count = len(leaves(tree))
    values = draw_values(
        rng, count, params["min_value"], params["max_value"], distinct=not params["allow_ties"]
    )
    return fill_leaves(tree, [value(v) if value else v for v in values])


def _trim(tree: dict[str, Any], max_leaves: int, min_branching: int) -> dict[str, Any]:
    """Drop children right to left, deepest first, until the tree has ``max_leaves`` leaves."""
    parents = [node for node in walk(tree) if "children" in node]
    for node in reversed(parents):
        while len(node["children"]) > min_branching and len(leaves(tree)) > max_leaves:
            node["children"].pop()
    return tree


def other_node_values(problem: dict[str, Any], answer: dict[str, Any]) -> list[tuple[Any, str]]:
    """Return node values as wrong answers for the root's: its children's first, then the rest.

    A student who backs up to the wrong child, or stops a level early, answers one of these;
    the multiple-choice generator drops the ones equal to the root's value.
    """
    values = answer["node_values"]
    children = [child["name"] for child in problem["tree"].get("children", [])]
    deeper = [
        node["name"] for node in walk(problem["tree"])
        if node is not problem["tree"] and node["name"] not in children
    ]
    return [
        *((values[name], "root_child_value") for name in children if name in values),
        *((values[name], "node_value") for name in deeper if name in values),
    ]

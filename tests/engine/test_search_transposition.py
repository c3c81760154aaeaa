"""Alpha-beta with a transposition table on a tree that draws positions twice, by hand."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import ProblemError
from engine.search.transposition import Mistake, Outcome, positions_of, tabled_alphabeta
from engine.search.ttable import Flag
from engine.tree import parse_tree


def leaf(name: str, value: int) -> dict[str, Any]:
    return {"name": name, "value": value}


def inner(name: str, kind: str, position: str, *children: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "type": kind, "position": position, "children": list(children)}


# root(MAX) -> A(MIN): A1[pX] = (3, 5), A2[pY] = (8, 1); B(MIN): B1[pY] = (8, 1), B2[pX] = (3, 5).
WORKED = inner(
    "root", "max", "p0",
    inner("A", "min", "pA",
          inner("A1", "max", "pX", leaf("A1a", 3), leaf("A1b", 5)),
          inner("A2", "max", "pY", leaf("A2a", 8), leaf("A2b", 1))),
    inner("B", "min", "pB",
          inner("B1", "max", "pY", leaf("B1a", 8), leaf("B1b", 1)),
          inner("B2", "max", "pX", leaf("B2a", 3), leaf("B2b", 5))),
)


def search(mistake: Mistake | None = None, tree: dict[str, Any] = WORKED) -> Any:
    return tabled_alphabeta(parse_tree(tree), positions_of(tree), mistake=mistake)


def table(result: Any) -> dict[str, tuple[str, object]]:
    return {position: (entry.flag.value, entry.value) for position, entry in result.table.items()}


def test_the_worked_example_stores_bounds_and_hits_the_table_twice() -> None:
    # A1 in (-inf, inf): 3, 5 → exact 5.  A lowers beta to 5.
    # A2 in (-inf, 5): 8 >= 5 cuts → 8 >= beta: lower bound 8.  A = min(5, 8) = 5, exact.
    # The root raises alpha to 5.  B in (5, inf).
    # B1 probes pY: lower 8 raises alpha to 8, (8, inf) is open → searches: 8, 1 → 8;
    #   8 <= alpha 8 → upper bound 8, replacing the lower bound.  B lowers beta to 8.
    # B2 probes pX: exact 5 → returns 5 at once, stores nothing.  B = 5 in (5, inf): upper 5.
    # The root: max(5, 5) = 5 in (-inf, inf): exact.
    result = search()
    assert result.value == 5
    assert table(result) == {"p0": ("exact", 5), "pA": ("exact", 5), "pX": ("exact", 5),
                             "pY": ("upper", 8), "pB": ("upper", 5)}
    hits = [(p.node, p.found.flag.value, p.found.value, p.outcome, p.value)
            for p in result.probes if p.found is not None]
    assert hits == [("B1", "lower", 8, Outcome.NARROWED, 8),
                    ("B2", "exact", 5, Outcome.RETURNED, 5)]
    assert result.evaluated == ["A1a", "A1b", "A2a", "B1a", "B1b"]
    assert [node for node, _, _ in result.stores] == ["A1", "A2", "A", "B1", "B", "root"]


def test_storing_every_entry_exact_returns_the_lower_bound_as_a_value() -> None:
    result = search(Mistake.ALL_EXACT)
    assert all(entry.flag is Flag.EXACT for entry in result.table.values())
    b1 = next(p for p in result.probes if p.node == "B1")
    assert (b1.outcome, b1.value) == (Outcome.RETURNED, 8)
    assert result.evaluated == ["A1a", "A1b", "A2a"]


def test_swapped_bounds_store_a_fail_high_as_an_upper_bound() -> None:
    # A2 fails high (8 >= 5) and is stored as upper 8; B1 lowers beta to 8, searches (5, 8):
    # 8 cuts at once and, failing high again, is stored as upper 8; B = 5 fails low: lower 5.
    result = search(Mistake.SWAPPED_BOUNDS)
    assert table(result)["pY"] == ("upper", 8)
    assert table(result)["pB"] == ("lower", 5)
    assert result.evaluated == ["A1a", "A1b", "A2a", "B1a"]


def test_a_position_drawn_with_another_subtree_is_refused_naming_the_node() -> None:
    tree = inner("root", "max", "p0",
                 inner("A", "min", "pA", leaf("A1", 1), leaf("A2", 2)),
                 inner("B", "min", "pA", leaf("B1", 1), leaf("B2", 3)))
    with pytest.raises(ProblemError, match='node "B".*same subtree') as raised:
        search(tree=tree)
    assert raised.value.node == "B"


def test_an_inner_node_without_a_position_is_refused_naming_it() -> None:
    tree = {"name": "root", "type": "max", "children": [leaf("A", 1)]}
    with pytest.raises(ProblemError, match='node "root".*"position"'):
        positions_of(tree)

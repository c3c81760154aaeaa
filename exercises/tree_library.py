"""The library of named trees: the seeds' worked examples, ready to pose as ``params.tree``.

Each tree is kept in the board text form (:mod:`exercises.tree_text`) with the names its
source gives its nodes, where it comes from, and the kinds it suits; the builder offers them
and ``GET /api/v1/tree-library/`` lists them with their ``gametree/1`` JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from exercises.tree_text import parse_tree_text

MINIMAX_KINDS = ("minimax", "alphabeta", "move_ordering")
ALREADY_BEST_FIRST = ("minimax", "alphabeta")
"""Trees already searched best first: a second, best-first search of them evaluates the
same leaves, so they do not suit ``move_ordering``."""


@dataclass(frozen=True)
class LibraryTree:
    """One named tree: its id, title, source, the kinds it suits and its text form."""

    id: str
    title: str | Promise
    source: str
    kinds: tuple[str, ...]
    text: str
    note: str | Promise = ""
    params: dict[str, Any] = field(default_factory=dict)
    """Params the tree needs besides itself (a vector tree's number of players)."""

    @property
    def tree(self) -> dict[str, Any]:
        """Return the tree as ``gametree/1`` JSON."""
        return parse_tree_text(self.text)


LIBRARY: tuple[LibraryTree, ...] = (
    LibraryTree(
        "two-by-two", gettext_lazy("Two MIN nodes, leaves 3, 5 and 2, 9"),
        "Jogos e Minimax (pt-PT summary)", ALREADY_BEST_FIRST,
        "raiz: MAX(MIN(3, 5), MIN(2, 9))",
        gettext_lazy("Leaf 5 is read but changes nothing; only 9 is cut."),
    ),
    LibraryTree(
        "three-by-three", gettext_lazy("Three MIN nodes of three leaves (the textbook figure)"),
        "Cerca amb Adversari: Jocs i Minimax (ca)", MINIMAX_KINDS,
        "A: MAX(B: MIN(3, 12, 8), C: MIN(2, 4, 6), D: MIN(14, 5, 2))",
        gettext_lazy("Alpha-beta visits 11 of the 13 nodes."),
    ),
    LibraryTree(
        "exercise-1", gettext_lazy("Exercise 1: three MIN nodes E, F, G"),
        "Cerca amb Adversari: Jocs i Minimax (ca), Exercici 1", MINIMAX_KINDS,
        "MAX(E: MIN(5, 9, 4), F: MIN(2, 7, 8), G: MIN(6, 11, 3))",
    ),
    LibraryTree(
        "abc-left-to-right", gettext_lazy("Moves A, B, C searched left to right"),
        "Jogos e busca adversária (pt-BR) 3.1", MINIMAX_KINDS,
        "MAX(MIN(4, 9, 6), MIN(2, 15, 13), MIN(5, 8, 10))",
    ),
    LibraryTree(
        "abc-best-first", gettext_lazy("The same moves, best first (C, A, B)"),
        "Jogos e busca adversária (pt-BR) 3.2", ALREADY_BEST_FIRST,
        "MAX(C: MIN(5, 8, 10), A: MIN(4, 9, 6), B: MIN(2, 15, 13))",
    ),
    LibraryTree(
        "uniform-opponent", gettext_lazy("An opponent who moves at random (uniform chance)"),
        "Jogos e busca adversária (pt-BR) 5.2", ("expectimax", "expectiminimax"),
        "MAX(CHANCE(4, 9, 6), CHANCE(2, 15, 13), CHANCE(5, 8, 10))",
    ),
    LibraryTree(
        "coin-then-min", gettext_lazy("A fair and a biased coin, then MIN"),
        "Jogos e busca adversária (pt-BR) 5.1", ("expectiminimax",),
        "MAX(L: CHANCE(MIN(L11: 3, L12: 7), MIN(L21: 8, L22: 4)), "
        "R: CHANCE([1/4] MIN(R11: 10, R12: 1), [3/4] MIN(R21: 6, R22: 5)))",
    ),
    LibraryTree(
        "three-players", gettext_lazy("Three players A, B, C (max^n)"),
        "Jogos e busca adversária (pt-BR) 2.3", ("vector",),
        "A(l: B(C((1, 2, 6), (4, 2, 3)), C((6, 1, 2), (7, 4, 1))), "
        "r: B(C((5, 4, 5), (2, 5, 4)), C((5, 2, 4), (7, 7, 1))))",
        params={"players": 3},
    ),
    LibraryTree(
        "price-war", gettext_lazy("A price war: keep the price or cut it by 5 or 10"),
        "Cerca amb Adversari (ca) 8.1", MINIMAX_KINDS,
        "inicio: MAX(mantenir: MIN(m_comp_mante: 12, m_comp_baixa5: 6, m_comp_baixa10: 3), "
        "baixar_5: MIN(b5_comp_mante: 14, b5_comp_iguala: 8, b5_comp_baixa10: 5), "
        "baixar_10: MIN(b10_comp_mante: 13, b10_comp_iguala: 6, b10_comp_baixa15: 4))",
        gettext_lazy("Node names are the firms' moves."),
    ),
)


def library_trees(kind: str | None = None) -> list[LibraryTree]:
    """Return the library's trees in their order, only those suiting ``kind`` if given."""
    return [tree for tree in LIBRARY if kind is None or kind in tree.kinds]

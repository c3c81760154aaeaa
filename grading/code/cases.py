"""The hidden tests of search code items: explicit trees and game positions, some per student.

Fixed cases are the same for everyone and are built to tell the named misconceptions apart;
generated ones are drawn from a ``random.Random`` seeded by a SHA-256 of the variant item's
seed, so a student's hidden tests are stable across regrades and machines yet differ from
their classmates' (a change to the tests themselves shows in the next regrade: on
2026-12-03 minimax and expectimax items gained a tree where a player moves twice, and UCB1
items' drawn statistics changed to tell every mistake apart). Nothing here is ever shown to
the student's process: it only sees the states the grader hands out.
"""

from __future__ import annotations

import hashlib
import random
import string
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any

from engine.game import Evaluator, Game
from engine.games import connect4, tictactoe
from engine.tree import TreeGame, parse_tree

CHANCE_SPLITS = (("1/2", "1/2"), ("1/3", "2/3"), ("3/4", "1/4"), ("1/2", "1/4", "1/4"))
"""Probabilities of generated chance nodes: few, exact and easy to average by hand."""


@dataclass(frozen=True)
class SearchCase:
    """One hidden test: a game, the root state, the depth argument and how to name states.

    ``depth`` is the reference search's depth limit (``None``: the whole game); ``args`` are
    the entry point's arguments after the state (alpha-beta's depth); ``tree`` keeps the raw
    ``gametree/1`` tree of tree cases so misconceptions can rewrite it.
    """

    name: str
    game: Game[Any, Any]
    root: Hashable
    depth: int | None = None
    evaluator: Evaluator[Any] | None = None
    tree: dict[str, Any] | None = None
    state_names: Callable[[Hashable], str | None] = field(default=lambda state: None)
    args: tuple[Any, ...] = ()

    def name_of(self, state: Hashable, paths: dict[Hashable, str]) -> str:
        """Return how feedback names ``state``: its node name, else the moves reaching it."""
        return self.state_names(state) or paths.get(state) or repr(state)


def tests_rng(seed: str, purpose: str) -> random.Random:
    """Return the random generator of a variant item's hidden tests for ``purpose``."""
    digest = hashlib.sha256(f"cutoff/code-tests/{purpose}/{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def tree_case(name: str, raw: dict[str, Any], depth: int | None) -> SearchCase:
    """Return the case searching explicit tree ``raw`` (node names are the states)."""
    tree = parse_tree(raw)
    game = TreeGame(tree)
    return SearchCase(name, game, tree.root.name, depth, game.estimate, raw,
                      state_names=lambda state: str(state))


def _leaf(name: str, value: int) -> dict[str, Any]:
    return {"name": name, "value": value}


def _node(name: str, kind: str, estimate: int, children: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "type": kind, "value": estimate, "children": children}


def textbook_tree() -> dict[str, Any]:
    """Return a two-ply MAX/MIN tree where each alpha-beta convention changes what is visited.

    B is cut after its first leaf (2 < alpha 3); C's first leaf equals alpha, so C is cut
    only when cutting on equality; without alpha raised at the root B and C see everything.
    """
    return _node("root", "max", 3, [
        _node("A", "min", 4, [_leaf("A1", 3), _leaf("A2", 12), _leaf("A3", 8)]),
        _node("B", "min", 5, [_leaf("B1", 2), _leaf("B2", 4), _leaf("B3", 6)]),
        _node("C", "min", 2, [_leaf("C1", 3), _leaf("C2", 5), _leaf("C3", 1)]),
    ])


def deep_tree() -> dict[str, Any]:
    """Return a three-ply tree with estimates on every inner node, searched to depth 2.

    Stopping at depth 1 or going on to depth 3 both change the leaves evaluated and the
    decision, so an off-by-one depth shows.
    """
    return _node("root", "max", 0, [
        _node("A", "min", 9, [
            _node("A1", "max", 4, [_leaf("A1a", 1), _leaf("A1b", 9)]),
            _node("A2", "max", 6, [_leaf("A2a", 2), _leaf("A2b", 3)]),
        ]),
        _node("B", "min", 1, [
            _node("B1", "max", 7, [_leaf("B1a", 8), _leaf("B1b", 7)]),
            _node("B2", "max", 5, [_leaf("B2a", 6), _leaf("B2b", 0)]),
        ]),
        _node("C", "min", 2, [
            _node("C1", "max", 3, [_leaf("C1a", 5), _leaf("C1b", 4)]),
            _node("C2", "max", 8, [_leaf("C2a", 7), _leaf("C2b", 2)]),
        ]),
    ])


def extra_move_tree() -> dict[str, Any]:
    """Return a tree where MAX sometimes moves twice (searched to depth 2 by alpha-beta items,
    whole by minimax items).

    Under B the opponent replies; under C MAX moves again. Cutting the opponent's level one
    ply early (the partial-ply mistake) evaluates B but still expands C, so it differs from
    both the correct search and a search one ply too shallow.
    """
    return _node("root", "max", 0, [
        _node("A", "max", 2, [_leaf("A1", 3), _leaf("A2", 1)]),
        _node("B", "min", 8, [_leaf("B1", 2), _leaf("B2", 6)]),
        _node("C", "max", 4, [_leaf("C1", 5), _leaf("C2", 7)]),
    ])


def chance_tree() -> dict[str, Any]:
    """Return a MAX root over chance nodes over MIN nodes, with unequal probabilities."""
    return {"name": "root", "type": "max", "children": [
        {"name": "A", "type": "chance", "probabilities": ["1/4", "3/4"], "children": [
            _node("A1", "min", 0, [_leaf("A1a", 8), _leaf("A1b", 4)]),
            _node("A2", "min", 0, [_leaf("A2a", 2), _leaf("A2b", 6)]),
        ]},
        {"name": "B", "type": "chance", "probabilities": ["1/2", "1/2"], "children": [
            _node("B1", "min", 0, [_leaf("B1a", 3), _leaf("B1b", 5)]),
            _node("B2", "min", 0, [_leaf("B2a", 4), _leaf("B2b", 1)]),
        ]},
    ]}


def extra_move_chance_tree() -> dict[str, Any]:
    """Return a chance tree where a decision after a chance node is sometimes MAX's again.

    A1 and B2 are MAX's moves one ply below a chance node, where a search that decides MAX
    and MIN by depth minimises: it finds the root worth 5/2 (by A) instead of 9/2 (by B).
    """
    return {"name": "root", "type": "max", "children": [
        {"name": "A", "type": "chance", "probabilities": ["1/4", "3/4"], "children": [
            _node("A1", "max", 0, [_leaf("A1a", 8), _leaf("A1b", 4)]),
            _node("A2", "min", 0, [_leaf("A2a", 2), _leaf("A2b", 6)]),
        ]},
        {"name": "B", "type": "chance", "probabilities": ["1/2", "1/2"], "children": [
            _node("B1", "min", 0, [_leaf("B1a", 3), _leaf("B1b", 5)]),
            _node("B2", "max", 0, [_leaf("B2a", 6), _leaf("B2b", 1)]),
        ]},
    ]}


def child_name(parent: str, index: int, level: int) -> str:
    """Return the classroom name of a child: A, B… under the root, then A1, A1a, A1a1…"""
    if level == 1:
        return string.ascii_uppercase[index]
    if level % 2 == 0:
        return f"{parent}{index + 1}"
    return f"{parent}{string.ascii_lowercase[index]}"


def random_tree(rng: random.Random, layers: tuple[str, ...], *, branching: tuple[int, int] = (2, 3),
                values: tuple[int, int] = (0, 9)) -> dict[str, Any]:
    """Return a tree whose level ``d`` nodes have type ``layers[d]``, leaves below the last.

    Every inner node of a MAX/MIN level gets an integer estimate, so any depth limit works.
    """

    def build(name: str, level: int) -> dict[str, Any]:
        if level == len(layers):
            return _leaf(name, rng.randint(*values))
        kind = layers[level]
        if kind == "chance":
            split = rng.choice(CHANCE_SPLITS)
            children = [build(child_name(name, i, level + 1), level + 1) for i in range(len(split))]
            return {"name": name, "type": "chance", "probabilities": list(split),
                    "children": children}
        count = rng.randint(*branching)
        children = [build(child_name(name, i, level + 1), level + 1) for i in range(count)]
        return _node(name, kind, rng.randint(*values), children)

    return build("root", 0)


def random_position(rng: random.Random, game: Game[Any, Any], start: Any, plies: int
                    ) -> tuple[Any, list[Any]]:
    """Return a non-terminal position ``plies`` random moves from ``start``, and the moves."""
    while True:
        state, moves = start, []
        for _ in range(plies):
            move = rng.choice(list(game.actions(state)))
            state = game.result(state, move)
            moves.append(move)
            if game.is_terminal(state):
                break
        if not game.is_terminal(state):
            return state, moves


def tictactoe_case(rng: random.Random, *, plies: int, depth: int | None) -> SearchCase:
    """Return a tic-tac-toe case from a random position ``plies`` moves into a game."""
    game = tictactoe.TicTacToe()
    root, _ = random_position(rng, game, tictactoe.EMPTY_BOARD, plies)
    board = root.board.replace(" ", "_")
    name = f"tic-tac-toe {board[:3]}/{board[3:6]}/{board[6:]}, {root.player} to move"
    return SearchCase(name, game, root, depth, tictactoe.open_lines)


def connect4_case(rng: random.Random, *, plies: int, depth: int) -> SearchCase:
    """Return a Connect Four case from a random position ``plies`` moves into a game."""
    game = connect4.Connect4()
    root, moves = random_position(rng, game, connect4.EMPTY_BOARD, plies)
    opening = "".join(str(move + 1) for move in moves)
    name = f"Connect Four after {opening} (1-based columns), {root.player} to move"
    return SearchCase(name, game, root, depth, connect4.window_score)


SEARCH_TEST_SETS: dict[str, tuple[str, ...]] = {
    "code_minimax": ("fixed_trees", "generated_trees", "tictactoe"),
    "code_alphabeta": ("fixed_trees", "generated_trees", "tictactoe", "connect4"),
    "code_expectimax": ("fixed_trees", "generated_trees"),
}
"""The test sets each search kind offers (and uses by default)."""

MAX_DRAWS = 50


def search_cases(kind_name: str, params: dict[str, Any], seed: str) -> list[SearchCase]:
    """Return the hidden tests of a search item with ``params`` for the variant item ``seed``."""
    chosen = [name for name in params.get("test_sets", SEARCH_TEST_SETS[kind_name])
              if name in SEARCH_TEST_SETS[kind_name]]
    builders = {"fixed_trees": _fixed_trees, "generated_trees": _generated_trees,
                "tictactoe": _tictactoe_cases, "connect4": _connect4_cases}
    cases: list[SearchCase] = []
    for name in chosen:
        cases += builders[name](kind_name, params, tests_rng(seed, name))
    if kind_name == "code_alphabeta":
        cases = [replace(case, args=(case.depth,)) for case in cases]
    return cases


def _fixed_trees(kind_name: str, params: dict[str, Any], rng: random.Random) -> list[SearchCase]:
    # Every kind's conventions say a player may move twice in a row: one tree tests it.
    if kind_name == "code_expectimax":
        return [tree_case("chance tree", chance_tree(), None),
                tree_case("extra-move chance tree", extra_move_chance_tree(), None)]
    limited = kind_name == "code_alphabeta"
    return [tree_case("textbook tree", textbook_tree(), 2 if limited else None),
            tree_case("three-ply tree", deep_tree(), 2 if limited else None),
            tree_case("extra-move tree", extra_move_tree(), 2 if limited else None)]


def _generated_trees(kind_name: str, params: dict[str, Any], rng: random.Random
                     ) -> list[SearchCase]:
    layers = {"code_minimax": ("max", "min", "max"), "code_alphabeta": ("max", "min", "max"),
              "code_expectimax": ("max", "chance", "min")}[kind_name]
    cases = []
    for number in range(1, params.get("generated_trees", 2) + 1):
        # Alternate full searches with searches cut one ply short of the leaves.
        depth = None
        if kind_name == "code_alphabeta":
            depth = len(layers) if number % 2 else len(layers) - 1
        cases.append(_pruning_tree(rng, f"your tree {number}", layers, depth, kind_name))
    return cases


def _pruning_tree(rng: random.Random, name: str, layers: tuple[str, ...], depth: int | None,
                  kind_name: str) -> SearchCase:
    """Return a drawn tree case; for alpha-beta, one where pruning changes what is evaluated."""
    from engine.search.alphabeta import alphabeta
    from engine.search.trace import NodeCounter

    for _ in range(MAX_DRAWS):
        case = tree_case(name, random_tree(rng, layers), depth)
        if kind_name != "code_alphabeta":
            return case
        counter = NodeCounter()
        alphabeta(case.game, case.root, depth_limit=depth, evaluator=case.evaluator,
                  tracer=counter)
        if counter.cutoffs >= 2:
            return case
    return case


def _tictactoe_cases(kind_name: str, params: dict[str, Any], rng: random.Random
                     ) -> list[SearchCase]:
    if kind_name == "code_alphabeta":
        return [tictactoe_case(rng, plies=3, depth=2)]
    return [tictactoe_case(rng, plies=4, depth=None)]


def _connect4_cases(kind_name: str, params: dict[str, Any], rng: random.Random
                    ) -> list[SearchCase]:
    return [connect4_case(rng, plies=4, depth=2)]


def public_cases(kind_name: str, params: dict[str, Any]) -> list[SearchCase]:
    """Return the public example tests of a search item: its first fixed tree, the same for
    every student and named in the starter file ("textbook tree", or "chance tree" for
    expectimax). The graded tests still include it; a check runs only these."""
    cases = search_cases(kind_name, {**params, "test_sets": ["fixed_trees"]}, "public")
    return cases[:1]

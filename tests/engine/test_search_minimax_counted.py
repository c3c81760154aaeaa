"""Minimax's counting fast path agrees with its general path, node for node.

``minimax`` runs a tighter loop when the tracer only counts (``NodeCounter``, ``NullTracer``)
and there is no depth limit, order or terminal rescoring. A ``NodeCounter`` subclass that
overrides nothing does not inherit the ``counts_only`` promise, so it gets every event and
forces the general path: the tests compare the two on the same searches.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

import pytest

from engine.errors import GameError
from engine.game import (
    Expanding,
    Game,
    scored_successor_function,
    successor_function,
    terminal_utility_function,
)
from engine.games.tictactoe import EMPTY_BOARD, O, TicTacToe, TicTacToeState, X, parse_board
from engine.search.common import SearchResult
from engine.search.minimax import minimax
from engine.search.trace import (
    Bound,
    NodeCounter,
    NullTracer,
    RecordingTracer,
    TeeTracer,
    bulk_count,
    listens,
)
from engine.tree import TreeGame, parse_tree


class EveryEvent(NodeCounter):
    """Count like NodeCounter, but node by node: no ``counts_only`` of its own."""


class BulkOnly(NodeCounter):
    """Count like NodeCounter, refusing node-by-node events: proves the fast path ran."""

    counts_only = True

    def enter(self, state: Hashable, depth: int, alpha: Bound, beta: Bound) -> None:
        raise AssertionError("the counting fast path sends no enter events")


class PlainProtocol:
    """Wrap a game, hiding its optional ``successors`` and ``terminal_utilities``."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def to_move(self, state: Any) -> str:
        return str(self.game.to_move(state))

    def actions(self, state: Any) -> Sequence[Any]:
        return list(self.game.actions(state))

    def result(self, state: Any, action: Any) -> Any:
        return self.game.result(state, action)

    def is_terminal(self, state: Any) -> bool:
        return bool(self.game.is_terminal(state))

    def utility(self, state: Any, player: str) -> Any:
        return self.game.utility(state, player)

    def chance_outcomes(self, state: Any) -> Sequence[tuple[Any, Fraction]]:
        return list(self.game.chance_outcomes(state))


def searched(game: Any, state: Any, tracer: NodeCounter, **options: Any) -> tuple[Any, ...]:
    result: SearchResult[Any] = minimax(game, state, tracer=tracer, **options)
    return result.value, result.move, result.principal_variation, tracer.nodes, tracer.leaves


def both_paths(game: Any, state: Any, **options: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    fast = searched(game, state, BulkOnly(), **options)
    general = searched(game, state, EveryEvent(), **options)
    return fast, general


def test_bulk_count_only_for_tracers_that_declare_it() -> None:
    counter, null = NodeCounter(), NullTracer()
    assert bulk_count(counter) == counter.count
    assert bulk_count(null) == null.count
    assert bulk_count(EveryEvent()) is None
    assert bulk_count(RecordingTracer()) is None
    assert bulk_count(TeeTracer(NodeCounter())) is None
    counter.count(5, 3)
    counter.count(2, 1)
    assert (counter.nodes, counter.leaves, counter.cutoffs) == (7, 4, 0)


def test_listens_only_where_a_tracer_overrides_the_no_op() -> None:
    assert not listens(NodeCounter(), "exit")
    assert listens(NodeCounter(), "enter") and listens(NodeCounter(), "leaf")
    assert not any(listens(NullTracer(), e) for e in ("enter", "leaf", "cutoff", "exit"))
    assert all(listens(RecordingTracer(), e) for e in ("enter", "leaf", "cutoff", "exit"))
    assert listens(TeeTracer(), "exit")


def test_full_tictactoe_tree_on_both_paths() -> None:
    fast, general = both_paths(TicTacToe(), EMPTY_BOARD)
    assert fast == general
    value, move, line, nodes, leaves = fast
    assert (value, move, nodes, leaves) == (0, 0, 549_945, 255_168)
    assert len(line) == 9


def test_plain_node_counter_takes_the_fast_path() -> None:
    game = TicTacToe()
    calls: list[str] = []

    class Watched(TicTacToe):
        def actions(self, state: TicTacToeState) -> Sequence[int]:
            calls.append("actions")
            return game.actions(state)

    counter = NodeCounter()
    minimax(Watched(), parse_board("XO  X  O "), tracer=counter)
    assert calls == []
    minimax(Watched(), parse_board("XO  X  O "), tracer=EveryEvent())
    assert calls


def random_positions(count: int, seed: int) -> list[TicTacToeState]:
    """Return reachable non-terminal positions after 2..7 random moves."""
    rng = random.Random(seed)
    game = TicTacToe()
    positions: list[TicTacToeState] = []
    while len(positions) < count:
        state = EMPTY_BOARD
        for _ in range(rng.randrange(2, 8)):
            if game.is_terminal(state):
                break
            state = game.result(state, rng.choice(game.actions(state)))
        if not game.is_terminal(state):
            positions.append(state)
    return positions


@pytest.mark.parametrize("state", random_positions(12, seed=7), ids=lambda s: repr(s.board))
def test_tictactoe_positions_agree(state: TicTacToeState) -> None:
    game = TicTacToe()
    for max_player in (None, X, O):
        fast, general = both_paths(game, state, max_player=max_player)
        assert fast == general
        assert both_paths(PlainProtocol(game), state, max_player=max_player) == (fast, fast)


def test_terminal_tictactoe_root_is_one_leaf() -> None:
    state = parse_board("XXXOO    ")
    for player, value in ((X, 1), (O, -1)):
        fast, general = both_paths(TicTacToe(), state, max_player=player)
        assert fast == general == (value, None, (), 0, 1)


def test_tictactoe_optional_methods_match_the_protocol() -> None:
    game = TicTacToe()
    typed: tuple[Game[TicTacToeState, int], Expanding[TicTacToeState, int]] = (game, game)
    assert typed  # mypy checks that TicTacToe implements both protocols
    seen, pending = set(), [EMPTY_BOARD]
    terminal = {p: game.terminal_utilities(p) for p in (X, O)}
    scored = {p: game.scored_successors(p) for p in (X, O)}
    plain = PlainProtocol(game)
    while pending:
        state = pending.pop()
        if state in seen:
            continue
        seen.add(state)
        pairs = game.successors(state)
        assert [a for a, _ in pairs] == list(game.actions(state))
        assert [c for _, c in pairs] == [game.result(state, a) for a in game.actions(state)]
        for player in (X, O):
            expected = game.utility(state, player) if game.is_terminal(state) else None
            assert terminal[player](state) == expected
            assert terminal_utility_function(game, player)(state) == expected
            assert terminal_utility_function(plain, player)(state) == expected
            triples = [(a, c, terminal[player](c)) for a, c in pairs]
            assert list(scored[player](state)) == triples
            assert list(scored_successor_function(plain, player)(state)) == triples
        assert successor_function(game)(state) == pairs
        assert list(successor_function(plain)(state)) == list(pairs)
        pending.extend(c for _, c in pairs)
    assert len(seen) == 5_478


def test_unreachable_tictactoe_state_is_refused_on_the_fast_path() -> None:
    bad = TicTacToeState(0b111, 0, O)  # X has a line, yet it's O's turn with no O marks
    with pytest.raises(GameError, match="cannot arise in play"):
        TicTacToe().successors(bad)
    with pytest.raises(GameError, match="cannot arise in play"):
        TicTacToe().scored_successors(X)(bad)
    with pytest.raises(GameError, match="cannot arise in play"):
        minimax(TicTacToe(), bad, max_player=X, tracer=NodeCounter())


def random_tree(rng: random.Random, depth: int, chance: bool) -> dict[str, Any]:
    """Return a random gametree/1 tree (max, min and, if ``chance``, chance nodes)."""
    names = iter(range(1_000_000))

    def build(level: int) -> dict[str, Any]:
        name = f"n{next(names)}"
        if level == depth or (level and rng.random() < 0.25):
            value: Any = rng.randint(-9, 9)
            if rng.random() < 0.2:
                value = f"{rng.randint(-9, 9)}/{rng.randint(1, 4)}"
            return {"name": name, "value": value}
        kinds = ["max", "min", "chance"] if chance else ["max", "min"]
        kind = rng.choice(kinds)
        children = [build(level + 1) for _ in range(rng.randint(1, 4))]
        node: dict[str, Any] = {"type": kind, "name": name, "children": children}
        if kind == "chance":
            weights = [rng.randint(1, 3) for _ in children]
            node["probabilities"] = [f"{w}/{sum(weights)}" for w in weights]
        return node

    return build(0)


@pytest.mark.parametrize("seed", range(40))
def test_random_trees_agree(seed: int) -> None:
    rng = random.Random(seed)
    raw = random_tree(rng, depth=rng.randint(1, 6), chance=seed % 2 == 1)
    game = TreeGame(parse_tree(raw))
    for max_player in ("max", "min"):
        fast, general = both_paths(game, "n0", max_player=max_player)
        assert fast == general
        recorder = RecordingTracer()
        result = minimax(game, "n0", max_player=max_player, tracer=recorder)
        value, move, line, nodes, leaves = fast
        assert (result.value, result.move, result.principal_variation) == (value, move, line)
        assert (len(recorder.entered()) - 1, len(recorder.evaluated())) == (nodes, leaves)
        assert type(value) is int or isinstance(value, Fraction) and value.denominator != 1


def test_fast_path_refuses_a_dead_end() -> None:
    class DeadEnd(PlainProtocol):
        def actions(self, state: Any) -> Sequence[Any]:
            return [] if state == "B" else super().actions(state)

    raw = {"type": "max", "name": "r", "children": [
        {"name": "A", "value": 1},
        {"type": "min", "name": "B", "children": [{"name": "B1", "value": 2}]},
    ]}
    game = DeadEnd(TreeGame(parse_tree(raw)))
    for tracer in (BulkOnly(), EveryEvent()):
        with pytest.raises(GameError, match="no legal actions"):
            minimax(game, "r", tracer=tracer)

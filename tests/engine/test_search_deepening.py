"""Iterative deepening: the deepest completed iteration decides; budgets stop it cleanly."""

from __future__ import annotations

from engine.games.connect4 import EMPTY_BOARD as C4_EMPTY
from engine.games.connect4 import Connect4
from engine.games.tictactoe import EMPTY_BOARD, TicTacToe, parse_board
from engine.search.alphabeta import alphabeta
from engine.search.deepening import iterative_deepening, node_budget, time_budget
from engine.search.ttable import TranspositionTable


def zero(state: object, player: str) -> int:
    return 0


def test_deepening_to_the_end_is_exact_and_stops_early() -> None:
    result = iterative_deepening(TicTacToe(), parse_board("XOX O    "), evaluator=zero)
    assert result.complete
    assert (result.value, result.move) == (0, 7)
    assert [it.depth for it in result.iterations] == list(range(1, result.depth + 1))
    assert result.depth <= 5  # five empty squares: nothing lies deeper


def test_each_iteration_matches_a_plain_depth_limited_search() -> None:
    game = TicTacToe()
    result = iterative_deepening(game, EMPTY_BOARD, evaluator=zero, max_depth=3)
    assert result.depth == 3 and not result.complete
    for iteration in result.iterations:
        plain = alphabeta(game, EMPTY_BOARD, depth_limit=iteration.depth, evaluator=zero)
        assert iteration.result.value == plain.value


def test_budget_keeps_the_deepest_completed_iteration() -> None:
    game = Connect4()
    result = iterative_deepening(game, C4_EMPTY, evaluator=zero, budget=node_budget(500))
    assert result.iterations, "the first iteration always completes"
    assert result.iterations[-1].depth == result.depth
    assert result.move == result.iterations[-1].result.move
    assert sum(it.nodes for it in result.iterations[1:]) <= 500


def test_time_budget_uses_the_clock_passed_in() -> None:
    ticks = iter(range(1000))
    budget = time_budget(5, clock=lambda: next(ticks))
    assert [budget() for _ in range(6)] == [False] * 5 + [True]


def test_shared_table_is_filled_across_iterations() -> None:
    table: TranspositionTable[int] = TranspositionTable()
    iterative_deepening(TicTacToe(), EMPTY_BOARD, evaluator=zero, max_depth=2, table=table)
    assert len(table) > 0


def test_reusing_the_best_root_move_reorders_only_the_root() -> None:
    from engine.tree import TreeGame, parse_tree
    from tests.engine.test_misconceptions import DEEPENING

    game = TreeGame(parse_tree(DEEPENING))
    runs = {reuse: iterative_deepening(game, "root", evaluator=game.estimate, reuse=reuse)
            for reuse in ("root", "none")}
    assert [it.result.move for it in runs["root"].iterations] == ["A", "B", "A"]
    # Depth 3 searches B (the depth-2 best) first: B1 = 4, B2 cut after B2a = 5; then A = 6.
    assert [it.evaluations for it in runs["root"].iterations] == [2, 4, 7]
    # Left to right, A = 6 comes first and B is cut after B1 = 4.
    assert [it.evaluations for it in runs["none"].iterations] == [2, 4, 6]
    assert runs["root"].complete and runs["root"].value == 6


def test_a_table_is_only_shared_when_reused() -> None:
    import pytest

    with pytest.raises(ValueError, match="only shared"):
        iterative_deepening(TicTacToe(), EMPTY_BOARD, evaluator=zero, reuse="none",
                            table=TranspositionTable())


def test_solve_answers_iterative_deepening_and_names_bad_params() -> None:
    import pytest

    from engine.errors import ProblemError
    from engine.solve import solve
    from tests.engine.test_misconceptions import DEEPENING

    def problem(**params: object) -> dict[str, object]:
        return {"format": "gametree/1", "kind": "iterative_deepening", "tree": DEEPENING,
                "params": params}

    answer = solve(problem(interrupted_depth=3))
    assert [(it["depth"], it["move"], it["value"], it["evaluations"])
            for it in answer["iterations"]] == [(1, "A", 5, 2), (2, "B", 6, 4), (3, "A", 6, 7)]
    assert (answer["move"], answer["value"], answer["complete"]) == ("A", 6, True)
    assert answer["interrupted_move"] == "B"
    assert solve(problem(max_depth=2))["iterations"][-1]["depth"] == 2
    for params, field in (({"reuse": "sometimes"}, "params.reuse"),
                          ({"interrupted_depth": 4}, "params.interrupted_depth"),
                          ({"interrupted_depth": 1}, "params.interrupted_depth"),
                          ({"max_depth": 0}, "params.max_depth")):
        with pytest.raises(ProblemError) as raised:
            solve(problem(**params))
        assert raised.value.field == field

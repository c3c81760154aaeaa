"""Connect Four bitboards: moves, wins in every direction, the window heuristic, parsing."""

import random
from typing import Any

import pytest

from engine.errors import GameError
from engine.games.connect4 import (
    EMPTY_BOARD,
    ORDERINGS,
    WIN,
    WINDOWS,
    Connect4,
    Connect4State,
    MoveOrder,
    centre_first_order,
    column_order,
    has_four,
    parse_moves,
    window_score,
)
from engine.search.alphabeta import alphabeta
from engine.search.minimax import minimax
from engine.search.trace import NodeCounter
from engine.search.ttable import TranspositionTable

GAME = Connect4()


def bits(*cells: tuple[int, int]) -> int:
    """Return the bitboard of (column, row) cells, both 0-based, row 0 at the bottom."""
    return sum(1 << (7 * column + row) for column, row in cells)


def test_discs_stack_from_the_bottom() -> None:
    state = parse_moves("4455")
    assert state.rows()[-2:] == ("...OO..", "...XX..")
    assert state.player == "X"
    assert state.height(3) == 2
    assert state.height(0) == 0
    assert state == Connect4State(bits((3, 0), (4, 0)), bits((3, 1), (4, 1)), "X")


@pytest.mark.parametrize(
    "cells",
    [
        [(2, 1), (3, 1), (4, 1), (5, 1)],  # horizontal
        [(6, 2), (6, 3), (6, 4), (6, 5)],  # vertical, up to the top row
        [(0, 0), (1, 1), (2, 2), (3, 3)],  # rising diagonal
        [(3, 5), (4, 4), (5, 3), (6, 2)],  # falling diagonal
    ],
)
def test_four_in_a_row_in_every_direction(cells: list[tuple[int, int]]) -> None:
    assert has_four(bits(*cells))
    assert not has_four(bits(*cells[:3]))


@pytest.mark.parametrize(
    "cells",
    [
        [(0, 5), (1, 0), (1, 1), (1, 2)],  # column top + next column bottom: not a line
        [(5, 0), (6, 0), (0, 1), (1, 1)],  # a row does not wrap to the next row
        [(0, 3), (0, 4), (0, 5), (1, 0)],  # vertical across the sentinel bit
        [(4, 3), (5, 4), (6, 5), (0, 0)],
    ],
)
def test_lines_never_wrap_between_columns(cells: list[tuple[int, int]]) -> None:
    assert not has_four(bits(*cells))


def test_there_are_69_windows() -> None:
    assert len(WINDOWS) == 69
    assert all(window.bit_count() == 4 for window in WINDOWS)


def test_terminal_utilities_reward_quick_wins() -> None:
    vertical = parse_moves("1212121")
    assert GAME.is_terminal(vertical)
    assert GAME.actions(vertical) == ()
    assert GAME.utility(vertical, "X") == WIN + 42 - 7
    assert GAME.utility(vertical, "O") == -(WIN + 42 - 7)
    o_wins = parse_moves("71212121")
    assert GAME.utility(o_wins, "X") == -(WIN + 42 - 8)


def test_a_full_board_without_a_line_is_a_draw() -> None:
    state = parse_moves("547125662261271266215743771576315353334444")
    assert state.rows() == (
        "OXOOXOX",
        "XOXXXOO",
        "OXOOOXX",
        "XOOXXXO",
        "OXXXOOO",
        "OXOOXXX",
    )
    assert GAME.is_terminal(state)
    assert GAME.utility(state, "X") == 0
    assert GAME.actions(state) == ()


def test_hand_worked_window_scores() -> None:
    # X on columns 4, 5 of the bottom row, O above them (1-based). For X: centre disc 3, and
    # three bottom-row windows holding XX and two empties, 2 each: 9. O's view is the same.
    state = parse_moves("4455")
    assert window_score(state, "X") == 9
    assert window_score(state, "O") == 9


def test_hand_worked_window_scores_with_threes() -> None:
    # X on the bottom of columns 4, 5, 6; O on 4, 5 above. X: centre 3; bottom windows
    # 2-5 (XX + 2 empty) 2, 3-6 and 4-7 (XXX + 1 empty) 5 each: 15. O: centre 3; row-2
    # windows 2-5, 3-6, 4-7 (OO + 2 empty) 2 each; X's two open threes -4 each: 1.
    state = parse_moves("44556")
    assert window_score(state, "X") == 15
    assert window_score(state, "O") == 1


def test_hand_worked_window_scores_with_a_four() -> None:
    # X holds column 1 rows 1-4, O column 2 rows 1-3. For X: column-1 windows 4 own 100,
    # 3 own + 1 empty 5, 2 own + 2 empty 2; O's column-2 three with one empty -4: 103.
    assert window_score(parse_moves("1212121"), "X") == 103


def test_parse_moves_rejects_bad_input() -> None:
    with pytest.raises(GameError, match="move 2 is '8'"):
        parse_moves("48")
    with pytest.raises(GameError, match="move 3 is 'a'"):
        parse_moves("44a")
    with pytest.raises(GameError, match="move 1 is '0'"):
        parse_moves("0")
    with pytest.raises(GameError, match="column 1 is full"):
        parse_moves("1111111")
    with pytest.raises(GameError, match="already over"):
        parse_moves("12121212")


def test_result_rejects_full_and_unknown_columns() -> None:
    with pytest.raises(GameError, match="column 1 is full"):
        GAME.result(parse_moves("111111"), 0)
    with pytest.raises(GameError, match="not a column"):
        GAME.result(EMPTY_BOARD, 7)


def test_actions_skip_full_columns() -> None:
    assert list(GAME.actions(parse_moves("444444"))) == [0, 1, 2, 4, 5, 6]
    assert GAME.to_move(parse_moves("4")) == "O"


def test_orderings() -> None:
    actions = GAME.actions(EMPTY_BOARD)
    assert list(centre_first_order(EMPTY_BOARD, actions)) == [3, 2, 4, 1, 5, 0, 6]
    assert list(ORDERINGS["index"](EMPTY_BOARD, actions)) == list(range(7))
    with pytest.raises(GameError, match="each column 0..6 exactly once"):
        column_order([3, 2, 4])


SEARCH_POSITIONS = ["", "4455", "4433", "445566", "1234567", "43443253"]


@pytest.mark.parametrize("moves", SEARCH_POSITIONS)
@pytest.mark.parametrize("order", [None, centre_first_order])
def test_depth_limited_alphabeta_agrees_with_minimax(moves: str, order: MoveOrder | None) -> None:
    state = parse_moves(moves)
    options: dict[str, Any] = {
        "max_player": "X", "depth_limit": 3, "evaluator": window_score, "order": order
    }  # fmt: skip
    exact = minimax(GAME, state, **options)
    pruned = alphabeta(GAME, state, **options)
    assert pruned.value == exact.value
    assert pruned.move == exact.move


@pytest.mark.parametrize("moves", SEARCH_POSITIONS)
def test_transposition_table_keeps_the_value(moves: str) -> None:
    state = parse_moves(moves)
    options: dict[str, Any] = {
        "max_player": "X", "depth_limit": 5, "evaluator": window_score,
        "order": centre_first_order,
    }  # fmt: skip
    without, with_table = NodeCounter(), NodeCounter()
    plain = alphabeta(GAME, state, tracer=without, **options)
    table: TranspositionTable[int] = TranspositionTable()
    cached = alphabeta(GAME, state, tracer=with_table, table=table, **options)
    assert cached.value == plain.value
    assert with_table.nodes <= without.nodes
    assert len(table) > 0


def test_search_finds_the_open_three() -> None:
    # X has columns 4 and 5 of the bottom row with both ends open: 3 (or 6) wins in 3 plies.
    result = alphabeta(
        GAME, parse_moves("4455"), max_player="X", depth_limit=4, evaluator=window_score
    )
    assert result.value == WIN + 42 - 7
    assert result.move == 2


def reference_window_score(state: Connect4State, player: str) -> int:
    """Score window by window, straight from the rule (the oracle for the bitwise version)."""
    own, opp = (state.x, state.o) if player == "X" else (state.o, state.x)
    score = 3 * sum(1 for row in range(6) if own >> (7 * 3 + row) & 1)
    for window in WINDOWS:
        mine, theirs = (own & window).bit_count(), (opp & window).bit_count()
        if mine == 4:
            score += 100
        elif mine == 3 and theirs == 0:
            score += 5
        elif mine == 2 and theirs == 0:
            score += 2
        if theirs == 3 and mine == 0:
            score -= 4
    return score


def test_window_score_matches_the_rule_on_random_positions() -> None:
    rng = random.Random(20261129)
    checked = 0
    while checked < 400:
        state = EMPTY_BOARD
        for _ in range(rng.randrange(42)):
            if GAME.is_terminal(state):
                break
            state = GAME.result(state, rng.choice(list(GAME.actions(state))))
        for player in ("X", "O"):
            assert window_score(state, player) == reference_window_score(state, player)
        checked += 1


def test_windows_by_direction() -> None:
    steps = {1: 0, 7: 0, 6: 0, 8: 0}
    for window in WINDOWS:
        low = window & -window
        for step in steps:
            if window == low * (1 + (1 << step) + (1 << 2 * step) + (1 << 3 * step)):
                steps[step] += 1
    assert steps == {1: 21, 7: 24, 6: 12, 8: 12}

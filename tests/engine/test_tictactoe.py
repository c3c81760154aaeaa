"""Tic-tac-toe rules, board validation, census, open-lines evaluation and move orderings."""

import itertools

import pytest

from engine.errors import GameError
from engine.games.tictactoe import (
    EMPTY_BOARD,
    ORDERINGS,
    Census,
    TicTacToe,
    TicTacToeState,
    census,
    centre_corners_edges_order,
    open_lines,
    parse_board,
    square_order,
    winner,
)

GAME = TicTacToe()


def play(*squares: int) -> TicTacToeState:
    state = EMPTY_BOARD
    for square in squares:
        state = GAME.result(state, square)
    return state


def test_board_round_trips_row_by_row() -> None:
    state = parse_board("XOX O    ")
    assert state.board == "XOX O    "
    assert state == play(0, 1, 2, 4)
    assert state.player == "X"


def test_player_to_move_is_inferred_from_counts() -> None:
    assert parse_board("X        ").player == "O"
    assert parse_board("XO       ").player == "X"
    assert parse_board("XO       ", to_move="X").player == "X"


def test_states_are_hashable_and_include_the_player() -> None:
    assert len({play(0, 1), play(0, 1), parse_board("XO       ")}) == 1
    assert TicTacToeState(1, 2, "X") != TicTacToeState(1, 2, "O")


@pytest.mark.parametrize(
    ("board", "rule"),
    [
        ("XOX", "exactly 9 characters"),
        ("XOX.O....", "only contain"),
        ("XX       ", "counts inconsistent"),
        ("OO X     ", "counts inconsistent"),
        ("XXXOOO   ", "both win"),
        ("XXXOO  O ", "X has three in a row"),
        ("OOOXX X X", "O has three in a row"),
    ],
)
def test_illegal_boards_name_the_rule(board: str, rule: str) -> None:
    with pytest.raises(GameError, match=rule):
        parse_board(board)


def test_player_to_move_must_match_the_counts() -> None:
    with pytest.raises(GameError, match="it is X's turn"):
        parse_board("XO       ", to_move="O")
    with pytest.raises(GameError, match="'X' or 'O'"):
        parse_board("XO       ", to_move="Z")


def test_exactly_the_reachable_boards_are_accepted() -> None:
    accepted = 0
    for cells in itertools.product("XO ", repeat=9):
        try:
            parse_board("".join(cells))
        except GameError:
            continue
        accepted += 1
    assert accepted == 5478


def test_terminal_states_and_utilities() -> None:
    x_row = parse_board("XXXOO    ")
    assert GAME.is_terminal(x_row)
    assert GAME.actions(x_row) == ()
    assert GAME.utility(x_row, "X") == 1
    assert GAME.utility(x_row, "O") == -1
    assert winner(x_row) == "X"
    o_diagonal = parse_board("O XXO X O")
    assert GAME.utility(o_diagonal, "X") == -1
    draw = parse_board("XOXXOOOXX")
    assert GAME.is_terminal(draw)
    assert GAME.utility(draw, "X") == 0
    assert winner(draw) is None
    assert not GAME.is_terminal(EMPTY_BOARD)


def test_actions_are_empty_squares_in_index_order() -> None:
    assert list(GAME.actions(parse_board("XOX O    "))) == [3, 5, 6, 7, 8]
    assert GAME.to_move(parse_board("XOX O    ")) == "X"
    assert GAME.chance_outcomes(EMPTY_BOARD) == ()


@pytest.mark.parametrize("square", [-1, 9, 0])
def test_illegal_moves_raise(square: int) -> None:
    with pytest.raises(GameError, match="not an empty square"):
        GAME.result(play(0), square)


def test_census_of_the_empty_board() -> None:
    assert census() == Census(
        games=255168, x_wins=131184, o_wins=77904, draws=46080, positions=5478
    )


def test_census_from_a_late_position() -> None:
    # X to move on "XOXOXO   ": 6 and 8 win at once; after 7, O takes 6 or 8 and X wins
    # with the other. Games: 6, 8, 7-6-8, 7-8-6; positions: 1 + 3 + 2 + 2.
    assert census(parse_board("XOXOXO   ")) == Census(
        games=4, x_wins=4, o_wins=0, draws=0, positions=8
    )


@pytest.mark.parametrize(("square", "lines"), [(4, 4), (0, 3), (2, 3), (1, 2), (7, 2)])
def test_open_lines_after_the_first_move(square: int, lines: int) -> None:
    assert open_lines(play(square), "X") == lines
    assert open_lines(play(square), "O") == -lines


def test_open_lines_counts_lines_free_of_the_opponent() -> None:
    # X on 0 and 4, O on 1. Open for X: the 6 lines missing square 1. Open for O: the 2 lines
    # missing both 0 and 4 (row 2 and column 2).
    assert open_lines(play(0, 1, 4), "X") == 6 - 2
    assert open_lines(EMPTY_BOARD, "X") == 0


def test_named_orderings() -> None:
    actions = GAME.actions(EMPTY_BOARD)
    assert list(ORDERINGS["index"](EMPTY_BOARD, actions)) == list(range(9))
    assert list(centre_corners_edges_order(EMPTY_BOARD, actions)) == [4, 0, 2, 6, 8, 1, 3, 5, 7]
    state = play(4, 0)
    assert list(ORDERINGS["centre-corners-edges"](state, GAME.actions(state))) == [
        2, 6, 8, 1, 3, 5, 7
    ]  # fmt: skip


def test_square_order_rejects_a_non_permutation() -> None:
    with pytest.raises(GameError, match="each square 0..8 exactly once"):
        square_order([4, 0, 2])
    with pytest.raises(GameError, match="each square 0..8 exactly once"):
        square_order([0, 0, 1, 2, 3, 4, 5, 6, 7])


def test_hand_built_unreachable_states_are_rejected() -> None:
    two_xs = TicTacToeState(0b11, 0, "O")
    for ask in (GAME.actions, GAME.is_terminal):
        with pytest.raises(GameError, match="cannot arise in play"):
            ask(two_xs)
    with pytest.raises(GameError, match="cannot arise in play"):
        GAME.utility(two_xs, "X")
    with pytest.raises(GameError, match="cannot arise in play"):
        GAME.result(two_xs, 4)

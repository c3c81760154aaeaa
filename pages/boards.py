"""Pictures of game positions: a tic-tac-toe grid and a Connect Four rack, and their moves.

A tic-tac-toe board is nine characters row by row (``X``, ``O`` or a space), squares
numbered 0-8 as the exercises ask for them. A Connect Four position is six rows of seven
characters, top row first (``X``, ``O`` or ``.``), columns numbered 1-7.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TICTACTOE_CELL = 60
CONNECT4_COLUMNS = 7
CONNECT4_ROWS = 6
CONNECT4_CELL = 44
DISC_COLOURS = {"X": "red", "O": "yellow"}


@dataclass(frozen=True)
class Mark:
    """One mark, disc or empty square: where it is drawn and what it is."""

    x: int
    y: int
    symbol: str  # X, O or a free square's number (tic-tac-toe); red or yellow (Connect Four)
    row: int
    column: int


@dataclass(frozen=True)
class BoardPicture:
    """A board ready to draw: which game, its size, its marks and the free squares."""

    game: str
    width: int
    height: int
    marks: list[Mark]
    free: list[Mark]
    to_move: str = ""

    @property
    def grid_lines(self) -> list[tuple[int, int, int, int]]:
        """Return the tic-tac-toe grid's four lines as (x1, y1, x2, y2)."""
        size = 3 * TICTACTOE_CELL
        lines = []
        for i in (1, 2):
            offset = i * TICTACTOE_CELL
            lines += [(offset, 0, offset, size), (0, offset, size, offset)]
        return lines

    @property
    def column_numbers(self) -> list[tuple[int, int]]:
        """Return (x, number) for the Connect Four column labels under the rack."""
        return [(c * CONNECT4_CELL + CONNECT4_CELL // 2, c + 1) for c in range(CONNECT4_COLUMNS)]


def tictactoe_picture(board: str, to_move: str = "") -> BoardPicture:
    """Return the picture of a nine-character tic-tac-toe board, free squares numbered."""
    marks: list[Mark] = []
    free: list[Mark] = []
    for index, cell in enumerate(board[:9].upper().ljust(9)):
        mark = Mark(
            x=(index % 3) * TICTACTOE_CELL + TICTACTOE_CELL // 2,
            y=(index // 3) * TICTACTOE_CELL + TICTACTOE_CELL // 2 + (16 if cell in "XO" else 6),
            symbol=cell if cell in "XO" else str(index), row=index // 3 + 1,
            column=index % 3 + 1,
        )
        (marks if cell in "XO" else free).append(mark)
    size = 3 * TICTACTOE_CELL
    return BoardPicture("tictactoe", size, size, marks, free, to_move)


def connect4_picture(rows: list[str], to_move: str = "") -> BoardPicture:
    """Return the picture of a Connect Four rack given as rows, top row first."""
    marks: list[Mark] = []
    free: list[Mark] = []
    for row_index, row in enumerate(rows[:CONNECT4_ROWS]):
        for column, cell in enumerate(row[:CONNECT4_COLUMNS]):
            mark = Mark(
                x=column * CONNECT4_CELL + CONNECT4_CELL // 2,
                y=row_index * CONNECT4_CELL + CONNECT4_CELL // 2,
                symbol=DISC_COLOURS.get(cell.upper(), ""),
                row=CONNECT4_ROWS - row_index, column=column + 1,
            )
            (marks if mark.symbol else free).append(mark)
    return BoardPicture(
        "connect4", CONNECT4_COLUMNS * CONNECT4_CELL, CONNECT4_ROWS * CONNECT4_CELL + 22,
        marks, free, to_move,
    )


def board_picture(problem: Mapping[str, Any]) -> BoardPicture | None:
    """Return the picture of the position a problem shows, or None if it shows none."""
    to_move = str(problem.get("to_move", ""))
    board, rows = problem.get("board"), problem.get("rows")
    if isinstance(board, str) and len(board) == 9:
        return tictactoe_picture(board, to_move)
    if isinstance(rows, list) and len(rows) == CONNECT4_ROWS and all(
        isinstance(row, str) and len(row) == CONNECT4_COLUMNS for row in rows
    ):
        return connect4_picture(rows, to_move)
    return None


def legal_moves(problem: Mapping[str, Any]) -> list[str]:
    """Return the moves of a pictured position: free squares (0-8) or open columns (1-7)."""
    picture = board_picture(problem)
    if picture is None:
        return []
    if picture.game == "tictactoe":
        return [mark.symbol for mark in picture.free]
    top_row = problem["rows"][0]
    return [str(column + 1) for column, cell in enumerate(top_row) if cell.upper() not in "XO"]

"""Pictures of game positions: a tic-tac-toe grid and a Connect Four rack.

Positions are written as the engine's game command writes them: a tic-tac-toe board is nine
characters row by row (``X``, ``O`` or a space); a Connect Four position is the moves played
so far as 1-based column digits (first player red, then yellow alternately).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TICTACTOE_CELL = 60
CONNECT4_COLUMNS = 7
CONNECT4_ROWS = 6
CONNECT4_CELL = 44


@dataclass(frozen=True)
class Mark:
    """One mark or disc: where it is drawn and what it is."""

    x: int
    y: int
    symbol: str  # X, O, red or yellow
    row: int
    column: int


@dataclass(frozen=True)
class BoardPicture:
    """A board ready to draw: which game, its size, its marks and a text description."""

    game: str
    width: int
    height: int
    marks: list[Mark]
    holes: list[tuple[int, int]]

    @property
    def grid_lines(self) -> list[tuple[int, int, int, int]]:
        """Return the tic-tac-toe grid's four lines as (x1, y1, x2, y2)."""
        size = 3 * TICTACTOE_CELL
        lines = []
        for i in (1, 2):
            offset = i * TICTACTOE_CELL
            lines += [(offset, 0, offset, size), (0, offset, size, offset)]
        return lines


def _field(problem: Mapping[str, Any], name: str) -> Any:
    return problem.get(name, (problem.get("params") or {}).get(name))


def tictactoe_picture(board: str) -> BoardPicture:
    """Return the picture of a nine-character tic-tac-toe board."""
    marks = [
        Mark(
            x=(index % 3) * TICTACTOE_CELL + TICTACTOE_CELL // 2,
            y=(index // 3) * TICTACTOE_CELL + TICTACTOE_CELL // 2 + 16,
            symbol=cell, row=index // 3 + 1, column=index % 3 + 1,
        )
        for index, cell in enumerate(board[:9].upper())
        if cell in "XO"
    ]
    size = 3 * TICTACTOE_CELL
    return BoardPicture("tictactoe", size, size, marks, [])


def connect4_picture(moves: str) -> BoardPicture:
    """Return the picture of the Connect Four position reached by ``moves``."""
    heights = [0] * CONNECT4_COLUMNS
    marks = []
    for turn, digit in enumerate(moves):
        if not digit.isdigit() or not 1 <= int(digit) <= CONNECT4_COLUMNS:
            continue
        column = int(digit) - 1
        if heights[column] >= CONNECT4_ROWS:
            continue
        row_from_top = CONNECT4_ROWS - 1 - heights[column]
        heights[column] += 1
        marks.append(
            Mark(
                x=column * CONNECT4_CELL + CONNECT4_CELL // 2,
                y=row_from_top * CONNECT4_CELL + CONNECT4_CELL // 2,
                symbol="red" if turn % 2 == 0 else "yellow",
                row=CONNECT4_ROWS - row_from_top, column=column + 1,
            )
        )
    holes = [
        (c * CONNECT4_CELL + CONNECT4_CELL // 2, r * CONNECT4_CELL + CONNECT4_CELL // 2)
        for r in range(CONNECT4_ROWS) for c in range(CONNECT4_COLUMNS)
    ]
    return BoardPicture(
        "connect4", CONNECT4_COLUMNS * CONNECT4_CELL, CONNECT4_ROWS * CONNECT4_CELL, marks, holes
    )


def board_picture(problem: Mapping[str, Any]) -> BoardPicture | None:
    """Return the picture of the position a problem shows, or None if it shows none."""
    game = _field(problem, "game")
    if game == "tictactoe" and isinstance(_field(problem, "board"), str):
        return tictactoe_picture(_field(problem, "board"))
    if game == "connect4" and isinstance(_field(problem, "moves"), str):
        return connect4_picture(_field(problem, "moves"))
    return None

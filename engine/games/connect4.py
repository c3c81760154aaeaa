"""Connect Four on the standard 7-column, 6-row board, with bitboards.

X is MAX and moves first. Actions are 0-based column indices 0..6 (the command line and
:func:`parse_moves` use 1-based column digits, as games are commonly written down).

Bit layout: column ``c`` owns bits ``7*c`` .. ``7*c + 6``; bit ``7*c + r`` is row ``r``
counted from the bottom, and bit ``7*c + 6`` is a sentinel that is always empty, so that
shifting a bitboard never carries a line from one column into the next.

Terminal utilities: a win is worth :data:`WIN` plus the number of cells still empty, so a
quicker win scores more and a later loss less badly; a full board without a line is 0. Every
heuristic value of :func:`window_score` stays far below :data:`WIN` in absolute value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import NamedTuple

from engine.errors import GameError

X = "X"
O = "O"  # noqa: E741 -- the player's name, as in tic-tac-toe
PLAYERS = (X, O)
COLUMNS = 7
ROWS = 6
WIN = 1_000_000
"""The base utility of a win (see the module docstring for the depth bonus)."""

_HEIGHT = ROWS + 1
_BOTTOM = tuple(1 << (_HEIGHT * c) for c in range(COLUMNS))
_TOP = tuple(1 << (_HEIGHT * c + ROWS - 1) for c in range(COLUMNS))
_COLUMN = tuple(((1 << ROWS) - 1) << (_HEIGHT * c) for c in range(COLUMNS))
_FULL = sum(_COLUMN)
_CELLS = COLUMNS * ROWS
_DIRECTIONS = (1, _HEIGHT, _HEIGHT - 1, _HEIGHT + 1)  # vertical, horizontal, both diagonals


def _bit(column: int, row: int) -> int:
    return 1 << (_HEIGHT * column + row)


def _starts(dc: int, dr: int) -> int:
    """Return the cells where a line of four cells stepping by (dc, dr) fits on the board."""
    return sum(
        _bit(c, r)
        for c in range(COLUMNS)
        for r in range(ROWS)
        if 0 <= c + 3 * dc < COLUMNS and 0 <= r + 3 * dr < ROWS
    )


# Per direction (vertical, horizontal, rising and falling diagonal): the bit shift from one
# cell of a line to the next, and the lowest cell of every line of four in that direction.
_LINES = tuple((dc * _HEIGHT + dr, _starts(dc, dr)) for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)))

WINDOWS: tuple[int, ...] = tuple(
    sum(start << (k * shift) for k in range(4))
    for shift, starts in _LINES
    for start in (1 << i for i in range(starts.bit_length()) if starts >> i & 1)
)
"""The 69 lines of four cells (21 vertical, 24 horizontal, 24 diagonal) as bit masks."""

CENTRE_COLUMN = _COLUMN[COLUMNS // 2]

FOUR = 100
THREE_AND_EMPTY = 5
TWO_AND_TWO_EMPTY = 2
OPPONENT_THREE_AND_EMPTY = -4
CENTRE_DISC = 3
"""The weights of :func:`window_score`."""

CENTRE_FIRST: tuple[int, ...] = (3, 2, 4, 1, 5, 0, 6)
"""Columns from the centre outwards (0-based)."""


def has_four(discs: int) -> bool:
    """Return whether the bitboard ``discs`` holds four in a row in any direction."""
    for shift in _DIRECTIONS:
        pairs = discs & (discs >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


class Connect4State(NamedTuple):
    """Hold a position: the bitboards of X's and O's discs, and the player to move."""

    x: int
    o: int
    player: str

    def height(self, column: int) -> int:
        """Return how many discs column ``column`` (0-based) holds."""
        return ((self.x | self.o) >> (_HEIGHT * column) & ((1 << _HEIGHT) - 1)).bit_length()

    def rows(self) -> tuple[str, ...]:
        """Return the board as six strings of 'X', 'O' and '.', top row first."""
        return tuple(
            "".join(
                X if self.x & _bit(c, r) else O if self.o & _bit(c, r) else "."
                for c in range(COLUMNS)
            )
            for r in reversed(range(ROWS))
        )


EMPTY_BOARD = Connect4State(0, 0, X)


class Connect4:
    """Implement :class:`engine.game.Game` for Connect Four; actions are 0-based columns."""

    players = PLAYERS
    initial = EMPTY_BOARD

    def to_move(self, state: Connect4State) -> str:
        """Return the player to move ('X' or 'O')."""
        return state.player

    def actions(self, state: Connect4State) -> Sequence[int]:
        """Return the columns that are not full, left to right; none once the game is over."""
        if self.is_terminal(state):
            return ()
        mask = state.x | state.o
        return tuple(c for c in range(COLUMNS) if not mask & _TOP[c])

    def result(self, state: Connect4State, action: int) -> Connect4State:
        """Return the state after the player to move drops a disc in column ``action``."""
        x, o, player = state
        mask = x | o
        if not 0 <= action < COLUMNS:
            raise GameError(f"column {action!r} is not a column 0..{COLUMNS - 1}")
        if mask & _TOP[action]:
            raise GameError(f"column {action + 1} is full")
        # Adding the column's bottom bit carries through its filled cells to the first empty one.
        disc = (mask + _BOTTOM[action]) & _COLUMN[action]
        if player == X:
            return Connect4State(x | disc, o, O)
        return Connect4State(x, o | disc, X)

    def is_terminal(self, state: Connect4State) -> bool:
        """Return whether someone has four in a row or the board is full."""
        return (state.x | state.o) == _FULL or has_four(state.x) or has_four(state.o)

    def utility(self, state: Connect4State, player: str) -> int:
        """Return ``WIN`` + empty cells for a win of ``player``, its negation for a loss, else 0."""
        if has_four(state.x):
            value = WIN + _CELLS - (state.x | state.o).bit_count()
        elif has_four(state.o):
            value = -(WIN + _CELLS - (state.x | state.o).bit_count())
        else:
            value = 0
        return value if player == X else -value

    def chance_outcomes(self, state: Connect4State) -> Sequence[tuple[int, Fraction]]:
        """Return no outcomes: Connect Four has no chance nodes."""
        return ()


def window_score(state: Connect4State, player: str) -> int:
    """Return the window heuristic of ``state`` from ``player``'s point of view.

    Every horizontal, vertical and diagonal window of four cells scores: 4 own discs 100;
    3 own and 1 empty 5; 2 own and 2 empty 2; 3 opponent discs and 1 empty -4. Each own disc
    in the centre column adds 3. The score is not symmetric: the opponent's view is not the
    negation (an :class:`engine.game.Evaluator`, called with the MAX player).
    """
    own, opp = (state.x, state.o) if player == X else (state.o, state.x)
    score = CENTRE_DISC * (own & CENTRE_COLUMN).bit_count()
    # All windows of one direction at once: bit p of each "slice" below is the k-th cell of
    # the window starting at p, so counting discs per window is bitwise arithmetic.
    for shift, starts in _LINES:
        a, b = own & starts, own >> shift & starts
        c, d = own >> 2 * shift & starts, own >> 3 * shift & starts
        e, f = opp & starts, opp >> shift & starts
        g, h = opp >> 2 * shift & starts, opp >> 3 * shift & starts
        no_opp = starts ^ (e | f | g | h)
        no_own = starts ^ (a | b | c | d)
        ab, cd, a_xor_b, c_xor_d = a & b, c & d, a ^ b, c ^ d
        own_two = (ab & ~(c | d)) | (cd & ~(a | b)) | (a_xor_b & c_xor_d)
        own_three = (ab & c_xor_d) | (cd & a_xor_b)
        opp_three = (e & f & (g ^ h)) | (g & h & (e ^ f))
        score += (
            FOUR * (ab & cd).bit_count()
            + THREE_AND_EMPTY * (own_three & no_opp).bit_count()
            + TWO_AND_TWO_EMPTY * (own_two & no_opp).bit_count()
            + OPPONENT_THREE_AND_EMPTY * (opp_three & no_own).bit_count()
        )
    return score


def parse_moves(moves: str) -> Connect4State:
    """Return the position after playing ``moves``, 1-based column digits such as ``"4455"``.

    Raise :class:`GameError` for a character that is not a column digit 1..7, a move into a
    full column, or a move after the game is over.
    """
    game = Connect4()
    state = EMPTY_BOARD
    for index, char in enumerate(moves, start=1):
        if not ("1" <= char <= str(COLUMNS)):
            raise GameError(f"move {index} is {char!r}: moves are column digits 1..{COLUMNS}")
        if game.is_terminal(state):
            raise GameError(
                f"move {index} ({char}): the game is already over after {index - 1} moves"
            )
        column = int(char) - 1
        if state.height(column) == ROWS:
            raise GameError(f"move {index} ({char}): column {char} is full")
        state = game.result(state, column)
    return state


MoveOrder = Callable[[Connect4State, Sequence[int]], Sequence[int]]


def column_order(priority: Sequence[int]) -> MoveOrder:
    """Return an ordering that tries columns in the order ``priority`` (0-based) lists them.

    ``priority`` must name each column 0..6 exactly once; raise :class:`GameError` if not.
    """
    if sorted(priority) != list(range(COLUMNS)):
        raise GameError(
            f"a move order must list each column 0..{COLUMNS - 1} exactly once, "
            f"got {list(priority)}"
        )
    rank = {column: position for position, column in enumerate(priority)}

    def order(state: Connect4State, actions: Sequence[int]) -> Sequence[int]:
        """Return ``actions`` sorted by the fixed column priority."""
        return sorted(actions, key=rank.__getitem__)

    return order


def index_order(state: Connect4State, actions: Sequence[int]) -> Sequence[int]:
    """Return the actions unchanged: columns left to right."""
    return actions


centre_first_order = column_order(CENTRE_FIRST)
"""Try columns from the centre outwards: 3,2,4,1,5,0,6 (0-based)."""

ORDERINGS: dict[str, MoveOrder] = {"index": index_order, "centre-first": centre_first_order}
"""The named move orderings exercises may refer to."""

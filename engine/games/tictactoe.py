"""Tic-tac-toe: X is MAX and moves first; squares are numbered 0..8 row by row.

Boards are written as nine characters, row by row, each ``X``, ``O`` or a space, so
``"XOX O    "`` has X on squares 0 and 2 and O on squares 1 and 4. Utilities are +1 when X
has three in a row, -1 when O has, 0 for a full board without a line.

A state keeps each player's squares as a 9-bit mask (bit ``i`` is square ``i``). The game
answers the protocol's questions from tables of every reachable position: the full
549,945-node minimax tree is searched often (exercises, the benchmark), and these calls are
its innermost operations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import NamedTuple

from engine.errors import GameError
from engine.game import ScoredSuccessors, TerminalUtility

X = "X"
O = "O"  # noqa: E741 -- the player's name, as written on the board
PLAYERS = (X, O)

LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip
"""The eight winning lines, as square indices."""

_LINE_MASKS = tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in LINES)
_FULL = 0x1FF
_WON: tuple[bool, ...] = tuple(
    any(mask & line == line for line in _LINE_MASKS) for mask in range(_FULL + 1)
)
_EMPTY_SQUARES: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(9) if not occupied >> i & 1) for occupied in range(_FULL + 1)
)

CENTRE_CORNERS_EDGES: tuple[int, ...] = (4, 0, 2, 6, 8, 1, 3, 5, 7)
"""The classic good-first ordering: centre, then corners, then edges."""


class TicTacToeState(NamedTuple):
    """Hold a position: the squares of X and of O as 9-bit masks, and the player to move."""

    x: int
    o: int
    player: str

    @property
    def board(self) -> str:
        """Return the nine-character board, row by row."""
        return "".join(X if self.x >> i & 1 else O if self.o >> i & 1 else " " for i in range(9))


EMPTY_BOARD = TicTacToeState(0, 0, X)


def _mask(board: str, mark: str) -> int:
    return sum(1 << i for i, char in enumerate(board) if char == mark)


def parse_board(board: str, to_move: str | None = None) -> TicTacToeState:
    """Return the state for a nine-character board, checking that play could reach it.

    ``to_move`` defaults to the player whose turn the counts imply (X when the counts are
    equal, O when X has one more). Raise :class:`GameError` naming the broken rule.
    """
    if len(board) != 9:
        raise GameError(
            f"board must have exactly 9 characters (row by row), got {len(board)}: {board!r}"
        )
    bad = sorted({char for char in board if char not in (X, O, " ")})
    if bad:
        raise GameError(
            f"board may only contain 'X', 'O' and spaces, found {', '.join(map(repr, bad))}"
        )
    x, o = _mask(board, X), _mask(board, O)
    xs, os = x.bit_count(), o.bit_count()
    if not 0 <= xs - os <= 1:
        raise GameError(
            f"counts inconsistent: X moves first, so X must have as many marks as O or one "
            f"more; board has {xs} X and {os} O"
        )
    x_won, o_won = _WON[x], _WON[o]
    if x_won and o_won:
        raise GameError("both win: X and O cannot both have three in a row")
    if x_won and xs == os:
        raise GameError("X has three in a row, so O cannot have moved after that")
    if o_won and xs > os:
        raise GameError("O has three in a row, so X cannot have moved after that")
    implied = X if xs == os else O
    if to_move is not None and to_move != implied:
        if to_move not in PLAYERS:
            raise GameError(f"player to move must be 'X' or 'O', got {to_move!r}")
        raise GameError(
            f"it is {implied}'s turn on this board ({xs} X, {os} O; X moves first), not {to_move}'s"
        )
    return TicTacToeState(x, o, implied)


def _play(state: TicTacToeState, square: int) -> TicTacToeState:
    if state.player == X:
        return TicTacToeState(state.x | 1 << square, state.o, O)
    return TicTacToeState(state.x, state.o | 1 << square, X)


Successor = tuple[int, TicTacToeState]
ScoredSuccessor = tuple[int, TicTacToeState, int | None]


class _Successors(dict[TicTacToeState, tuple[Successor, ...]]):
    """Map each reachable position to its ``(square, child)`` pairs; refuse any other."""

    def __missing__(self, state: TicTacToeState) -> tuple[Successor, ...]:
        raise _unreachable(state)


class _ScoredSuccessors(dict[TicTacToeState, tuple[ScoredSuccessor, ...]]):
    """Map each reachable position to ``(square, child, child's utility or None)``."""

    def __missing__(self, state: TicTacToeState) -> tuple[ScoredSuccessor, ...]:
        raise _unreachable(state)


@dataclass(frozen=True)
class _Tables:
    """Hold what the game protocol asks about each reachable position."""

    moves: dict[TicTacToeState, tuple[int, ...]]
    children: dict[TicTacToeState, dict[int, TicTacToeState]]
    successors: _Successors
    terminal: dict[TicTacToeState, bool]
    x_utility: dict[TicTacToeState, int]
    terminal_utility: dict[str, dict[TicTacToeState, int]]
    """Per player, that player's utility at each terminal position (no other position)."""
    scored_successors: dict[str, _ScoredSuccessors]
    """Per player, each position's successors with that player's utility of each child."""


@cache
def _tables() -> _Tables:
    """Walk the 5,478 positions reachable from the empty board once and tabulate them."""
    tables = _Tables(
        {}, {}, _Successors(), {}, {}, {X: {}, O: {}},
        {X: _ScoredSuccessors(), O: _ScoredSuccessors()},
    )  # fmt: skip
    pending = [EMPTY_BOARD]
    while pending:
        state = pending.pop()
        if state in tables.moves:
            continue
        x, o = state.x, state.o
        won = _WON[x] or _WON[o]
        moves = () if won else _EMPTY_SQUARES[x | o]
        children = {square: _play(state, square) for square in moves}
        x_utility = 1 if _WON[x] else -1 if _WON[o] else 0
        tables.moves[state] = moves
        tables.children[state] = children
        tables.successors[state] = tuple(children.items())
        tables.terminal[state] = won or (x | o) == _FULL
        tables.x_utility[state] = x_utility
        if tables.terminal[state]:
            tables.terminal_utility[X][state] = x_utility
            tables.terminal_utility[O][state] = -x_utility
        pending.extend(children.values())
    x_terminal, x_scored, o_scored = (
        tables.terminal_utility[X].get, tables.scored_successors[X], tables.scored_successors[O]
    )
    for state, pairs in tables.successors.items():
        scored = [(square, child, x_terminal(child)) for square, child in pairs]
        x_scored[state] = tuple(scored)
        o_scored[state] = tuple((s, c, None if u is None else -u) for s, c, u in scored)
    return tables


def _unreachable(state: TicTacToeState) -> GameError:
    return GameError(
        f"board {state.board!r} with {state.player!r} to move cannot arise in play "
        f"(build positions with parse_board)"
    )


class TicTacToe:
    """Implement :class:`engine.game.Game` for tic-tac-toe; actions are square indices 0..8.

    Every answer is a dictionary look-up in tables of all 5,478 reachable positions, built
    once per process (about 35 ms): the full 549,945-node minimax tree asks these
    questions about the same few thousand positions over and over.
    """

    players = PLAYERS
    initial = EMPTY_BOARD

    successors: Callable[[TicTacToeState], tuple[Successor, ...]]
    """Return ``(square, child)`` for every empty square, in index order (one look-up).

    The optional :meth:`engine.game.Expanding.successors`; a bound look-up in a table rather
    than a method, since searches ask it once per node they expand.
    """

    def __init__(self) -> None:
        """Share the position tables, building them on first use."""
        tables = _tables()
        self._moves = tables.moves
        self._children = tables.children
        self._terminal = tables.terminal
        self._x_utility = tables.x_utility
        self._terminal_utility = tables.terminal_utility
        self._scored_successors = tables.scored_successors
        self.successors = tables.successors.__getitem__

    def to_move(self, state: TicTacToeState) -> str:
        """Return the player to move ('X' or 'O')."""
        return state.player

    def actions(self, state: TicTacToeState) -> Sequence[int]:
        """Return the empty squares in index order; none once someone has a line."""
        try:
            return self._moves[state]
        except KeyError:
            raise _unreachable(state) from None

    def result(self, state: TicTacToeState, action: int) -> TicTacToeState:
        """Return the state after the player to move marks square ``action``."""
        try:
            return self._children[state][action]
        except KeyError:
            if state not in self._children:
                raise _unreachable(state) from None
            raise GameError(
                f"square {action!r} is not an empty square 0..8 of a game still on"
            ) from None

    def is_terminal(self, state: TicTacToeState) -> bool:
        """Return whether someone has three in a row or the board is full."""
        try:
            return self._terminal[state]
        except KeyError:
            raise _unreachable(state) from None

    def utility(self, state: TicTacToeState, player: str) -> int:
        """Return +1 if ``player`` has a line, -1 if the opponent has, else 0."""
        try:
            value = self._x_utility[state]
        except KeyError:
            raise _unreachable(state) from None
        return value if player == X else -value

    def terminal_utilities(self, player: str) -> TerminalUtility[TicTacToeState]:
        """Return a look-up of ``player``'s utility at terminal positions (None elsewhere).

        The optional :meth:`engine.game.Expanding.terminal_utilities`; like :meth:`utility`,
        any player but X is scored as O. A position that cannot arise in play also gives
        None; its successors then raise :class:`GameError`.
        """
        return self._terminal_utility[X if player == X else O].get

    def scored_successors(self, player: str) -> ScoredSuccessors[TicTacToeState, int]:
        """Return a look-up of each position's ``(square, child, child's utility or None)``.

        The optional :meth:`engine.game.Expanding.scored_successors`: the successors with
        ``player``'s utility of each terminal child (None for the others), tabulated.
        """
        return self._scored_successors[X if player == X else O].__getitem__

    def chance_outcomes(self, state: TicTacToeState) -> Sequence[tuple[int, Fraction]]:
        """Return no outcomes: tic-tac-toe has no chance nodes."""
        return ()


def winner(state: TicTacToeState) -> str | None:
    """Return 'X' or 'O' if that player has three in a row, else None."""
    return X if _WON[state.x] else O if _WON[state.o] else None


def open_lines(state: TicTacToeState, player: str) -> int:
    """Return the lines still open for ``player`` minus those still open for the opponent.

    A line is open for a player while the opponent has no mark on it. After X's first move
    on an empty board this is the number of lines through that square: centre 4, corner 3,
    edge 2. Meant for non-terminal states (an :class:`engine.game.Evaluator`).
    """
    open_x = sum(1 for line in _LINE_MASKS if not state.o & line)
    open_o = sum(1 for line in _LINE_MASKS if not state.x & line)
    return open_x - open_o if player == X else open_o - open_x


def perfect_value(state: TicTacToeState) -> int:
    """Return ``state``'s value for X with perfect play: +1 win, 0 draw, -1 loss.

    Raise :class:`GameError` for a position that cannot arise in play. Values are kept per
    position (at most 5,478 of them), so asking every child of the empty board costs one
    walk of the positions, not one search of the 549,945-node tree per child.
    """
    tables = _tables()
    if state not in tables.moves:
        raise _unreachable(state)
    return _perfect_value(state)


@cache
def _perfect_value(state: TicTacToeState) -> int:
    tables = _tables()
    if tables.terminal[state]:
        return tables.x_utility[state]
    values = [_perfect_value(child) for _, child in tables.successors[state]]
    return max(values) if state.player == X else min(values)


MoveOrder = Callable[[TicTacToeState, Sequence[int]], Sequence[int]]


def index_order(state: TicTacToeState, actions: Sequence[int]) -> Sequence[int]:
    """Return the actions unchanged: squares in index order 0..8."""
    return actions


def square_order(priority: Sequence[int]) -> MoveOrder:
    """Return an ordering that tries squares in the order ``priority`` lists them.

    ``priority`` must name each square 0..8 exactly once; raise :class:`GameError` if not.
    """
    if sorted(priority) != list(range(9)):
        raise GameError(
            f"a move order must list each square 0..8 exactly once, got {list(priority)}"
        )
    rank = {square: position for position, square in enumerate(priority)}

    def order(state: TicTacToeState, actions: Sequence[int]) -> Sequence[int]:
        """Return ``actions`` sorted by the fixed square priority."""
        return sorted(actions, key=rank.__getitem__)

    return order


centre_corners_edges_order = square_order(CENTRE_CORNERS_EDGES)
"""Try the centre, then the corners, then the edges: 4,0,2,6,8,1,3,5,7."""

ORDERINGS: dict[str, MoveOrder] = {
    "index": index_order,
    "centre-corners-edges": centre_corners_edges_order,
}
"""The named move orderings exercises may refer to."""


@dataclass(frozen=True)
class Census:
    """Count complete games (distinct move sequences) by outcome, and reachable positions."""

    games: int
    x_wins: int
    o_wins: int
    draws: int
    positions: int


def census(start: TicTacToeState = EMPTY_BOARD) -> Census:
    """Return the census of every game that can be played on from ``start``.

    ``games`` counts each distinct move sequence ending in a terminal position; ``positions``
    counts the distinct boards reachable from ``start``, itself and terminal ones included.
    """
    game = TicTacToe()
    # The number of games below a position depends only on the position, so each of the few
    # thousand positions is expanded once instead of once per move sequence reaching it.
    outcomes: dict[TicTacToeState, tuple[int, int, int]] = {}

    def count(state: TicTacToeState) -> tuple[int, int, int]:
        known = outcomes.get(state)
        if known is not None:
            return known
        if game.is_terminal(state):
            value = game.utility(state, X)
            tally = (int(value > 0), int(value < 0), int(value == 0))
        else:
            x_wins = o_wins = draws = 0
            for action in game.actions(state):
                xw, ow, dr = count(game.result(state, action))
                x_wins, o_wins, draws = x_wins + xw, o_wins + ow, draws + dr
            tally = (x_wins, o_wins, draws)
        outcomes[state] = tally
        return tally

    x_wins, o_wins, draws = count(start)
    return Census(x_wins + o_wins + draws, x_wins, o_wins, draws, len(outcomes))

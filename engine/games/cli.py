"""The ``game`` and ``census`` subcommands of ``python -m engine``.

``game`` runs one of the generic searches on a real game with a
:class:`engine.search.trace.NodeCounter` and prints ``{"value", "move", "nodes"}``; ``census``
counts every tic-tac-toe game. Bad boards, moves and orders print one error line naming the
rule and exit with status 2, like argparse's own usage errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from engine.errors import GameError
from engine.games import connect4, tictactoe
from engine.search.alphabeta import alphabeta
from engine.search.common import SearchResult
from engine.search.minimax import minimax
from engine.search.trace import NodeCounter
from engine.search.ttable import TranspositionTable

_GAME_HELP = """\
Search a real game from a position and print one JSON object:
  {"value": V, "move": M, "nodes": N}
value is from X's (MAX's) point of view whoever is to move; move is the leftmost best move
(null when the position is already over); nodes counts the positions visited below the root,
the root's children included and the root not. Alpha-beta raises alpha at the root between
its children and cuts when alpha >= beta.
"""

_TICTACTOE_HELP = """\
Search tic-tac-toe. Squares are numbered 0..8 row by row, and the printed move is a square
index. X is MAX and moves first; utilities are +1 (X wins), -1 (O wins), 0 (draw).

examples:
  python -m engine game tictactoe --algorithm minimax
      {"value": 0, "move": 0, "nodes": 549945}
  python -m engine game tictactoe --algorithm alphabeta --order 4,0,2,6,8,1,3,5,7
      {"value": 0, "move": 4, "nodes": 7274}
  python -m engine game tictactoe --algorithm alphabeta --board "XOX O    " --to-move X
      {"value": 0, "move": 7, "nodes": 100}
"""

_CONNECT4_HELP = """\
Search Connect Four to a fixed depth. X is MAX and moves first. Positions are given as the
moves played so far, 1-based column digits ("4455": X in column 4, O in column 4, X in 5,
O in 5), and the printed move is a 1-based column digit too; --order lists 0-based column
indices. Positions at the depth limit are scored by the window heuristic
(engine.games.connect4.window_score) from X's point of view; a win is worth 1,000,000 plus
the number of empty cells left, a loss the negation, a full board 0.

example:
  python -m engine game connect4 --algorithm alphabeta --depth 6 --moves 4455 \\
      --order 3,2,4,1,5,0,6 --table
"""

_CENSUS_HELP = """\
Count every complete tic-tac-toe game (each distinct move sequence that ends in a win or a
full board) by outcome, and the distinct positions reachable (the start and the terminal
positions included). Prints {"games", "x_wins", "o_wins", "draws", "positions"}; from the
empty board: 255168 games, 131184 X wins, 77904 O wins, 46080 draws, 5478 positions.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``game`` and ``census`` subcommands to the engine's argparse subparsers.

    Each subcommand sets ``func``: call ``args.func(args)``, which prints the answer and
    returns the exit status 0, or prints an error and exits with status 2.
    """
    formatter = argparse.RawDescriptionHelpFormatter
    game = subparsers.add_parser(
        "game",
        help="search tic-tac-toe or Connect Four and count the nodes visited",
        description=_GAME_HELP,
        formatter_class=formatter,
    )
    games = game.add_subparsers(dest="game", metavar="GAME", required=True)

    ttt = games.add_parser(
        "tictactoe",
        help="tic-tac-toe (full-depth search)",
        description=_TICTACTOE_HELP,
        formatter_class=formatter,
    )
    _add_algorithm(ttt)
    ttt.add_argument(
        "--board",
        default=" " * 9,
        metavar="BOARD",
        help="nine characters row by row, each 'X', 'O' or a space (default: the empty board); "
        "quote it in the shell",
    )
    ttt.add_argument(
        "--to-move",
        choices=tictactoe.PLAYERS,
        help="the player to move; must agree with the board's counts (default: implied by "
        "them: X when the counts are equal, O when X has one more)",
    )
    ttt.add_argument(
        "--order",
        type=_index_list,
        metavar="SQUARES",
        help="comma-separated order in which to try the squares, each of 0..8 once, "
        "e.g. 4,0,2,6,8,1,3,5,7 (default: index order 0..8)",
    )
    ttt.add_argument(
        "--depth",
        type=_depth,
        help="stop this many plies below the root and score positions there with the "
        "open-lines evaluation (lines open for X minus lines open for O); default: no limit",
    )
    ttt.set_defaults(func=_run_tictactoe)

    c4 = games.add_parser(
        "connect4",
        help="Connect Four (depth-limited search)",
        description=_CONNECT4_HELP,
        formatter_class=formatter,
    )
    _add_algorithm(c4)
    c4.add_argument(
        "--depth",
        type=_depth,
        required=True,
        help="plies to search below the root before scoring with the window heuristic",
    )
    c4.add_argument(
        "--moves",
        default="",
        metavar="DIGITS",
        help="the moves played so far as 1-based column digits, e.g. 4455 (default: none)",
    )
    c4.add_argument(
        "--order",
        type=_index_list,
        metavar="COLUMNS",
        help="comma-separated 0-based column order, each of 0..6 once, e.g. 3,2,4,1,5,0,6 "
        "(default: left to right)",
    )
    c4.add_argument(
        "--table",
        action="store_true",
        help="use a transposition table (alpha-beta only); nodes then counts the positions "
        "actually entered, table hits included",
    )
    c4.set_defaults(func=_run_connect4)

    census = subparsers.add_parser(
        "census",
        help="count every tic-tac-toe game by outcome, and the reachable positions",
        description=_CENSUS_HELP,
        formatter_class=formatter,
    )
    census.add_argument("game", choices=["tictactoe"], help="the game to count")
    census.add_argument(
        "--board",
        default=" " * 9,
        metavar="BOARD",
        help="count the games played on from this board instead of the empty one",
    )
    census.set_defaults(func=_run_census)


def _add_algorithm(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--algorithm",
        choices=["minimax", "alphabeta"],
        required=True,
        help="minimax visits every node; alphabeta prunes (cut on alpha >= beta, alpha "
        "raised at the root)",
    )


def _index_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers such as 4,0,2,6, got {text!r}"
        ) from None


def _depth(text: str) -> int:
    try:
        depth = int(text)
    except ValueError:
        depth = -1
    if depth < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of plies >= 0, got {text!r}")
    return depth


def _fail(args: argparse.Namespace, error: GameError) -> NoReturn:
    command = "census" if args.func is _run_census else f"game {args.game}"
    sys.stderr.write(f"python -m engine {command}: error: {error}\n")
    raise SystemExit(2)


def _print(answer: dict[str, Any]) -> int:
    print(json.dumps(answer))
    return 0


def _search(args: argparse.Namespace) -> Callable[..., SearchResult[int]]:
    return alphabeta if args.algorithm == "alphabeta" else minimax


def _run_tictactoe(args: argparse.Namespace) -> int:
    try:
        state = tictactoe.parse_board(args.board, args.to_move)
        order = None if args.order is None else tictactoe.square_order(args.order)
    except GameError as error:
        _fail(args, error)
    options: dict[str, Any] = {}
    if args.depth is not None:
        options = {"depth_limit": args.depth, "evaluator": tictactoe.open_lines}
    counter = NodeCounter()
    result = _search(args)(
        tictactoe.TicTacToe(), state, max_player=tictactoe.X, order=order, tracer=counter,
        **options,
    )  # fmt: skip
    return _print({"value": result.value, "move": result.move, "nodes": counter.nodes})


def _run_connect4(args: argparse.Namespace) -> int:
    try:
        state = connect4.parse_moves(args.moves)
        order = None if args.order is None else connect4.column_order(args.order)
        if args.table and args.algorithm != "alphabeta":
            raise GameError("--table needs --algorithm alphabeta")
    except GameError as error:
        _fail(args, error)
    options: dict[str, Any] = {}
    if args.table:
        options["table"] = TranspositionTable[int]()
    counter = NodeCounter()
    result = _search(args)(
        connect4.Connect4(), state, max_player=connect4.X, order=order, tracer=counter,
        depth_limit=args.depth, evaluator=connect4.window_score, **options,
    )  # fmt: skip
    move = None if result.move is None else result.move + 1
    return _print({"value": result.value, "move": move, "nodes": counter.nodes})


def _run_census(args: argparse.Namespace) -> int:
    try:
        start = tictactoe.parse_board(args.board)
    except GameError as error:
        _fail(args, error)
    result = tictactoe.census(start)
    return _print(
        {
            "games": result.games,
            "x_wins": result.x_wins,
            "o_wins": result.o_wins,
            "draws": result.draws,
            "positions": result.positions,
        }
    )

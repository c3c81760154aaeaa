"""Every number of the seed worked examples' "tic_tac_toe" part, through the CLI and the library.

The CLI runs the generic searches with a NodeCounter, so these numbers check the searches'
node accounting as much as the game. The full 549,945-node minimax runs once.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from engine.games.cli import register
from engine.games.tictactoe import EMPTY_BOARD, TicTacToe, open_lines
from engine.search.minimax import minimax
from engine.search.trace import NodeCounter
from tests.seed_examples import seed_examples

OPENINGS = {"center": 4, "corner": 0, "edge": 1}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m engine")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    assert args.func(args) == 0
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)
    return answer


def tic_tac_toe_seed(seed_id: str) -> dict[str, Any]:
    """Return the seed file's tic-tac-toe example ``seed_id``."""
    return seed_examples("tic_tac_toe")[seed_id]


def test_every_tic_tac_toe_seed_is_covered() -> None:
    assert set(seed_examples("tic_tac_toe")) == {
        "ttt-empty-minimax",
        "ttt-empty-alphabeta",
        "ttt-empty-alphabeta-ordered",
        "ttt-block",
        "ttt-fork",
        "ttt-openings",
        "ttt-census",
    }


def test_full_minimax_from_the_empty_board(capsys: pytest.CaptureFixture[str]) -> None:
    expect = tic_tac_toe_seed("ttt-empty-minimax")["expect"]
    answer = run_cli(capsys, "game", "tictactoe", "--algorithm", "minimax")
    assert answer["nodes"] == expect["nodes"] == 549945
    assert answer["value"] == expect["value"]


@pytest.mark.parametrize(
    ("seed", "order"),
    [
        ("ttt-empty-alphabeta", []),
        ("ttt-empty-alphabeta-ordered", ["--order", "4,0,2,6,8,1,3,5,7"]),
    ],
)
def test_alphabeta_from_the_empty_board(
    capsys: pytest.CaptureFixture[str], seed: str, order: list[str]
) -> None:
    answer = run_cli(capsys, "game", "tictactoe", "--algorithm", "alphabeta", *order)
    assert answer == tic_tac_toe_seed(seed)["expect"]


@pytest.mark.parametrize("seed", ["ttt-block", "ttt-fork"])
@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta"])
def test_positions(capsys: pytest.CaptureFixture[str], seed: str, algorithm: str) -> None:
    example = tic_tac_toe_seed(seed)
    answer = run_cli(
        capsys,
        "game",
        "tictactoe",
        "--algorithm",
        algorithm,
        "--board",
        example["board"],
        "--to-move",
        example["to_move"],
    )
    assert answer == example["expect"][algorithm]


@pytest.mark.parametrize("opening", sorted(OPENINGS))
def test_minimax_nodes_under_each_opening(opening: str) -> None:
    game = TicTacToe()
    counter = NodeCounter()
    minimax(game, game.result(EMPTY_BOARD, OPENINGS[opening]), tracer=counter)
    # The seed counts the opening move's own node as well as everything below it.
    expected = tic_tac_toe_seed("ttt-openings")["expect"]["minimax_nodes_under"][opening]
    assert counter.nodes + 1 == expected


def test_openings_add_up_to_the_full_tree() -> None:
    under = tic_tac_toe_seed("ttt-openings")["expect"]["minimax_nodes_under"]
    # By symmetry: 1 centre, 4 corners, 4 edges.
    total = under["center"] + 4 * under["corner"] + 4 * under["edge"]
    assert total == tic_tac_toe_seed("ttt-empty-minimax")["expect"]["nodes"]


@pytest.mark.parametrize(("opening", "lines"), [("center", 4), ("corner", 3), ("edge", 2)])
def test_open_lines_of_each_opening(opening: str, lines: int) -> None:
    assert open_lines(TicTacToe().result(EMPTY_BOARD, OPENINGS[opening]), "X") == lines


def test_census(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "census", "tictactoe") == tic_tac_toe_seed("ttt-census")["expect"]

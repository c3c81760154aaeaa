"""The ``game`` and ``census`` subcommands: output, help text, and errors without tracebacks."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.games.cli import register

REPO = Path(__file__).resolve().parents[2]


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m engine")
    register(top.add_subparsers(dest="command", required=True))
    return top


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    args = parser().parse_args(argv)
    assert args.func(args) == 0
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)
    return answer


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        args = parser().parse_args(argv)
        args.func(args)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    return captured.err


def test_connect4_prints_a_one_based_column(capsys: pytest.CaptureFixture[str]) -> None:
    answer = run(
        capsys, "game", "connect4", "--algorithm", "alphabeta", "--depth", "4", "--moves", "4455"
    )
    # X wins by playing column 3 or 6 (1-based); the leftmost is 3.
    assert answer["move"] == 3
    assert answer["value"] == 1_000_000 + 42 - 7
    assert answer["nodes"] > 0


def test_connect4_table_and_order_keep_the_value(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["game", "connect4", "--algorithm", "alphabeta", "--depth", "5", "--moves", "3344"]
    plain = run(capsys, *base)
    ordered = run(capsys, *base, "--order", "3,2,4,1,5,0,6")
    cached = run(capsys, *base, "--order", "3,2,4,1,5,0,6", "--table")
    assert plain["value"] == ordered["value"] == cached["value"]
    assert cached["nodes"] <= ordered["nodes"]


def test_connect4_minimax_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["game", "connect4", "--depth", "3", "--moves", "1234"]
    assert (
        run(capsys, *base, "--algorithm", "minimax")["value"]
        == run(capsys, *base, "--algorithm", "alphabeta")["value"]
    )


def test_tictactoe_depth_limit_uses_open_lines(capsys: pytest.CaptureFixture[str]) -> None:
    # One ply deep, X takes the square on the most lines: the centre, worth 4.
    answer = run(capsys, "game", "tictactoe", "--algorithm", "minimax", "--depth", "1")
    assert answer == {"value": 4, "move": 4, "nodes": 9}


def test_tictactoe_terminal_board_has_no_move(capsys: pytest.CaptureFixture[str]) -> None:
    answer = run(capsys, "game", "tictactoe", "--algorithm", "alphabeta", "--board", "XXXOO    ")
    assert answer == {"value": 1, "move": None, "nodes": 0}


def test_census_from_a_board(capsys: pytest.CaptureFixture[str]) -> None:
    answer = run(capsys, "census", "tictactoe", "--board", "XOXOXO   ")
    assert answer == {"games": 4, "x_wins": 4, "o_wins": 0, "draws": 0, "positions": 8}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["game", "tictactoe", "--algorithm", "minimax", "--board", "XX"], "exactly 9 characters"),
        (["game", "tictactoe", "--algorithm", "minimax", "--board", "XX       "], "counts"),
        (["game", "tictactoe", "--algorithm", "minimax", "--board", "XXXOOO   "], "both win"),
        (
            [
                "game",
                "tictactoe",
                "--algorithm",
                "minimax",
                "--board",
                "X        ",
                "--to-move",
                "X",
            ],
            "it is O's turn",
        ),
        (["game", "tictactoe", "--algorithm", "alphabeta", "--order", "4,0,2"], "exactly once"),
        (["game", "tictactoe", "--algorithm", "alphabeta", "--order", "4,a"], "comma-separated"),
        (["game", "tictactoe", "--algorithm", "negamax"], "invalid choice"),
        (["game", "tictactoe"], "--algorithm"),
        (["game", "connect4", "--algorithm", "alphabeta", "--moves", "44"], "--depth"),
        (["game", "connect4", "--algorithm", "alphabeta", "--depth", "x"], "plies"),
        (
            ["game", "connect4", "--algorithm", "alphabeta", "--depth", "2", "--moves", "409"],
            "move 2 is '0'",
        ),
        (
            ["game", "connect4", "--algorithm", "alphabeta", "--depth", "2", "--moves", "1111111"],
            "column 1 is full",
        ),
        (
            ["game", "connect4", "--algorithm", "alphabeta", "--depth", "2", "--moves", "12121212"],
            "already over",
        ),
        (
            ["game", "connect4", "--algorithm", "minimax", "--depth", "2", "--table"],
            "--table needs --algorithm alphabeta",
        ),
        (["game", "connect4", "--algorithm", "alphabeta", "--depth", "2", "--order", "3"], "0..6"),
        (["census", "chess"], "invalid choice"),
        (["census", "tictactoe", "--board", "OOO      "], "counts"),
    ],
)
def test_bad_input_exits_2_naming_the_rule(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert message in fails(capsys, *argv)


@pytest.mark.parametrize(
    ("argv", "phrases"),
    [
        (["game", "--help"], ["root's children included", "alpha >= beta"]),
        (["game", "tictactoe", "--help"], ["0..8 row by row", "--to-move", "549945"]),
        (["game", "connect4", "--help"], ["1-based column digits", "0-based", "--table"]),
        (["census", "--help"], ["255168", "positions"]),
    ],
)
def test_help_text(capsys: pytest.CaptureFixture[str], argv: list[str], phrases: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parser().parse_args(argv)
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for phrase in phrases:
        assert phrase in text


@pytest.mark.skipif(
    not (REPO / "engine" / "__main__.py").exists(), reason="engine/__main__.py not written yet"
)
def test_python_dash_m_engine_end_to_end() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "engine", "game", "tictactoe", "--algorithm", "alphabeta",
         "--board", "XO  X   O"],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == {"value": 1, "move": 3, "nodes": 92}
    bad = subprocess.run(
        [sys.executable, "-m", "engine", "game", "connect4", "--algorithm", "alphabeta",
         "--depth", "2", "--moves", "48"],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert bad.returncode == 2
    assert "move 2 is '8'" in bad.stderr
    assert "Traceback" not in bad.stderr

"""The ``python -m engine`` command line: solve problems, list misconceptions, search games."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from engine import ENGINE_VERSION
from engine.errors import EngineError
from engine.games.cli import register as register_games
from engine.solve import SOLVERS, solve

EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description="Cutoff's reference engine for adversarial-search exercises.",
        epilog="Bad input prints a message naming the node or field and the rule on stderr "
        "and exits with status 2.",
    )
    parser.add_argument("--version", action="version", version=f"engine {ENGINE_VERSION}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    solve_parser = subparsers.add_parser(
        "solve",
        help="answer a gametree/1 problem",
        description="Print the answer to a gametree/1 problem as one JSON object. Kinds: "
        + ", ".join(SOLVERS) + ".",
    )
    solve_parser.add_argument(
        "problem", metavar="PROBLEM.json", help='the problem file, or "-" to read stdin'
    )
    solve_parser.add_argument(
        "--misconception", metavar="CODE",
        help="answer as the named deliberately wrong variant would "
        "(see the misconceptions command)",
    )
    solve_parser.add_argument(
        "--indent", type=int, metavar="N", help="pretty-print with N spaces (default: one line)"
    )
    solve_parser.set_defaults(run=_run_solve)

    listing = subparsers.add_parser(
        "misconceptions",
        help="list the named wrong variants graders diagnose",
        description="Print the misconception registry as JSON: code, explanation, kinds.",
    )
    listing.add_argument("--kind", help="only those that apply to this problem kind")
    listing.set_defaults(run=_run_misconceptions)

    register_games(subparsers)
    return parser


def _read_problem(path: str, stdin: TextIO) -> Any:
    try:
        # Decimals are read as their text, which the engine reads exactly: through a float,
        # 12345678901234567.5 would become 12345678901234568.
        if path == "-":
            return json.load(stdin, parse_float=str)
        with open(path, encoding="utf-8") as handle:
            return json.load(handle, parse_float=str)
    except OSError as error:
        raise EngineError(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise EngineError(
            f"{path} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except RecursionError:
        raise EngineError(f"{path} is nested too deeply to be a gametree/1 problem") from None


def _run_solve(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> None:
    problem = _read_problem(args.problem, stdin)
    if args.misconception is None:
        answer = solve(problem)
    else:
        from engine.misconceptions import get

        answer = get(args.misconception).answer(problem)
    json.dump(answer, out, indent=args.indent)
    out.write("\n")


def _run_misconceptions(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> None:
    from engine.misconceptions import MISCONCEPTIONS

    listed = [
        {"code": m.code, "explanation": m.explanation, "kinds": sorted(m.kinds)}
        for m in MISCONCEPTIONS.values()
        if args.kind is None or args.kind in m.kinds
    ]
    json.dump(listed, out, indent=2)
    out.write("\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (2 for bad input, never a traceback)."""
    # Exact values of deep chance trees may pass Python's 4300 digits for printing an int;
    # every number read is capped (engine.tree.MAX_DIGITS), so lifting the limit is safe here.
    sys.set_int_max_str_digits(0)
    args = build_parser().parse_args(argv)
    if hasattr(args, "func"):
        # The game subcommands (engine.games.cli) report their own errors and exit status.
        return int(args.func(args))
    try:
        args.run(args, sys.stdout, sys.stdin)
    except EngineError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader (e.g. `head`) went away; that is not an engine failure.
        sys.stderr.close()
    return 0

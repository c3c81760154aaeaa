"""Time the engine's game searches; print the figures bench/README.md records.

Run from the repository root (takes about a minute; needs aima3 for the comparison):

    .venv/bin/pip install aima3 numpy    # benchmark only, never a project dependency
    .venv/bin/python bench/engine.py

1. Full-tree tic-tac-toe minimax from the empty board (549,945 nodes below the root): the
   engine's generic ``minimax`` with a ``NodeCounter`` on ``TicTacToe`` (its counting fast
   path), the same search forced onto its general path (a tracer taking every event), a
   bare recursive minimax over the plain Game protocol, and
   ``aima3.games.minimax_decision`` on aima3's own ``TicTacToe`` (same tree, same count), in
   ``--repeat`` interleaved rounds. Each round's ratio aima3 / engine is taken in CPU time
   (``time.process_time``, which other jobs on the machine hardly skew) and in wall-clock
   time; the median over rounds is printed (target: ours at least 10x faster).
2. Connect Four alpha-beta, depth 8, centre-first order, from three fixed mid-game
   positions, without and with a transposition table: nodes, best-of-``--repeat`` seconds,
   nodes/s, and the peak Python heap of one more run under tracemalloc (which slows it).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

if not __package__:
    # Run as a file, this folder comes first on sys.path and this very module, engine.py,
    # would shadow the engine package: put the repository root there instead.
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from engine.games import connect4, tictactoe  # noqa: E402
from engine.games.tictactoe import EMPTY_BOARD, TicTacToe, TicTacToeState  # noqa: E402
from engine.search.alphabeta import alphabeta  # noqa: E402
from engine.search.minimax import minimax  # noqa: E402
from engine.search.trace import NodeCounter  # noqa: E402
from engine.search.ttable import TranspositionTable  # noqa: E402

FULL_TREE_NODES = 549_945
CONNECT4_DEPTH = 8
CONNECT4_POSITIONS = ("4435", "44443232", "3443215566")
"""Fixed mid-game positions (1-based column digits) whose depth-8 values are heuristic."""


def best_time(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Return the fastest of ``repeat`` wall-clock timings of ``run()`` and its last result."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """Return the CPU seconds and wall-clock seconds of one ``run()``, and its result."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = run()
    return time.process_time() - cpu, time.perf_counter() - wall, result


class EveryEventCounter(NodeCounter):
    """Count exactly as NodeCounter does, but take every event node by node.

    A subclass does not inherit ``counts_only``, so ``minimax`` runs its general path, the
    one every other tracer (recording, budgets, exercise counters) gets.
    """


def ours_full_tree(counter: NodeCounter | None = None) -> tuple[int, int]:
    """Return the value and node count of the engine's full minimax from the empty board."""
    counter = counter or NodeCounter()
    result = minimax(TicTacToe(), EMPTY_BOARD, tracer=counter)
    return int(result.value), counter.nodes


def bare_full_tree() -> int:
    """Return the node count of a bare recursive minimax over ``TicTacToe`` (no tracing)."""
    game = TicTacToe()
    nodes = 0

    def value(state: TicTacToeState) -> int:
        nonlocal nodes
        if game.is_terminal(state):
            return game.utility(state, "X")
        values = []
        for action in game.actions(state):
            nodes += 1
            values.append(value(game.result(state, action)))
        return max(values) if game.to_move(state) == "X" else min(values)

    value(EMPTY_BOARD)
    return nodes


def aima3_full_tree() -> Callable[[], Any] | None:
    """Return a run of aima3's full minimax, after checking it visits the same tree."""
    try:
        from aima3 import games
    except ImportError as error:
        print(f"  aima3: not importable ({error}); install with .venv/bin/pip install aima3 numpy")
        return None

    class CountingTicTacToe(games.TicTacToe):  # type: ignore[misc]
        """Count the states aima3's search creates: one per node below the root."""

        nodes = 0

        def result(self, state: Any, move: Any) -> Any:
            type(self).nodes += 1
            return super().result(state, move)

    counting = CountingTicTacToe()
    games.minimax_decision(counting.initial, counting)
    assert CountingTicTacToe.nodes == FULL_TREE_NODES, CountingTicTacToe.nodes
    plain = games.TicTacToe()
    return lambda: games.minimax_decision(plain.initial, plain)


def tictactoe_section(repeat: int) -> None:
    """Time the full tic-tac-toe tree in interleaved rounds and print the ratios to aima3."""
    runs: dict[str, Callable[[], Any]] = {
        "engine minimax + NodeCounter": ours_full_tree,
        "engine minimax, general path (every event)": lambda: ours_full_tree(
            EveryEventCounter()
        ),
        "bare recursion over the plain protocol": bare_full_tree,
    }
    aima = aima3_full_tree()
    if aima is not None:
        runs["aima3 minimax_decision"] = aima
    print(f"Tic-tac-toe: full minimax from the empty board ({FULL_TREE_NODES:,} nodes), "
          f"{repeat} interleaved rounds")  # fmt: skip
    tictactoe._tables.cache_clear()
    build, _, _ = timed(TicTacToe)
    print(f"  TicTacToe's position tables, built once per process: {build * 1000:.0f} ms CPU "
          f"(not in the timings below)")  # fmt: skip
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    wall: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            seconds, elapsed, result = timed(run)
            nodes = result[1] if isinstance(result, tuple) else result
            if name.startswith(("engine", "bare")):
                assert nodes == FULL_TREE_NODES, (name, nodes)
            cpu[name].append(seconds)
            wall[name].append(elapsed)
    print(f"  {'search':<44} {'CPU s':>6} {'wall s':>7} {'M nodes/s':>9} "
          f"{'aima3/it CPU':>12} {'wall':>6}")  # fmt: skip
    for name in runs:
        best = min(cpu[name])
        line = (f"  {name:<44} {best:>6.3f} {min(wall[name]):>7.3f} "
                f"{FULL_TREE_NODES / best / 1e6:>9.2f}")  # fmt: skip
        if aima is not None:
            aima_name = "aima3 minimax_decision"
            cpu_ratio = statistics.median(
                a / o for a, o in zip(cpu[aima_name], cpu[name], strict=True)
            )
            wall_ratio = statistics.median(
                a / o for a, o in zip(wall[aima_name], wall[name], strict=True)
            )
            line += f" {cpu_ratio:>11.1f}x {wall_ratio:>5.1f}x"
        print(line)
    if aima is not None:
        name = "engine minimax + NodeCounter"
        ratios = sorted(
            a / o for a, o in zip(cpu["aima3 minimax_decision"], cpu[name], strict=True)
        )
        print(f"  ratio aima3 / engine (CPU time, per round): "
              f"{', '.join(f'{r:.1f}x' for r in ratios)}; median "
              f"{statistics.median(ratios):.1f}x (target >= 10x)")  # fmt: skip


def connect4_search(moves: str, table: bool) -> tuple[Any, NodeCounter]:
    """Run the benchmark's depth-8 alpha-beta from ``moves``, with a table if asked."""
    counter = NodeCounter()
    result = alphabeta(
        connect4.Connect4(),
        connect4.parse_moves(moves),
        max_player=connect4.X,
        depth_limit=CONNECT4_DEPTH,
        evaluator=connect4.window_score,
        order=connect4.centre_first_order,
        tracer=counter,
        table=TranspositionTable[int]() if table else None,
    )
    return result, counter


def connect4_section(repeat: int) -> None:
    """Print nodes/s and peak memory of depth-8 alpha-beta with and without a table."""
    print(f"Connect Four: alpha-beta depth {CONNECT4_DEPTH}, centre-first order, X is MAX, "
          f"best of {repeat}")  # fmt: skip
    print(f"  {'moves':<11} {'table':<5} {'value':>6} {'move':>4} {'nodes':>8} {'seconds':>8} "
          f"{'nodes/s':>8} {'peak heap':>11}")  # fmt: skip
    for moves in CONNECT4_POSITIONS:
        for table in (False, True):
            search = partial(connect4_search, moves, table)
            seconds, (result, counter) = best_time(search, repeat)
            tracemalloc.start()
            connect4_search(moves, table)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            move = "-" if result.move is None else str(result.move + 1)
            print(f"  {moves:<11} {'yes' if table else 'no':<5} {result.value:>6} {move:>4} "
                  f"{counter.nodes:>8,} {seconds:>8.2f} {counter.nodes / seconds:>8,.0f} "
                  f"{peak / 1024:>8,.0f} KiB")  # fmt: skip


def main() -> None:
    """Run both sections and print the machine they ran on."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each search")
    parser.add_argument(
        "--only", choices=("tictactoe", "connect4"), help="run one section, not both"
    )
    args = parser.parse_args()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"Python {platform.python_version()} on {platform.machine()} {platform.system()}, "
          f"{os.cpu_count()} CPUs, load average {load} (other work skews the timings)")  # fmt: skip
    if args.only != "connect4":
        tictactoe_section(args.repeat)
    if args.only != "tictactoe":
        connect4_section(args.repeat)
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"Process peak RSS (aima3's imports included): {peak_rss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()

"""Functional tests of the sandbox runner: honest student code, its record, limits, errors."""

from __future__ import annotations

import dataclasses
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from engine.games import connect4
from grading.sandbox import (
    DEFAULT_LIMITS,
    VERDICTS,
    CallEvent,
    SandboxConfig,
    SandboxLimits,
    SandboxUnavailable,
    StateArg,
    run_in_sandbox,
)

from .conftest import (
    FAST,
    TEST_UID,
    TEST_UID_POOL,
    ChanceGame,
    DeepGame,
    Recording,
    Runner,
    TreeGame,
)

MINIMAX = '''
def minimax_decision(game, state):
    player = game.to_move(state)

    def value(s):
        if game.is_terminal(s):
            return game.utility(s, player)
        values = [value(game.result(s, a)) for a in game.actions(s)]
        return max(values) if game.to_move(s) == player else min(values)

    return max(game.actions(state), key=lambda a: value(game.result(state, a)))
'''

ALPHABETA = '''
import math

def alphabeta_decision(game, state, depth):
    player = game.to_move(state)

    def value(s, alpha, beta, depth):
        if game.is_terminal(s):
            return game.utility(s, player)
        if depth == 0:
            return game.evaluate(s, player)
        if game.to_move(s) == player:
            best = -math.inf
            for a in game.actions(s):
                best = max(best, value(game.result(s, a), alpha, beta, depth - 1))
                if best >= beta:
                    return best
                alpha = max(alpha, best)
            return best
        best = math.inf
        for a in game.actions(s):
            best = min(best, value(game.result(s, a), alpha, beta, depth - 1))
            if best <= alpha:
                return best
            beta = min(beta, best)
        return best

    best_action, best_value = None, -math.inf
    for a in game.actions(state):
        v = value(game.result(state, a), best_value, math.inf, depth - 1)
        if v > best_value:
            best_action, best_value = a, v
    return best_action
'''

EXPECTIMAX = '''
def expectimax_decision(game, state):
    player = game.to_move(state)

    def value(s):
        if game.is_terminal(s):
            return game.utility(s, player)
        if game.to_move(s) == game.CHANCE:
            return sum(p * value(game.result(s, a)) for a, p in game.chance_outcomes(s))
        return max(value(game.result(s, a)) for a in game.actions(s))

    best = max(game.actions(state), key=lambda a: value(game.result(state, a)))
    return (best, value(game.result(state, best)))
'''


def reference_minimax(game: Any, state: Any) -> Any:
    """Run the same minimax locally on the real game (the order the grader expects)."""
    player = game.to_move(state)

    def value(s: Any) -> Any:
        if game.is_terminal(s):
            return game.utility(s, player)
        values = [value(game.result(s, a)) for a in game.actions(s)]
        return max(values) if game.to_move(s) == player else min(values)

    return max(game.actions(state), key=lambda a: value(game.result(state, a)))


def test_correct_minimax_returns_the_move_and_the_reference_expansion_order(run: Runner) -> None:
    reference = Recording(TreeGame())
    expected_move = reference_minimax(reference, "A")
    record = run(MINIMAX, "minimax_decision")
    assert record.verdict == "ok", record.traceback
    assert record.return_value == expected_move == "l"
    assert record.generated_states() == reference.generated == ["B", "D", "E", "C", "F", "G"]
    assert record.evaluated_states() == reference.evaluated
    assert record.was_offered(record.return_value, "A")
    assert [event.index for event in record.calls] == list(range(len(record.calls)))


def test_alphabeta_prunes_and_evaluates_at_the_cutoff(run: Runner) -> None:
    evaluated: list[str] = []

    def evaluator(state: str, player: str) -> Fraction:
        evaluated.append(state)
        return Fraction(int(state, 2) % 5, 3) if player == "MAX" else -Fraction(1)

    record = run(ALPHABETA, "alphabeta_decision", args=[StateArg(""), 3], game=DeepGame(),
                 evaluator=evaluator)
    assert record.verdict == "ok", record.traceback
    assert record.return_value in ("0", "1")
    cutoffs = [str(event.state) for event in record.calls_of("evaluate")]
    assert cutoffs == evaluated and all(len(state) == 3 for state in cutoffs)
    # Pruning: fewer than the 14 states of a full depth-3 expansion were generated.
    assert 0 < len(record.generated_states()) < 14
    assert [e.value for e in record.calls_of("evaluate")] == [evaluator(s, "MAX")
                                                              for s in cutoffs]


def test_expectimax_over_chance_nodes_with_exact_fractions(run: Runner) -> None:
    record = run(EXPECTIMAX, "expectimax_decision", game=ChanceGame())
    assert record.verdict == "ok", record.traceback
    # l: 1/4 * 4 + 3/4 * 0 = 1; r: 1/2 * 1 + 1/2 * 2 = 3/2.
    assert record.return_value == ("r", Fraction(3, 2))
    assert next(record.calls_of("chance_outcomes")).value == [("h", Fraction(1, 4)),
                                                              ("t", Fraction(3, 4))]


def test_student_runtime_error_shows_only_the_students_traceback(run: Runner) -> None:
    record = run('''
def helper(game, state):
    return game.utility(state, "MAX") / 0

def solve(game, state):
    child = game.result(state, game.actions(state)[0])
    return helper(game, game.result(child, game.actions(child)[0]))
''')
    assert record.verdict == "runtime_error"
    assert record.message == "raised ZeroDivisionError"
    assert record.traceback == (
        "Traceback (most recent call last):\n"
        '  File "solution.py", line 7, in solve\n'
        "    return helper(game, game.result(child, game.actions(child)[0]))\n"
        '  File "solution.py", line 3, in helper\n'
        '    return game.utility(state, "MAX") / 0\n'
        "ZeroDivisionError: division by zero\n")
    for host_detail in ("bootstrap", "/sandbox", "/work", "grading", "/tmp", "/usr/lib"):
        assert host_detail not in record.traceback
    assert record.stderr == "" and record.return_value is None


def test_syntax_error_names_only_solution_py(run: Runner) -> None:
    record = run("def solve(game, state)\n    return 1\n")
    assert record.verdict == "runtime_error"
    assert record.message == "raised SyntaxError"
    assert 'File "solution.py", line 1' in (record.traceback or "")
    assert "/sandbox" not in (record.traceback or "")


def test_missing_entry_point(run: Runner) -> None:
    record = run("def other(game, state):\n    return 1\n", "minimax_decision")
    assert record.verdict == "runtime_error"
    assert "defines no function minimax_decision()" in (record.traceback or "")


def test_illegal_game_call_raises_game_error_in_the_student(run: Runner) -> None:
    record = run('''
def solve(game, state):
    try:
        game.utility(state, "MAX")
    except game.GameError as exc:
        refused = str(exc)
    leaf = game.result(game.result(state, game.actions(state)[0]), game.actions(state)[0])
    try:
        game.result(leaf, game.actions(state)[1])
    except game.GameError as exc:
        return [refused, str(exc)]
''')
    assert record.verdict == "ok", record.traceback
    assert record.return_value == ["the state is not terminal: only a terminal state has a "
                                   "utility", "action 'r' is not legal in this state"]
    errors = [event for event in record.calls if event.error]
    assert [event.kind for event in errors] == ["utility", "result"]
    assert record.generated_states() == ["B", "D"]


def test_the_utility_of_a_position_still_in_play_is_refused(run: Runner) -> None:
    # Connect Four scores a position still in play as 0; the contract says the call raises.
    record = run("def solve(game, state):\n    try:\n        return game.utility(state, 'X')\n"
                 "    except game.GameError as exc:\n        return str(exc)\n",
                 args=[StateArg(connect4.EMPTY_BOARD)], game=connect4.Connect4())
    assert record.verdict == "ok", record.traceback
    assert record.return_value == "the state is not terminal: only a terminal state has a utility"
    assert record.evaluated_states() == []


def test_proxy_type_checks_raise_type_error_locally(run: Runner) -> None:
    record = run("def solve(game, state):\n    return game.actions('A')\n")
    assert record.verdict == "runtime_error"
    assert "TypeError: expected a state from the game, got str" in (record.traceback or "")
    assert record.calls == ()


def test_output_players_and_return_types(run: Runner) -> None:
    record = run('''
from fractions import Fraction
from pathlib import Path
def solve(game, state):
    print("thinking", game.players())
    actions = game.actions(state)
    print(actions, state)
    print(actions[0], str(actions[1]), f"{actions[0]}-{actions[1]:>3}", "%s" % actions[0])
    return [game.to_move(state), (actions[0], Fraction(1, 3)), None, 2.5, True, state]
''')
    assert record.verdict == "ok", record.traceback
    # An action prints as its label; its repr (in lists) stays recognisable as an action.
    assert record.stdout == ("thinking ['MAX', 'MIN']\n[<Action l>, <Action r>] <State 1>\n"
                             "l r l-  r l\n")
    assert record.return_value == ["MAX", ("l", Fraction(1, 3)), None, 2.5, True, "A"]


def test_unserialisable_return_value_is_a_runtime_error(run: Runner) -> None:
    record = run("def solve(game, state):\n    return {'move': 1}\n")
    assert record.verdict == "runtime_error"
    assert "cannot return a value of type dict" in (record.traceback or "")


def test_recorder_sees_each_call_as_it_happens(run: Runner) -> None:
    seen: list[CallEvent] = []
    record = run(MINIMAX, "minimax_decision", recorder=seen.append)
    assert tuple(seen) == record.calls
    first = record.calls[0]
    assert (first.kind, first.state, first.handle, first.value) == ("to_move", "A", 1, "MAX")
    result = next(record.calls_of("result"))
    assert (result.state, result.action, result.value) == ("A", "l", "B")
    assert result.child_handle is not None


def test_max_game_calls_bounds_the_record(run: Runner) -> None:
    record = run("def solve(game, state):\n    while True:\n        game.to_move(state)\n",
                 limits=FAST.override(max_game_calls=50))
    assert record.verdict == "time_limit"
    assert "50 game calls" in record.message
    assert len(record.calls) == 50


def test_record_reports_resources_and_cgroup(run: Runner) -> None:
    record = run("def solve(game, state):\n    return sum(range(10 ** 6))\n")
    assert record.verdict == "ok"
    assert record.return_value == sum(range(10 ** 6))
    assert record.cgroup.startswith(("v1: ", "v2: ", "unavailable: "))
    assert 0 < record.wall_seconds < FAST.wall_seconds
    assert record.cpu_seconds > 0
    assert record.exit_status == 0
    assert record.limits == FAST
    assert record.verdict in VERDICTS


def test_without_cgroup_the_record_says_so(run: Runner, sandbox_host: SandboxConfig) -> None:
    config = SandboxConfig(base_dir=sandbox_host.base_dir, use_cgroup=False)
    record = run("def solve(game, state):\n    return 1\n", config=config)
    assert record.verdict == "ok"
    assert record.cgroup == "unavailable: disabled in SandboxConfig"


def test_default_config_runs_as_a_uid_of_its_pool(run: Runner,
                                                  sandbox_host: SandboxConfig) -> None:
    config = SandboxConfig(base_dir=sandbox_host.base_dir)
    record = run("import os\ndef solve(game, state):\n    return [os.getuid(), os.getgid()]\n",
                 config=config)
    uid, gid = record.return_value
    assert config.uid <= uid < config.uid + config.uid_count and gid == config.gid


FORK_BOMB = '''
import os
def solve(game, state):
    while True:
        try:
            os.fork()
        except OSError:
            pass
'''
FORKS_ONCE = '''
import os
def solve(game, state):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return os.getuid()
'''


def test_a_fork_bomb_does_not_keep_concurrent_runs_from_starting(
        run: Runner, sandbox_host: SandboxConfig) -> None:
    # Without a uid per run, RLIMIT_NPROC (counted per uid on the host) is shared: while the
    # bomb holds every process slot the other runs fail with "Creating new namespace failed".
    pool = dataclasses.replace(sandbox_host, uid_count=TEST_UID_POOL)
    bomb: dict[str, Any] = {}
    bomber = threading.Thread(target=lambda: bomb.update(record=run(FORK_BOMB, config=pool)))
    bomber.start()
    try:
        time.sleep(1.0)  # the bomb has filled its budget by now
        records = [run(FORKS_ONCE, config=pool) for _ in range(3)]
    finally:
        bomber.join()
    assert [record.verdict for record in records] == ["ok"] * 3, records[0].message
    assert all(TEST_UID <= record.return_value < TEST_UID + TEST_UID_POOL for record in records)
    assert bomb["record"].verdict == "time_limit"


def test_missing_bubblewrap_raises_sandbox_unavailable() -> None:
    config = SandboxConfig(bwrap="/nonexistent/bwrap")
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        run_in_sandbox("", "solve", [], TreeGame(), config=config)


def test_unsafe_base_directories_are_refused(sandbox_host: SandboxConfig,
                                             tmp_path: Path) -> None:
    link = Path(f"{sandbox_host.base_dir}-link")
    link.symlink_to(tmp_path)
    try:
        with pytest.raises(SandboxUnavailable, match="real directory"):
            run_in_sandbox("", "solve", [], TreeGame(), config=SandboxConfig(base_dir=link))
    finally:
        link.unlink()
    shared = Path(f"{sandbox_host.base_dir}-shared")
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    try:
        with pytest.raises(SandboxUnavailable, match="writable only by it"):
            run_in_sandbox("", "solve", [], TreeGame(), config=SandboxConfig(base_dir=shared))
    finally:
        shared.rmdir()


def test_broken_sandbox_start_is_a_sandbox_error(run: Runner,
                                                 sandbox_host: SandboxConfig) -> None:
    config = SandboxConfig(base_dir=sandbox_host.base_dir, bwrap="/usr/bin/false")
    record = run("def solve(game, state):\n    return 1\n", config=config)
    assert record.verdict == "sandbox_error"
    assert "did not start" in record.message


def test_limits_validate_and_override() -> None:
    assert DEFAULT_LIMITS.cpu_seconds == 5 and DEFAULT_LIMITS.max_output_bytes == 64 * 1024
    tighter = DEFAULT_LIMITS.override({"cpu_seconds": 1}, wall_seconds=2.5)
    assert (tighter.cpu_seconds, tighter.wall_seconds) == (1, 2.5)
    assert DEFAULT_LIMITS.cpu_seconds == 5
    with pytest.raises(ValueError, match="unknown sandbox limits"):
        DEFAULT_LIMITS.override(cpu_second=1)
    with pytest.raises(ValueError, match="positive"):
        SandboxLimits(memory_bytes=0)
    with pytest.raises(ValueError, match="integer"):
        SandboxLimits(cpu_seconds=1.5)  # type: ignore[arg-type]


def test_entry_point_arguments_must_be_plain_or_states(sandbox_host: SandboxConfig) -> None:
    with pytest.raises(TypeError, match="StateArg"):
        run_in_sandbox("", "solve", [object()], TreeGame())


def test_huge_return_value_is_a_runtime_error(run: Runner) -> None:
    record = run("def solve(game, state):\n    return ['x' * 1000] * 2000\n")
    assert record.verdict == "runtime_error"
    assert "larger than 1048576 bytes" in (record.traceback or "")

"""Agent tests: a tic-tac-toe agent against every opponent line, a Connect Four agent in a series.

The grader is the referee. It asks the student's agent for its moves in batches, one sandbox
run per batch (a driver appended to the source calls the agent once per position, so a
cache the agent keeps by state serves the whole batch), checks each move was offered by the
game for that position, plays it, and answers with the opponents' moves itself.

Tic-tac-toe is checked exhaustively and breadth first: round ``k`` asks the agent for every
position it can face at its ``k``-th move, against every sequence of opponent replies.
Connect Four games run in lockstep: each round asks for the agent's move in every game still
going.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.game import Evaluator
from engine.games import connect4, tictactoe
from engine.search.alphabeta import alphabeta
from grading.code.cases import tests_rng
from grading.code.feedback import message, shown
from grading.code.runs import Budget, Outcome, run_within
from grading.sandbox import RunRecord, SandboxConfig, SandboxLimits, StateArg

AGENT_ENTRY = "__cutoff_choose_moves__"
AGENT_DRIVER = '''

def {driver}(game, *states):
    return [{entry}(game, state) for state in states]
'''
"""Appended after the student's last line; its frames are cut from tracebacks."""

FRAME = re.compile(r'  File "solution\.py", line (\d+), in [^\n]*\n(    [^\n]*\n)?')


@dataclass
class AgentBatch:
    """The moves an agent chose in a batch of positions, or the run's failure.

    ``failure`` is set when the run did not end normally, ran out of the budget, or returned
    a move the game had not offered for its position (``illegal_operation``).
    """

    moves: list[Any] = field(default_factory=list)
    failure: Outcome | None = None


def ask_agent(source: str, entry_point: str, game: Any, states: Sequence[Hashable],
              limits: SandboxLimits, budget: Budget, config: SandboxConfig | None,
              evaluator: Evaluator[Any] | None = None,
              records: list[RunRecord] | None = None) -> AgentBatch:
    """Ask the agent for a move in each of ``states`` in one sandbox run and check each move.

    ``evaluator`` answers ``game.evaluate``; the run's record is appended to ``records`` (a
    check shows what the agent printed).
    """
    driver = AGENT_DRIVER.format(driver=AGENT_ENTRY, entry=entry_point)
    record = run_within(budget, source + driver, AGENT_ENTRY, [StateArg(s) for s in states],
                        game, limits, evaluator=evaluator, config=config)
    if record is not None and records is not None:
        records.append(record)
    if record is None:
        return AgentBatch(failure=Outcome("time_limit", budget.exhausted_message))
    if not record.ok:
        return AgentBatch(failure=Outcome.of(record))
    moves = record.return_value
    if not isinstance(moves, list) or len(moves) != len(states):
        return AgentBatch(failure=Outcome("illegal_operation", message("agent_moves_missing")))
    for state, move in zip(states, moves, strict=True):
        if not record.was_offered(move, state):
            return AgentBatch(failure=Outcome(
                "illegal_operation", message("agent_move_not_offered", move=shown(move))))
    return AgentBatch(moves=moves)


def student_traceback(traceback: str | None, source: str) -> str | None:
    """Return ``traceback`` without the frames of the appended driver."""
    if traceback is None:
        return None
    last_line = source.count("\n") + 1
    return FRAME.sub(lambda frame: "" if int(frame.group(1)) > last_line else frame.group(0),
                     traceback)


def failed_report(name: str, failure: Outcome, source: str) -> dict[str, Any]:
    """Return the report of an agent test whose batch run failed or cheated."""
    report: dict[str, Any] = {"test": name, "verdict": failure.verdict, "score": 0.0,
                              "max_score": 1.0, "messages": [failure.message],
                              "misconceptions": []}
    traceback = student_traceback(failure.traceback, source)
    if traceback:
        report["traceback"] = traceback
    return report


# --- tic-tac-toe: never lose ----------------------------------------------------------------


TICTACTOE_PUBLIC_SIDES = ("X",)
"""The public example test of a tic-tac-toe agent (a check): the hidden test as X."""


def tictactoe_reports(source: str, entry_point: str, seed: str, limits: SandboxLimits,
                      budget: Budget, config: SandboxConfig | None, *,
                      playing_as: tuple[str, ...] = ("X", "O"),
                      records: list[RunRecord] | None = None) -> list[dict[str, Any]]:
    """Return one report per side of ``playing_as``: the agent as X, then as O, against every
    opponent line (the same tests for every student: ``seed`` is not used).

    Both sides advance together, one batch per round, so an agent that caches by state
    solves the game once per round for both. Each run's record is appended to ``records``.
    """
    game = tictactoe.TicTacToe()
    openings: dict[str, dict[Any, list[int]]] = {
        "X": {tictactoe.EMPTY_BOARD: []},
        "O": {game.result(tictactoe.EMPTY_BOARD, square): [square]
              for square in game.actions(tictactoe.EMPTY_BOARD)},
    }
    sides = {name: _Side(name, openings[name]) for name in playing_as}
    # Once a run for both sides failed, each side is asked in a run of its own: a side then
    # fails only for its own positions, and a run too big for its limit is not tried again.
    apart = False
    while playing := [side for side in sides.values() if side.report is None and side.frontier]:
        batch = None
        if not apart or len(playing) == 1:
            positions = [position for side in playing for position in side.frontier]
            batch = ask_agent(source, entry_point, game, positions, limits, budget, config,
                              records=records)
            apart = batch.failure is not None and len(playing) > 1
        if apart:
            for side in playing:
                alone = ask_agent(source, entry_point, game, list(side.frontier), limits,
                                  budget, config, records=records)
                side.answer(game, list(side.frontier), alone, source)
        else:
            assert batch is not None
            for side in playing:
                side.answer(game, positions, batch, source)
    return [side.report or side.passed() for side in sides.values()]


@dataclass
class _Side:
    """The agent on one side: the positions it faces next, each with a line reaching it."""

    name: str
    frontier: dict[Any, list[int]]
    asked: int = 0
    finished: int = 0
    report: dict[str, Any] | None = None

    @property
    def test_name(self) -> str:
        """Return the name of this side's test."""
        return f"tic-tac-toe agent as {self.name}, against every opponent"

    def answer(self, game: tictactoe.TicTacToe, positions: list[Any], batch: AgentBatch,
               source: str) -> None:
        """Play the agent's moves of ``batch`` (asked in ``positions``) in this side's
        positions, or fail the side with the batch's failure."""
        if batch.failure is not None:
            self.report = failed_report(self.test_name, batch.failure, source)
        else:
            self.advance(game, {p: m for p, m in zip(positions, batch.moves, strict=True)
                                if p in self.frontier})

    def advance(self, game: tictactoe.TicTacToe, moves: dict[Any, int]) -> None:
        """Play the agent's ``moves`` and every opponent reply; stop at the first loss."""
        self.asked += len(moves)
        following: dict[Any, list[int]] = {}
        for position, move in moves.items():
            line = [*self.frontier[position], move]
            after = game.result(position, move)
            if game.is_terminal(after):
                self.finished += 1
                continue
            for reply in game.actions(after):
                reached = game.result(after, reply)
                if not game.is_terminal(reached):
                    following.setdefault(reached, [*line, reply])
                    continue
                self.finished += 1
                if game.utility(reached, self.name) < 0:
                    self.report = _lost(self.test_name, [*line, reply], reached)
                    return
        self.frontier = following

    def passed(self) -> dict[str, Any]:
        """Return the report of a side that never lost."""
        return {"test": self.test_name, "verdict": "passed", "score": 1.0, "max_score": 1.0,
                "messages": [message("never_lost", asked=self.asked, finished=self.finished)],
                "misconceptions": []}


def _lost(name: str, line: list[int], final: tictactoe.TicTacToeState) -> dict[str, Any]:
    board = final.board.replace(" ", "_")
    return {"test": name, "verdict": "wrong", "score": 0.0, "max_score": 1.0, "misconceptions": [],
            "messages": [message("agent_lost", moves=", ".join(map(str, line)),
                                 board=f"{board[:3]}/{board[3:6]}/{board[6:]}")]}


# --- Connect Four: a seeded series ----------------------------------------------------------

Opponent = Callable[[connect4.Connect4State], int]


@dataclass
class Match:
    """One game of the series: who the agent plays, on which side, and the moves so far."""

    opponent_name: str
    agent_side: str
    opponent: Opponent
    state: connect4.Connect4State = connect4.EMPTY_BOARD
    moves: list[int] = field(default_factory=list)
    failure: Outcome | None = None
    """Why the agent's run failed in this game's position, which ended the game."""

    def play(self, game: connect4.Connect4, move: int) -> None:
        """Play ``move`` (0-based column) for whoever is to move."""
        self.state = game.result(self.state, move)
        self.moves.append(move)

    def record(self) -> str:
        """Return the game so far as 1-based column digits."""
        return "".join(str(move + 1) for move in self.moves)


def random_player(rng: random.Random) -> Opponent:
    """Return an opponent playing a uniformly random legal column."""
    game = connect4.Connect4()
    return lambda state: rng.choice(list(game.actions(state)))


def depth2_searcher(state: connect4.Connect4State) -> int:
    """Return the move of a depth-2 alpha-beta with the window heuristic, centre first."""
    result = alphabeta(connect4.Connect4(), state, depth_limit=2,
                       evaluator=connect4.window_score, order=connect4.centre_first_order)
    assert result.move is not None
    return result.move


def connect4_reports(source: str, entry_point: str, seed: str, limits: SandboxLimits,
                     budget: Budget, config: SandboxConfig | None) -> list[dict[str, Any]]:
    """Return one report per opponent: a random player, then a depth-2 searcher."""
    rng = tests_rng(seed, "connect4-agent")
    matches = [
        Match("random player", "X", random_player(random.Random(rng.getrandbits(64)))),
        Match("random player", "O", random_player(random.Random(rng.getrandbits(64)))),
        Match("depth-2 searcher", "X", depth2_searcher),
        Match("depth-2 searcher", "O", depth2_searcher),
    ]
    return play_series(source, entry_point, matches, limits, budget, config)


def connect4_public_reports(source: str, entry_point: str, limits: SandboxLimits,
                            budget: Budget, config: SandboxConfig | None,
                            records: list[RunRecord] | None = None) -> list[dict[str, Any]]:
    """Return the report of the public example test (a check): the agent as X against the
    depth-2 searcher, one game of the hidden series, the same for every student."""
    return play_series(source, entry_point, [Match("depth-2 searcher", "X", depth2_searcher)],
                       limits, budget, config, records)


def play_series(source: str, entry_point: str, matches: list[Match], limits: SandboxLimits,
                budget: Budget, config: SandboxConfig | None,
                records: list[RunRecord] | None = None) -> list[dict[str, Any]]:
    """Play ``matches`` in lockstep; return one report per opponent, in the order they first
    appear. Each run's record is appended to ``records``.

    A run that fails ends only the games whose positions fail it: when the run asked for
    several games' moves, each of those positions is asked again alone, and a game whose
    position fails alone ends there (it scores nothing; the games that went on, or had
    finished, keep their results).
    """
    game = connect4.Connect4()
    live = list(matches)
    # Once a batched run failed, each game's position is asked in a run of its own: a run too
    # big for its limit is not tried again every round.
    apart = False
    while live:
        for match in live:
            if match.state.player != match.agent_side and not game.is_terminal(match.state):
                match.play(game, match.opponent(match.state))
        waiting = [m for m in live if not game.is_terminal(m.state)]
        if not waiting:
            break
        batch = None
        if not apart or len(waiting) == 1:
            batch = ask_agent(source, entry_point, game, [m.state for m in waiting], limits,
                              budget, config, evaluator=connect4.window_score, records=records)
            apart = batch.failure is not None and len(waiting) > 1
        if apart:
            for match in waiting:
                alone = ask_agent(source, entry_point, game, [match.state], limits, budget,
                                  config, evaluator=connect4.window_score, records=records)
                match.failure = alone.failure
                if alone.failure is None:
                    match.play(game, alone.moves[0])
        else:
            assert batch is not None
            for index, match in enumerate(waiting):
                match.failure = batch.failure
                if batch.failure is None:
                    match.play(game, batch.moves[index])
        live = [m for m in waiting if m.failure is None and not game.is_terminal(m.state)]
    return [_series_report(name, [m for m in matches if m.opponent_name == name], game, source)
            for name in dict.fromkeys(match.opponent_name for match in matches)]


def _series_report(opponent: str, matches: list[Match], game: connect4.Connect4,
                   source: str) -> dict[str, Any]:
    points, messages = 0.0, []
    failures = [match.failure for match in matches if match.failure is not None]
    for match in matches:
        if match.failure is not None:
            stopped = message("series_stopped", side=match.agent_side, moves=match.record()) \
                if match.moves else message("series_stopped_first", side=match.agent_side)
            messages += [stopped, match.failure.message]
            continue
        utility = game.utility(match.state, match.agent_side)
        code, earned = ("series_won", 1.0) if utility > 0 else ("series_lost", 0.0) \
            if utility < 0 else ("series_drew", 0.5)
        points += earned
        messages.append(message(code, side=match.agent_side, moves=match.record()))
    score = round(points / len(matches), 4)
    verdict = failures[0].verdict if failures else "passed" if score == 1 else "wrong"
    report = {"test": f"Connect Four vs {opponent}", "verdict": verdict, "score": score,
              "max_score": 1.0, "messages": messages, "misconceptions": []}
    traceback = student_traceback(failures[0].traceback, source) if failures else None
    if traceback:
        report["traceback"] = traceback
    return report

"""Real-game kinds: ``tictactoe_position`` and ``connect4_eval``, searched by the engine."""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from engine.games import connect4, tictactoe
from engine.search.alphabeta import AlphaBetaConventions, alphabeta
from engine.search.minimax import minimax
from engine.search.trace import Bound, NodeCounter, RecordingTracer, TeeTracer
from exercises.kinds import register
from exercises.kinds.alphabeta import CONVENTION_PARAMS, render_conventions
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.minimax import decision_key
from exercises.kinds.params import BoolParam, ChoiceParam, IntParam, ParamError

NODE_COUNTINGS = ("root_excluded", "root_included")


class RootIncludedCounter(NodeCounter):
    """Count nodes as the engine's counter does, the root included."""

    def enter(self, state: Hashable, depth: int, alpha: Bound, beta: Bound) -> None:
        """Count every node entered."""
        self.nodes += 1


def node_counter(root_included: bool) -> NodeCounter:
    """Return the engine's node counter for the stated counting convention."""
    return RootIncludedCounter() if root_included else NodeCounter()


def _child_values(game: Any, state: Any, values: dict[Hashable, Any]) -> list[Any]:
    """Return the searched values of ``state``'s children, in action order."""
    return [values.get(game.result(state, action)) for action in game.actions(state)]


def _move_values(game: Any, state: Any, values: dict[Hashable, Any], name: Any) -> dict[str, Any]:
    """Return move name → the searched value of the position it leads to, in action order."""
    return {
        name(action): value
        for action, value in zip(game.actions(state), _child_values(game, state, values),
                                 strict=True)
    }


def _tied(values: list[Any], maximising: bool) -> bool:
    best = max(values) if maximising else min(values)
    return values.count(best) > 1


class TicTacToePositionKind(Kind):
    """Ask for a position's best move and value, and the nodes searched with and without pruning."""

    name = "tictactoe_position"
    title = gettext_lazy("Tic-tac-toe position")
    description = gettext_lazy(
        "Best move and value of a position; nodes visited by minimax and by alpha-beta."
    )
    params = (
        IntParam("empty_squares", 5, "empty squares in the position", minimum=2, maximum=7),
        ChoiceParam(
            "order", "index",
            "order the searches try squares in: index (0..8) or centre-corners-edges",
            choices=("index", "centre-corners-edges"), convention=True,
        ),
        ChoiceParam(
            "node_counting", "root_excluded",
            "whether the position itself counts as a visited node", choices=NODE_COUNTINGS,
            convention=True,
        ),
        *CONVENTION_PARAMS,
        BoolParam("allow_ties", False, "allow positions with several best moves"),
    )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return move, value and both node counts."""
        return [
            AnswerPart("move", PartType.NAME, gettext_lazy("best move (square 0-8)")),
            AnswerPart("value", PartType.NUMBER, gettext_lazy("value for X (+1, 0 or -1)")),
            AnswerPart("nodes_minimax", PartType.NUMBER, gettext_lazy("nodes visited by minimax")),
            AnswerPart(
                "nodes_alphabeta", PartType.NUMBER, gettext_lazy("nodes visited by alpha-beta")
            ),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Play random legal moves from the empty board until ``empty_squares`` remain."""
        game = tictactoe.TicTacToe()
        state = tictactoe.EMPTY_BOARD
        while 9 - (state.x | state.o).bit_count() > params["empty_squares"]:
            if game.is_terminal(state):
                state = tictactoe.EMPTY_BOARD  # the game ended early: start a new one
                continue
            actions = game.actions(state)
            state = game.result(state, actions[rng.randint(0, len(actions) - 1)])
        return {
            "format": "gametree/1",
            "kind": "tictactoe_position",
            "board": state.board,
            "to_move": state.player,
            "params": {
                name: params[name]
                for name in ("order", "node_counting", "cut_on_equality", "root_raises_alpha")
            },
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's minimax and alpha-beta results with the node counts."""
        params = problem["params"]
        game = tictactoe.TicTacToe()
        state = tictactoe.parse_board(problem["board"], problem["to_move"])
        order = tictactoe.ORDERINGS[params["order"]]
        root_included = params["node_counting"] == "root_included"
        if game.is_terminal(state):
            return {"terminal": True}
        full_counter, recorder = node_counter(root_included), RecordingTracer()
        full = minimax(game, state, max_player=tictactoe.X, order=order,
                       tracer=TeeTracer(full_counter, recorder))
        pruned_counter = node_counter(root_included)
        pruned = alphabeta(
            game, state, max_player=tictactoe.X, order=order, tracer=pruned_counter,
            conventions=AlphaBetaConventions(params["cut_on_equality"],
                                             params["root_raises_alpha"]),
        )
        return {
            "move": str(full.move),
            "value": full.value,
            "nodes_minimax": full_counter.nodes,
            "nodes_alphabeta": pruned_counter.nodes,
            "alphabeta_move": str(pruned.move),
            "child_values": _child_values(game, state, recorder.node_values()),
            "move_values": _move_values(game, state, recorder.node_values(), str),
        }

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the move (every equally good one), value and node counts."""
        key = {name: answer[name] for name in ("value", "nodes_minimax", "nodes_alphabeta")}
        moves = answer.get("move_values")
        return {"move": decision_key(answer["move"], moves, list(moves or ())), **key}

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Refuse finished games and (unless allowed) positions with several best moves."""
        if answer.get("terminal"):
            return ["the position is already over"]
        if not params["allow_ties"] and _tied(answer["child_values"], problem["to_move"] == "X"):
            return ["several moves are equally good"]
        return []

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return who moves and the search conventions."""
        return {"to_move": problem["to_move"], **problem["params"]}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        text = _(
            "Squares are numbered 0-8 row by row; X is MAX and it is %(player)s's turn. Give the "
            "best move and the position's value for X (+1 win, 0 draw, -1 loss) with perfect "
            "play, and how many nodes minimax and alpha-beta visit."
        ) % {"player": args["to_move"]}
        text += " " + _("If several moves are equally good, any of them is accepted.")
        text += " " + (
            _("Both searches try the empty squares in index order 0-8.")
            if args["order"] == "index"
            else _(
                "Both searches try the empty squares in the order 4, 0, 2, 6, 8, 1, 3, 5, 7: "
                "the centre, then the corners, then the edges."
            )
        )
        text += " " + (
            _("Count every position the search enters below this one (not this one).")
            if args["node_counting"] == "root_excluded"
            else _("Count every position the search enters, this one included.")
        )
        return text + " " + render_conventions(args)


register(TicTacToePositionKind())


class Connect4EvalKind(Kind):
    """Ask for the window heuristic value of a Connect Four position."""

    name = "connect4_eval"
    title = gettext_lazy("Connect Four evaluation")
    description = gettext_lazy("Score a position with the published window table.")
    params = (
        IntParam("discs", 8, "discs already played", minimum=2, maximum=24),
        ChoiceParam("player", "X", "whose point of view the score is for", choices=("X", "O")),
        BoolParam(
            "ask_best_move", False,
            "also ask for the best column by a one-ply search with the heuristic",
        ),
        BoolParam("allow_ties", False, "allow several best columns when the move is asked"),
    )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the heuristic value, and the best column if asked."""
        parts = [AnswerPart("value", PartType.NUMBER, gettext_lazy("heuristic value"))]
        if params["ask_best_move"]:
            parts.append(AnswerPart(
                "move", PartType.NAME, gettext_lazy("best column (1-7) by one-ply search"),
            ))
        return parts

    def check_params(self, params: dict[str, Any]) -> None:
        """Require the best move to be asked of the player to move."""
        to_move = "X" if params["discs"] % 2 == 0 else "O"
        if params["ask_best_move"] and params["player"] != to_move:
            raise ParamError(
                "player", f"with {params['discs']} discs played it is {to_move} who moves; "
                "the best move is asked from the mover's point of view",
            )

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Play random columns until ``discs`` discs are on the board, the game still on."""
        game = connect4.Connect4()
        state, moves = connect4.EMPTY_BOARD, ""
        while len(moves) < params["discs"]:
            actions = game.actions(state)
            if not actions:
                state, moves = connect4.EMPTY_BOARD, ""  # someone won early: start again
                continue
            column = actions[rng.randint(0, len(actions) - 1)]
            state, moves = game.result(state, column), moves + str(column + 1)
        return {
            "format": "gametree/1",
            "kind": "connect4_eval",
            "moves": moves,
            "rows": list(state.rows()),
            "to_move": state.player,
            "params": {"player": params["player"], "ask_best_move": params["ask_best_move"]},
        }

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's window score, and its one-ply search when asked."""
        game = connect4.Connect4()
        state = connect4.parse_moves(problem["moves"])
        player = problem["params"]["player"]
        answer: dict[str, Any] = {
            "value": connect4.window_score(state, player), "terminal": game.is_terminal(state)
        }
        if problem["params"]["ask_best_move"] and not answer["terminal"]:
            recorder = RecordingTracer()
            result = minimax(game, state, max_player=player, depth_limit=1,
                             evaluator=connect4.window_score, tracer=recorder)
            assert result.move is not None  # a state that is not terminal has a move
            answer["move"] = str(int(result.move) + 1)
            answer["child_values"] = _child_values(game, state, recorder.node_values())
            answer["move_values"] = _move_values(
                game, state, recorder.node_values(), lambda column: str(int(column) + 1)
            )
        return answer

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the value, and the column (every equally good one) if asked."""
        key = {"value": answer["value"]}
        if "move" in answer:
            moves = answer.get("move_values")
            key["move"] = decision_key(answer["move"], moves, list(moves or ()))
        return key

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Refuse finished games and, when the move is asked, tied best columns."""
        if answer["terminal"]:
            return ["the game is already over"]
        if params["ask_best_move"] and not params["allow_ties"]:
            values = [v for v in answer["child_values"] if v is not None]
            if len(values) != len(answer["child_values"]) or _tied(values, True):
                return ["several columns are equally good (or one was pruned)"]
        return []

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the point of view, the weights and whether the move is asked."""
        return {
            "player": params["player"],
            "ask_best_move": params["ask_best_move"],
            "weights": {
                "four": connect4.FOUR, "three": connect4.THREE_AND_EMPTY,
                "two": connect4.TWO_AND_TWO_EMPTY,
                "opponent_three": connect4.OPPONENT_THREE_AND_EMPTY,
                "centre": connect4.CENTRE_DISC,
            },
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        text = _(
            "Score this Connect Four position for %(player)s with the window table: every "
            "horizontal, vertical or diagonal window of four cells scores %(four)s for four "
            "own discs, %(three)s for three own discs and one empty cell, %(two)s for two own "
            "discs and two empty cells, and %(opponent_three)s for three opponent discs and "
            "one empty cell; each own disc in the centre column adds %(centre)s."
        ) % {"player": args["player"], **args["weights"]}
        if args["ask_best_move"]:
            text += " " + _(
                "Which column (1-7) should %(player)s play, looking one move ahead with this "
                "score?"
            ) % {"player": args["player"]}
            text += " " + _("If several moves are equally good, any of them is accepted.")
        return text


register(Connect4EvalKind())

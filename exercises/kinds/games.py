"""Real-game kinds: ``tictactoe_position`` and ``connect4_eval``, searched by the engine."""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Hashable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from engine.games import connect4, tictactoe
from engine.search.alphabeta import AlphaBetaConventions, alphabeta
from engine.search.minimax import minimax
from engine.search.trace import NodeCounter, RecordingTracer
from exercises.kinds import register
from exercises.kinds.alphabeta import CONVENTION_PARAMS, render_conventions
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.minimax import decision_key
from exercises.kinds.params import BoolParam, ChoiceParam, IntParam, ParamError

NODE_COUNTINGS = ("root_excluded", "root_included")
SEARCH_PARTS = ("move", "value", "nodes_minimax", "nodes_alphabeta")
CENSUS_PARTS = ("games", "positions")


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


def _asked(problem: dict[str, Any]) -> dict[str, bool]:
    """Return which question groups a tic-tac-toe problem asks (stored items: the search)."""
    return problem.get("ask", {"search": True, "census": False})


def _alphabeta_nodes(state: tictactoe.TicTacToeState, params: dict[str, Any]) -> int:
    """Return the nodes alpha-beta enters from ``state`` under ``params``' conventions."""
    return _counted_alphabeta(
        state, params["order"], params["cut_on_equality"], params["root_raises_alpha"]
    ) + (params["node_counting"] == "root_included")


# Searches are kept per position and convention: every student of a set gets the empty board
# at 9 empty squares, and its searches (up to half a second each) are then run once per worker.
@functools.lru_cache(maxsize=4096)
def _counted_alphabeta(
    state: tictactoe.TicTacToeState, order: str, cut_on_equality: bool, root_raises_alpha: bool
) -> int:
    counter = NodeCounter()
    alphabeta(
        tictactoe.TicTacToe(), state, max_player=tictactoe.X, order=tictactoe.ORDERINGS[order],
        tracer=counter, conventions=AlphaBetaConventions(cut_on_equality, root_raises_alpha),
    )
    return counter.nodes


@functools.lru_cache(maxsize=4096)
def _counted_minimax(state: tictactoe.TicTacToeState) -> int:
    counter = NodeCounter()
    minimax(tictactoe.TicTacToe(), state, max_player=tictactoe.X, tracer=counter)
    return counter.nodes


class TicTacToePositionKind(Kind):
    """Ask for a position's best move, value and searched nodes, or its census of games."""

    name = "tictactoe_position"
    title = gettext_lazy("Tic-tac-toe position")
    description = gettext_lazy(
        "Best move and value of a position; nodes visited by minimax and by alpha-beta; the "
        "games and positions that can follow it."
    )
    params = (
        IntParam("empty_squares", 5,
                 gettext_noop("empty squares in the position (9: the empty board)"),
                 minimum=1, maximum=9),
        ChoiceParam(
            "order", "index",
            gettext_noop("order the searches try squares in: index (0..8) or centre-corners-edges"),
            choices=("index", "centre-corners-edges"), convention=True,
        ),
        ChoiceParam(
            "node_counting", "root_excluded",
            gettext_noop("whether the position itself counts as a visited node"),
            choices=NODE_COUNTINGS, convention=True,
        ),
        *CONVENTION_PARAMS,
        BoolParam("allow_ties", False, gettext_noop("allow positions with several best moves")),
        BoolParam(
            "ask_search", True,
            gettext_noop("ask the best move, the value and the nodes minimax and alpha-beta visit"),
        ),
        BoolParam("ask_census", False,
                  gettext_noop("ask how many complete games and distinct positions can follow")),
    )
    choice_part = "nodes_alphabeta"

    def check_params(self, params: dict[str, Any]) -> None:
        """Require something asked, the search for multiple choice, and ties on the empty board."""
        if not (params["ask_search"] or params["ask_census"]):
            raise ParamError("ask_search", "ask the search, the census or both; both are false")
        if self.is_multiple_choice(params) and not params["ask_search"]:
            raise ParamError(
                "ask_search", "multiple choice asks alpha-beta's node count, so the search "
                "must be asked",
            )
        if params["empty_squares"] == 9 and params["ask_search"] and not params["allow_ties"]:
            raise ParamError(
                "allow_ties", "on the empty board every first move draws, so the best move is "
                "always tied: set allow_ties to true (or ask only the census)",
            )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return move, value and both node counts, and the census when asked."""
        parts = []
        if params["ask_search"]:
            parts += [
                AnswerPart("move", PartType.NAME, gettext_lazy("best move (square 0-8)")),
                AnswerPart("value", PartType.NUMBER, gettext_lazy("value for X (+1, 0 or -1)")),
                AnswerPart("nodes_minimax", PartType.NUMBER,
                           gettext_lazy("nodes visited by minimax")),
                AnswerPart("nodes_alphabeta", PartType.NUMBER,
                           gettext_lazy("nodes visited by alpha-beta")),
            ]
        if params["ask_census"]:
            parts += [
                AnswerPart("games", PartType.NUMBER,
                           gettext_lazy("complete games from this position")),
                AnswerPart("positions", PartType.NUMBER,
                           gettext_lazy("distinct positions reachable from this one")),
            ]
        return parts

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
            "ask": {"search": params["ask_search"], "census": params["ask_census"]},
            "params": {
                name: params[name]
                for name in ("order", "node_counting", "cut_on_equality", "root_raises_alpha")
            },
        }

    def legal_moves(self, problem: dict[str, Any]) -> frozenset[str]:
        """Return the position's free squares (0-8), the moves a best move may name."""
        state = tictactoe.parse_board(problem["board"], problem["to_move"])
        return frozenset(str(square) for square in tictactoe.TicTacToe().actions(state))

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's minimax and alpha-beta results with the node counts, or census.

        Minimax visits every node whatever the order, so its count comes from the engine's
        counting search; the children's values are the engine's per-position perfect-play
        values, and the move is the first best one in the stated order (minimax's tie rule).
        """
        params = problem["params"]
        game = tictactoe.TicTacToe()
        state = tictactoe.parse_board(problem["board"], problem["to_move"])
        if game.is_terminal(state):
            return {"terminal": True}
        asked = _asked(problem)
        answer: dict[str, Any] = {}
        if asked["search"]:
            root_included = params["node_counting"] == "root_included"
            children = {square: tictactoe.perfect_value(game.result(state, square))
                        for square in game.actions(state)}
            value = (max if state.player == tictactoe.X else min)(children.values())
            order = tictactoe.ORDERINGS[params["order"]]
            move = next(square for square in order(state, game.actions(state))
                        if children[square] == value)
            answer.update({
                "move": str(move),
                "value": value,
                "nodes_minimax": _counted_minimax(state) + root_included,
                "nodes_alphabeta": _alphabeta_nodes(state, params),
                "child_values": list(children.values()),
                "move_values": {str(square): v for square, v in children.items()},
            })
        if asked["census"]:
            census = tictactoe.census(state)
            answer.update({"games": census.games, "positions": census.positions,
                           "x_wins": census.x_wins, "o_wins": census.o_wins,
                           "draws": census.draws})
        return answer

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the move (every equally good one), value and node counts; the census."""
        key = {name: answer[name] for name in (*SEARCH_PARTS[1:], *CENSUS_PARTS)
               if name in answer}
        if "move" in answer:
            moves = answer.get("move_values")
            key["move"] = decision_key(answer["move"], moves, list(moves or ()))
        return key

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return alpha-beta's count under the other conventions and order, then minimax's."""
        state = tictactoe.parse_board(problem["board"], problem["to_move"])
        stated = problem["params"]
        found = []
        for cut_on_equality, root_raises_alpha in itertools.product((True, False), repeat=2):
            other = {**stated, "cut_on_equality": cut_on_equality,
                     "root_raises_alpha": root_raises_alpha}
            if other != stated:
                found.append((_alphabeta_nodes(state, other), "other_convention"))
        other_order = "index" if stated["order"] != "index" else "centre-corners-edges"
        found.append((_alphabeta_nodes(state, {**stated, "order": other_order}), "other_order"))
        other_counting = ("root_included" if stated["node_counting"] == "root_excluded"
                          else "root_excluded")
        found.append((_alphabeta_nodes(state, {**stated, "node_counting": other_counting}),
                      "other_node_counting"))
        found.append((answer["nodes_minimax"], "no_pruning"))
        return found

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Refuse finished games and (unless allowed) positions with several best moves."""
        if answer.get("terminal"):
            return ["the position is already over"]
        if (params["ask_search"] and not params["allow_ties"]
                and _tied(answer["child_values"], problem["to_move"] == "X")):
            return ["several moves are equally good"]
        return []

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return who moves, what is asked and the search conventions."""
        return {"to_move": problem["to_move"], "ask": _asked(problem), **problem["params"]}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        asked = args.get("ask", {"search": True, "census": False})
        texts = [_("Squares are numbered 0-8 row by row; X is MAX and it is %(player)s's turn.")
                 % {"player": args["to_move"]}]
        if asked["search"]:
            texts.append(_(
                "Give the best move and the position's value for X (+1 win, 0 draw, -1 loss) "
                "with perfect play, and how many nodes minimax and alpha-beta visit."
            ))
            texts.append(_("If several moves are equally good, any of them is accepted."))
            # Scoring a quicker win higher (10 - depth, say) changes what alpha-beta prunes.
            texts.append(_(
                "Both searches score a finished game +1, 0 or -1 for X whatever its depth: a "
                "quicker win is worth no more than a slower one."
            ))
            texts.append(
                _("Both searches try the empty squares in index order 0-8.")
                if args["order"] == "index"
                else _(
                    "Both searches try the empty squares in the order 4, 0, 2, 6, 8, 1, 3, 5, "
                    "7: the centre, then the corners, then the edges."
                )
            )
            texts.append(_(
                "A node is a position the search enters, finished positions included; a game "
                "stops at three in a row."
            ))
            texts.append(
                _("Count every position the search enters below this one (not this one).")
                if args["node_counting"] == "root_excluded"
                else _("Count every position the search enters, this one included.")
            )
            # The census counts distinct positions; the searches count visits.
            texts.append(_("Count a position each time the search enters it: a board reached "
                           "by two move orders counts twice."))
            texts.append(render_conventions(args))
        if asked["census"]:
            texts.append(_(
                "Count the complete games that can be played from this position (distinct "
                "sequences of moves, each ending at three in a row or a full board) and the "
                "distinct positions reachable from it (boards, this one and the finished ones "
                "included; the same board reached by different move orders counts once, and "
                "boards that are rotations or reflections of each other count separately)."
            ))
        return " ".join(texts)


register(TicTacToePositionKind())


class Connect4EvalKind(Kind):
    """Ask for the window heuristic value of a Connect Four position."""

    name = "connect4_eval"
    title = gettext_lazy("Connect Four evaluation")
    description = gettext_lazy("Score a position with the published window table.")
    params = (
        IntParam("discs", 8, gettext_noop("discs already played"), minimum=2, maximum=24),
        ChoiceParam("player", "X", gettext_noop("whose point of view the score is for"),
                    choices=("X", "O")),
        BoolParam(
            "ask_best_move", False,
            gettext_noop("also ask for the best column by a one-ply search with the heuristic"),
        ),
        BoolParam(
            "allow_ties", False,
            gettext_noop("allow several best columns when the move is asked"),
        ),
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

    def legal_moves(self, problem: dict[str, Any]) -> frozenset[str]:
        """Return the position's open columns (1-7), the moves a best column may name."""
        state = connect4.parse_moves(problem["moves"])
        return frozenset(str(column + 1) for column in connect4.Connect4().actions(state))

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
            # The one-ply search scores a finished game by its utility, not by the table.
            text += " " + _("A column that completes four in a row wins at once and beats any "
                            "score; several such columns are equally good.")
            text += " " + _("If several moves are equally good, any of them is accepted.")
        return text


register(Connect4EvalKind())

"""Generic adversarial searches over :class:`engine.game.Game`, for explicit trees and real games.

Every search takes the game and a state, with keyword-only options: ``order`` (a move
ordering, see :mod:`engine.search.ordering`), ``tracer`` (see :mod:`engine.search.trace`),
and a depth limit with an ``evaluator``.
"""

from engine.search.alphabeta import STANDARD, AlphaBetaConventions, alphabeta
from engine.search.bandit import mcts, mcts_backprop, select, ucb1
from engine.search.chance import expectimax, expectiminimax, expectiminimax_alphabeta
from engine.search.common import SearchResult, depth_scored
from engine.search.deepening import iterative_deepening, node_budget, time_budget
from engine.search.minimax import minimax, negamax
from engine.search.multiplayer import Prefer, maxn, paranoid, rational_competitor
from engine.search.ordering import by_value, centre_first, fixed_order, reversed_order
from engine.search.trace import NodeCounter, NullTracer, RecordingTracer, TeeTracer, Tracer
from engine.search.ttable import Flag, TranspositionTable

__all__ = [
    "STANDARD",
    "AlphaBetaConventions",
    "Flag",
    "NodeCounter",
    "NullTracer",
    "Prefer",
    "RecordingTracer",
    "SearchResult",
    "TeeTracer",
    "Tracer",
    "TranspositionTable",
    "alphabeta",
    "by_value",
    "centre_first",
    "depth_scored",
    "expectimax",
    "expectiminimax",
    "expectiminimax_alphabeta",
    "fixed_order",
    "iterative_deepening",
    "maxn",
    "mcts",
    "mcts_backprop",
    "minimax",
    "negamax",
    "node_budget",
    "paranoid",
    "rational_competitor",
    "reversed_order",
    "select",
    "time_budget",
    "ucb1",
]

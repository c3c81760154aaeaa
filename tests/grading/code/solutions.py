"""Student programs the code grading tests submit: right ones and typical wrong ones."""

from __future__ import annotations

ALPHABETA = '''
import math


def alphabeta_decision(game, state, depth):
    player = game.to_move(state)

    def value(s, d, alpha, beta):
        if game.is_terminal(s):
            return game.utility(s, player)
        if d >= depth:
            return game.evaluate(s, player)
        if game.to_move(s) == player:
            best = -math.inf
            for a in game.actions(s):
                best = max(best, value(game.result(s, a), d + 1, alpha, beta))
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best
        best = math.inf
        for a in game.actions(s):
            best = min(best, value(game.result(s, a), d + 1, alpha, beta))
            beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    alpha, beta = -math.inf, math.inf
    best_move, best = None, -math.inf
    for a in game.actions(state):
        v = value(game.result(state, a), 1, alpha, beta)
        if v > best:
            best_move, best = a, v
        alpha = max(alpha, best)
    return best_move, best
'''

NO_CUT_ON_EQUALITY = ALPHABETA.replace("if alpha >= beta:", "if alpha > beta:")

ROOT_ALPHA_NOT_RAISED = ALPHABETA.replace(
    "            best_move, best = a, v\n        alpha = max(alpha, best)\n",
    "            best_move, best = a, v\n",
)

DEPTH_ONE_TOO_DEEP = ALPHABETA.replace("if d >= depth:", "if d > depth:")

DEPTH_ONE_TOO_SHALLOW = ALPHABETA.replace("if d >= depth:", "if d + 1 >= depth:")

PARTIAL_PLY = ALPHABETA.replace(
    "if d >= depth:",
    "if d >= depth or (d + 1 >= depth and game.to_move(s) != player):",
)
"""Stops after MAX's move without the opponent's reply: the opponent's states are evaluated
one ply before the depth limit, MAX's at the limit."""

TERMINAL_AFTER_DEPTH = ALPHABETA.replace(
    "        if game.is_terminal(s):\n            return game.utility(s, player)\n"
    "        if d >= depth:\n            return game.evaluate(s, player)\n",
    "        if d >= depth:\n            return game.evaluate(s, player)\n"
    "        if game.is_terminal(s):\n            return game.utility(s, player)\n",
)
"""Tests the depth limit before the terminal test: a finished game at the limit is scored by
the evaluation function instead of its utility."""

PLAIN_MINIMAX = ALPHABETA.replace("if alpha >= beta:", "if False:")

LYING = '''
def alphabeta_decision(game, state, depth):
    return "A", 3
'''

CRASHING = '''
def first_move(game, state):
    return game.actions(state)[99]


def alphabeta_decision(game, state, depth):
    return first_move(game, state), 0
'''

LOOPING = '''
def alphabeta_decision(game, state, depth):
    while True:
        pass
'''

MINIMAX = '''
def minimax_decision(game, state):
    player = game.to_move(state)

    def value(s):
        if game.is_terminal(s):
            return game.utility(s, player)
        values = [value(game.result(s, a)) for a in game.actions(s)]
        return max(values) if game.to_move(s) == player else min(values)

    best_move, best = None, None
    for a in game.actions(state):
        v = value(game.result(state, a))
        if best is None or v > best:
            best_move, best = a, v
    return best_move, best
'''

EXPECTIMAX = '''
def expectimax_value(game, state):
    player = game.to_move(state)

    def value(s):
        if game.is_terminal(s):
            return game.utility(s, player)
        mover = game.to_move(s)
        if mover == game.CHANCE:
            return sum(p * value(game.result(s, a)) for a, p in game.chance_outcomes(s))
        values = [value(game.result(s, a)) for a in game.actions(s)]
        return max(values) if mover == player else min(values)

    return value(state)
'''

ALPHABETA_BY_DEPTH = ALPHABETA.replace("        if game.to_move(s) == player:\n",
                                       "        if d % 2 == 0:\n")
"""Decides MAX and MIN by depth, though the conventions say a player may move twice."""

MINIMAX_BY_DEPTH = '''
def minimax_decision(game, state):
    player = game.to_move(state)

    def value(s, d):
        if game.is_terminal(s):
            return game.utility(s, player)
        values = [value(game.result(s, a), d + 1) for a in game.actions(s)]
        return max(values) if d % 2 == 0 else min(values)

    best_move, best = None, None
    for a in game.actions(state):
        v = value(game.result(state, a), 1)
        if best is None or v > best:
            best_move, best = a, v
    return best_move, best
'''

EXPECTIMAX_BY_DEPTH = '''
def expectimax_value(game, state):
    player = game.to_move(state)

    def value(s, d):
        if game.is_terminal(s):
            return game.utility(s, player)
        if game.to_move(s) == game.CHANCE:
            return sum(p * value(game.result(s, a), d + 1) for a, p in game.chance_outcomes(s))
        values = [value(game.result(s, a), d + 1) for a in game.actions(s)]
        return max(values) if d % 3 == 0 else min(values)

    return value(state, 0)
'''

EXPECTIMAX_UNWEIGHTED = EXPECTIMAX.replace(
    "return sum(p * value(game.result(s, a)) for a, p in game.chance_outcomes(s))",
    "outcomes = game.chance_outcomes(s)\n"
    "            return sum(value(game.result(s, a)) for a, p in outcomes) / len(outcomes)",
)

PERFECT_TICTACTOE = '''
def choose_move(game, state):
    return best_move(game, state)


CACHE = {}


def value(game, state, player):
    key = (state, player)
    if key not in CACHE:
        if game.is_terminal(state):
            CACHE[key] = game.utility(state, player)
        else:
            values = [value(game, game.result(state, a), player) for a in game.actions(state)]
            CACHE[key] = max(values) if game.to_move(state) == player else min(values)
    return CACHE[key]


def best_move(game, state):
    player = game.to_move(state)
    moves = game.actions(state)
    scores = [value(game, game.result(state, a), player) for a in moves]
    return moves[scores.index(max(scores))]
'''

FIRST_SQUARE_TICTACTOE = '''
def choose_move(game, state):
    return game.actions(state)[0]
'''

CRASHING_AGENT = '''
def choose_move(game, state):
    moves = game.actions(state)
    return moves[len(moves)]
'''

GREEDY_CONNECT4 = '''
def choose_move(game, state):
    me = game.to_move(state)
    moves = game.actions(state)
    scores = []
    for move in moves:
        after = game.result(state, move)
        if game.is_terminal(after):
            scores.append(game.utility(after, me))
        else:
            scores.append(game.evaluate(after, me))
    return moves[scores.index(max(scores))]
'''

UCB1 = '''
import math


def ucb1_select(game, state, stats, parent_visits, c):
    best, best_score = None, None
    for action, (wins, visits) in zip(game.actions(state), stats):
        if visits == 0:
            score = math.inf
        else:
            score = wins / visits + c * math.sqrt(math.log(parent_visits) / visits)
        if best_score is None or score > best_score:
            best, best_score = action, score
    return best
'''

UCB1_OTHER_FORM = UCB1.replace(
    "c * math.sqrt(math.log(parent_visits) / visits)",
    "math.sqrt(c * math.log(parent_visits) / visits)",
)

UCB1_MOST_VISITED = '''
def ucb1_select(game, state, stats, parent_visits, c):
    actions = game.actions(state)
    visits = [v for _, v in stats]
    return actions[visits.index(max(visits))]
'''

LAST_BEST_MOVE = ALPHABETA.replace("        if v > best:\n", "        if v >= best:\n")

PRINTING = '''
def alphabeta_decision(game, state, depth):
    while True:
        print("thinking " * 1000)
'''

HOARDING = '''
def alphabeta_decision(game, state, depth):
    hoard = []
    while True:
        hoard.append(bytearray(50 * 1024 * 1024))
'''

MCTS_BACKPROP = '''
from fractions import Fraction


def mcts_backprop(game, state, path, winner):
    mover = game.to_move(state)
    updated = []
    for to_move, reward, visits in path:
        if winner is None:
            reward += Fraction(1, 2)
        elif winner == mover:
            reward += 1
        updated.append([reward, visits + 1])
        mover = to_move
    return updated
'''

MCTS_CREDIT_EVERY_NODE = MCTS_BACKPROP.replace("elif winner == mover:", "else:")

MCTS_CREDIT_WRONG_PLAYER = MCTS_BACKPROP.replace("elif winner == mover:",
                                                 "elif winner == to_move:")

HARD_CODED = '''
def alphabeta_decision(game, state, depth):
    return game.actions(state)[0], 0
'''

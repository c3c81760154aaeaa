"""Params every kind is tested with: good ones (defaults included) and bad ones with the field."""

from __future__ import annotations

from typing import Any

GOOD: dict[str, list[dict[str, Any]]] = {
    "minimax": [
        {},
        {"depth": 3, "root_player": "min", "ask_nodes": 3, "max_leaves": 20},
        {"answer_format": "multiple_choice"},
    ],
    "alphabeta": [
        {},
        {"depth": 3, "max_leaves": 16, "min_cuts": 2, "ask_windows": 2},
        {"depth": 3, "max_leaves": 18, "cut_on_equality": False, "root_raises_alpha": False},
        {"depth": 3, "max_leaves": 18, "answer_format": "multiple_choice"},
    ],
    "move_ordering": [{}, {"depth": 3, "max_leaves": 18, "second_order": "reverse"}],
    "expectiminimax": [
        {},
        {"chance": "biased", "ask_nodes": 2},
        {"chance": "biased", "contrast_minimax": True},
        {"chance": "biased", "answer_format": "multiple_choice"},
    ],
    "expectimax": [
        {},
        {"chance": "dice", "min_value": 0, "max_value": 5},
        {"chance": "biased", "contrast_minimax": True},
    ],
    "vector": [
        {},
        {"tie_break": {"player": "C", "prefer": "min"}, "max_value": 4},
        {"players": 2, "depth": 3},
    ],
    "ucb1": [
        {},
        {"c": "2", "form": "c*sqrt(ln N/n)", "forms_disagree": True, "children": 3},
        {"answer_format": "multiple_choice", "forms_disagree": True},
    ],
    "mcts_backprop": [{}, {"outcomes": ["draw"], "draw_reward": "1/2"}, {"path_length": 5}],
    "tictactoe_position": [
        {},
        {"empty_squares": 6, "order": "centre-corners-edges", "node_counting": "root_included"},
    ],
    "connect4_eval": [{}, {"discs": 12, "ask_best_move": True}],
    "eval_function": [{}, {"mobility": False, "queen": 10}],
    "tree_size": [{}, {"min_branching": 3, "max_branching": 3, "min_moves": 2,
                       "node_counting": "root_excluded"}],
    "price_war": [{}, {"prices": 2, "responses": 3}],
    "concept_quiz": [{}, {"topics": ["alphabeta", "mcts"]}],
    "transposition_table": [
        {},
        {"depth": 4, "max_leaves": 24, "max_value": 30, "repeats": 3, "min_hits": 2,
         "cut_on_equality": False},
    ],
}

BAD: dict[str, list[tuple[dict[str, Any], str]]] = {
    "minimax": [({"depth": 0}, "depth"), ({"root_player": "chance"}, "root_player"),
                ({"max_leaves": 4, "depth": 3}, "max_leaves"),
                ({"answer_format": "multiple_choice", "options": 1}, "options")],
    "alphabeta": [({"cut_on_equality": 1}, "cut_on_equality"), ({"min_cuts": 50}, "min_cuts"),
                  ({"min_value": 0, "max_value": 3}, "max_value")],
    "move_ordering": [({"second_order": "random"}, "second_order")],
    "expectiminimax": [({"chance": "coin"}, "chance"), ({"chance": "dice", "depth": 3}, "depth")],
    "expectimax": [({"min_branching": 4, "max_branching": 2}, "max_branching")],
    "vector": [({"tie_break": "last"}, "tie_break"),
               ({"players": 2, "tie_break": {"player": "C", "prefer": "max"}}, "tie_break")],
    "ucb1": [({"form": "c*ln N/n"}, "form"), ({"c": "-1"}, "c"), ({"c": "abc"}, "c")],
    "mcts_backprop": [({"outcomes": []}, "outcomes"), ({"draw_reward": 2}, "draw_reward")],
    "tictactoe_position": [({"empty_squares": 9}, "empty_squares"),
                           ({"node_counting": "all"}, "node_counting")],
    "connect4_eval": [({"discs": 1}, "discs"),
                      ({"discs": 8, "player": "O", "ask_best_move": True}, "player")],
    "eval_function": [({"pawn": -1}, "pawn"), ({"mobility_weight": "x"}, "mobility_weight")],
    "tree_size": [({"max_branching": 10, "max_moves": 3}, "max_branching")],
    "price_war": [({"min_margin": 5, "max_margin": 5}, "max_margin")],
    "concept_quiz": [({"topics": ["chess"]}, "topics"), ({"topics": "mcts"}, "topics")],
    "transposition_table": [({"depth": 2}, "depth"), ({"repeats": 1, "min_hits": 2}, "min_hits")],
}

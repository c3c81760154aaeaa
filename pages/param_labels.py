"""Human labels of the kinds' parameters and choices, as the builder shows them (en, pt, ca).

Params are named by identifiers (``min_branching``) in the API; instructors read these
labels instead. Names shared by several kinds mean the same there, so one label serves all;
``tests/pages/test_builder_trees.py`` checks that every declared param and choice has one.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

PARAM_LABELS = {
    "depth": _("Depth (plies below the root)"),
    "min_branching": _("Fewest children of an inner node"),
    "max_branching": _("Most children of an inner node"),
    "max_leaves": _("Most leaves"),
    "min_value": _("Smallest leaf value"),
    "max_value": _("Largest leaf value"),
    "allow_ties": _("Allow ties"),
    "root_player": _("Who moves at the root"),
    "cut_on_equality": _("Cut when alpha equals beta"),
    "root_raises_alpha": _("The root narrows its window"),
    "min_cuts": _("Fewest cutoffs"),
    "ask_windows": _("Windows (alpha, beta) asked"),
    "ask_cut_bound": _("Ask the bound a cut node returns"),
    "set_scoring": _("How sets of names are scored"),
    "tree": _("Your own tree"),
    "randomize_values": _("Draw new leaf values for each student"),
    "answer_format": _("Answer format"),
    "options": _("Options of the multiple-choice question"),
    "test_sets": _("Hidden tests"),
    "generated_trees": _("Hidden trees per student"),
    "limits": _("Sandbox limits"),
    "draw_reward": _("Reward of a draw"),
    "topics": _("Topics"),
    "discs": _("Discs already played"),
    "player": _("Point of view"),
    "ask_best_move": _("Also ask the best move"),
    "pawn": _("Weight of a pawn"),
    "knight": _("Weight of a knight"),
    "bishop": _("Weight of a bishop"),
    "rook": _("Weight of a rook"),
    "queen": _("Weight of a queen"),
    "mobility": _("Count mobility"),
    "mobility_weight": _("Weight of one legal move"),
    "max_mobility": _("Most legal moves of a side"),
    "allow_zero": _("Allow an evaluation of 0"),
    "chance": _("Chance nodes"),
    "contrast_minimax": _("Contrast with plain minimax"),
    "ask_nodes": _("Nodes whose values are asked"),
    "min_changes": _("Fewest changes of the best move"),
    "path_length": _("Nodes on the path"),
    "max_visits": _("Most visits of the first node"),
    "outcomes": _("Playout results"),
    "second_order": _("Second search order"),
    "min_difference": _("Fewest leaves by which the searches differ"),
    "prices": _("Prices the firm can set"),
    "responses": _("Responses of the competitor"),
    "min_margin": _("Smallest margin (k€)"),
    "max_margin": _("Largest margin (k€)"),
    "decisions_differ": _("The two readings must decide differently"),
    "chance_nodes": _("Chance nodes below the root"),
    "lower_bound": _("Lower bound L of the leaf values"),
    "upper_bound": _("Upper bound U of the leaf values"),
    "empty_squares": _("Empty squares"),
    "order": _("Order squares are tried in"),
    "node_counting": _("Node counting"),
    "ask_search": _("Ask the best move, its value and the nodes each search visits"),
    "ask_census": _("Ask how many complete games and distinct positions can follow"),
    "repeats": _("Transpositions (positions drawn twice)"),
    "min_hits": _("Fewest table hits"),
    "min_bound_entries": _("Fewest bound entries"),
    "min_moves": _("Fewest moves looked ahead"),
    "max_moves": _("Most moves looked ahead"),
    "depth_given_in": _("Depth given in"),
    "min_plies": _("Fewest plies"),
    "max_plies": _("Most plies"),
    "children": _("Children of the root"),
    "unvisited": _("Unvisited children"),
    "min_visits": _("Fewest visits of a visited child"),
    "c": _("Exploration constant c"),
    "form": _("Exploration term"),
    "forms_disagree": _("The two UCB1 forms must disagree"),
    "players": _("Players"),
    "player_names": _("Player names"),
    "tie_break": _("Tie rule"),
}

CHOICE_LABELS = {
    "max": _("MAX"),
    "min": _("MIN"),
    "net_correct": _("right names minus wrong ones"),
    "all_or_nothing": _("all or nothing"),
    "open": _("open answers"),
    "multiple_choice": _("one multiple-choice question"),
    "fixed_trees": _("fixed trees"),
    "generated_trees": _("generated trees"),
    "tictactoe": _("tic-tac-toe"),
    "connect4": _("Connect Four"),
    "classification": _("classification"),
    "minimax": _("minimax"),
    "alphabeta": _("alpha-beta"),
    "evaluation": _("evaluation functions"),
    "mcts": _("Monte Carlo tree search"),
    "chance": _("chance"),
    "X": "X",
    "O": "O",
    "fair_coin": _("fair coin"),
    "biased": _("biased (probabilities on the branches)"),
    "dice": _("two dice"),
    "win": _("win"),
    "loss": _("loss"),
    "draw": _("draw"),
    "best-first": _("best first"),
    "reverse": _("right to left"),
    "index": _("by index (0 to 8)"),
    "centre-corners-edges": _("centre, corners, edges"),
    "root_excluded": _("the position itself not counted"),
    "root_included": _("the position itself counted"),
    "moves": _("moves per player"),
    "plies": _("plies"),
    "c*sqrt(ln N/n)": "c·√(ln(N) / n)",
    "sqrt(c*ln N/n)": "√(c·ln(N) / n)",
}


def param_label(name: str) -> str:
    """Return the label of the param called ``name`` in the active language."""
    return str(PARAM_LABELS.get(name, name))


def choice_label(choice: str) -> str:
    """Return the label of a param's choice in the active language."""
    return str(CHOICE_LABELS.get(choice, choice))

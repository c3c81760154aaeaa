"""The builder's per-parameter help lines, marked for translation.

Each kind declares its params' help in English (``exercises.kinds``; the API's JSON Schema
serves it as written). The builder shows ``gettext(param.help)``, so every help line is
listed here once, verbatim, for the catalogues; tests/pages/test_param_help.py fails when a
kind declares a help line missing here.
"""

from django.utils.translation import gettext_noop

HELP_TEXTS = (
    gettext_noop('plies below the root (the root is at depth 0)'),
    gettext_noop('fewest children of an inner node'),
    gettext_noop('most children of an inner node'),
    gettext_noop('most leaves in a generated tree'),
    gettext_noop('smallest leaf value'),
    gettext_noop('largest leaf value'),
    gettext_noop('allow equal values (and so ties) in what is asked'),
    gettext_noop('who moves at the root'),
    gettext_noop('cut when alpha >= beta (true) or only when alpha > beta'),
    gettext_noop(
        'the root narrows its window (MAX raises alpha, MIN lowers beta) between its '
        'children; when false every root child is searched with the full window, so a '
        'depth-2 tree cannot cut at all'
    ),
    gettext_noop(
        'fewest cutoffs the tree must cause (cutoffs that skip at least one child); with '
        'root_raises_alpha false a depth-2 tree has none, so set 0 there'
    ),
    gettext_noop('inner nodes whose entry window (alpha, beta) is asked'),
    gettext_noop(
        'also ask, for one node where a cutoff happens, the bound on its value it returns '
        '(lower, upper: e.g. -inf, 2 for a MIN node that stops at 2)'
    ),
    gettext_noop(
        'how set parts (e.g. pruned leaves) are scored: net_correct (right names minus '
        'wrong ones, floored at 0) or all_or_nothing (full marks only for the exact set)'
    ),
    gettext_noop(
        "the instructor's own gametree/1 tree (or its text form, e.g. MAX(A: MIN(3, 5), B: "
        'MIN(2, 9))), posed to every student instead of a random one; null: draw random '
        'trees'
    ),
    gettext_noop(
        "keep the tree's shape, names, node types and probabilities, but draw each "
        "student's leaf values from min_value..max_value under the kind's quality rules"
    ),
    gettext_noop('open answers, or one multiple-choice question'),
    gettext_noop(
        'options of a multiple-choice question (the key and one wrong answer per named '
        'misconception)'
    ),
    gettext_noop('groups of hidden tests'),
    gettext_noop("hidden trees drawn per student from the variant's seed"),
    gettext_noop('sandbox limits overriding the site\'s for this item, e.g. {"cpu_seconds": 10}'),
    gettext_noop('reward a draw gives each player'),
    gettext_noop('topics to draw the question from'),
    gettext_noop('discs already played'),
    gettext_noop('whose point of view the score is for'),
    gettext_noop('also ask for the best column by a one-ply search with the heuristic'),
    gettext_noop('allow several best columns when the move is asked'),
    gettext_noop('weight of a pawn'),
    gettext_noop('weight of a knight'),
    gettext_noop('weight of a bishop'),
    gettext_noop('weight of a rook'),
    gettext_noop('weight of a queen'),
    gettext_noop('include the mobility feature'),
    gettext_noop('weight of one legal move'),
    gettext_noop('most legal moves of a side'),
    gettext_noop('allow a position that evaluates to exactly 0'),
    gettext_noop('plies below the root, chance levels included'),
    gettext_noop('fewest children of a decision node'),
    gettext_noop('most children of a decision node'),
    gettext_noop('what the chance nodes are'),
    gettext_noop('allow a tied root decision'),
    gettext_noop(
        'require that treating chance as an opponent (minimax) picks another move, and ask '
        'for that move too'
    ),
    gettext_noop("how many chance nodes' values are asked"),
    gettext_noop('plies of the tree, and so of the deepest iteration (the root is at depth 0)'),
    gettext_noop('fewest times the best root move must change from one iteration to the next'),
    gettext_noop('nodes on the path below the root'),
    gettext_noop("most visits of the path's first node"),
    gettext_noop('playout results to draw from (for MAX)'),
    gettext_noop("how many inner nodes' values are asked"),
    gettext_noop(
        "the second search's order: best-first (each node searches all its children from "
        'best to worst by their true minimax value, equal values left to right) or reverse '
        '(right to left)'
    ),
    gettext_noop(
        'fewest leaves by which the two searches must differ (with root_raises_alpha false '
        'a depth-2 tree never cuts, so both searches evaluate every leaf: use depth 3)'
    ),
    gettext_noop('prices the firm can set'),
    gettext_noop('responses the competitor can make'),
    gettext_noop('smallest margin (k€)'),
    gettext_noop('largest margin (k€)'),
    gettext_noop('require the floor and the rational reading to recommend different prices'),
    gettext_noop('chance nodes below the root'),
    gettext_noop(
        'fair_coin (two outcomes of 1/2) or biased (2 or 3 outcomes, probabilities on the '
        'branches)'
    ),
    gettext_noop('L: every leaf value is at least L (printed)'),
    gettext_noop('U: every leaf value is at most U (printed)'),
    gettext_noop(
        'a chance node cuts when its upper bound <= alpha or its lower bound >= beta '
        '(true), or only on strict inequality (false)'
    ),
    gettext_noop('fewest chance nodes that cut (skip at least one outcome)'),
    gettext_noop('empty squares in the position (9: the empty board)'),
    gettext_noop('order the searches try squares in: index (0..8) or centre-corners-edges'),
    gettext_noop('whether the position itself counts as a visited node'),
    gettext_noop('allow positions with several best moves'),
    gettext_noop('ask the best move, the value and the nodes minimax and alpha-beta visit'),
    gettext_noop('ask how many complete games and distinct positions can follow'),
    gettext_noop('positions the tree draws a second time (transpositions)'),
    gettext_noop('fewest probes that find an entry'),
    gettext_noop('fewest lower or upper bound entries in the final table'),
    gettext_noop('smallest branching factor b'),
    gettext_noop('largest branching factor b'),
    gettext_noop('fewest moves each player looks ahead'),
    gettext_noop('most moves each player looks ahead'),
    gettext_noop(
        'moves: the prompt gives moves per player and asks the plies; plies: it gives the '
        'plies (min_plies..max_plies, odd ones included) and asks only the counts'
    ),
    gettext_noop('fewest plies when depth_given_in is plies'),
    gettext_noop('most plies when depth_given_in is plies'),
    gettext_noop('whether the root counts as a node'),
    gettext_noop('number of children of the root'),
    gettext_noop(
        'how many children have no visits yet (score infinity; the first of them from the '
        'left is selected); at least one child stays visited'
    ),
    gettext_noop('fewest visits of a visited child (at least 1)'),
    gettext_noop('most visits of a child'),
    gettext_noop('exploration constant'),
    gettext_noop('exploration term: c*sqrt(ln N/n) or sqrt(c*ln N/n) (printed in the prompt)'),
    gettext_noop('require that the other UCB1 form would select a different child'),
    gettext_noop('number of players (A, B, C, D), moving in turn'),
    gettext_noop('plies below the root'),
    gettext_noop('smallest payoff'),
    gettext_noop('largest payoff'),
    gettext_noop(
        'how a mover breaks ties: "first" (leftmost), or {"player": P, "prefer": '
        '"min"|"max"} to prefer the tied child with the smallest or largest payoff for P'
    ),
    gettext_noop(
        'allow ties for a mover; with a tie_break other than "first" at least one tie the '
        'rule decides is required instead'
    ),
)

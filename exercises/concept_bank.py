"""The concept quiz bank: multiple-choice questions on adversarial search, each with a worked
explanation. Texts are marked for translation and rendered in the student's language.

Options are listed with the correct one first; the generator shuffles them per student.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_noop as N_

TOPICS = ("classification", "minimax", "alphabeta", "evaluation", "chance", "mcts")


@dataclass(frozen=True)
class ConceptQuestion:
    """Hold one question: the right option first, three wrong ones, and why it is right."""

    id: str
    topic: str
    question: str
    options: tuple[str, str, str, str]
    explanation: str


BANK: tuple[ConceptQuestion, ...] = (
    # --- game classification --------------------------------------------------------------
    ConceptQuestion(
        "class-poker", "classification",
        N_("Which description fits poker?"),
        (N_("Stochastic, partially observable, multi-agent"),
         N_("Deterministic, fully observable, two-player zero-sum"),
         N_("Deterministic, partially observable, single-agent"),
         N_("Stochastic, fully observable, single-agent")),
        N_("The shuffle is random (stochastic), you cannot see the other hands (partially "
           "observable), and several players act against each other (multi-agent)."),
    ),
    ConceptQuestion(
        "class-zero-sum", "classification",
        N_("In a two-player zero-sum game, what is true of the payoffs at every terminal state?"),
        (N_("One player's payoff is the negative of the other's"),
         N_("Both players always receive zero"),
         N_("Both payoffs are positive"),
         N_("The payoffs depend on who moved last")),
        N_("Zero-sum means the payoffs add up to zero (or to a constant): whatever one player "
           "gains the other loses, which is why a single number per leaf is enough."),
    ),
    ConceptQuestion(
        "class-backgammon", "classification",
        N_("Backgammon is best modelled as a game that is…"),
        (N_("Fully observable and stochastic"),
         N_("Partially observable and deterministic"),
         N_("Fully observable and deterministic"),
         N_("Partially observable and stochastic")),
        N_("Both players see the whole board, so it is fully observable; the dice add chance, "
           "so it is stochastic. Such games need chance nodes (expectiminimax)."),
    ),
    ConceptQuestion(
        "class-perfect-information", "classification",
        N_("What does 'perfect information' mean for a game?"),
        (N_("Every player sees the whole state whenever they move: no card, hand or chance outcome"
            " is hidden from anyone"),
         N_("The game has no chance events"),
         N_("Both players play optimally"),
         N_("The game tree is small enough to search completely")),
        N_("Perfect information is about what players observe: nothing is hidden. Chess and "
           "backgammon both have it, even though backgammon has dice. Poker does not: every bet is"
           " public, but the dealt cards are not."),
    ),
    ConceptQuestion(
        "class-general-sum", "classification",
        N_("Two firms pricing the same product each maximise their own profit. This game is…"),
        (N_("General-sum: both can gain or lose at the same time"),
         N_("Zero-sum: one firm's profit is the other's loss"),
         N_("Single-agent: the competitor is part of the environment"),
         N_("Cooperative: they share one payoff")),
        N_("A price war can hurt both firms and a truce can help both, so the payoffs do not "
           "cancel out. Assuming the rival only wants to hurt you (minimax) gives a safe floor, "
           "not the likely outcome."),
    ),
    ConceptQuestion(
        "class-ply", "classification",
        N_("How many plies are there in a search that looks 3 moves ahead for each player?"),
        (N_("6"), N_("3"), N_("9"), N_("8")),
        N_("A ply is one move by one player. Three moves each means 3 + 3 = 6 plies, with the "
           "root at depth 0 and the leaves at depth 6."),
    ),
    ConceptQuestion(
        "class-solved", "classification",
        N_("What does it mean that tic-tac-toe is 'solved'?"),
        (N_("Its value with perfect play from the start is known (a draw)"),
         N_("A computer has played every possible game of it"),
         N_("X always wins"),
         N_("It has no more than 1000 positions")),
        N_("Solving a game means knowing its minimax value from the initial position. For "
           "tic-tac-toe, minimax over the whole tree shows that perfect play ends in a draw."),
    ),
    # --- minimax --------------------------------------------------------------------------
    ConceptQuestion(
        "minimax-meaning", "minimax",
        N_("What does the minimax value of a node represent?"),
        (N_("The utility MAX gets from that node if both players play optimally"),
         N_("The average of the leaf values below the node"),
         N_("The best leaf value reachable from the node"),
         N_("The number of moves until the game ends")),
        N_("MAX picks the child with the highest value and MIN the lowest, so the backed-up "
           "number is what MAX is guaranteed against a perfect opponent — no more, no less."),
    ),
    ConceptQuestion(
        "minimax-complexity", "minimax",
        N_("Minimax explores a tree with branching factor b to depth d. Its time is…"),
        (N_("O(b^d)"), N_("O(b·d)"), N_("O(d^b)"), N_("O(b^(d/2))")),
        N_("Minimax visits every node: 1 + b + b^2 + … + b^d, dominated by the b^d leaves. "
           "O(b^(d/2)) is alpha-beta with perfect ordering."),
    ),
    ConceptQuestion(
        "minimax-space", "minimax",
        N_("Depth-first minimax on a tree of branching b and depth d needs how much memory?"),
        (N_("O(b·d)"), N_("O(b^d)"), N_("O(1)"), N_("O(d^2)")),
        N_("Depth-first search keeps only the current path plus the siblings waiting at each "
           "level: about b nodes per level over d levels (O(d) if actions are generated one at "
           "a time)."),
    ),
    ConceptQuestion(
        "minimax-suboptimal-opponent", "minimax",
        N_("If MIN plays badly, how does MAX's minimax strategy do?"),
        (N_("At least as well as the minimax value"),
         N_("Worse than the minimax value"),
         N_("Exactly the minimax value, always"),
         N_("It cannot be said without knowing MIN's mistakes")),
        N_("The minimax value is a guarantee against the best opponent; any other MIN choice "
           "can only leave MAX with the same or more. Another strategy might exploit a weak "
           "opponent better, but minimax never does worse."),
    ),
    ConceptQuestion(
        "minimax-negamax", "minimax",
        N_("Negamax rewrites minimax using which identity?"),
        (N_("max(a, b) = −min(−a, −b)"),
         N_("max(a, b) = min(a, b) + |a − b|"),
         N_("max(a, b) = (a + b) / 2"),
         N_("max(a, b) = −max(−a, −b)")),
        N_("Taking the maximum of negated children and negating the result is the same as the "
           "minimum, so one routine serves both players if values are always taken from the "
           "mover's point of view."),
    ),
    ConceptQuestion(
        "minimax-decision", "minimax",
        N_("At the root, minimax returns a decision. Which child is it?"),
        (N_("The child whose backed-up value is best for the player to move"),
         N_("The child holding the largest leaf"),
         N_("The first child searched"),
         N_("The child with the most descendants")),
        N_("The decision is the move leading to the best backed-up value; a large leaf deep "
           "in a branch is worthless if the opponent can steer away from it."),
    ),
    ConceptQuestion(
        "minimax-ties", "minimax",
        N_("Two root children of a MAX node have the same best value. The search keeps the first "
           "best child: a later child replaces it only when strictly better (value > best). Which "
           "is the decision?"),
        (N_("The leftmost of them"), N_("The rightmost of them"),
         N_("Either: the answer is undefined"), N_("The one with fewer leaves")),
        N_("With a strict comparison the first best child, the leftmost in search order, is kept. "
           "Code that compares with value >= best keeps the rightmost instead, which is why a tie "
           "rule must always be stated."),
    ),
    # --- alpha-beta and ordering ----------------------------------------------------------
    ConceptQuestion(
        "ab-value", "alphabeta",
        N_("Compared with minimax on the same tree, alpha-beta returns at the root…"),
        (N_("The same value and decision"),
         N_("A value that is only a bound"),
         N_("A higher value"),
         N_("The same value but possibly another decision among non-tied moves")),
        N_("Pruning only skips branches that cannot change the result, so the root value and "
           "decision are exactly minimax's; only some inner nodes end with bounds."),
    ),
    ConceptQuestion(
        "ab-alpha", "alphabeta",
        N_("During alpha-beta, what does alpha hold?"),
        (N_("The best value MAX is already assured of along the current path"),
         N_("The best value MIN is already assured of along the current path"),
         N_("The value of the current leaf"),
         N_("The number of nodes pruned so far")),
        N_("Alpha is a lower bound for MAX: MAX can already get at least alpha elsewhere. Beta "
           "is the matching upper bound set by MIN."),
    ),
    ConceptQuestion(
        "ab-min-cut", "alphabeta",
        N_("A MIN node finds a child worth 2 while alpha is 3. What happens?"),
        (N_("The MIN node's remaining children are pruned"),
         N_("Alpha becomes 2"),
         N_("Nothing: MIN keeps searching"),
         N_("The whole search stops")),
        N_("MIN will end with at most 2, but MAX already has 3 elsewhere, so MAX will never "
           "come here: the other children cannot matter."),
    ),
    ConceptQuestion(
        "ab-perfect", "alphabeta",
        N_("With perfect move ordering, alpha-beta examines about how many leaves?"),
        (N_("b^(d/2)"), N_("b^d / 2"), N_("d·b"), N_("b^(d−1)")),
        N_("Trying the best move first lets alpha-beta prove each bound with one child on "
           "every other level: exactly b^⌈d/2⌉ + b^⌊d/2⌋ − 1 leaves, so the reachable depth "
           "roughly doubles."),
    ),
    ConceptQuestion(
        "ab-worst", "alphabeta",
        N_("With the worst possible move ordering, alpha-beta examines…"),
        (N_("All b^d leaves, like minimax"),
         N_("About b^(d/2) leaves"),
         N_("Half of the leaves"),
         N_("Only the leftmost branch")),
        N_("If the best moves always come last, no bound is good enough to cut before the end, "
           "and every leaf is evaluated."),
    ),
    ConceptQuestion(
        "ab-equality", "alphabeta",
        N_("Why must an alpha-beta exercise state whether it cuts when alpha = beta?"),
        (N_("The set of pruned leaves can differ, although the root value cannot"),
         N_("The root value changes"),
         N_("The algorithm stops terminating"),
         N_("It does not matter: both conventions prune the same leaves")),
        N_("When a leaf equals the bound, cutting on ≥ prunes its siblings and cutting only on "
           "> does not. Both are correct algorithms with the same root value, so the expected "
           "pruned set depends on the convention."),
    ),
    ConceptQuestion(
        "ab-killer", "alphabeta",
        N_("Which technique improves move ordering in chess programs?"),
        (N_("Trying first the moves that were best in a shallower iteration"),
         N_("Trying moves in alphabetical order"),
         N_("Searching the last generated move first"),
         N_("Randomising the order at every node")),
        N_("Iterative deepening leaves the best move of depth d−1 in the transposition table; "
           "trying it first at depth d is usually close to perfect ordering."),
    ),
    # --- evaluation functions and cutoffs -------------------------------------------------
    ConceptQuestion(
        "eval-purpose", "evaluation",
        N_("Why does a depth-limited search need an evaluation function?"),
        (N_("To estimate the value of non-terminal positions where the search stops"),
         N_("To decide which moves are legal"),
         N_("To compute exact utilities of terminal states"),
         N_("To order the children of chance nodes")),
        N_("When the search cannot reach the end of the game it must score the positions at "
           "the cutoff; the evaluation is that estimate. Terminal states keep their true "
           "utility."),
    ),
    ConceptQuestion(
        "eval-linear", "evaluation",
        N_("Eval = 9·(queens) + 5·(rooks) + 1·(pawns), each as White minus Black. White has "
           "1 queen and 3 pawns; Black has 2 rooks and 4 pawns. Eval is…"),
        (N_("−2"), N_("2"), N_("−1"), N_("8")),
        N_("9·(1−0) + 5·(0−2) + 1·(3−4) = 9 − 10 − 1 = −2: Black is slightly ahead in "
           "material."),
    ),
    ConceptQuestion(
        "eval-quiescence", "evaluation",
        N_("What problem does quiescence search address?"),
        (N_("Evaluating positions in the middle of an exchange, where the score is about to "
            "swing"),
         N_("Positions repeated by transposition"),
         N_("Running out of memory"),
         N_("Ties between moves")),
        N_("Stopping right after a capture, before the recapture, gives a misleading score. "
           "Quiescence search extends such unstable positions until they are quiet."),
    ),
    ConceptQuestion(
        "eval-horizon", "evaluation",
        N_("The horizon effect is…"),
        (N_("Delaying an unavoidable loss beyond the search depth so it seems to disappear"),
         N_("The search running out of time before depth d"),
         N_("An evaluation function ignoring mobility"),
         N_("Alpha-beta pruning too much")),
        N_("A program that pushes a bad event just past its depth limit, with stalling moves, "
           "believes it avoided it; a deeper search shows it was only postponed."),
    ),
    ConceptQuestion(
        "eval-ordering-matters", "evaluation",
        N_("For minimax decisions in deterministic games, what matters about the evaluation?"),
        (N_("Only the order it puts positions in"),
         N_("Its exact numeric scale"),
         N_("That it returns probabilities"),
         N_("That it is always positive")),
        N_("Any strictly increasing transformation of the evaluation leaves every max and min "
           "choice unchanged. With chance nodes this is no longer true: averages depend on the "
           "scale."),
    ),
    ConceptQuestion(
        "eval-terminal-first", "evaluation",
        N_("A depth-limited search reaches a won position exactly at the depth limit. What "
           "score should it use?"),
        (N_("The true utility of the win"),
         N_("The evaluation function's estimate"),
         N_("Zero"),
         N_("The value of its parent")),
        N_("The terminal test comes before the cutoff test: a finished game has an exact "
           "utility, and replacing it with an estimate would throw away certain knowledge."),
    ),
    ConceptQuestion(
        "eval-depth-bonus", "evaluation",
        N_("Why score a win found at depth d as 100 − d instead of 100?"),
        (N_("So the search prefers the quickest win (and the slowest loss)"),
         N_("To make alpha-beta prune more"),
         N_("Because deeper wins are less certain in a deterministic game"),
         N_("To keep values inside [0, 1]")),
        N_("All wins are equal to plain minimax, so it may dawdle. Subtracting the depth makes "
           "a win in 3 worth more than a win in 7."),
    ),
    # --- chance nodes and scaling ---------------------------------------------------------
    ConceptQuestion(
        "chance-value", "chance",
        N_("A chance node has children worth 4 (probability 1/4) and 8 (probability 3/4). "
           "Its value is…"),
        (N_("7"), N_("6"), N_("4"), N_("8")),
        N_("Expectiminimax weights each outcome by its probability: 1/4·4 + 3/4·8 = 1 + 6 = 7. "
           "The plain average 6 ignores the probabilities."),
    ),
    ConceptQuestion(
        "chance-dice", "chance",
        N_("Rolling two dice and ignoring order, how likely is the roll (2, 5)?"),
        (N_("1/18"), N_("1/36"), N_("1/21"), N_("1/6")),
        N_("It can come up as 2 then 5 or 5 then 2: 2 of the 36 ordered outcomes, so 1/18. "
           "Doubles come up one way only, 1/36; there are 21 distinct unordered rolls."),
    ),
    ConceptQuestion(
        "chance-scale", "chance",
        N_("With chance nodes, can changing the evaluation by a monotonic transformation (for "
           "example squaring positive values) change the decision?"),
        (N_("Yes: expectations depend on the values' scale, not only their order"),
         N_("No: only the order of values matters"),
         N_("Only if there are MIN nodes"),
         N_("Only with more than two outcomes")),
        N_("Take outcomes {0, 10} at 1/2 each against a sure 6: the average is 5 < 6, but after "
           "squaring it is 50 > 36. Evaluations must be proportional to expected utility."),
    ),
    ConceptQuestion(
        "chance-complexity", "chance",
        N_("Expectiminimax on b moves and n chance outcomes per level, to depth m, takes…"),
        (N_("O(b^m · n^m)"), N_("O(b^m)"), N_("O((b + n)^m)"), N_("O(b·n·m)")),
        N_("Every decision level multiplies the tree by b and every chance level by n, so the "
           "cost grows with both; dice games are searched only a few plies deep."),
    ),
    ConceptQuestion(
        "chance-as-min", "chance",
        N_("What goes wrong if chance nodes are treated as MIN nodes?"),
        (N_("The player becomes too pessimistic, avoiding good gambles"),
         N_("Nothing: the value is the same"),
         N_("The player becomes too optimistic"),
         N_("The search no longer terminates")),
        N_("Luck is not an opponent. Assuming the worst outcome every time makes the agent "
           "reject moves whose expected value is high because of one bad, unlikely outcome."),
    ),
    ConceptQuestion(
        "chance-expectimax", "chance",
        N_("Expectimax models the opponent as…"),
        (N_("Random, choosing moves with known probabilities"),
         N_("A perfect adversary"),
         N_("A copy of MAX"),
         N_("Absent: there are only MAX nodes")),
        N_("Expectimax replaces MIN by chance nodes, which fits a random or poorly playing "
           "opponent but can be exploited by a real adversary."),
    ),
    ConceptQuestion(
        "chance-pruning", "chance",
        N_("When can alpha-beta style pruning be applied below chance nodes?"),
        (N_("When utilities are known to lie in a bounded range"),
         N_("Never"),
         N_("Always, exactly as in minimax"),
         N_("Only when all probabilities are equal")),
        N_("A chance node's value depends on all outcomes; with bounds [L, U] on utilities, "
           "the unseen outcomes contribute at most U and at least L, which can prove that the "
           "node cannot matter."),
    ),
    # --- MCTS and UCB1 --------------------------------------------------------------------
    ConceptQuestion(
        "mcts-phases", "mcts",
        N_("What is the order of the four phases of one MCTS iteration?"),
        (N_("Selection, expansion, simulation, backpropagation"),
         N_("Expansion, selection, backpropagation, simulation"),
         N_("Simulation, selection, expansion, backpropagation"),
         N_("Selection, simulation, expansion, backpropagation")),
        N_("Walk down the tree choosing children (selection), add a new node (expansion), play "
           "out to the end (simulation), and update the statistics on the path "
           "(backpropagation)."),
    ),
    ConceptQuestion(
        "mcts-final-move", "mcts",
        N_("When MCTS stops, which root move is usually played?"),
        (N_("The most visited child"),
         N_("The child with the highest UCB1 score"),
         N_("The child with the most wins in one playout"),
         N_("The last child expanded")),
        N_("Visits are the most robust statistic: a child with a high mean after few visits is "
           "uncertain, while UCB1 scores include an exploration bonus meant for choosing what "
           "to try next."),
    ),
    ConceptQuestion(
        "mcts-ucb1-terms", "mcts",
        N_("In UCB1, what does the exploration term do?"),
        (N_("Grows for children visited rarely relative to their parent"),
         N_("Grows with a child's win rate"),
         N_("Penalises children that have lost"),
         N_("Is the same for every child")),
        N_("The term sqrt(ln(N) / n) is large when n is small compared with N, so neglected "
           "children are eventually tried again; the win rate w/n is the exploitation term."),
    ),
    ConceptQuestion(
        "mcts-forms", "mcts",
        N_("Are 'c·sqrt(ln(N) / n)' and 'sqrt(c·ln(N) / n)' the same exploration term?"),
        (N_("Only when c = 0 or c = 1"),
         N_("Yes, always"),
         N_("Only when N = n"),
         N_("Only when c = 2")),
        N_("The first is c·sqrt(x) and the second sqrt(c)·sqrt(x); they agree only if c = sqrt(c),"
           " that is c = 0 or c = 1. With c = 2 they can even select different children."),
    ),
    ConceptQuestion(
        "mcts-backprop-credit", "mcts",
        N_("During backpropagation in a two-player game, whose result is stored at a node?"),
        (N_("The result for the player who made the move into that node"),
         N_("Always MAX's result"),
         N_("The result for the player to move at that node"),
         N_("The winner's result at every node")),
        N_("The parent's mover uses the children's statistics to choose, so each child must "
           "hold how good it was for the player who moved into it."),
    ),
    ConceptQuestion(
        "mcts-draw", "mcts",
        N_("With draws worth 1/2, a node shows 10 visits and reward 6. A playout through it "
           "ends in a draw. Afterwards it shows…"),
        (N_("11 visits, reward 6.5"), N_("11 visits, reward 6"), N_("10 visits, reward 6.5"),
         N_("11 visits, reward 7")),
        N_("Every node on the path gains one visit, and a draw adds the draw reward, 1/2, "
           "whoever moved into the node."),
    ),
    ConceptQuestion(
        "mcts-no-eval", "mcts",
        N_("Why is MCTS attractive for games like Go?"),
        (N_("It needs no hand-written evaluation function, only playouts"),
         N_("It always finds the minimax value quickly"),
         N_("It never needs randomness"),
         N_("It uses less memory than depth-first search")),
        N_("Good evaluation functions for Go are hard to write and the branching factor is "
           "huge; MCTS estimates positions from the outcomes of simulated games and focuses "
           "its effort on promising moves."),
    ),
    # --- the teaching texts' practice questions (issue 18) -------------------------------
    ConceptQuestion(
        "class-census", "classification",
        N_("Tic-tac-toe has 255,168 complete games but only 5,478 positions (the empty board and "
           "the finished ones included). Why so few positions?"),
        (N_("Many move orders reach the same board (transpositions)"),
         N_("Most games end in a draw"),
         N_("Symmetric boards are counted once"),
         N_("Games that end early are not counted")),
        N_("A position is a board; a game is a sequence of moves. X at 0 then O at 4 then X at 8 "
           "reaches the same board as X at 8, O at 4, X at 0. The 5,478 count does not merge "
           "rotations or reflections: with symmetry merged there are far fewer."),
    ),
    ConceptQuestion(
        "minimax-tictactoe-nodes", "minimax",
        N_("Minimax searches the whole tic-tac-toe tree from the empty board, counting every "
           "position it enters below the root. How many nodes is that?"),
        (N_("549,945"),
         N_("255,168"),
         N_("5,478"),
         N_("362,880")),
        N_("Every complete game is one root-to-leaf path, but the tree also counts the positions "
           "along each path: 549,945 nodes below the root (549,946 with it). 255,168 counts the "
           "games (leaves), 5,478 the distinct positions and 362,880 = 9! the orderings of nine "
           "marks, as if no game ended early."),
    ),
    ConceptQuestion(
        "ab-tictactoe-ordering", "alphabeta",
        N_("From the empty tic-tac-toe board, alpha-beta (cut on alpha >= beta, root excluded) "
           "enters 18,296 nodes trying squares 0-8 in index order and 7,274 trying the centre, "
           "then the corners, then the edges. Why does the order matter?"),
        (N_("Good moves found first give tighter bounds, so more siblings are cut"),
         N_("The centre-first order searches fewer plies"),
         N_("Index order misses some winning lines"),
         N_("Alpha-beta returns a different value with each order")),
        N_("Both orders return the same value (a draw); only the number of nodes changes. Trying "
           "strong moves first raises alpha (or lowers beta) early, and later, weaker moves are "
           "refuted after fewer replies."),
    ),
    ConceptQuestion(
        "ab-cut-bound", "alphabeta",
        N_("A MIN node's first child returns 2 while its window is (alpha, beta) = (3, inf), so "
           "its other children are cut. What does the node report to its parent?"),
        (N_("At most 2: a bound, not an exact value"),
         N_("Exactly 2"),
         N_("At least 3"),
         N_("Exactly 3")),
        N_("MIN will pick at most 2 here, and MAX already has 3 elsewhere, so the node cannot "
           "matter. The 2 it returns is an upper bound (≤ 2); the unsearched children might be "
           "even lower."),
    ),
    ConceptQuestion(
        "ab-odd-plies", "alphabeta",
        N_("With perfect move ordering, uniform branching b and depth d plies, how many leaves "
           "does alpha-beta evaluate when d is odd?"),
        (N_("b^((d+1)/2) + b^((d−1)/2) − 1"),
         N_("2·b^(d/2) − 1"),
         N_("b^d"),
         N_("b^((d+1)/2)")),
        N_("Knuth and Moore's count is b^⌈d/2⌉ + b^⌊d/2⌋ − 1. For even d both exponents are d/2, "
           "giving 2·b^(d/2) − 1; for odd d they differ by one."),
    ),
    ConceptQuestion(
        "tt-flags", "alphabeta",
        N_("Alpha-beta stores a node in a transposition table after its search returned v with v "
           "<= alpha (it failed low). Which flag goes with v?"),
        (N_("Upper bound: the true value is at most v"),
         N_("Lower bound: the true value is at least v"),
         N_("Exact: the true value is v"),
         N_("None: failed nodes are never stored")),
        N_("Failing low means every child was refuted, so v only bounds the value from above. A "
           "value inside the window is exact; one at or above beta (a cutoff) is a lower bound."),
    ),
    ConceptQuestion(
        "tt-probe", "alphabeta",
        N_("A later search reaches a stored position whose entry says 'lower bound 5' while its "
           "window is (alpha, beta) = (2, 4). What can it do?"),
        (N_("Cut at once: the value is at least 5 >= beta"),
         N_("Return exactly 5"),
         N_("Nothing: only exact entries may be used"),
         N_("Search it with the window (5, 4)")),
        N_("A lower bound of 5 already reaches beta = 4, so the node fails high without searching."
           " Had beta been 7, the bound would only raise alpha to 5 before searching."),
    ),
    ConceptQuestion(
        "tt-depth", "alphabeta",
        N_("Why must a transposition-table entry from a depth-limited search record the depth "
           "searched below it?"),
        (N_("A shallower result must not replace a deeper search's need"),
         N_("Deeper positions have more children"),
         N_("The table is indexed by depth only"),
         N_("So that the entry can be deleted at the end of the move")),
        N_("A value from a 2-ply search below a position is not good enough where 5 plies are "
           "needed: a probe may use an entry only when the entry's depth is at least the depth "
           "still wanted."),
    ),
    ConceptQuestion(
        "id-overhead", "evaluation",
        N_("Iterative deepening searches depths 1, 2, …, d in turn. With branching factor b = 10, "
           "roughly how much extra work do the shallower iterations add?"),
        (N_("About 11%: the last iteration dominates"),
         N_("About 100%: the work doubles"),
         N_("About 900%: every depth costs the same"),
         N_("None: earlier iterations are free")),
        N_("Depth k costs about b^k, so all shallower iterations together cost about b^d/(b − 1), "
           "a fraction 1/(b − 1) ≈ 11% of the last one for b = 10."),
    ),
    ConceptQuestion(
        "id-interrupted", "evaluation",
        N_("Time runs out while iterative deepening is searching depth 5. Which move is played?"),
        (N_("The best move of the last completed iteration, depth 4"),
         N_("The best move found so far at depth 5"),
         N_("A random move"),
         N_("The first legal move")),
        N_("A partly searched depth-5 iteration has not compared every root move, so its current "
           "best may be wrong; the depth-4 result is complete. (Some programs also accept a "
           "depth-5 move that already beat the depth-4 best.)"),
    ),
    ConceptQuestion(
        "id-ordering", "evaluation",
        N_("Why does iterative deepening often search fewer nodes in total than one alpha-beta "
           "search to the same depth with a fixed move order?"),
        (N_("Each iteration tries the previous iteration's best move first, so more is pruned"),
         N_("It skips the leaves of the last iteration"),
         N_("It uses a smaller branching factor"),
         N_("It never searches the last depth")),
        N_("The best move at depth d − 1 is usually good at depth d; searching it first gives "
           "alpha-beta tight bounds early, and the savings in the last iteration can outweigh the "
           "shallow iterations' cost."),
    ),
    ConceptQuestion(
        "chance-star1", "chance",
        N_("Star1 prunes at a chance node when every utility lies in [L, U]. After outcomes with "
           "total probability P and weighted sum S have been searched, what range can the node's "
           "value still take?"),
        (N_("[S + (1 − P)·L, S + (1 − P)·U]"),
         N_("[L, U]"),
         N_("[S, S + U]"),
         N_("[S·L, S·U]")),
        N_("The unsearched outcomes have probability 1 − P and each is worth between L and U. If "
           "the upper end is at most alpha, or the lower end at least beta, the rest cannot change"
           " the decision and is pruned."),
    ),
    ConceptQuestion(
        "chance-star1-bounds", "chance",
        N_("Why can alpha-beta-style pruning at chance nodes not work without bounds on the "
           "utilities?"),
        (N_("One unseen outcome could be arbitrarily large or small and move the average anywhere"),
         N_("Chance nodes have too many children"),
         N_("Probabilities must sum to 1"),
         N_("Chance nodes are always leaves")),
        N_("An average depends on every outcome; without a known range, an unsearched outcome "
           "could still make the chance node's value anything. With [L, U] known, the seen "
           "outcomes pin the value into a shrinking interval."),
    ),
    ConceptQuestion(
        "mcts-unvisited", "mcts",
        N_("In UCB1 selection, what is the score of a child that has never been visited (n = 0)?"),
        (N_("Infinite: unvisited children are tried before any visited one"),
         N_("Zero: it has no wins"),
         N_("The parent's win rate"),
         N_("c, the exploration constant")),
        N_("The exploration term sqrt(ln(N) / n) is unbounded as n → 0, so every child is "
           "expanded once before UCB1 compares averages; among several unvisited children a "
           "stated rule (e.g. the first in order) picks one."),
    ),
    ConceptQuestion(
        "mcts-c-zero", "mcts",
        N_("What does UCB1 do when the exploration constant c is 0?"),
        (N_("It always picks the child with the best average so far (pure exploitation)"),
         N_("It picks children uniformly at random"),
         N_("It always picks the least visited child"),
         N_("It stops selecting and only simulates")),
        N_("With c = 0 the exploration term vanishes, so selection is greedy on w/n; a child that "
           "was unlucky early may never be tried again."),
    ),
    ConceptQuestion(
        "minimax-tree-size", "minimax",
        N_("A uniform game tree has branching factor 3 and depth 3 plies. How many nodes does it "
           "have, the root included?"),
        (N_("40"),
         N_("27"),
         N_("39"),
         N_("81")),
        N_("Level k has 3^k nodes: 1 + 3 + 9 + 27 = 40. The 27 are only the leaves, 39 leaves out "
           "the root and 81 = 3^4 is one ply too deep."),
    ),
    ConceptQuestion(
        "minimax-odd-depth", "minimax",
        N_("A search to depth 5 plies starts with MAX to move at the root. Who moves at the nodes "
           "just above the leaves (depth 4)?"),
        (N_("MAX"),
         N_("MIN"),
         N_("Whoever moves last in the game"),
         N_("It depends on the leaf values")),
        N_("Players alternate every ply: MAX at depths 0, 2, 4 and MIN at 1, 3. An odd depth ends "
           "on a MAX decision over MIN-to-move leaves, so the horizon falls after MAX's move."),
    ),
    ConceptQuestion(
        "eval-tictactoe-open-lines", "evaluation",
        N_("A common tic-tac-toe evaluation is (lines still open for X) − (lines still open for "
           "O). What does it give after X's first move in the centre, before O replies?"),
        (N_("4"),
         N_("8"),
         N_("3"),
         N_("0")),
        N_("Every one of the 8 lines is still open for X; O's open lines are those without an X, "
           "and the centre lies on 4 lines (a row, a column and both diagonals): 8 − 4 = 4. A "
           "corner would give 3 and an edge 2."),
    ),
    ConceptQuestion(
        "class-stochastic-perfect", "classification",
        N_("Which game has perfect information and chance?"),
        (N_("Backgammon"),
         N_("Poker"),
         N_("Chess"),
         N_("Bridge")),
        N_("In backgammon every player sees the board and every dice roll once it is thrown, yet "
           "the dice are random. Chess has no chance; poker and bridge hide cards, so their "
           "information is imperfect."),
    ),
)
"""The concept questions (ids are stable: stored variants refer to them)."""

BY_ID = {question.id: question for question in BANK}

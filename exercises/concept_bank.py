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
        (N_("Every player knows every move made so far"),
         N_("The game has no chance events"),
         N_("Both players play optimally"),
         N_("The game tree is small enough to search completely")),
        N_("Perfect information is about what players observe: nothing is hidden. Chess and "
           "backgammon both have it, even though backgammon has dice."),
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
        N_("Two root children of a MAX node have the same best value. With the usual "
           "convention, which is the decision?"),
        (N_("The leftmost of them"), N_("The rightmost of them"),
         N_("Either: the answer is undefined"), N_("The one with fewer leaves")),
        N_("Ties must be broken by a stated rule to make the answer unique; the common rule is "
           "'first best', the leftmost child in search order."),
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
        N_("The term sqrt(ln N / n) is large when n is small compared with N, so neglected "
           "children are eventually tried again; the win rate w/n is the exploitation term."),
    ),
    ConceptQuestion(
        "mcts-forms", "mcts",
        N_("Are 'c·sqrt(ln N/n)' and 'sqrt(c·ln N/n)' the same exploration term?"),
        (N_("Only when c = 1"),
         N_("Yes, always"),
         N_("Only when N = n"),
         N_("Only when c = 2")),
        N_("The first is c·sqrt(x) and the second sqrt(c)·sqrt(x); they agree only if c = "
           "sqrt(c), that is c = 1 (or 0). With c = 2 they can even select different "
           "children."),
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
)
"""The concept questions (ids are stable: stored variants refer to them)."""

BY_ID = {question.id: question for question in BANK}

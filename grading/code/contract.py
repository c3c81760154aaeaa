"""What a student writes for each code item: the game interface, the function, its conventions.

Every code kind has one :class:`CodeContract`; :func:`starter_source` renders the starter file
the API serves for it. The interface described here is exactly what the sandbox's proxy
(``grading/sandbox/bootstrap.py``) offers; the conventions are the ones the hidden tests'
reference traces are computed with.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TEXT_WIDTH = 92

GAME_INTERFACE = '''\
The game
--------
``game`` is a proxy: every method is answered by the grader, which records each call.
States and actions are opaque handles. Equal positions are equal (and hash equally), so
states can be dictionary keys; an action prints as its label (a node name, a square, a
column).

    game.to_move(state)           -> the player to move: "max"/"min" in explicit trees,
                                     "X"/"O" in tic-tac-toe and Connect Four, or
                                     game.CHANCE at a chance node
    game.actions(state)           -> the legal actions, in the order you must search them
    game.result(state, action)    -> the state after playing ``action`` (this is how a state
                                     is generated; the grader counts these calls)
    game.is_terminal(state)       -> True when the game is over
    game.utility(state, player)   -> the exact payoff of a terminal state for ``player``
    game.evaluate(state, player)  -> the heuristic value of a state for ``player``, for the
                                     states where a depth limit stops the search
    game.chance_outcomes(state)   -> [(action, probability), ...] at a chance node
                                     (probabilities are fractions.Fraction)

A refused call (an illegal action, the utility of a non-terminal state) raises
``game.GameError``. Values are ints or ``fractions.Fraction``; return them as they are.

You may import the standard library (math, random, functools, dataclasses, ...); nothing
outside the sandbox can be reached. Printing is allowed but capped.
'''

UCB1_CONVENTIONS = '''\
Conventions
-----------
* UCB1(child) = wins / visits + c * sqrt(ln(N) / visits), with N = ``parent_visits``.
* A child never visited (visits 0) scores +infinity: it is selected first.
* Of equal scores, select the first child in the order ``game.actions`` gives them.
'''

BACKPROP_CONVENTIONS = '''\
Conventions
-----------
* ``state`` is the root of the MCTS tree. ``path[i]`` is ``[to_move, reward, visits]`` of the
  i-th node the iteration went down to below it (the last one is the node it expanded):
  ``to_move`` is the player to move there (None at a terminal node), ``reward`` and
  ``visits`` its statistics before this update (a reward in halves comes as a float).
* ``winner`` is the player who won the simulated game (as ``game.to_move`` names players),
  or None for a draw.
* Every node on the path gains one visit.
* A node's reward belongs to the player who moved INTO it, the player to move at its parent
  (``game.to_move(state)`` for the first node): that player's reward grows by 1 for a win,
  by %(draw_reward)s for a draw and by 0 for a loss.
* Leave the root out: return one ``[reward, visits]`` per node of ``path``, in path order.
'''

BACKPROP_GRADING = '''\
What is graded
--------------
On each hidden test (a fixed one and some drawn for you alone) the statistics you return
are compared with the reference backpropagation's; the feedback names the first node that
differs and the known mistake your answer matches.
'''

SELECTION_GRADING = '''\
What is graded
--------------
On each hidden test (a fixed one and some drawn for you alone) the action you return is
compared with UCB1's choice; the feedback names the known mistake a wrong choice matches.
Return one of the actions ``game.actions(state)`` gave you: anything else is an illegal
operation.
'''

SEARCH_GRADING = '''\
What is graded
--------------
On each hidden test (explicit trees and game positions, some drawn for you alone): your
return value, and the trace of your search: the SET of states you generate with
``game.result`` and the ORDER in which you evaluate states with ``game.utility`` or
``game.evaluate``, compared with the reference search under the conventions above. Each test
earns partial credit; the feedback names the first place your search differs from the
reference, and the known mistake it matches. Returning a move without having asked
``game.actions`` for the root is an illegal operation.
'''

AGENT_GRADING = '''\
What is graded
--------------
The games your agent plays, move by move. A move must be one ``game.actions(state)`` offered
for that position; any other move is an illegal operation and forfeits the test.
'''

SEARCH_CONVENTIONS = '''\
Conventions
-----------
* The player to move at the root, ``game.to_move(state)``, is the maximising player; take
  every utility and evaluation from that player's point of view.
* Search children in the order ``game.actions`` gives them (left to right).
* Decide with the first best action: a later child replaces the best only if it is strictly
  better.
* Test ``game.is_terminal`` before anything else: a terminal state is worth its utility.
* A decision node maximises when ``game.to_move(state)`` is the root's player and minimises
  otherwise, whoever moved before it: a player may move twice in a row.
* Generate a child with ``game.result`` only when you are about to search it, and keep no
  states or values from one branch for another: the states you generate are graded.
'''

ALPHABETA_CONVENTIONS = SEARCH_CONVENTIONS + '''\
* Depth counts plies from 0 at the root: a non-terminal state ``depth`` plies below the root
  is not expanded but evaluated with ``game.evaluate(state, player)``.
* Cut on equality: a node stops searching its children as soon as alpha >= beta.
* The root raises alpha: after each root child, alpha becomes the best value found so far.
* Start with alpha = -infinity and beta = +infinity (``math.inf``).
'''


@dataclass(frozen=True)
class CodeContract:
    """The function one code kind asks for: its name, parameters, result and conventions.

    ``returns_decision`` says the function returns ``(action, value)`` rather than a value;
    ``public_test`` names the hidden test a check runs (``grading.code.grader.check_code``).
    """

    entry_point: str
    parameters: tuple[str, ...]
    returns: str
    task: str
    conventions: str
    public_test: str
    grading: str = SEARCH_GRADING
    returns_decision: bool = False

    @property
    def signature(self) -> str:
        """Return the function's signature as the student writes it."""
        return f"{self.entry_point}({', '.join(self.parameters)})"


CONTRACTS: dict[str, CodeContract] = {
    "code_minimax": CodeContract(
        entry_point="minimax_decision",
        parameters=("game", "state"),
        returns="(action, value): the best root action and the root's minimax value",
        task="Search the whole game below ``state`` with minimax.",
        conventions=SEARCH_CONVENTIONS,
        public_test='the first fixed tree, "textbook tree"',
        returns_decision=True,
    ),
    "code_alphabeta": CodeContract(
        entry_point="alphabeta_decision",
        parameters=("game", "state", "depth"),
        returns="(action, value): the best root action and the root's value",
        task="Search ``state`` with alpha-beta pruning, at most ``depth`` plies deep.",
        conventions=ALPHABETA_CONVENTIONS,
        public_test='the first fixed tree, "textbook tree" (depth 2)',
        returns_decision=True,
    ),
    "code_expectimax": CodeContract(
        entry_point="expectimax_value",
        parameters=("game", "state"),
        returns="value: the root's expectiminimax value (exact: use the Fraction probabilities)",
        task="Compute the value of ``state``: MAX maximises, MIN minimises, a chance node is "
             "worth the probability-weighted average of its outcomes, searched in the order "
             "``game.chance_outcomes`` lists them.",
        conventions=SEARCH_CONVENTIONS,
        public_test='the fixed tree "chance tree"',
    ),
    "code_ucb1": CodeContract(
        entry_point="ucb1_select",
        parameters=("game", "state", "stats", "parent_visits", "c"),
        returns="action: the action of the child MCTS's selection step descends to",
        task="Choose a child of ``state`` by UCB1, as MCTS's selection step does. "
             "``stats[i]`` is ``[wins, visits]`` of the child reached by the i-th action of "
             "``game.actions(state)``; ``parent_visits`` is N, ``c`` the exploration constant.",
        conventions=UCB1_CONVENTIONS,
        public_test=('the fixed node "a child never visited" (stats [[3, 5], [0, 0], [4, 6]], '
                     'c = sqrt(2))'),
        grading=SELECTION_GRADING,
    ),
    "code_mcts_backprop": CodeContract(
        entry_point="mcts_backprop",
        parameters=("game", "state", "path", "winner"),
        returns="a list of [reward, visits], one per node of ``path``, after the update",
        task="Backpropagate the result of one MCTS simulation along the path the iteration "
             "selected and expanded, as the last step of an MCTS iteration does.",
        conventions=BACKPROP_CONVENTIONS,
        public_test='the first fixed path, "a path where MIN wins"',
        grading=BACKPROP_GRADING,
    ),
    "code_tictactoe_agent": CodeContract(
        entry_point="choose_move",
        parameters=("game", "state"),
        returns="action: the move to play in ``state``",
        task="Play tic-tac-toe. Your agent is asked for a move in every position it can reach "
             "against EVERY possible opponent, as X and as O; it must never lose. Many "
             "positions are asked in one process: cache what you compute by state.",
        conventions="",
        public_test='the hidden test "tic-tac-toe agent as X, against every opponent"',
        grading=AGENT_GRADING,
    ),
    "code_connect4_agent": CodeContract(
        entry_point="choose_move",
        parameters=("game", "state"),
        returns="action: the column to play in ``state``",
        task="Play Connect Four against a random player and a depth-2 alpha-beta searcher, "
             "as X and as O; a win scores 1, a draw 1/2. ``game.evaluate(state, player)`` "
             "offers a window heuristic for depth-limited searches. The whole series must "
             "finish within the time all runs of one submission share (stated with the "
             "limits; 30 s unless the site sets another; the grader's time answering your "
             "game calls does not count): a depth-5 alpha-beta (about 10 s for the series) is "
             "safe, a depth-6 one is not.",
        conventions="",
        public_test=('one game as X against the depth-2 searcher (the searcher is deterministic, '
                     'so it is the same game as in the hidden test "Connect Four vs depth-2 '
                     'searcher")'),
        grading=AGENT_GRADING,
    ),
}


def contract_for(kind_name: str) -> CodeContract:
    """Return the contract of code kind ``kind_name``; raise KeyError for other kinds."""
    return CONTRACTS[kind_name]


CONVENTION_DEFAULTS = {"draw_reward": "1/2"}
"""The ``%(name)s`` placeholders of the conventions' texts and their values by default; an
item's param of the same name replaces the default."""

CHECK_NOTE = ('The public example test is {test}: the page\'s "Check" button runs your code on '
              'it alone, with no attempt used, grades it as the hidden tests are graded, and '
              'shows what your code printed. {graded}')
CHECK_GRADED = "The graded tests include it."
CHECK_NOT_GRADED = ("This item's graded tests leave the fixed trees out, so they do not include "
                    "it.")


LIMITS_NOTE = ("Limits: each run of your code may use {cpu} s of CPU time, {wall} s of "
               "wall-clock time (the time the grader takes to answer your game calls does not "
               "count) and {memory} MiB of memory; all the runs of one submission share {budget} "
               "s.")
"""The starter file's statement of an item's limits (``grading.code.sandboxing.stated_limits``
fills it); the code item page states them in the reader's language."""


def conventions_template(kind_name: str, params: dict[str, Any]) -> str:
    """Return the conventions of an item, adjusted to its params (e.g. no cut on equality),
    with their ``%(name)s`` placeholders (:data:`CONVENTION_DEFAULTS`) still to fill.

    Each bullet is a catalogue entry keyed by its text with the placeholders, so the
    translated conventions fill in the same values (``exercises.kinds.code_items``).
    """
    text = contract_for(kind_name).conventions
    if params.get("cut_on_equality") is False:
        text = text.replace(
            "* Cut on equality: a node stops searching its children as soon as alpha >= beta.",
            "* No cut on equality: a node stops searching its children only when alpha > beta.",
        )
    if params.get("root_raises_alpha") is False:
        text = text.replace(
            "* The root raises alpha: after each root child, alpha becomes the best value found "
            "so far.",
            "* The root does NOT raise alpha: every root child is searched with the window "
            "(-infinity, +infinity).",
        )
    return text


def convention_values(params: dict[str, Any]) -> dict[str, str]:
    """Return the values of the conventions' placeholders under an item's params."""
    return {name: str(params.get(name, default)) for name, default in CONVENTION_DEFAULTS.items()}


def fill_placeholders(text: str, values: dict[str, str]) -> str:
    """Return ``text`` with its ``%(name)s`` placeholders filled (text without any unchanged)."""
    return text % values if "%(" in text else text


def conventions_text(kind_name: str, params: dict[str, Any]) -> str:
    """Return the conventions of an item in English, adjusted to and filled from its params."""
    return fill_placeholders(conventions_template(kind_name, params), convention_values(params))


def starter_source(kind_name: str, params: dict[str, Any],
                   limits: Mapping[str, str] | None = None) -> str:
    """Return the starter file of an item: the contract as a docstring and a function stub,
    with the item's ``limits`` (:data:`LIMITS_NOTE`'s fields) when given."""
    contract = contract_for(kind_name)
    docstring = "\n\n".join(
        part for part in (
            f"Write {contract.signature}.",
            textwrap.fill(contract.task, width=TEXT_WIDTH),
            textwrap.fill(f"Return {contract.returns}.", width=TEXT_WIDTH),
            conventions_text(kind_name, params).rstrip(),
            GAME_INTERFACE.rstrip(),
            contract.grading.rstrip(),
            textwrap.fill(CHECK_NOTE.format(test=contract.public_test,
                                            graded=_public_test_graded(params)),
                          width=TEXT_WIDTH),
            textwrap.fill(LIMITS_NOTE.format(**limits), width=TEXT_WIDTH) if limits else "",
        ) if part
    )
    return (
        f'"""{docstring}\n"""\n\n'
        "import math\n\n\n"
        f"def {contract.signature}:\n"
        f'    """Return {contract.returns}."""\n'
        "    raise NotImplementedError\n"
    )


def _public_test_graded(params: dict[str, Any]) -> str:
    """Return whether the graded tests include the public one, a fixed tree's test: not when
    the item's ``test_sets`` leave the fixed trees out."""
    test_sets = params.get("test_sets")
    if test_sets is not None and "fixed_trees" not in test_sets:
        return CHECK_NOT_GRADED
    return CHECK_GRADED

"""UCB1 and Monte Carlo tree search (UCT).

UCB1 is the only place the engine uses floats: square roots and logarithms are not exact.
Visit and reward counts stay exact (a draw is worth ``draw_reward``, 1/2 by default).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Generic, Literal

from engine.errors import GameError
from engine.game import CHANCE, ActionT, Game, StateT, Utility, as_utility

UcbForm = Literal["c*sqrt(ln N/n)", "sqrt(c*ln N/n)"]
UCB1_FORMS: tuple[UcbForm, ...] = ("c*sqrt(ln N/n)", "sqrt(c*ln N/n)")
"""The two UCB1 exploration terms in the wild; they differ whenever c != 1."""

DRAW = "draw"

SQRT2 = math.sqrt(2)
"""The classic UCT exploration constant."""


def ucb1(
    wins: Utility, visits: int, parent_visits: int, c: Utility | float,
    form: UcbForm = "c*sqrt(ln N/n)",
) -> float:
    """Return the UCB1 score ``wins/visits + exploration`` of a child (``inf`` if unvisited).

    ``form`` picks the exploration term: ``c*sqrt(ln N/n)`` (the default) or
    ``sqrt(c*ln N/n)``, with ``N = parent_visits`` and ``n = visits``.
    """
    if visits == 0:
        return math.inf
    log_ratio = math.log(parent_visits) / visits
    if form == "c*sqrt(ln N/n)":
        exploration = float(c) * math.sqrt(log_ratio)
    elif form == "sqrt(c*ln N/n)":
        exploration = math.sqrt(float(c) * log_ratio)
    else:
        raise ValueError(f"unknown UCB1 form {form!r}; use one of {UCB1_FORMS}")
    return float(Fraction(wins) / visits) + exploration


@dataclass(frozen=True)
class Arm:
    """Hold one child's statistics as UCB1 sees them."""

    name: str
    wins: Utility
    visits: int


def select(
    arms: Sequence[Arm], parent_visits: int, c: Utility | float,
    form: UcbForm = "c*sqrt(ln N/n)",
) -> str:
    """Return the name of the arm with the highest UCB1 score (the first of equal scores)."""
    scores = [ucb1(arm.wins, arm.visits, parent_visits, c, form) for arm in arms]
    return arms[scores.index(max(scores))].name


def most_visited(arms: Sequence[Arm]) -> str:
    """Return the name of the most visited arm (the first of equal counts): the move to play."""
    counts = [arm.visits for arm in arms]
    return arms[counts.index(max(counts))].name


@dataclass(frozen=True)
class PathNode:
    """Hold the statistics of one node on an MCTS path; ``moved_by`` made the move into it."""

    name: str
    moved_by: str
    visits: int
    reward: Utility


def credit(moved_by: str, outcome: str, draw_reward: Utility) -> Utility:
    """Return the reward for the player ``moved_by`` when the game ended in ``outcome``.

    ``outcome`` is the winner's name or ``"draw"``: 1 to the winner, ``draw_reward`` to
    everyone on a draw, 0 to a loser.
    """
    if outcome == DRAW:
        return draw_reward
    return 1 if moved_by == outcome else 0


def mcts_backprop(
    path: Sequence[PathNode], outcome: str, draw_reward: Utility = Fraction(1, 2)
) -> tuple[PathNode, ...]:
    """Return ``path`` after one MCTS backpropagation of ``outcome``.

    Every node gains a visit; its reward goes to the player who moved into it
    (see :func:`credit`), because its parent's mover reads it when choosing.
    """
    return tuple(
        replace(
            node,
            visits=node.visits + 1,
            reward=as_utility(node.reward + credit(node.moved_by, outcome, draw_reward)),
        )
        for node in path
    )


@dataclass
class _TreeNode(Generic[StateT, ActionT]):
    """Hold one node of the MCTS tree; it is updated in place as iterations run."""

    state: StateT
    moved_by: str | None
    untried: list[ActionT]
    children: dict[ActionT, _TreeNode[StateT, ActionT]] = field(default_factory=dict)
    visits: int = 0
    reward: Utility = 0


@dataclass(frozen=True)
class Step(Generic[ActionT]):
    """Record one selection step: the action chosen, its parent's N and its UCB1 score U.

    At a chance node the outcome is drawn, not selected, so ``score`` is NaN there.
    """

    action: ActionT
    parent_visits: int
    score: float


@dataclass(frozen=True)
class Iteration(Generic[StateT, ActionT]):
    """Record one MCTS iteration: the selection steps, the expanded action, the playout's end."""

    steps: tuple[Step[ActionT], ...]
    expanded: ActionT | None
    terminal: StateT


@dataclass(frozen=True)
class MctsResult(Generic[StateT, ActionT]):
    """Hold the outcome of MCTS: the move (most visits) and each root child's statistics."""

    move: ActionT
    visits: dict[ActionT, int]
    rewards: dict[ActionT, Utility]
    iterations: tuple[Iteration[StateT, ActionT], ...]


def mcts(
    game: Game[StateT, ActionT],
    state: StateT,
    *,
    iterations: int,
    rng: random.Random,
    c: Utility | float = SQRT2,
    form: UcbForm = "c*sqrt(ln N/n)",
    draw_reward: Utility = Fraction(1, 2),
) -> MctsResult[StateT, ActionT]:
    """Run ``iterations`` rounds of UCT from ``state`` and return the most visited move.

    Each round selects children by UCB1 (:func:`ucb1` in ``form``, first-best ties) while
    the node is fully expanded, expands ONE untried action (the first in the game's order;
    at a chance node the outcome is drawn by its probability), plays uniformly random moves
    to the end, and backpropagates: every node on the path gains a visit and, as in
    :func:`mcts_backprop`, a reward for the player who moved into it: 1 if that player's
    utility at the end is positive, ``draw_reward`` if 0, else 0. All randomness comes from
    ``rng``; the trace records (N, U) at every selection step.
    """
    if game.is_terminal(state):
        raise GameError("MCTS needs a non-terminal root")
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    root = _add_node(game, state, None)
    log: list[Iteration[StateT, ActionT]] = []
    for _ in range(iterations):
        path, steps, expanded = _select_and_expand(game, root, rng, c, form)
        end = _playout(game, path[-1].state, rng)
        for node in path:
            node.visits += 1
            if node.moved_by is not None and node.moved_by != CHANCE:
                reward = _reward(game, end, node.moved_by, draw_reward)
                node.reward = as_utility(node.reward + reward)
        log.append(Iteration(tuple(steps), expanded, end))
    children = list(root.children.items())
    counts = [child.visits for _, child in children]
    return MctsResult(
        children[counts.index(max(counts))][0],
        {action: child.visits for action, child in children},
        {action: child.reward for action, child in children},
        tuple(log),
    )


def _add_node(
    game: Game[StateT, ActionT], state: StateT, moved_by: str | None
) -> _TreeNode[StateT, ActionT]:
    untried: list[ActionT] = []
    if not game.is_terminal(state) and game.to_move(state) != CHANCE:
        untried = list(game.actions(state))
    return _TreeNode(state, moved_by, untried)


def _select_and_expand(
    game: Game[StateT, ActionT],
    root: _TreeNode[StateT, ActionT],
    rng: random.Random,
    c: Utility | float,
    form: UcbForm,
) -> tuple[list[_TreeNode[StateT, ActionT]], list[Step[ActionT]], ActionT | None]:
    """Return the path to the node expanded this round, the selection steps, and its action."""
    path, steps = [root], []
    node = root
    while not game.is_terminal(node.state):
        mover = game.to_move(node.state)
        if mover == CHANCE:
            action = _draw(game.chance_outcomes(node.state), rng)
            steps.append(Step(action, node.visits, math.nan))
        elif node.untried:
            action = node.untried.pop(0)
        else:
            scored = [
                ucb1(child.reward, child.visits, node.visits, c, form)
                for child in node.children.values()
            ]
            action = list(node.children)[scored.index(max(scored))]
            steps.append(Step(action, node.visits, max(scored)))
        if action not in node.children:
            node.children[action] = _add_node(game, game.result(node.state, action), mover)
            path.append(node.children[action])
            return path, steps, action
        node = node.children[action]
        path.append(node)
    return path, steps, None


def _draw(outcomes: Sequence[tuple[ActionT, Fraction]], rng: random.Random) -> ActionT:
    """Return an outcome drawn exactly by its probability."""
    denominator = math.lcm(*(p.denominator for _, p in outcomes))
    ticket = rng.randrange(denominator)
    for action, p in outcomes:
        ticket -= p.numerator * (denominator // p.denominator)
        if ticket < 0:
            return action
    raise GameError("chance probabilities do not sum to 1")


def _playout(game: Game[StateT, ActionT], state: StateT, rng: random.Random) -> StateT:
    """Return the terminal state reached by uniformly random moves from ``state``."""
    while not game.is_terminal(state):
        if game.to_move(state) == CHANCE:
            state = game.result(state, _draw(game.chance_outcomes(state), rng))
        else:
            state = game.result(state, rng.choice(list(game.actions(state))))
    return state


def _reward(
    game: Game[StateT, ActionT], end: StateT, player: str, draw_reward: Utility
) -> Utility:
    """Return ``player``'s reward for the finished game ``end`` (win 1, draw, loss 0)."""
    utility = game.utility(end, player)
    if utility == 0:
        return draw_reward
    return 1 if utility > 0 else 0

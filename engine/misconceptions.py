"""Named, deliberately wrong variants of the solvers, used by grading to diagnose answers.

Each :class:`Misconception` answers a problem the way a student holding that misconception
would, in exactly the key format of :func:`engine.solve.solve`, so a grader can compare a
student's answer with each applicable variant. Variants are built by changing the problem
(parameters or node types) or the conventions the real algorithms run with, not by
separate copies of the algorithms.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from engine import ENGINE_VERSION
from engine.errors import ProblemError
from engine.game import Utility, as_utility
from engine.search.alphabeta import AlphaBetaConventions
from engine.search.bandit import UCB1_FORMS
from engine.search.trace import Bound, Vector
from engine.solve import Answer, put_value, put_values, solve
from engine.tree import Node, parse_tree

SCALAR_TREE_KINDS = frozenset({"minimax", "alphabeta", "expectiminimax", "expectimax"})
CHANCE_KINDS = frozenset({"expectiminimax", "expectimax"})


@dataclass(frozen=True)
class Misconception:
    """Describe one wrong way to solve a problem, and produce the answer it leads to."""

    code: str
    explanation: str
    kinds: frozenset[str]
    solver: Callable[[dict[str, Any]], Answer]
    needs: Callable[[dict[str, Any]], bool] | None = None

    def applies(self, problem: dict[str, Any]) -> bool:
        """Return whether this misconception can change the answer to ``problem``."""
        if problem.get("kind") not in self.kinds:
            return False
        return self.needs is None or self.needs(problem)

    def answer(self, problem: object) -> Answer:
        """Return the answer a student with this misconception would give to ``problem``.

        Raise :class:`ProblemError` for a malformed problem, or one this variant doesn't
        apply to.
        """
        # The correct solver validates the problem, so errors name the student's input.
        solve(problem)
        assert isinstance(problem, dict)
        if not self.applies(problem):
            raise ProblemError(
                f'field "kind": misconception "{self.code}" applies to '
                f"{', '.join(sorted(self.kinds))} problems"
                + (" with the parameters it changes" if self.needs is not None else "")
                + f', not this {problem.get("kind")!r} problem',
                field="kind",
            )
        answer = self.solver(copy.deepcopy(problem))
        answer["misconception"] = self.code
        answer["engine_version"] = ENGINE_VERSION
        return answer


def _params(problem: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = problem.setdefault("params", {})
    return params


def _with_params(**changes: object) -> Callable[[dict[str, Any]], Answer]:
    def solver(problem: dict[str, Any]) -> Answer:
        _params(problem).update(changes)
        return solve(problem)

    return solver


def _convention_off(name: str) -> Callable[[dict[str, Any]], bool]:
    """Return whether a problem turns the alpha-beta convention ``name`` off (it is on unless
    set false), so following it anyway is a mistake."""

    def needs(problem: dict[str, Any]) -> bool:
        return problem.get("params", {}).get(name) is False

    return needs


def _nodes(raw: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Yield every node object of a (validated) raw tree."""
    yield raw
    for child in raw.get("children", ()):
        yield from _nodes(child)


def _retyped(new_type: str, old_types: frozenset[str]) -> Callable[[dict[str, Any]], Answer]:
    def solver(problem: dict[str, Any]) -> Answer:
        for node in _nodes(problem["tree"]):
            if node.get("type") in old_types:
                node["type"] = new_type
                node.pop("probabilities", None)
        return solve(problem)

    return solver


def _swap_alpha_beta(problem: dict[str, Any]) -> Answer:
    answer = solve(problem)
    for record in [*answer["cutoffs"], *answer["trace"]]:
        if "alpha" in record:
            record["alpha"], record["beta"] = record["beta"], record["alpha"]
    return answer


def _searching_with(
    conventions: Callable[..., AlphaBetaConventions], *extra: Any
) -> Callable[[dict[str, Any]], Answer]:
    """Return a solver searching with ``conventions`` under the problem's own cut rules.

    ``extra`` follows the cut rules among the conventions' fields (e.g. which node errs).
    """
    def solver(problem: dict[str, Any]) -> Answer:
        params = _params(problem)
        return solve(problem, conventions=conventions(
            params.get("cut_on_equality", True), params.get("root_raises_alpha", True), *extra
        ))

    return solver


@dataclass(frozen=True)
class _WrongSideCut(AlphaBetaConventions):
    """Cut with a strict test against the node's own-side bound, the wrong way round."""

    def cuts(self, *, maximising: bool, value: Utility, alpha: Bound, beta: Bound) -> bool:
        """Return whether the student stops: MAX once below beta, MIN once above alpha."""
        if maximising:
            return not isinstance(beta, float) and value < beta
        return not isinstance(alpha, float) and value > alpha


@dataclass(frozen=True)
class _WrongBoundNarrowed(AlphaBetaConventions):
    """Narrow the opponent's bound instead of the node's own at MAX (or at MIN) nodes.

    The cut test stays right; only the bookkeeping after each child is the other player's.
    """

    wrong_at_max: bool = True

    def narrowed(
        self, *, maximising: bool, value: Utility, alpha: Bound, beta: Bound
    ) -> tuple[Bound, Bound]:
        """Return the window the student writes: MAX lowering beta, or MIN raising alpha."""
        wrong = maximising == self.wrong_at_max
        return super().narrowed(
            maximising=maximising != wrong, value=value, alpha=alpha, beta=beta
        )


@dataclass(frozen=True)
class _NeverCut(AlphaBetaConventions):
    """Keep the window but never stop early: every leaf is evaluated."""

    def cuts(self, *, maximising: bool, value: Utility, alpha: Bound, beta: Bound) -> bool:
        """Return False: the student never cuts."""
        return False


@dataclass(frozen=True)
class _SwappedChanceBounds(AlphaBetaConventions):
    """Bound a chance node from the wrong ends: its upper bound with L, its lower with U."""

    def chance_range(
        self, seen: Fraction, rest: Fraction, low: Utility, high: Utility
    ) -> tuple[Fraction, Fraction]:
        """Return the range the student writes: (S + rest·U, S + rest·L)."""
        return seen + rest * high, seen + rest * low


def _has_utility_bounds(problem: dict[str, Any]) -> bool:
    return "utility_bounds" in problem.get("params", {})


def _right_to_left(problem: dict[str, Any]) -> Answer:
    for node in _nodes(problem["tree"]):
        if "children" in node:
            node["children"].reverse()
            if "probabilities" in node:
                node["probabilities"].reverse()
    return solve(problem)


def _unweighted(problem: dict[str, Any]) -> Answer:
    for node in _nodes(problem["tree"]):
        if node.get("type") == "chance":
            node["probabilities"] = [f"1/{len(node['children'])}"] * len(node["children"])
    return solve(problem)


def _depth_off_by_one(problem: dict[str, Any]) -> Answer:
    _params(problem)["depth_limit"] -= 1
    return solve(problem)


def _has_depth_limit(problem: dict[str, Any]) -> bool:
    depth_limit = problem.get("params", {}).get("depth_limit")
    return isinstance(depth_limit, int) and depth_limit >= 1


def _wrong_player_entry(problem: dict[str, Any]) -> Answer:
    players = problem["params"]["players"]
    for node in _nodes(problem["tree"]):
        if node.get("type") == "player":
            node["player"] = players[players.index(node["player"]) - 1]
    return solve(problem)


def _entrywise_max(problem: dict[str, Any]) -> Answer:
    players = problem["params"]["players"]
    tree = parse_tree(problem["tree"], players=players)
    values: dict[str, Vector] = {}
    picks: dict[str, Node] = {}

    def up(node: Node) -> Vector:
        if node.is_leaf:
            assert isinstance(node.value, tuple)
            vector = node.value
        else:
            below = [up(child) for child in node.children]
            if node.type == "chance":
                vector = tuple(
                    as_utility(sum((p * v[i] for p, v in zip(node.probabilities, below,
                                                         strict=True)), Fraction(0)))
                    for i in range(len(players))
                )
            else:
                vector = tuple(max(v[i] for v in below) for i in range(len(players)))
                # The student still moves to the child best for the mover (leftmost on ties).
                own = [v[players.index(node.player)] for v in below]
                picks[node.name] = node.children[own.index(max(own))]
        values[node.name] = vector
        return vector

    answer: Answer = {"kind": "vector"}
    put_value(answer, "value", up(tree.root))
    line, at = [], tree.root
    while at.name in picks:
        at = picks[at.name]
        line.append(at.name)
    answer["move"] = line[0] if line else None
    put_values(answer, "node_values", values)
    answer["principal_variation"] = line
    return answer


def _credit_every_node(problem: dict[str, Any]) -> Answer:
    params = problem["params"]
    for node in params["path"]:
        node["moved_by"] = params["outcome"]
    return solve(problem)


def _decisive(problem: dict[str, Any]) -> bool:
    return bool(problem.get("params", {}).get("outcome") != "draw")


def _final_move_by_ucb1(problem: dict[str, Any]) -> Answer:
    answer = solve(problem)
    answer["final_move"] = answer["selected"]
    return answer


def _other_form(problem: dict[str, Any]) -> Answer:
    params = _params(problem)
    forms = UCB1_FORMS
    params["form"] = forms[1 - forms.index(params.get("form", forms[0]))]
    return solve(problem)


def _unfinished_iteration_played(problem: dict[str, Any]) -> Answer:
    answer = solve(problem)
    depth = _params(problem)["interrupted_depth"]
    answer["interrupted_move"] = answer["iterations"][depth - 1]["move"]
    return answer


def _is_interrupted(problem: dict[str, Any]) -> bool:
    return "interrupted_depth" in _params(problem)


_ALL = (
    Misconception(
        "alpha_beta_swapped",
        "Writes alpha where beta belongs and beta where alpha does.",
        frozenset({"alphabeta"}),
        _swap_alpha_beta,
    ),
    Misconception(
        "no_cut_on_equality",
        "Cuts only when alpha is strictly greater than beta, not when they are equal.",
        frozenset({"alphabeta"}),
        _with_params(cut_on_equality=False),
    ),
    Misconception(
        "cut_on_equality_not_asked",
        "Cuts also when alpha equals beta, where the problem cuts only when alpha is strictly "
        "greater than beta.",
        frozenset({"alphabeta"}),
        _with_params(cut_on_equality=True),
        _convention_off("cut_on_equality"),
    ),
    Misconception(
        "cut_too_early",
        "Cuts as soon as a MIN node's value is above alpha (or a MAX node's below beta): "
        "a strict test on the wrong side.",
        frozenset({"alphabeta"}),
        _searching_with(_WrongSideCut),
    ),
    Misconception(
        "beta_updated_at_max",
        "Updates beta at MAX nodes: a MAX node lowers beta to its best value so far, as a "
        "MIN node would, instead of raising alpha.",
        frozenset({"alphabeta"}),
        _searching_with(_WrongBoundNarrowed, True),
    ),
    Misconception(
        "alpha_updated_at_min",
        "Updates alpha at MIN nodes: a MIN node raises alpha to its best value so far, as a "
        "MAX node would, instead of lowering beta.",
        frozenset({"alphabeta"}),
        _searching_with(_WrongBoundNarrowed, False),
    ),
    Misconception(
        "no_pruning",
        "Never cuts: evaluates every leaf, as plain minimax does, while keeping the windows.",
        frozenset({"alphabeta"}),
        _searching_with(_NeverCut),
    ),
    Misconception(
        "star1_bounds_ignored",
        "Ignores the known bounds on the values: never stops a chance node early (nor any "
        "other node), so every leaf is evaluated.",
        CHANCE_KINDS,
        _searching_with(_NeverCut),
        _has_utility_bounds,
    ),
    Misconception(
        "star1_bounds_swapped",
        "Bounds a chance node from the wrong ends: its upper bound with the least value L "
        "and its lower bound with the greatest value U, so it cuts too early.",
        CHANCE_KINDS,
        _searching_with(_SwappedChanceBounds),
        _has_utility_bounds,
    ),
    Misconception(
        "right_to_left",
        "Searches each node's children right to left instead of left to right.",
        frozenset({"alphabeta"}),
        _right_to_left,
    ),
    Misconception(
        "root_alpha_not_raised",
        "Forgets to narrow the root's window (MAX raises alpha, MIN lowers beta), so every "
        "root child is searched with the full window.",
        frozenset({"alphabeta"}),
        _with_params(root_raises_alpha=False),
    ),
    Misconception(
        "root_alpha_raised_not_asked",
        "Narrows the root's window between its children (MAX raises alpha, MIN lowers "
        "beta), where the problem searches every root child with the original window.",
        frozenset({"alphabeta"}),
        _with_params(root_raises_alpha=True),
        _convention_off("root_raises_alpha"),
    ),
    Misconception(
        "chance_unweighted_average",
        "Averages a chance node's children without weighting them by their probabilities.",
        CHANCE_KINDS,
        _unweighted,
    ),
    Misconception(
        "chance_as_min",
        "Treats chance nodes as MIN nodes, as if luck were an opponent.",
        CHANCE_KINDS,
        _retyped("min", frozenset({"chance"})),
    ),
    Misconception(
        "vector_entrywise_max",
        "Passes up the entry-by-entry maximum of the children's vectors instead of the "
        "vector the mover picks.",
        frozenset({"vector"}),
        _entrywise_max,
    ),
    Misconception(
        "vector_wrong_player_entry",
        "Has each mover maximise the previous player's entry instead of its own.",
        frozenset({"vector"}),
        _wrong_player_entry,
    ),
    Misconception(
        "mcts_credit_every_node",
        "Credits the winner's reward to every node on the path, whoever moved into it.",
        frozenset({"mcts_backprop"}),
        _credit_every_node,
        _decisive,
    ),
    Misconception(
        "final_move_by_ucb1",
        "Plays the child with the best UCB1 score instead of the most visited one.",
        frozenset({"ucb1"}),
        _final_move_by_ucb1,
    ),
    Misconception(
        "other_ucb1_form",
        "Uses the other UCB1 formula: sqrt(c*ln N/n) for c*sqrt(ln N/n) or the reverse.",
        frozenset({"ucb1"}),
        _other_form,
    ),
    Misconception(
        "depth_off_by_one",
        "Counts the root as depth 1, so the depth-limited search stops one ply too early.",
        SCALAR_TREE_KINDS,
        _depth_off_by_one,
        _has_depth_limit,
    ),
    Misconception(
        "largest_leaf_branch",
        "Picks the branch holding the largest leaf, as if every node were MAX's choice.",
        SCALAR_TREE_KINDS,
        _retyped("max", frozenset({"min", "chance"})),
    ),
    Misconception(
        "unfinished_iteration_played",
        "Plays the best move of the iteration that was interrupted, instead of the best move "
        "of the last iteration that completed.",
        frozenset({"iterative_deepening"}),
        _unfinished_iteration_played,
        _is_interrupted,
    ),
)

MISCONCEPTIONS: Mapping[str, Misconception] = MappingProxyType({m.code: m for m in _ALL})
"""Every misconception, by code."""


def get(code: str) -> Misconception:
    """Return the misconception called ``code``; raise :class:`ProblemError` if none is."""
    try:
        return MISCONCEPTIONS[code]
    except KeyError:
        raise ProblemError(
            f'unknown misconception "{code}"; known: {", ".join(MISCONCEPTIONS)}',
            field="misconception",
        ) from None


def applicable(problem: dict[str, Any]) -> list[Misconception]:
    """Return the misconceptions that apply to ``problem``, in registry order."""
    return [m for m in MISCONCEPTIONS.values() if m.applies(problem)]

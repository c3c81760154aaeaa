"""Answer ``gametree/1`` problems: :func:`solve` turns a problem object into an answer object.

The answer keys are exactly those of ``problem-format.md``; numbers follow its rules
(integers as JSON integers, other exact numbers as ``"p/q"`` strings with a ``<key>_float``
sibling, infinite bounds as ``"-inf"``/``"inf"``). Every answer also carries
``engine_version``.

Extensions to ``gametree/1`` (all optional; problems without them are answered per the spec):

* ``minimax``, ``alphabeta``, ``expectiminimax``: ``params.depth_limit`` (int >= 0) stops
  the search that many plies below the root; an inner node reached there is scored by its
  own ``"value"`` field (a heuristic estimate), and ``pruned_leaves`` then counts such
  horizon nodes as leaves. ``params.order``: ``"natural"`` (default, left to right),
  ``"reverse"`` (right to left) or ``"best-first"`` (the perfect ordering: each node tries
  its best child first, by true minimax value).
* ``alphabeta``: ``params.root_raises_alpha`` (true): false searches every root child with
  the full window, as if alpha were not raised at the root. The answer adds
  ``node_bounds`` (name -> ``{"lower", "upper"}`` for nodes alpha-beta left with only a
  bound; such nodes are absent from ``node_values``), ``conventions`` and ``trace`` (every
  event: enter with alpha/beta, leaf, cutoff, exit). A cutoff at a node's last child skips
  nothing and is not listed.
* ``iterative_deepening`` (a kind of its own): alpha-beta on a MAX/MIN ``tree`` at depth
  limits 1, 2, ... ``params.max_depth`` (default: until an iteration reaches only leaves),
  every inner node at the limit scored by its own ``"value"`` estimate. ``params.reuse``:
  ``"root"`` (default: the previous iteration's best move is searched first at the root,
  everything else left to right), ``"none"`` (left to right in every iteration) or
  ``"table"`` (a shared transposition table). ``cut_on_equality`` and ``root_raises_alpha``
  as for ``alphabeta``. The answer: ``iterations`` (one per completed depth: ``depth``,
  ``value``, ``move``, ``principal_variation``, ``evaluations``: leaves and estimates
  scored, ``nodes``: nodes entered below the root), and ``value``, ``move``, ``depth``,
  ``complete`` of the deepest one. With ``params.interrupted_depth`` d (2 <= d <= the
  deepest iteration), ``interrupted_move`` is the move played when the search is stopped
  during iteration d: the best move of iteration d - 1.
* ``expectiminimax``: ``expectimax`` is accepted as the same kind (the tree's node types
  say who moves). ``params.utility_bounds`` ``[L, U]`` (every leaf value within) turns on
  pruning at chance nodes (``*-minimax``); the answer then adds the alpha-beta keys. The
  principal variation stops at the first chance node; at a chance root ``move`` is null.
* ``vector``: chance nodes are allowed (they pass up the expected vector); the answer adds
  ``principal_variation`` and ``paranoid`` (the root player's guaranteed value and move when
  all the others play against it).
* ``ucb1``: ``c`` is required (no default: the exercise must print it); unvisited children
  score ``"inf"``.
* ``mcts_backprop``: each path entry keeps its ``moved_by`` and adds ``reward_float`` when
  the reward is not an integer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from engine import ENGINE_VERSION
from engine.errors import ProblemError, UnknownKindError
from engine.game import Utility
from engine.search.alphabeta import AlphaBetaConventions, alphabeta
from engine.search.bandit import (
    UCB1_FORMS,
    Arm,
    PathNode,
    UcbForm,
    mcts_backprop,
    most_visited,
    select,
    ucb1,
)
from engine.search.common import Order, SearchResult
from engine.search.deepening import REUSES, iterative_deepening
from engine.search.minimax import minimax
from engine.search.multiplayer import Prefer, TieBreak, maxn
from engine.search.ordering import by_value, reversed_order
from engine.search.trace import Bound, Cutoff, Enter, Exit, Leaf, NodeValue, RecordingTracer
from engine.tree import NodeType, Tree, TreeGame, parse_number, parse_tree

K = TypeVar("K", bound=Hashable)

FORMAT = "gametree/1"
Answer = dict[str, Any]

ORDERS = ("natural", "reverse", "best-first")


def solve(problem: object, *, conventions: AlphaBetaConventions | None = None) -> Answer:
    """Return the answer object for ``problem`` (a parsed ``gametree/1`` JSON object).

    ``conventions`` overrides the alpha-beta conventions the problem's params ask for (the
    grader uses it to replay deliberately wrong variants). Raise :class:`ProblemError`
    naming the node or field and the rule for any malformed input.
    """
    if not isinstance(problem, dict):
        raise ProblemError("a problem must be a JSON object", field="problem")
    if problem.get("format", FORMAT) != FORMAT:
        raise ProblemError(
            f'field "format": this engine reads "{FORMAT}", got {problem.get("format")!r}',
            field="format",
        )
    kind = problem.get("kind")
    solver = SOLVERS.get(kind) if isinstance(kind, str) else None
    if solver is None:
        raise UnknownKindError(
            f'field "kind": unknown kind {kind!r}; expected one of {", ".join(SOLVERS)}',
            field="kind",
        )
    params = problem.get("params", {})
    if not isinstance(params, dict):
        raise ProblemError('field "params": must be a JSON object', field="params")
    answer: Answer = {"kind": kind}
    answer.update(solver(problem, params, conventions))
    answer["engine_version"] = ENGINE_VERSION
    return answer


def exact(number: Bound) -> int | str:
    """Return ``number`` as the spec writes it: an int, a ``"p/q"`` string, or ``"±inf"``."""
    if isinstance(number, float):
        if math.isinf(number):
            return "inf" if number > 0 else "-inf"
        raise ValueError(f"inexact number {number!r} in an exact answer")
    if isinstance(number, Fraction) and number.denominator != 1:
        return f"{number.numerator}/{number.denominator}"
    return int(number)


def approx(number: Bound) -> float | str:
    """Return the float nearest ``number`` for a ``_float`` key (``"±inf"`` beyond range)."""
    try:
        value = float(number)
    except OverflowError:
        value = math.inf if number > 0 else -math.inf
    return exact(value) if math.isinf(value) else value


def _spelled(value: NodeValue, spell: Callable[[Bound], int | float | str]) -> Any:
    return [spell(x) for x in value] if isinstance(value, tuple) else spell(value)


def _has_fraction(value: NodeValue) -> bool:
    numbers = value if isinstance(value, tuple) else (value,)
    return any(isinstance(x, Fraction) and x.denominator != 1 for x in numbers)


def put_value(answer: Answer, key: str, value: NodeValue) -> None:
    """Store ``value`` under ``key``, with a ``<key>_float`` sibling when it is a fraction."""
    answer[key] = _spelled(value, exact)
    if _has_fraction(value):
        answer[f"{key}_float"] = _spelled(value, approx)


def put_values(answer: Answer, key: str, values: Mapping[K, NodeValue]) -> None:
    """Store a name -> value map under ``key``, with ``<key>_float`` when any is a fraction."""
    answer[key] = {str(name): _spelled(v, exact) for name, v in values.items()}
    if any(_has_fraction(v) for v in values.values()):
        answer[f"{key}_float"] = {str(name): _spelled(v, approx) for name, v in values.items()}


# --- parameters ---------------------------------------------------------------------------


def _field(name: str) -> str:
    return f'field "params.{name}"'


def _bool_param(params: dict[str, Any], name: str, default: bool) -> bool:
    value = params.get(name, default)
    if not isinstance(value, bool):
        raise ProblemError(f"{_field(name)}: must be true or false", field=f"params.{name}")
    return value


def _int_param(params: dict[str, Any], name: str, *, minimum: int) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ProblemError(
            f"{_field(name)}: must be an integer >= {minimum}, got {value!r}",
            field=f"params.{name}",
        )
    return value


def _tree(problem: dict[str, Any], allowed: set[NodeType], kind: str,
          players: Sequence[str] | None = None) -> Tree:
    if "tree" not in problem:
        raise ProblemError(f'field "tree": a {kind} problem needs a "tree"', field="tree")
    tree = parse_tree(problem["tree"], players=players)
    for node in tree.walk():
        if node.type not in allowed:
            hint = {
                "chance": 'chance nodes need kind "expectiminimax"',
                "max": 'max and min nodes need a scalar problem, not "vector"',
                "min": 'max and min nodes need a scalar problem, not "vector"',
            }.get(node.type, f"{node.type} nodes are not allowed in a {kind} problem")
            raise ProblemError(f'node "{node.name}": {hint}', node=node.name)
    return tree


class _TreeSearch:
    """Hold what every scalar tree search needs: the game, depth limit, estimate and order."""

    def __init__(self, tree: Tree, params: dict[str, Any]) -> None:
        self.tree = tree
        self.game = TreeGame(tree)
        self.depth_limit = _int_param(params, "depth_limit", minimum=0)
        order = params.get("order", "natural")
        if order not in ORDERS:
            raise ProblemError(
                f"{_field('order')}: must be one of {', '.join(ORDERS)}, got {order!r}",
                field="params.order",
            )
        self.order_name: str = order
        self.evaluator = self.game.estimate if self.depth_limit is not None else None

    def order(self) -> Order[str, str] | None:
        """Return the move ordering the params ask for."""
        if self.order_name == "reverse":
            return reversed_order
        if self.order_name == "best-first":
            truth = RecordingTracer()
            self._minimax(truth, None)
            values = {
                name: v for name, v in truth.node_values().items()
                if isinstance(name, str) and not isinstance(v, tuple | float)
            }
            return by_value(self.game, values, "max")
        return None

    def minimax(self) -> Answer:
        """Run minimax (averaging at chance nodes) and return the minimax answer keys."""
        tracer = RecordingTracer()
        result = self._minimax(tracer, self.order())
        return _search_keys(result.value, result.move, result.principal_variation, tracer)

    def _minimax(
        self, tracer: RecordingTracer, order: Order[str, str] | None
    ) -> SearchResult[str]:
        return minimax(
            self.game, self.tree.root.name, max_player="max", depth_limit=self.depth_limit,
            evaluator=self.evaluator,
            order=order, tracer=tracer,
        )

    def alphabeta(
        self, conventions: AlphaBetaConventions, utility_bounds: tuple[Utility, Utility] | None
    ) -> Answer:
        """Run alpha-beta and return the alpha-beta answer keys."""
        tracer = RecordingTracer()
        result = alphabeta(
            self.game, self.tree.root.name, conventions=conventions, max_player="max",
            depth_limit=self.depth_limit,
            evaluator=self.evaluator,
            order=self.order(), tracer=tracer, utility_bounds=utility_bounds,
        )
        answer = _search_keys(result.value, result.move, result.principal_variation, tracer)
        answer["node_bounds"] = {
            str(name): {"lower": exact(lower), "upper": exact(upper)}
            for name, (lower, upper) in tracer.node_bounds().items()
        }
        evaluated = [str(name) for name in tracer.evaluated()]
        answer["evaluated_leaves"] = evaluated
        seen = set(evaluated)
        answer["pruned_leaves"] = [name for name in self.frontier() if name not in seen]
        answer["cutoffs"] = [_cutoff(cut) for cut in tracer.cutoffs()]
        answer["conventions"] = {
            "cut_on_equality": conventions.cut_on_equality,
            "root_raises_alpha": conventions.root_raises_alpha,
        }
        answer["trace"] = [_event(event) for event in tracer.events]
        return answer

    def frontier(self) -> list[str]:
        """Return, in tree order, the nodes where a full search would stop (leaves/horizon)."""
        names: list[str] = []
        stack = [(self.tree.root, 0)]
        while stack:
            node, depth = stack.pop()
            if node.is_leaf or (self.depth_limit is not None and depth >= self.depth_limit):
                names.append(node.name)
            else:
                stack.extend((child, depth + 1) for child in reversed(node.children))
        return names


def _search_keys(
    value: NodeValue, move: str | None, line: Sequence[str], tracer: RecordingTracer
) -> Answer:
    """Return the keys every tree answer has: value, move, node values, principal variation."""
    answer: Answer = {}
    put_value(answer, "value", value)
    answer["move"] = move
    put_values(answer, "node_values", tracer.node_values())
    answer["principal_variation"] = list(line)
    return answer


def _cutoff(cut: Cutoff) -> Answer:
    return {
        "number": cut.number,
        "node": str(cut.state),
        "alpha": exact(cut.alpha),
        "beta": exact(cut.beta),
        "pruned": [str(action) for action in cut.pruned],
    }


def _event(event: Enter | Leaf | Cutoff | Exit) -> Answer:
    if isinstance(event, Enter):
        return {
            "event": "enter", "node": str(event.state), "depth": event.depth,
            "alpha": exact(event.alpha), "beta": exact(event.beta),
        }
    if isinstance(event, Cutoff):
        return {"event": "cutoff", **_cutoff(event)}
    record: Answer = {"event": "leaf" if isinstance(event, Leaf) else "exit",
                      "node": str(event.state)}
    put_value(record, "value", event.value)
    if isinstance(event, Exit) and event.bounds is not None:
        record["lower"], record["upper"] = (exact(b) for b in event.bounds)
    return record


# --- kinds ----------------------------------------------------------------------------------


def _conventions(
    params: dict[str, Any], override: AlphaBetaConventions | None
) -> AlphaBetaConventions:
    cut = _bool_param(params, "cut_on_equality", True)
    root = _bool_param(params, "root_raises_alpha", True)
    return override if override is not None else AlphaBetaConventions(cut, root)


def _solve_minimax(
    problem: dict[str, Any], params: dict[str, Any], _: AlphaBetaConventions | None
) -> Answer:
    search = _TreeSearch(_tree(problem, {"max", "min", "leaf"}, "minimax"), params)
    return search.minimax()


def _solve_alphabeta(
    problem: dict[str, Any], params: dict[str, Any], override: AlphaBetaConventions | None
) -> Answer:
    search = _TreeSearch(_tree(problem, {"max", "min", "leaf"}, "alphabeta"), params)
    return search.alphabeta(_conventions(params, override), None)


def _solve_expectiminimax(
    problem: dict[str, Any], params: dict[str, Any], override: AlphaBetaConventions | None
) -> Answer:
    tree = _tree(problem, {"max", "min", "chance", "leaf"}, "expectiminimax")
    search = _TreeSearch(tree, params)
    if "utility_bounds" not in params:
        return search.minimax()
    raw = params["utility_bounds"]
    if not isinstance(raw, list) or len(raw) != 2:
        raise ProblemError(
            f"{_field('utility_bounds')}: must be [low, high]", field="params.utility_bounds"
        )
    low, high = (parse_number(x, what="a utility bound", field="params.utility_bounds")
                 for x in raw)
    for node in tree.walk():
        value = node.value
        if isinstance(value, int | Fraction) and not low <= value <= high:
            raise ProblemError(
                f'node "{node.name}": its value lies outside params.utility_bounds [{low}, {high}]',
                node=node.name,
            )
    return search.alphabeta(_conventions(params, override), (low, high))


def _players(params: dict[str, Any]) -> list[str]:
    players = params.get("players")
    if (
        not isinstance(players, list) or not players
        or not all(isinstance(p, str) and p for p in players)
    ):
        raise ProblemError(
            f"{_field('players')}: a vector problem needs a list of player names",
            field="params.players",
        )
    if len(set(players)) != len(players):
        raise ProblemError(f"{_field('players')}: player names must be unique",
                           field="params.players")
    return players


def _tie_break(params: dict[str, Any], players: list[str]) -> TieBreak:
    raw = params.get("tie_break", "first")
    if raw == "first":
        return "first"
    if (
        isinstance(raw, dict) and raw.get("player") in players
        and raw.get("prefer") in ("min", "max")
    ):
        return Prefer(raw["player"], raw["prefer"])
    raise ProblemError(
        f'{_field("tie_break")}: must be "first" or {{"player": one of {", ".join(players)}, '
        f'"prefer": "min" or "max"}}, got {raw!r}',
        field="params.tie_break",
    )


def _solve_vector(
    problem: dict[str, Any], params: dict[str, Any], _: AlphaBetaConventions | None
) -> Answer:
    players = _players(params)
    tie_break = _tie_break(params, players)
    tree = _tree(problem, {"player", "chance", "leaf"}, "vector", players)
    game = TreeGame(tree)
    tracer = RecordingTracer()
    result = maxn(game, tree.root.name, players=players, tie_break=tie_break, tracer=tracer)
    answer = _search_keys(result.value, result.move, result.principal_variation, tracer)
    if tree.root.player is not None:
        floor = minimax(game, tree.root.name, max_player=tree.root.player)
        paranoid: Answer = {"player": tree.root.player, "move": floor.move}
        put_value(paranoid, "value", floor.value)
        answer["paranoid"] = paranoid
    return answer


MAX_COUNT = 10**18
"""Largest visit count read: past any real search, and small enough for UCB1's logarithms."""


def _count(raw: object, field: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise ProblemError(f'field "{field}": must be an integer >= 0, got {raw!r}', field=field)
    if raw > MAX_COUNT:
        raise ProblemError(f'field "{field}": must be at most 10^18', field=field)
    return raw


def _named_entries(params: dict[str, Any], key: str, fields: Sequence[str]) -> list[dict[str, Any]]:
    entries = params.get(key)
    if not isinstance(entries, list) or not entries:
        raise ProblemError(f"{_field(key)}: must be a non-empty list", field=f"params.{key}")
    names: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"params.{key}[{index}]"
        if not isinstance(entry, dict) or any(f not in entry for f in fields):
            raise ProblemError(
                f'field "{where}": each entry needs {", ".join(fields)}', field=where
            )
        name = entry["name"]
        if not isinstance(name, str) or not name or name in names:
            raise ProblemError(
                f'field "{where}": names must be unique non-empty strings, got {name!r}',
                field=where,
            )
        names.add(name)
    return entries


MAX_UCB1_C = 1e300
"""The largest exploration constant: its UCB1 scores stay finite floating-point numbers."""


def _solve_ucb1(
    problem: dict[str, Any], params: dict[str, Any], _: AlphaBetaConventions | None
) -> Answer:
    entries = _named_entries(params, "children", ("name", "wins", "visits"))
    arms = []
    for index, entry in enumerate(entries):
        where = f"params.children[{index}]"
        visits = _count(entry["visits"], f"{where}.visits")
        wins = parse_number(entry["wins"], what="wins", field=f"{where}.wins")
        if not 0 <= wins <= visits:
            raise ProblemError(
                f'field "{where}.wins": must lie between 0 and the visits ({visits})',
                field=f"{where}.wins",
            )
        arms.append(Arm(entry["name"], wins, visits))
    if "parent_visits" not in params:
        raise ProblemError(f"{_field('parent_visits')}: required", field="params.parent_visits")
    parent = _count(params["parent_visits"], "params.parent_visits")
    most = max(arm.visits for arm in arms)
    if parent < most or (most and parent < 1):
        raise ProblemError(
            f"{_field('parent_visits')}: must be at least every child's visits ({most})",
            field="params.parent_visits",
        )
    if "c" not in params:
        raise ProblemError(
            f"{_field('c')}: required (the exploration constant the exercise prints)",
            field="params.c",
        )
    c = parse_number(params["c"], what="the exploration constant", field="params.c")
    if c < 0:
        raise ProblemError(f"{_field('c')}: must not be negative", field="params.c")
    if c > MAX_UCB1_C:
        # UCB1 scores are floating point (the spec's tolerance applies to them).
        raise ProblemError(f"{_field('c')}: must be at most {MAX_UCB1_C:.0e}",
                           field="params.c")
    form = params.get("form", UCB1_FORMS[0])
    if form not in UCB1_FORMS:
        raise ProblemError(
            f"{_field('form')}: must be one of {', '.join(UCB1_FORMS)}, got {form!r}",
            field="params.form",
        )
    checked_form: UcbForm = form
    scores = {arm.name: ucb1(arm.wins, arm.visits, parent, c, checked_form) for arm in arms}
    return {
        "scores": {name: "inf" if math.isinf(s) else s for name, s in scores.items()},
        "selected": select(arms, parent, c, checked_form),
        "final_move": most_visited(arms),
        "form": checked_form,
        "c": exact(c),
    }


def _solve_mcts_backprop(
    problem: dict[str, Any], params: dict[str, Any], _: AlphaBetaConventions | None
) -> Answer:
    entries = _named_entries(params, "path", ("name", "moved_by", "visits", "reward"))
    path = []
    for index, entry in enumerate(entries):
        where = f"params.path[{index}]"
        if not isinstance(entry["moved_by"], str) or not entry["moved_by"]:
            raise ProblemError(f'field "{where}.moved_by": must be a player name',
                               field=f"{where}.moved_by")
        path.append(PathNode(
            entry["name"], entry["moved_by"], _count(entry["visits"], f"{where}.visits"),
            parse_number(entry["reward"], what="a reward", field=f"{where}.reward"),
        ))
    outcome = params.get("outcome")
    if not isinstance(outcome, str) or not outcome:
        raise ProblemError(
            f'{_field("outcome")}: must be a player name or "draw"', field="params.outcome"
        )
    draw_reward = parse_number(
        params.get("draw_reward", "1/2"), what="the draw reward", field="params.draw_reward"
    )
    updated = []
    for node in mcts_backprop(path, outcome, draw_reward):
        record: Answer = {"name": node.name, "moved_by": node.moved_by, "visits": node.visits}
        put_value(record, "reward", node.reward)
        updated.append(record)
    return {"path": updated, "outcome": outcome}


def _solve_iterative_deepening(
    problem: dict[str, Any], params: dict[str, Any], override: AlphaBetaConventions | None
) -> Answer:
    tree = _tree(problem, {"max", "min", "leaf"}, "iterative_deepening")
    reuse = params.get("reuse", "root")
    if reuse not in REUSES:
        raise ProblemError(
            f"{_field('reuse')}: must be one of {', '.join(REUSES)}, got {reuse!r}",
            field="params.reuse",
        )
    game = TreeGame(tree)
    result = iterative_deepening(
        game, tree.root.name, evaluator=game.estimate, max_player="max",
        max_depth=_int_param(params, "max_depth", minimum=1),
        conventions=_conventions(params, override), reuse=reuse,
    )
    iterations = []
    for done in result.iterations:
        record: Answer = {"depth": done.depth}
        put_value(record, "value", done.result.value)
        record["move"] = done.result.move
        record["principal_variation"] = list(done.result.principal_variation)
        record["evaluations"] = done.evaluations
        record["nodes"] = done.nodes
        iterations.append(record)
    answer: Answer = {"iterations": iterations}
    put_value(answer, "value", result.value)
    answer.update(move=result.move, depth=result.depth, complete=result.complete)
    interrupted = _int_param(params, "interrupted_depth", minimum=2)
    if interrupted is not None:
        if interrupted > result.depth:
            raise ProblemError(
                f"{_field('interrupted_depth')}: the search completes at depth {result.depth}, "
                f"so it cannot be interrupted during depth {interrupted}",
                field="params.interrupted_depth",
            )
        answer["interrupted_move"] = iterations[interrupted - 2]["move"]
    return answer


Solver = Callable[[dict[str, Any], dict[str, Any], AlphaBetaConventions | None], Answer]

SOLVERS: dict[str, Solver] = {
    "minimax": _solve_minimax,
    "alphabeta": _solve_alphabeta,
    "expectiminimax": _solve_expectiminimax,
    "expectimax": _solve_expectiminimax,
    "vector": _solve_vector,
    "ucb1": _solve_ucb1,
    "mcts_backprop": _solve_mcts_backprop,
    "iterative_deepening": _solve_iterative_deepening,
}
"""Every kind :func:`solve` answers."""

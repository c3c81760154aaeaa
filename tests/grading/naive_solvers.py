"""A second, naive solver for the generated kinds, written from the textbook, not from engine/.

Plain recursion over the problem's JSON, exact fractions: slow, short and obvious, so that
agreeing with the engine's keys on many random problems means something. Each function
returns the kind's answer parts as the prompt defines them, in the key's documented format
(grading/README.md): a decision the prompt lets be any tied best move lists every tied child,
and an alpha-beta cut at a node's last child is an ``"optional": true`` cutoff.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

INF = math.inf


def exact(raw: Any) -> Fraction:
    return Fraction(str(raw)) if not isinstance(raw, int) else Fraction(raw)


def is_leaf(node: dict[str, Any]) -> bool:
    return not node.get("children")


def value_of(node: dict[str, Any]) -> Fraction:
    """Return the minimax / expectiminimax value of ``node`` (MAX, MIN and chance nodes)."""
    if is_leaf(node):
        return exact(node["value"])
    values = [value_of(child) for child in node["children"]]
    if node["type"] == "max":
        return max(values)
    if node["type"] == "min":
        return min(values)
    weighted = zip(node["probabilities"], values, strict=True)
    return sum((exact(p) * v for p, v in weighted), Fraction(0))


def all_values(node: dict[str, Any], into: dict[str, Fraction] | None = None
               ) -> dict[str, Fraction]:
    """Return every node's value by name."""
    into = {} if into is None else into
    into[node["name"]] = value_of(node)
    for child in node.get("children", []):
        all_values(child, into)
    return into


def best_child(node: dict[str, Any], score: Any, maximising: bool) -> str:
    """Return the leftmost child with the best ``score``."""
    scores = [score(child) for child in node["children"]]
    best = max(scores) if maximising else min(scores)
    return node["children"][scores.index(best)]["name"]


def equally_good(node: dict[str, Any], maximising: bool) -> Any:
    """Return the decision a prompt accepting any tied best move keys: a name, or every tied one.

    By the children's exact values (a list only when two or more share the best).
    """
    scores = [value_of(child) for child in node["children"]]
    best = max(scores) if maximising else min(scores)
    tied = [child["name"] for child, s in zip(node["children"], scores, strict=True) if s == best]
    return tied if len(tied) > 1 else tied[0]


def minimax_parts(problem: dict[str, Any], ties_accepted: bool = False) -> dict[str, Any]:
    """Return value, move and asked node values of a minimax or chance problem.

    Minimax asks for the leftmost best child; chance kinds accept any tied best move.
    """
    tree = problem["tree"]
    values = all_values(tree)
    maximising = tree["type"] == "max"
    parts: dict[str, Any] = {
        "value": values[tree["name"]],
        "move": (equally_good(tree, maximising) if ties_accepted
                 else best_child(tree, value_of, maximising)),
    }
    asked = problem.get("ask", {}).get("node_values")
    if asked:
        parts["node_values"] = {name: values[name] for name in asked}
    return parts


class AlphaBeta:
    """Run alpha-beta left to right (or in a given order), recording what it does."""

    def __init__(self, cut_on_equality: bool, root_raises_alpha: bool,
                 best_first: bool = False) -> None:
        self.cut_on_equality = cut_on_equality
        self.root_raises_alpha = root_raises_alpha
        self.best_first = best_first
        self.evaluated: list[str] = []
        self.cutoffs: list[dict[str, Any]] = []
        self.windows: dict[str, dict[str, Any]] = {}
        self.cut_bounds: dict[str, dict[str, Any]] = {}

    def ordered(self, node: dict[str, Any]) -> list[dict[str, Any]]:
        children = list(node["children"])
        if self.best_first:
            children.sort(key=value_of, reverse=node["type"] == "max")  # stable: ties keep order
        return children

    def search(self, node: dict[str, Any], alpha: Any, beta: Any, root: bool = False) -> Any:
        self.windows[node["name"]] = {"alpha": alpha, "beta": beta}
        if is_leaf(node):
            self.evaluated.append(node["name"])
            return exact(node["value"])
        maximising = node["type"] == "max"
        best: Any = -INF if maximising else INF
        children = self.ordered(node)
        for index, child in enumerate(children):
            if root and not self.root_raises_alpha:
                value = self.search(child, -INF, INF)
            else:
                value = self.search(child, alpha, beta)
            if maximising:
                best = max(best, value)
                alpha = max(alpha, best)
            else:
                best = min(best, value)
                beta = min(beta, best)
            stop = alpha >= beta if self.cut_on_equality else alpha > beta
            if stop:
                rest = children[index + 1:]
                # A cut at the last child skips nothing: the prompt accepts it listed (with
                # no children) or not, so the key marks it optional.
                self.cutoffs.append({"node": node["name"], "pruned": [c["name"] for c in rest]}
                                    if rest else
                                    {"node": node["name"], "pruned": [], "optional": True})
                if rest:
                    # What is skipped could be anything: the best so far bounds one side.
                    self.cut_bounds[node["name"]] = (
                        {"lower": best, "upper": INF} if maximising
                        else {"lower": -INF, "upper": best})
                break
        return best


def leaves_under(node: dict[str, Any]) -> list[str]:
    if is_leaf(node):
        return [node["name"]]
    return [leaf for child in node["children"] for leaf in leaves_under(child)]


def find(node: dict[str, Any], name: str) -> dict[str, Any] | None:
    if node["name"] == name:
        return node
    for child in node.get("children", []):
        found = find(child, name)
        if found is not None:
            return found
    return None


def written(value: Any) -> Any:
    if isinstance(value, float):
        return "inf" if value > 0 else "-inf"
    return value


def alphabeta_parts(problem: dict[str, Any]) -> dict[str, Any]:
    """Return the alpha-beta kind's parts: value, move, counts, pruned leaves, cutoffs, windows."""
    tree, params = problem["tree"], problem["params"]
    search = AlphaBeta(params["cut_on_equality"], params["root_raises_alpha"])
    value = search.search(tree, -INF, INF, root=True)
    skipping = [cut for cut in search.cutoffs if not cut.get("optional")]
    pruned = [leaf for cut in skipping for child in cut["pruned"]
              for leaf in leaves_under(find(tree, child) or {})]
    parts: dict[str, Any] = {
        "value": value,
        "move": equally_good(tree, tree["type"] == "max"),
        "evaluated_count": len(search.evaluated),
        "pruned_leaves": pruned,
        "cutoffs": search.cutoffs,
    }
    asked = problem["ask"]["windows"]
    if asked:
        parts["windows"] = {
            name: None if name not in search.windows else
            {k: written(v) for k, v in search.windows[name].items()} for name in asked}
    if "cut_bound" in problem["ask"]:
        parts["cut_bound"] = {node: {k: written(v) for k, v in search.cut_bounds[node].items()}
                              for node in problem["ask"]["cut_bound"]}
    return parts


def move_ordering_parts(problem: dict[str, Any]) -> dict[str, Any]:
    """Return the value and the leaves alpha-beta evaluates in natural and best-first order."""
    tree, params = problem["tree"], problem["params"]
    runs = []
    for order in params["orders"]:
        search = AlphaBeta(params["cut_on_equality"], params["root_raises_alpha"],
                           best_first=order == "best-first")
        search.search(tree, -INF, INF, root=True)
        runs.append(search.evaluated)
    return {"value": value_of(tree), "evaluated_first": runs[0], "evaluated_second": runs[1]}


def maxn(node: dict[str, Any], players: list[str]) -> list[Fraction]:
    """Return the max^n vector of ``node``: each mover keeps the leftmost child best for it."""
    if is_leaf(node):
        return [exact(v) for v in node["value"]]
    entry = players.index(node["player"])
    vectors = [maxn(child, players) for child in node["children"]]
    return max(vectors, key=lambda vector: vector[entry])  # max keeps the first of equals


def paranoid(node: dict[str, Any], players: list[str], me: int) -> Fraction:
    """Return what player ``me`` can guarantee when everyone else plays against it."""
    if is_leaf(node):
        return exact(node["value"][me])
    values = [paranoid(child, players, me) for child in node["children"]]
    return max(values) if players.index(node["player"]) == me else min(values)


def vector_parts(problem: dict[str, Any]) -> dict[str, Any]:
    tree, players = problem["tree"], problem["params"]["players"]
    entry = players.index(tree["player"])
    return {"value": maxn(tree, players),
            "move": best_child(tree, lambda c: maxn(c, players)[entry], True)}


def price_war_parts(problem: dict[str, Any]) -> dict[str, Any]:
    tree, players = problem["tree"], problem["params"]["players"]
    return {
        "floor_value": paranoid(tree, players, 0),
        "floor_move": best_child(tree, lambda c: paranoid(c, players, 0), True),
        "rational_value": maxn(tree, players)[0],
        "rational_move": best_child(tree, lambda c: maxn(c, players)[0], True),
    }


def ucb1_parts(problem: dict[str, Any]) -> dict[str, Any]:
    params = problem["params"]
    c, total = float(exact(params["c"])), params["parent_visits"]
    scores = {}
    for child in params["children"]:
        n = child["visits"]
        explore = (math.sqrt(c * math.log(total) / n) if params["form"] == "sqrt(c*ln N/n)"
                   else c * math.sqrt(math.log(total) / n))
        scores[child["name"]] = child["wins"] / n + explore
    children = params["children"]
    return {
        "scores": scores,
        "selected": max(scores, key=lambda name: scores[name]),
        "final_move": max(children, key=lambda child: child["visits"])["name"],
    }


def mcts_backprop_parts(problem: dict[str, Any]) -> dict[str, Any]:
    params = problem["params"]
    winner, draw = params["outcome"], exact(params["draw_reward"])
    path = {}
    for step in params["path"]:
        credit = draw if winner == "draw" else Fraction(int(step["moved_by"] == winner))
        path[step["name"]] = {"visits": step["visits"] + 1,
                              "reward": exact(step["reward"]) + credit}
    return {"path": path}


def limited_search(node: dict[str, Any], limit: int, first: str | None, params: dict[str, Any],
                   evaluated: list[str]) -> str:
    """Return the root move of alpha-beta ``limit`` plies deep, ``first`` tried first at the root.

    Nodes at the limit are scored by their ``value`` (a leaf's value or an inner node's
    static evaluation); ``evaluated`` collects their names. A root child replaces the best
    move only when strictly better.
    """
    moves: list[str] = []

    def search(node: dict[str, Any], depth: int, alpha: Any, beta: Any) -> Any:
        if is_leaf(node) or depth == limit:
            evaluated.append(node["name"])
            return exact(node["value"])
        maximising = node["type"] == "max"
        children = list(node["children"])
        if depth == 0 and first is not None:
            children.sort(key=lambda child: child["name"] != first)  # stable: others keep order
        best: Any = -INF if maximising else INF
        for child in children:
            if depth == 0 and not params["root_raises_alpha"]:
                value = search(child, 1, -INF, INF)
            else:
                value = search(child, depth + 1, alpha, beta)
            if maximising and value > best or not maximising and value < best:
                best = value
                if depth == 0:
                    moves.append(child["name"])
            if maximising:
                alpha = max(alpha, best)
            else:
                beta = min(beta, best)
            if alpha >= beta if params["cut_on_equality"] else alpha > beta:
                break
        return best

    search(node, 0, -INF, INF)
    return moves[-1]


def iterative_deepening_parts(problem: dict[str, Any]) -> dict[str, Any]:
    params = problem["params"]
    moves: list[str] = []
    counts, plain = [], []
    for limit in range(1, params["max_depth"] + 1):
        evaluated: list[str] = []
        moves.append(limited_search(problem["tree"], limit, moves[-1] if moves else None,
                                    params, evaluated))
        counts.append(len(evaluated))
        unordered: list[str] = []
        limited_search(problem["tree"], limit, None, params, unordered)
        plain.append(len(unordered))
    return {"best_moves": moves, "evaluations": counts,
            "interrupted_move": moves[params["interrupted_depth"] - 2],
            "ordering_saving": plain[-1] - counts[-1]}


def tree_size_parts(problem: dict[str, Any]) -> dict[str, Any]:
    b = problem["branching"]
    plies = problem["plies"] if "plies" in problem else 2 * problem["moves"]
    first = 0 if problem["params"]["node_counting"] == "root_included" else 1
    return {
        **({} if "plies" in problem else {"plies": plies}),
        "leaves": b ** plies,
        "nodes": sum(b ** d for d in range(first, plies + 1)),
        "perfect_leaves": b ** math.ceil(plies / 2) + b ** (plies // 2) - 1,
    }


LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def ttt_winner(board: str) -> str | None:
    for a, b, c in LINES:
        if board[a] != " " and board[a] == board[b] == board[c]:
            return board[a]
    return None


class TicTacToe:
    """Count the positions minimax and alpha-beta enter below a tic-tac-toe position."""

    def __init__(self, cut_on_equality: bool, root_raises_alpha: bool) -> None:
        self.cut_on_equality, self.root_raises_alpha = cut_on_equality, root_raises_alpha
        self.entered = 0

    def value(self, board: str, to_move: str, alpha: Any = None, beta: Any = None,
              root: bool = False) -> int:
        """Return X's value (+1 win, 0 draw, -1 loss); prune when given a window."""
        winner = ttt_winner(board)
        if winner or " " not in board:
            return 0 if winner is None else (1 if winner == "X" else -1)
        maximising = to_move == "X"
        best = -2 if maximising else 2
        for square in [i for i, s in enumerate(board) if s == " "]:
            self.entered += 1
            child = board[:square] + to_move + board[square + 1:]
            other = "O" if to_move == "X" else "X"
            if alpha is None:
                value = self.value(child, other)
            elif root and not self.root_raises_alpha:
                value = self.value(child, other, -INF, INF)
            else:
                value = self.value(child, other, alpha, beta)
            best = max(best, value) if maximising else min(best, value)
            if alpha is not None:
                if maximising:
                    alpha = max(alpha, best)
                else:
                    beta = min(beta, best)
                stop = alpha >= beta if self.cut_on_equality else alpha > beta
                if stop:
                    break
        return best


def tictactoe_parts(problem: dict[str, Any]) -> dict[str, Any]:
    params, board, to_move = problem["params"], problem["board"], problem["to_move"]
    assert params["order"] == "index" and params["node_counting"] == "root_excluded"
    full = TicTacToe(params["cut_on_equality"], params["root_raises_alpha"])
    value = full.value(board, to_move)
    pruned = TicTacToe(params["cut_on_equality"], params["root_raises_alpha"])
    pruned.value(board, to_move, -INF, INF, root=True)
    other = "O" if to_move == "X" else "X"
    squares = [i for i, s in enumerate(board) if s == " "]
    child_values = [TicTacToe(True, True).value(board[:i] + to_move + board[i + 1:], other)
                    for i in squares]
    best = max(child_values) if to_move == "X" else min(child_values)
    tied = [str(square) for square, v in zip(squares, child_values, strict=True) if v == best]
    parts: dict[str, Any] = {}
    if problem.get("ask", {"search": True})["search"]:
        parts.update({"move": tied if len(tied) > 1 else tied[0], "value": value,
                      "nodes_minimax": full.entered, "nodes_alphabeta": pruned.entered})
    if problem.get("ask", {"census": False})["census"]:
        seen: set[str] = set()
        parts.update({"games": ttt_games(board, to_move, seen), "positions": len(seen)})
    return parts


def ttt_games(board: str, to_move: str, seen: set[str]) -> int:
    """Return the move sequences from ``board`` to a finished game; add every board to ``seen``."""
    seen.add(board)
    if ttt_winner(board) or " " not in board:
        return 1
    other = "O" if to_move == "X" else "X"
    return sum(ttt_games(board[:i] + to_move + board[i + 1:], other, seen)
               for i, s in enumerate(board) if s == " ")


def star1_parts(problem: dict[str, Any]) -> dict[str, Any]:
    """Return Star1's parts: a root over chance nodes of leaves, every leaf in [L, U].

    Each chance node is searched with the root's current window; after each outcome but the
    last it stops when its upper bound S + (1 - P)·U reaches alpha, or else its lower bound
    S + (1 - P)·L reaches beta, and returns that bound.
    """
    tree, params = problem["tree"], problem["params"]
    low, high = (exact(bound) for bound in params["utility_bounds"])
    equality = params["cut_on_equality"]
    maximising = tree["type"] == "max"
    alpha, beta = -INF, INF
    evaluated: list[str] = []
    cutoffs: list[dict[str, Any]] = []
    pruned: list[str] = []
    chance_values: dict[str, Fraction] = {}
    for chance in tree["children"]:
        outcomes = list(zip(chance["probabilities"], chance["children"], strict=True))
        total, seen = Fraction(0), Fraction(0)
        returned = None
        for index, (p, leaf) in enumerate(outcomes):
            evaluated.append(leaf["name"])
            total += exact(p) * exact(leaf["value"])
            seen += exact(p)
            rest = outcomes[index + 1:]
            if not rest:
                break
            upper, lower = total + (1 - seen) * high, total + (1 - seen) * low
            if upper <= alpha if equality else upper < alpha:
                returned = upper
            elif lower >= beta if equality else lower > beta:
                returned = lower
            if returned is not None:
                cutoffs.append({"node": chance["name"], "pruned": [c["name"] for _, c in rest]})
                pruned += [c["name"] for _, c in rest]
                break
        chance_values[chance["name"]] = total if returned is None else returned
        if maximising:
            alpha = max(alpha, chance_values[chance["name"]])
        else:
            beta = min(beta, chance_values[chance["name"]])
    return {"value": value_of(tree), "evaluated_count": len(evaluated),
            "pruned_leaves": pruned, "cutoffs": cutoffs, "chance_values": chance_values}


def transposition_table_parts(problem: dict[str, Any]) -> dict[str, Any]:
    """Return the root value, the final table by position and the asked node's probe.

    Fail-soft alpha-beta; an inner node probes its position first (exact: return it; a
    bound narrows the window and returns its value if that closes it), and a node that
    searched its children stores, always replacing, a flag read against the window it
    searched with.
    """
    equality = problem["params"]["cut_on_equality"]
    table: dict[str, dict[str, Any]] = {}
    probed: dict[str, tuple[dict[str, Any] | None, Fraction]] = {}

    def closed(alpha: Any, beta: Any) -> bool:
        return alpha >= beta if equality else alpha > beta

    def search(node: dict[str, Any], alpha: Any, beta: Any) -> Fraction:
        if is_leaf(node):
            return exact(node["value"])
        found = table.get(node["position"])
        if found is not None:
            if found["flag"] == "lower":
                alpha = max(alpha, found["value"])
            elif found["flag"] == "upper":
                beta = min(beta, found["value"])
            if found["flag"] == "exact" or closed(alpha, beta):
                probed.setdefault(node["name"], (found, found["value"]))
                return found["value"]
        maximising = node["type"] == "max"
        best: Any = -INF if maximising else INF
        low, high = alpha, beta
        for child in node["children"]:
            value = search(child, low, high)
            best = max(best, value) if maximising else min(best, value)
            if maximising:
                low = max(low, best)
            else:
                high = min(high, best)
            if closed(low, high):
                break
        flag = "upper" if best <= alpha else "lower" if best >= beta else "exact"
        table[node["position"]] = {"flag": flag, "value": best}
        probed.setdefault(node["name"], (found, best))
        return best

    parts: dict[str, Any] = {
        "value": search(problem["tree"], -INF, INF),
        "entries": {position: table.get(position) for position in problem["ask"]["entries"]},
        "probe": {}, "probe_value": None,
    }
    for node in problem["ask"]["probe"]:
        found, returned = probed.get(node, (None, None))
        parts["probe"] = {node: found}
        parts["probe_value"] = returned
    return parts


NAIVE_SOLVERS = {
    "minimax": minimax_parts,
    "expectimax": lambda problem: minimax_parts(problem, ties_accepted=True),
    "expectiminimax": lambda problem: minimax_parts(problem, ties_accepted=True),
    "alphabeta": alphabeta_parts,
    "move_ordering": move_ordering_parts,
    "vector": vector_parts,
    "price_war": price_war_parts,
    "ucb1": ucb1_parts,
    "mcts_backprop": mcts_backprop_parts,
    "tree_size": tree_size_parts,
    "iterative_deepening": iterative_deepening_parts,
    "tictactoe_position": tictactoe_parts,
    "star1": star1_parts,
    "transposition_table": transposition_table_parts,
}
"""Kind → its naive solver (problem → answer parts); kinds not listed have none."""

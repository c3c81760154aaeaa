"""``vector``: the payoff vector backed up to the root (max^n) and the decision, with a tie rule."""

from __future__ import annotations

import random
import string
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from exercises.kinds import register
from exercises.kinds.authored import TreeRules, is_authored
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import solve_problem
from exercises.kinds.params import BoolParam, IntParam, JsonParam, ParamError
from exercises.kinds.trees import (
    ROOT,
    child_name,
    draw_values,
    leaves,
    moves_in_turn,
    other_node_values,
    walk,
)

PLAYER_NAMES = ("A", "B", "C", "D")


def node_name(parent: str, index: int, depth: int) -> str:
    """Return the name of a drawn tree's ``index``-th (0-based) child ``depth`` plies below
    the root: a, b, c below it, then as the other kinds' trees go on (a1, a1a).

    The scalar kinds' A, B, C would be the default players' names too, and a prompt saying
    "player B picks" beside a node B reads two ways.
    """
    return string.ascii_lowercase[index] if depth == 1 else child_name(parent, index, depth)


def drawn_node_names(depth: int, branching: int) -> set[str]:
    """Return every name :func:`node_name` can give a node of a tree ``depth`` plies deep
    whose nodes have at most ``branching`` children."""
    names: set[str] = set()
    level = [ROOT]
    for ply in range(1, depth + 1):
        level = [node_name(parent, index, ply) for parent in level for index in range(branching)]
        names.update(level)
    return names


MAX_PLAYER_NAME = 20
"""The longest player name: names are printed in the prompt and on every node."""


def clean_tie_break(name: str, value: Any) -> Any:
    """Return a tie rule: "first", or {"player": a player's name, "prefer": "min" | "max"}.

    Whether the player is in the game is checked with the other params (``check_params``).
    """
    if value == "first":
        return value
    if (
        isinstance(value, dict)
        and set(value) == {"player", "prefer"}
        and isinstance(value["player"], str)
        and value["prefer"] in ("min", "max")
    ):
        return {"player": value["player"], "prefer": value["prefer"]}
    raise ParamError(
        name, f'must be "first" or {{"player": a player\'s name, "prefer": "min" or "max"}}, '
        f"got {value!r}",
    )


def clean_player_names(name: str, value: Any) -> Any:
    """Return null, or 2-4 distinct player names (non-empty, at most 20 characters)."""
    if value is None:
        return None
    if not isinstance(value, list) or not 2 <= len(value) <= 4:
        raise ParamError(name, f"must be null or a list of 2 to 4 player names, got {value!r}")
    names = []
    for index, raw in enumerate(value):
        if not isinstance(raw, str) or not raw.strip() or len(raw.strip()) > MAX_PLAYER_NAME:
            raise ParamError(f"{name}[{index}]", f"must be a name of 1 to {MAX_PLAYER_NAME} "
                             f"characters, got {raw!r}")
        if raw.strip() in names:
            raise ParamError(f"{name}[{index}]", f"{raw.strip()!r} is listed twice")
        names.append(raw.strip())
    return names


def players_of(params: dict[str, Any]) -> list[str]:
    """Return the game's players in turn order: ``player_names``, else the first
    ``players`` of A, B, C, D."""
    return list(params.get("player_names") or PLAYER_NAMES[: params["players"]])


class VectorKind(Kind):
    """Ask for the max^n payoff vector at the root and the root player's decision."""

    name = "vector"
    title = gettext_lazy("Vector payoffs (max^n)")
    description = gettext_lazy(
        "Several players, each maximising their own payoff: back up payoff vectors."
    )
    params = (
        IntParam("players", 3,
                 gettext_noop("number of players (A, B, C, D), moving in turn"),
                 minimum=2, maximum=4),
        IntParam("depth", 2, gettext_noop("plies below the root"), minimum=1, maximum=3),
        IntParam("min_branching", 2, gettext_noop("fewest children of an inner node"),
                 minimum=2, maximum=3),
        IntParam("max_branching", 3, gettext_noop("most children of an inner node"),
                 minimum=2, maximum=3),
        IntParam("min_value", 0, gettext_noop("smallest payoff"), minimum=-9, maximum=99),
        IntParam("max_value", 9, gettext_noop("largest payoff"), minimum=-9, maximum=99),
        JsonParam(
            "player_names", None,
            gettext_noop(
                "the players' names in turn order, e.g. as an instructor's tree names them "
                "(null: A, B, C, D); as many as players. Drawn trees name their nodes root, "
                "a, b, c, a1, a1a, ..., and no player may share one of those names"
            ),
            validator=clean_player_names,
            json_schema={"oneOf": [
                {"type": "null"},
                {"type": "array", "minItems": 2, "maxItems": 4, "uniqueItems": True,
                 "items": {"type": "string", "minLength": 1, "maxLength": MAX_PLAYER_NAME}},
            ]},
        ),
        JsonParam(
            "tie_break", "first",
            gettext_noop(
                'how a mover breaks ties: "first" (leftmost), or {"player": P, "prefer": '
                '"min"|"max"} to prefer the tied child with the smallest or largest payoff for P'
            ),
            convention=True, validator=clean_tie_break,
            json_schema={"oneOf": [
                {"type": "string", "enum": ["first"]},
                {"type": "object", "properties": {
                    "player": {"type": "string", "description": "one of the game's players"},
                    "prefer": {"type": "string", "enum": ["min", "max"]},
                }, "required": ["player", "prefer"]},
            ]},
        ),
        BoolParam(
            "allow_ties", False,
            gettext_noop(
                'allow ties for a mover; with a tie_break other than "first" at least one tie the '
                "rule decides is required instead"
            ),
        ),
    )
    choice_part = "value"
    tree_rules = TreeRules(("player",), vector=True, players_of=players_of)

    def check_params(self, params: dict[str, Any]) -> None:
        """Check ranges, the player names against their count, and that the tie rule names
        a player of the game."""
        if params["min_branching"] > params["max_branching"]:
            raise ParamError("max_branching", "must be at least min_branching")
        if params["min_value"] >= params["max_value"]:
            raise ParamError("max_value", "must be greater than min_value")
        names = params.get("player_names")
        if names is not None and len(names) != params["players"]:
            raise ParamError("player_names", f"lists {len(names)} names, but players is "
                             f"{params['players']}")
        if names is not None:
            self._check_names_apart(names, params)
        rule = params["tie_break"]
        if isinstance(rule, dict) and rule["player"] not in players_of(params):
            raise ParamError("tie_break", f"player {rule['player']} is not in this game "
                             f"({', '.join(players_of(params))})")

    @staticmethod
    def _check_names_apart(names: list[str], params: dict[str, Any]) -> None:
        """Refuse a player named as a drawn tree's node may be: the prompt would read two
        ways (an instructor's own tree keeps the names it gives)."""
        if is_authored(params):
            return
        taken = drawn_node_names(params["depth"], params["max_branching"]) | {ROOT}
        for index, name in enumerate(names):
            if name in taken:
                raise ParamError(f"player_names[{index}]", f"{name!r} is also the name of a "
                                 "node of the drawn trees (root, a, b, c, a1, a1a, ...): "
                                 "players and nodes need names of their own")

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the root vector and the decision."""
        return [
            AnswerPart("value", PartType.VECTOR, gettext_lazy("payoff vector at the root"),
                       options={"length": len(players_of(params))}),
            AnswerPart("move", PartType.NAME, gettext_lazy("decision at the root (child name)")),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a tree whose levels cycle through the players, with payoff vector leaves."""
        players = players_of(params)

        def build(name: str, depth: int) -> dict[str, Any]:
            if depth == params["depth"]:
                return {"name": name}
            count = rng.randint(params["min_branching"], params["max_branching"])
            return {
                "name": name, "type": "player", "player": players[depth % len(players)],
                "children": [build(node_name(name, i, depth + 1), depth + 1)
                             for i in range(count)],
            }

        def draw() -> dict[str, Any]:
            tree = build(ROOT, 0)
            self.fill_values(rng, params, tree)
            return tree

        tree = self.tree_for(rng, params, draw)
        return {
            "format": "gametree/1",
            "kind": "vector",
            "tree": tree,
            "params": {"players": players, "tie_break": params["tie_break"]},
        }

    def fill_values(self, rng: random.Random, params: dict[str, Any], tree: dict[str, Any]
                    ) -> None:
        """Give every leaf a payoff vector, one value per player from min_value..max_value."""
        for leaf in leaves(tree):
            leaf["value"] = draw_values(
                rng, params["players"], params["min_value"], params["max_value"],
                distinct=False,
            )

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's max^n answer."""
        return solve_problem(problem)

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the root vector and the decision."""
        return {"value": answer["value"], "move": answer["move"]}

    def near_misses(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """Return the other nodes' payoff vectors, the root's children first."""
        return other_node_values(problem, answer)

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Count movers' ties: none wanted, unless allowed or the stated rule must decide one."""
        players = problem["params"]["players"]
        ties = 0
        for node in walk(problem["tree"]):
            if "children" not in node:
                continue
            entry = players.index(node["player"])
            values = [answer["node_values"][child["name"]][entry] for child in node["children"]]
            ties += values.count(max(values)) > 1
        if problem["params"]["tie_break"] != "first":
            return [] if ties else ["no tie for the stated tie rule to decide"]
        if ties and not params["allow_ties"]:
            return [f"{ties} movers face a tie"]
        return []

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the players, the tie rule, and ``in_turn: False`` for a tree whose players
        do not move in their listed order from the root (only an instructor's can be so)."""
        players = problem["params"]["players"]
        in_turn = moves_in_turn(problem["tree"], players, lambda node: node["player"])
        return {"players": players, "tie_break": params["tie_break"],
                **({} if in_turn else {"in_turn": False})}

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language."""
        # Trees played in turn store no flag, so random trees' args stay as they were stored.
        if args.get("in_turn", True):
            text = _(
                "Players %(players)s move in turn; each leaf lists the payoffs in that order, "
                "and every player maximises their own payoff."
            ) % {"players": ", ".join(args["players"])}
        else:
            text = _(
                "Each inner node is marked with the player who moves there, not always in the "
                "order %(players)s; each leaf lists the payoffs in that order, and every player "
                "maximises their own payoff."
            ) % {"players": ", ".join(args["players"])}
        rule = args["tie_break"]
        if rule == "first":
            text += " " + _("A mover facing a tie picks the leftmost of the tied children.")
        elif rule["prefer"] == "min":
            text += " " + _(
                "A mover facing a tie picks the tied child that is worst for player "
                "%(player)s; if several are equally bad for %(player)s, the leftmost of them."
            ) % {"player": rule["player"]}
        else:
            text += " " + _(
                "A mover facing a tie picks the tied child that is best for player "
                "%(player)s; if several are equally good for %(player)s, the leftmost of them."
            ) % {"player": rule["player"]}
        text += " " + _("Give the payoff vector backed up to the root and the root's decision.")
        return text


register(VectorKind())

"""``transposition_table``: what alpha-beta stores in, and later reads from, a transposition table.

The tree draws some positions twice (a transposition: two move orders reaching the same
position). Every inner node carries its position key in ``"position"``; nodes with the same
key have the same type and the same subtree. Entries are asked by position, as rows
``{flag, value}`` whose ``flag`` is one of exact, lower, upper; the probe is asked at one
later node drawing an already searched position: what entry it finds and what the node
returns. The rules are those of :mod:`engine.search.transposition`, all printed in the prompt.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from engine.errors import EngineError
from engine.search.transposition import (
    Mistake,
    TabledSearch,
    positions_of,
    tabled_alphabeta,
)
from engine.search.ttable import Entry, Flag
from engine.tree import parse_tree
from exercises.kinds import register
from exercises.kinds.base import AnswerPart, Kind, PartType
from exercises.kinds.engine_bridge import EngineFailure
from exercises.kinds.params import BoolParam, IntParam, ParamError
from exercises.kinds.trees import (
    ROOT,
    TREE_PARAMS,
    alternating_layers,
    check_tree_params,
    child_name,
    draw_tree,
    leaves,
    walk,
)

FLAGS = tuple(flag.value for flag in Flag)
"""The flags an entry row may name: exact, lower, upper."""

MISTAKE_CODES = {
    "tt_every_entry_exact": Mistake.ALL_EXACT,
    "tt_bounds_swapped": Mistake.SWAPPED_BOUNDS,
}
"""Misconception code → the wrong table rule the engine replays for it."""


def _number(value: Any) -> Any:
    """Return an exact value as JSON: an int, or a fraction string like "7/2"."""
    return value if isinstance(value, int) else str(Fraction(value))


def _row(entry: Entry[str] | None) -> dict[str, Any] | None:
    return None if entry is None else {"flag": entry.flag.value, "value": _number(entry.value)}


def as_answer(search: TabledSearch) -> dict[str, Any]:
    """Return a finished search as JSON: value, final table, probes and stores in order."""
    return {
        "value": _number(search.value),
        "entries": {position: _row(entry) for position, entry in search.table.items()},
        "probes": [
            {"node": probe.node, "position": probe.position, "found": _row(probe.found),
             "outcome": probe.outcome.value, "value": _number(probe.value)}
            for probe in search.probes
        ],
        "stores": [
            {"node": node, "position": position, **(_row(entry) or {})}
            for node, position, entry in search.stores
        ],
        "evaluated_leaves": search.evaluated,
    }


def search_problem(problem: dict[str, Any], mistake: Mistake | None = None) -> dict[str, Any]:
    """Return the engine's tabled alpha-beta of ``problem`` (under ``mistake``) as JSON."""
    try:
        tree = problem["tree"]
        search = tabled_alphabeta(
            parse_tree(tree), positions_of(tree),
            cut_on_equality=problem["params"]["cut_on_equality"], mistake=mistake,
        )
    except EngineError as error:
        raise EngineFailure(f"the engine rejected a generated transposition_table problem: "
                            f"{error}") from error
    return as_answer(search)


def _renamed(node: dict[str, Any], name: str, depth: int) -> dict[str, Any]:
    """Return a copy of ``node``'s subtree rooted at ``name`` (at ``depth``), names redrawn."""
    copied = {key: value for key, value in node.items() if key != "children"}
    copied["name"] = name
    if "children" in node:
        copied["children"] = [
            _renamed(child, child_name(name, index, depth + 1), depth + 1)
            for index, child in enumerate(node["children"])
        ]
    return copied


def transpose(rng: random.Random, tree: dict[str, Any], repeats: int) -> dict[str, Any]:
    """Give ``tree`` up to ``repeats`` transpositions and every inner node a position key.

    A transposition redraws a later node two or more plies down as a copy of an earlier node
    at the same depth under another parent (the same position reached by another move
    order), never with more leaves than the node it replaces.
    Keys are ``p1``, ``p2``… in order of first appearance.
    """
    depth_of = {ROOT: 0}
    parent_of: dict[str, dict[str, Any]] = {}
    for node in walk(tree):
        for child in node.get("children", []):
            depth_of[child["name"]], parent_of[child["name"]] = depth_of[node["name"]] + 1, node
    for node in walk(tree):
        if "children" in node:
            node["position"] = node["name"]
    for _attempt in range(repeats):
        inner = [node for node in walk(tree) if "children" in node and depth_of[node["name"]] >= 2]
        drawn = Counter(node["position"] for node in inner)
        # Redrawing a node inside a repeated position would make its copies differ.
        inside = {
            node["name"] for node in inner
            if any(drawn[ancestor["position"]] > 1 for ancestor in _ancestors(node, parent_of))
        }
        pairs = [
            (source, target) for i, source in enumerate(inner) for target in inner[i + 1:]
            if depth_of[source["name"]] == depth_of[target["name"]]
            and parent_of[source["name"]] is not parent_of[target["name"]]
            and source["position"] != target["position"]
            and drawn[target["position"]] == 1 and target["name"] not in inside
            and len(leaves(source)) <= len(leaves(target))  # max_leaves still holds
        ]
        if not pairs:
            break
        source, target = pairs[rng.randint(0, len(pairs) - 1)]
        parent = parent_of[target["name"]]
        index = parent["children"].index(target)
        copied = _renamed(source, target["name"], depth_of[target["name"]])
        parent["children"][index] = copied
        for node in walk(copied):
            for child in node.get("children", []):
                depth_of[child["name"]], parent_of[child["name"]] = depth_of[node["name"]] + 1, node
    keys: dict[str, str] = {}
    for node in walk(tree):
        if "children" in node:
            node["position"] = keys.setdefault(node["position"], f"p{len(keys) + 1}")
    return tree


def _ancestors(node: dict[str, Any], parent_of: dict[str, dict[str, Any]]
               ) -> list[dict[str, Any]]:
    """Return the nodes above ``node``, its parent first."""
    found = []
    while node["name"] in parent_of:
        node = parent_of[node["name"]]
        found.append(node)
    return found


def _distinct(params: dict[str, Any]) -> dict[str, Any]:
    """Return ``params`` as the shared tree helpers read them: leaf values all different."""
    return {**params, "allow_ties": False}


def _asked_probe(answer: dict[str, Any]) -> dict[str, Any] | None:
    """Return the probe asked about: the last that found a bound, else the last that found
    an entry (None if none did); a bound is the harder case to follow."""
    hits = [probe for probe in answer["probes"] if probe["found"] is not None]
    bounds = [probe for probe in hits if probe["found"]["flag"] != Flag.EXACT.value]
    return (bounds or hits or [None])[-1]


class TranspositionTableKind(Kind):
    """Ask which entries alpha-beta stores (flag and value) and what a later probe does."""

    name = "transposition_table"
    title = gettext_lazy("Transposition table")
    description = gettext_lazy(
        "Alpha-beta with a transposition table over a tree with repeated positions: stored "
        "entries (flag and value) and what a later probe returns."
    )
    params = (
        # No allow_ties: leaves differ, but a repeated position repeats its leaves' values.
        *(param for param in TREE_PARAMS if param.name not in ("depth", "allow_ties")),
        IntParam("depth", 3, gettext_noop("plies below the root (the root is at depth 0)"),
                 minimum=3, maximum=4),
        IntParam("repeats", 2,
                 gettext_noop("positions the tree draws a second time (transpositions)"),
                 minimum=1, maximum=4),
        # Not a convention changeable after generation: the cut rule decides which later
        # node's probe is asked (under the other rule it may never be reached).
        BoolParam("cut_on_equality", True,
                  gettext_noop("cut when alpha >= beta (true) or only when alpha > beta")),
        IntParam("min_hits", 1, gettext_noop("fewest probes that find an entry"),
                 minimum=1, maximum=4),
        IntParam("min_bound_entries", 1,
                 gettext_noop("fewest lower or upper bound entries in the final table"),
                 minimum=0, maximum=4),
    )

    def check_params(self, params: dict[str, Any]) -> None:
        """Check the tree params, and that the transpositions asked for fit such a tree."""
        check_tree_params(_distinct(params))
        if params["depth"] == 3 and params["min_hits"] > params["repeats"]:
            raise ParamError(
                "min_hits",
                f"in a depth-3 tree each of the {params['repeats']} repeated positions is one "
                f"more node to probe, so min_hits {params['min_hits']} cannot be met; raise "
                "repeats or depth, or lower min_hits",
            )

    def open_parts(self, params: dict[str, Any]) -> list[AnswerPart]:
        """Return the root's value, the final table's entries and the asked probe."""
        flag_choices = {"flag": FLAGS}
        return [
            AnswerPart("value", PartType.NUMBER, gettext_lazy("minimax value of the root")),
            AnswerPart(
                "entries", PartType.RECORDS,
                gettext_lazy("table entry of each position when the search ends (flag and "
                             "value; none if never stored)"),
                points=Fraction(3), fields=("flag", "value"),
                options={"choices": flag_choices},
            ),
            AnswerPart(
                "probe", PartType.RECORDS,
                gettext_lazy("entry the named node's probe finds (flag and value)"),
                fields=("flag", "value"), options={"choices": flag_choices},
            ),
            AnswerPart(
                "probe_value", PartType.NUMBER,
                gettext_lazy("value the named node returns to its parent"),
            ),
        ]

    def generate(self, rng: random.Random, params: dict[str, Any]) -> dict[str, Any]:
        """Draw a MAX-rooted tree with transpositions; the probe asked is chosen once solved."""
        tree = draw_tree(rng, _distinct(params), alternating_layers("max", params["depth"]))
        tree = transpose(rng, tree, params["repeats"])
        problem: dict[str, Any] = {
            "format": "gametree/1",
            "kind": "transposition_table",
            "tree": tree,
            "params": {"cut_on_equality": params["cut_on_equality"]},
        }
        probe = _asked_probe(search_problem(problem))
        positions = list(dict.fromkeys(
            node["position"] for node in walk(tree) if "children" in node
        ))
        problem["ask"] = {"entries": positions, "probe": [probe["node"]] if probe else []}
        return problem

    def solve(self, problem: dict[str, Any]) -> dict[str, Any]:
        """Return the engine's search: value, final table, every probe and store in order."""
        return search_problem(problem)

    def misconception_answers(self, problem: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Return the searches replayed under each wrong table rule."""
        answers = {}
        for code, mistake in MISTAKE_CODES.items():
            answer = search_problem(problem, mistake)
            answer["misconception"] = code
            answers[code] = answer
        return answers

    def project(self, problem: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """Return the value, every asked position's entry (null: none) and the asked probe."""
        key: dict[str, Any] = {
            "value": answer["value"],
            "entries": {
                position: answer["entries"].get(position) for position in problem["ask"]["entries"]
            },
        }
        asked = problem["ask"]["probe"]
        probe = next((p for p in answer["probes"] if asked and p["node"] == asked[0]), None)
        key["probe"] = {asked[0]: probe["found"]} if asked and probe else {}
        if asked and probe is None:
            key["probe"] = {asked[0]: None}  # this search never reached the node
        key["probe_value"] = probe["value"] if probe else None
        return key

    def quality_issues(
        self, problem: dict[str, Any], answer: dict[str, Any], params: dict[str, Any]
    ) -> list[str]:
        """Require enough probes that find an entry and enough bound entries in the table."""
        issues = []
        hits = sum(probe["found"] is not None for probe in answer["probes"])
        if hits < params["min_hits"]:
            issues.append(f"{hits} probes find an entry, fewer than min_hits")
        bounds = sum(row["flag"] != "exact" for row in answer["entries"].values())
        if bounds < params["min_bound_entries"]:
            issues.append(f"{bounds} bound entries, fewer than min_bound_entries")
        if not problem["ask"]["probe"]:
            issues.append("no probe finds an entry")
        return issues

    def prompt_args(self, problem: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Return the cut rule, the positions asked and the node whose probe is asked."""
        return {
            "cut_on_equality": params["cut_on_equality"],
            "probe": problem["ask"]["probe"][0] if problem["ask"]["probe"] else None,
        }

    def render_prompt(self, args: dict[str, Any]) -> str:
        """Return the prompt in the active language, every table rule stated."""
        text = _(
            "Run alpha-beta with a transposition table on this tree; MAX moves at the root. "
            "Each inner node is labelled with its position (in brackets): nodes with the same "
            "position are the same position reached by different moves, with the same subtree."
        )
        text += " " + _(
            "Children are searched left to right, starting from the window (-inf, inf); every "
            "node, the root included, narrows its window after each child (MAX raises alpha, "
            "MIN lowers beta). A node returns the best value among the children it searched, "
            "even when a cutoff stopped it (fail-soft)."
        )
        text += " " + (
            _("A node stops searching its children (a cutoff) as soon as alpha >= beta, "
              "equality included.")
            if args["cut_on_equality"]
            else _("A node stops searching its children (a cutoff) only when alpha > beta, not "
                   "on equality.")
        )
        text += " " + _(
            "Probe: when an inner node is entered, the table is looked up by its position "
            "before any child is searched. An exact entry is returned at once. A lower bound "
            "raises alpha to its value if that is higher, an upper bound lowers beta to its "
            "value if that is lower; if the window is then closed (by the cutoff rule above) "
            "the entry's value is returned at once, "
            "otherwise the node searches its children with the narrowed window. A node settled "
            "by the table stores nothing."
        )
        text += " " + _(
            "Store: after a node has searched its children it stores an entry for its "
            "position, always replacing an older one. With (alpha, beta) the window it searched "
            "its children with (narrowed by the table, if it was) and v its value: v <= alpha "
            "stores an upper bound v, v >= beta a lower bound v, otherwise the exact value v. "
            "Leaves are evaluated, never stored or looked up. Every search goes down to the "
            "leaves, so the depth of an entry never matters."
        )
        text += " " + _(
            "Give the root's value and, for each position, the entry the table holds when the "
            "search ends (flag: exact, lower or upper, and value), or none if it was never "
            "stored."
        )
        if args["probe"]:
            text += " " + _(
                "For node %(node)s, give the entry its probe finds and the value the node "
                "returns to its parent."
            ) % {"node": args["probe"]}
        return text


register(TranspositionTableKind())

"""max^n with tie-break rules, the paranoid model, and rational competitors."""

from __future__ import annotations

from typing import Any

import pytest

from engine.search.multiplayer import Prefer, maxn, paranoid, rational_competitor
from engine.search.trace import RecordingTracer
from engine.tree import TreeGame, parse_tree


def leaf(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "value": value}


def player(who: str, name: str, *children: dict[str, Any]) -> dict[str, Any]:
    return {"type": "player", "player": who, "name": name, "children": list(children)}


THREE = player(
    "A", "root",
    player("B", "l",
           player("C", "l1", leaf("l1a", [1, 2, 6]), leaf("l1b", [4, 2, 3])),
           player("C", "l2", leaf("l2a", [6, 1, 2]), leaf("l2b", [7, 4, 1]))),
    player("B", "r",
           player("C", "r1", leaf("r1a", [5, 4, 5]), leaf("r1b", [2, 5, 4])),
           player("C", "r2", leaf("r2a", [5, 2, 4]), leaf("r2b", [7, 7, 1]))),
)


def test_maxn_each_mover_maximises_its_own_entry() -> None:
    game = TreeGame(parse_tree(THREE, players=["A", "B", "C"]))
    tracer = RecordingTracer()
    result = maxn(game, "root", players=["A", "B", "C"], tracer=tracer)
    # C picks l1a (6), l2a (2), r1a (5), r2a (4); B picks l1 (2 vs 1), r1 (4 vs 2); A picks r.
    assert (result.value, result.move) == ((5, 4, 5), "r")
    assert result.principal_variation == ("r", "r1", "r1a")
    values = tracer.node_values()
    assert values["l"] == (1, 2, 6) and values["r2"] == (5, 2, 4)


TIED = player(
    "A", "root",
    player("B", "x", leaf("x1", [1, 5, 9]), leaf("x2", [7, 5, 0]), leaf("x3", [3, 5, 2])),
    leaf("y", [4, 0, 0]),
)


@pytest.mark.parametrize(
    ("tie_break", "x_value", "move"),
    [
        ("first", (1, 5, 9), "y"),
        (Prefer("A", "max"), (7, 5, 0), "x"),
        (Prefer("A", "min"), (1, 5, 9), "y"),
        (Prefer("C", "min"), (7, 5, 0), "x"),
        (Prefer("C", "max"), (1, 5, 9), "y"),
    ],
)
def test_tie_breaks(tie_break: Any, x_value: tuple[int, ...], move: str) -> None:
    game = TreeGame(parse_tree(TIED, players=["A", "B", "C"]))
    tracer = RecordingTracer()
    result = maxn(game, "root", players=["A", "B", "C"], tie_break=tie_break, tracer=tracer)
    assert tracer.node_values()["x"] == x_value
    assert result.move == move


def test_tie_break_player_must_play() -> None:
    game = TreeGame(parse_tree(TIED, players=["A", "B", "C"]))
    with pytest.raises(ValueError, match="Z"):
        maxn(game, "root", players=["A", "B", "C"], tie_break=Prefer("Z", "min"))


def test_paranoid_assumes_a_coalition_against_the_player() -> None:
    game = TreeGame(parse_tree(THREE, players=["A", "B", "C"]))
    floor = paranoid(game, "root")
    # Against B and C together, A gets min over l = 1 and min over r = 2.
    assert (floor.value, floor.move) == (2, "r")
    assert paranoid(game, "l", player="A").value == 1


GENERAL_SUM = player(
    "me", "root",
    player("you", "safe", leaf("s1", [3, 3]), leaf("s2", [2, 1])),
    player("you", "bold", leaf("b1", [8, 5]), leaf("b2", [0, 4])),
)


def test_rational_competitor_beats_the_guaranteed_floor() -> None:
    game = TreeGame(parse_tree(GENERAL_SUM, players=["me", "you"]))
    analysis = rational_competitor(game, "root", players=("me", "you"))
    # A rational "you" answers bold with b1 (5 > 4), so "me" can expect 8 by going bold;
    # the floor, assuming "you" hurts "me", is safe's min 2 against bold's 0.
    assert analysis.player == "me"
    assert (analysis.rational.value, analysis.rational.move) == ((8, 5), "bold")
    assert (analysis.guaranteed.value, analysis.guaranteed.move) == (2, "safe")


def test_maxn_averages_chance_vectors() -> None:
    tree = player(
        "A", "root",
        {"type": "chance", "name": "c", "probabilities": ["1/4", "3/4"],
         "children": [leaf("c1", [4, 0]), leaf("c2", [0, 4])]},
        leaf("d", [1, 1]),
    )
    game = TreeGame(parse_tree(tree, players=["A", "B"]))
    result = maxn(game, "root", players=["A", "B"])
    assert (result.value, result.move) == ((1, 3), "c")

"""Instructor-authored trees: ``params.tree`` and ``randomize_values`` per kind, the library."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation

from exercises.generation import generate_item
from exercises.kinds import get_kind
from exercises.kinds.authored import MAX_NODES
from exercises.kinds.params import ParamError
from exercises.kinds.trees import leaves, walk
from exercises.tree_library import LIBRARY, library_trees
from exercises.tree_text import parse_tree_text
from tests.conftest import REPO
from tests.exercises.test_prompts import LANGS, sentences

SEEDS = [f"student-{n}" for n in range(25)]
TREE_KINDS = ("minimax", "alphabeta", "move_ordering", "expectimax", "expectiminimax", "vector",
              "star1")
AUTHORED = {
    "minimax": "MAX(A: MIN(3, 5), B: MIN(2, 9))",
    "alphabeta": "MAX(A: MIN(3, 12, 8), B: MIN(2, 4, 6), C: MIN(14, 5, 2))",
    "move_ordering": "MAX(MIN(3, 5, 1), MIN(2, 9, 4), MIN(7, 8, 9))",
    "expectimax": "MAX(CHANCE([1/3] 3, [2/3] 6), CHANCE(2, 9))",
    "expectiminimax": "MAX(CHANCE(MIN(3, 4), MIN(1, 9)), CHANCE([1/4] MIN(2, 8), [3/4] 5))",
    "vector": "A(B((1, 2, 3), (3, 2, 1)), B((0, 4, 0), (1, 1, 1)))",
    "star1": "MAX(CHANCE([1/3] 6, [2/3] 8), CHANCE([1/2] 1, [1/4] 4, [1/4] 7), CHANCE(3, 9))",
}
SEED_DATA = json.loads((REPO / "tests/data/seed-worked-examples.json").read_text())
SEED_TREES = [seed for seed in SEED_DATA["trees"] if "tree" in seed.get("problem", {})]


def shape(tree: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Return every node's name, type, player and probabilities: all but the leaf values."""
    return [(n["name"], n.get("type"), n.get("player"), tuple(n.get("probabilities", ())))
            for n in walk(tree)]


@pytest.mark.parametrize("kind_name", TREE_KINDS)
def test_every_tree_kind_poses_the_instructors_tree_to_every_student(kind_name: str) -> None:
    kind = get_kind(kind_name)
    params = kind.clean_params({"tree": AUTHORED[kind_name]})
    tree = parse_tree_text(AUTHORED[kind_name])
    keys = []
    for seed in SEEDS:
        item = generate_item(kind_name, params, seed)
        assert item.problem["tree"] == tree
        keys.append(json.dumps({k: v for k, v in item.answer_key.items()
                                if k in ("value", "move", "evaluated_first", "cutoffs")}))
    assert len(set(keys)) == 1  # the asked nodes may differ; the tree's answer does not


@pytest.mark.parametrize("kind_name", TREE_KINDS)
def test_randomized_values_keep_the_shape_and_meet_the_kinds_quality_rules(
    kind_name: str,
) -> None:
    kind = get_kind(kind_name)
    params = kind.clean_params({"tree": AUTHORED[kind_name], "randomize_values": True})
    authored = parse_tree_text(AUTHORED[kind_name])
    drawn = set()
    for seed in SEEDS:
        item = generate_item(kind_name, params, seed)
        tree = item.problem["tree"]
        assert shape(tree) == shape(authored)
        values = [leaf["value"] for leaf in leaves(tree)]
        flat = [v for value in values for v in (value if isinstance(value, list) else [value])]
        low, high = ((params["lower_bound"], params["upper_bound"]) if kind_name == "star1"
                     else (params["min_value"], params["max_value"]))
        assert all(low <= v <= high for v in flat)
        if kind_name in ("minimax", "alphabeta", "move_ordering"):
            assert len(set(values)) == len(values)  # no ties unless allow_ties
        assert kind.quality_issues(item.problem, kind.solve(item.problem), params) == []
        drawn.add(json.dumps(values))
    assert len(drawn) > len(SEEDS) // 2  # students really get different values


def test_randomized_alphabeta_trees_cut_at_least_min_cuts_times() -> None:
    kind = get_kind("alphabeta")
    params = kind.clean_params({"tree": AUTHORED["alphabeta"], "randomize_values": True,
                                "min_cuts": 2})
    for seed in SEEDS:
        item = generate_item("alphabeta", params, seed)
        assert len([c for c in item.answer_key["cutoffs"] if c["pruned"]]) >= 2


def test_a_fixed_tree_may_tie_and_the_prompt_states_the_tie_rule() -> None:
    params = get_kind("minimax").clean_params({"tree": "MAX(MIN(3, 5), MIN(3, 9))"})
    item = generate_item("minimax", params, "s")
    assert item.answer_key["move"] == "A"
    assert "leftmost best child" in get_kind("minimax").render_prompt(item.prompt["args"])


def test_a_fixed_star1_tree_whose_misconceptions_agree_is_posed_as_written() -> None:
    # Ignoring the bounds and taking them from the wrong ends answer alike here: a random
    # tree is redrawn for that, but no param could loosen it for the instructor's own.
    params = get_kind("star1").clean_params({
        "tree": "MAX(CHANCE(4, 4), CHANCE(10, 10), CHANCE(3, 3))", "min_cuts": 0})
    item = generate_item("star1", params, "s")
    assert item.answer_key["value"] == 10 and item.trace["misconceptions"]


@pytest.mark.parametrize("kind_name", ["expectiminimax", "expectimax"])
def test_a_chance_rooted_tree_asks_no_decision_and_its_key_earns_full_marks(
    kind_name: str,
) -> None:
    # No one chooses at a chance root: a decision part would have no key (the engine's move
    # is null) and no answer could earn its points.
    from grading.grader import grade_answer
    from tests.grading.test_grader import context_for

    kind = get_kind(kind_name)
    tree = "CHANCE(MAX(1, 5), MAX(3, 4))"
    params = kind.clean_params({"tree": tree, "ask_nodes": 0})
    assert [part.name for part in kind.answer_parts(params)] == ["value"]
    item = generate_item(kind_name, params, "s")
    assert item.answer_key == {"value": "9/2"}
    prompt = kind.render_prompt(item.prompt["args"])
    assert "decision" not in prompt and "equally good" not in prompt
    context = context_for(kind_name, item.problem, tree=tree, ask_nodes=0)
    result = grade_answer(context, {"value": "9/2"})
    assert result.raw_score == result.max_score
    with pytest.raises(ParamError) as refused:
        kind.clean_params({"tree": tree, "contrast_minimax": True})
    assert refused.value.field == "contrast_minimax"


def test_a_vector_tree_may_name_its_players() -> None:
    # The spec's trees name each mover from the problem's players: an instructor's tree
    # with its own names poses them, in the order player_names gives.
    kind = get_kind("vector")
    tree = {"name": "R", "type": "player", "player": "Ann", "children": [
        {"name": "X", "type": "player", "player": "Bo", "children": [
            {"name": "X1", "value": [1, 5]}, {"name": "X2", "value": [4, 2]}]},
        {"name": "Y", "type": "player", "player": "Bo", "children": [
            {"name": "Y1", "value": [3, 3]}, {"name": "Y2", "value": [2, 3]}]}]}
    params = kind.clean_params({"tree": tree, "players": 2, "player_names": ["Ann", "Bo"],
                                "tie_break": {"player": "Ann", "prefer": "max"}})
    item = generate_item("vector", params, "s")
    assert item.problem["params"]["players"] == ["Ann", "Bo"]
    # Bo ties at Y (3 = 3) and, preferring what is best for Ann, backs up (3, 3).
    assert item.answer_key == {"value": [3, 3], "move": "Y"}
    prompt = kind.render_prompt(item.prompt["args"])
    assert "Players Ann, Bo move in turn" in prompt and "best for player Ann" in prompt
    with pytest.raises(ParamError) as refused:
        kind.clean_params({"players": 2, "player_names": ["Ann", "Bo", "Cy"]})
    assert refused.value.field == "player_names"
    random_named = generate_item("vector", kind.clean_params(
        {"players": 2, "player_names": ["Ann", "Bo"]}), "s")
    assert random_named.problem["tree"]["player"] == "Ann"
    for raw, field in (
        # The tree is checked first: its leaves then have a payoff too few.
        ({"player_names": ["Ann", "Bo", "Cy"]}, "tree.children[0].children[0]"),
        ({"player_names": ["Ann", "Ann"]}, "player_names[1]"),
        ({"player_names": ["Ann", ""]}, "player_names[1]"),
        ({"player_names": ["Ann", "Bo"], "tie_break": {"player": "A", "prefer": "min"}},
         "tie_break"),
        ({}, "tree"),  # named players, yet the game's are A and B
    ):
        with pytest.raises(ParamError) as refused:
            kind.clean_params({"tree": tree, "players": 2, **raw})
        assert refused.value.field.startswith(field), (raw, refused.value)



def test_random_vector_trees_name_no_node_as_a_player() -> None:
    # "Player B picks" beside a node named B reads two ways: drawn trees name their nodes
    # a, b, a1, a1a, and a player may not take one of those names.
    kind = get_kind("vector")
    item = generate_item("vector", kind.clean_params({"players": 3, "depth": 3}), "s")
    names = {node["name"] for node in walk(item.problem["tree"])}
    assert {"a", "a1", "a1a"} <= names and not names & {"A", "B", "C"}
    with pytest.raises(ParamError) as refused:
        kind.clean_params({"players": 2, "depth": 2, "player_names": ["Ann", "b2"]})
    assert refused.value.field == "player_names[1]"
    assert "also the name of a node" in refused.value.message
    # Deeper than the trees go, or an instructor's own tree: the name is free.
    kind.clean_params({"players": 2, "depth": 1, "player_names": ["Ann", "b2"]})
    own = {"name": "R", "type": "player", "player": "a", "children": [
        {"name": "x", "value": [1, 2]}, {"name": "y", "value": [2, 1]}]}
    kind.clean_params({"tree": own, "players": 2, "player_names": ["a", "b"]})

def test_a_min_rooted_tree_is_announced_as_min() -> None:
    params = get_kind("alphabeta").clean_params({"tree": "MIN(MAX(3, 5), MAX(2, 9))",
                                                 "min_cuts": 0})
    item = generate_item("alphabeta", params, "s")
    assert "MIN moves at the root" in get_kind("alphabeta").render_prompt(item.prompt["args"])


def authored_prompts(kind_name: str, tree: str, **params: Any) -> dict[str, str]:
    """Return the prompt posing ``tree`` under ``kind_name`` in each language, all translated."""
    kind = get_kind(kind_name)
    item = generate_item(kind_name, kind.clean_params({"tree": tree, **params}), "s")
    texts = {}
    for lang in LANGS:
        with translation.override(lang):
            texts[lang] = kind.render_prompt(item.prompt["args"])
    english = sentences(texts["en"])
    assert not any(english & sentences(texts[lang]) for lang in LANGS if lang != "en")
    return texts


@pytest.mark.parametrize(("tree", "root"), [
    ("MAX(CHANCE(MIN(3, 4), MIN(1, 9)), CHANCE([1/4] MIN(2, 8), [3/4] 5))",
     "MAX moves at the root"),
    ("MIN(CHANCE(3, 4), CHANCE(1, 9))", "MIN moves at the root"),
    ("CHANCE(MIN(3, 4), MAX(1, 9))", "the root is a chance node"),
])
def test_an_expectiminimax_tree_is_announced_by_its_own_root(tree: str, root: str) -> None:
    text = authored_prompts("expectiminimax", tree)["en"]
    assert root in text and "marked with who moves there" in text
    # A random tree's layers (MAX, chance, MIN, chance) are not promised for the author's.
    assert "each move" not in text and "never moves" not in text


@pytest.mark.parametrize(("tree", "alternate"), [
    ("MAX(A: MIN(3, 5), B: MIN(2, 9))", True),
    ("MIN(MAX(MIN(1, 2), 3), 4)", True),
    ("MAX(MAX(3, 5), MIN(2, 9))", False),
    ("MIN(MAX(MAX(1, 2), 3), 4)", False),
])
def test_minimax_says_the_players_alternate_only_where_they_do(tree: str,
                                                               alternate: bool) -> None:
    texts = authored_prompts("minimax", tree, allow_ties=True, ask_nodes=0)
    assert ("and the players alternate" in texts["en"]) is alternate
    assert ("do not always alternate: each inner node is marked MAX or MIN" in texts["en"]
            ) is not alternate
    assert texts["en"].startswith(f"{parse_tree_text(tree)['type'].upper()} moves at the root")


@pytest.mark.parametrize(("tree", "players", "in_turn"), [
    ("A(B((1, 2, 3), (3, 2, 1)), B((0, 4, 0), (1, 1, 1)))", 3, True),
    ("A(B(A((1, 2), (3, 4)), (5, 6)), B((0, 4), (1, 1)))", 2, True),
    ("A(C((1, 2, 3), (3, 2, 1)), B((0, 4, 0), (1, 1, 1)))", 3, False),
    ("B(A((1, 2), (3, 4)), A((0, 4), (2, 1)))", 2, False),
])
def test_vector_says_the_players_move_in_turn_only_where_they_do(tree: str, players: int,
                                                                 in_turn: bool) -> None:
    text = authored_prompts("vector", tree, players=players, allow_ties=True)["en"]
    assert ("move in turn" in text) is in_turn
    assert ("Each inner node is marked with the player who moves there" in text) is not in_turn


def test_the_authored_root_is_never_an_asked_node() -> None:
    params = get_kind("minimax").clean_params({"tree": "top: MAX(MIN(3, 5), MIN(2, 9))",
                                               "ask_nodes": 8})
    for seed in SEEDS[:5]:
        assert "top" not in generate_item("minimax", params, seed).problem["ask"]["node_values"]


def big_tree(count: int) -> dict[str, Any]:
    return {"name": "r", "type": "max",
            "children": [{"name": f"n{i}", "value": i} for i in range(count - 1)]}


@pytest.mark.parametrize(
    ("kind_name", "tree", "field", "rule"),
    [
        ("minimax", "MAX(A: CHANCE(1, 2), B: MIN(2, 9))", "tree.children[0]",
         "have only max, min inner nodes"),
        ("expectimax", "MAX(CHANCE([1/3] 3, [1/3] 6), CHANCE(2, 9))", "tree.children[0]",
         "sum exactly to 1"),
        ("expectimax", "MAX(MIN(3, 6), CHANCE(2, 9))", "tree.children[0]",
         "have only max, chance inner nodes"),
        ("vector", "A(B((1, 2), (3, 2, 1)), B((0, 0, 0), (1, 1, 1)))",
         "tree.children[0].children[0]", "needs 3 values"),
        ("vector", "A(E((1, 2, 3)), B((0, 0, 0)))", "tree.children[0]", '"player" must be'),
        ("minimax", {"name": "r", "type": "max", "children": [
            {"name": "x", "value": 1}, {"name": "x", "value": 2}]}, "tree.children[1]",
         "unique"),
        ("minimax", "MAX(MIN(3, (1, 2)), 4)", "tree.children[0].children[1]", "one number"),
        ("minimax", big_tree(MAX_NODES + 1), "tree", f"at most {MAX_NODES} nodes"),
        ("minimax", "5", "tree", "root must have children"),
        ("star1", "MAX(CHANCE(3, 17), CHANCE(2, 4))", "tree.children[0].children[1]",
         "outside the bounds L = 0, U = 10"),
        ("star1", "MAX(CHANCE(3, MIN(1, 2)), CHANCE(2, 4))", "tree.children[0].children[1]",
         "outcomes are leaves"),
        ("star1", "MAX(CHANCE(3, 7), 5)", "tree.children[1]", "is a chance node"),
        ("star1", "CHANCE(CHANCE(3, 7), 5)", "tree", "root is a MAX or MIN node"),
        ("minimax", "MAX(MIN(3, 5), MIN(2, 9)", "tree", "column 25"),
        ("minimax", 7, "tree", "gametree/1 tree"),
        ("minimax", {"name": "r", "type": "max", "children": "A"}, "tree.children",
         "must be a list"),
        # Names the answer page could not read back: it separates names with these.
        ("alphabeta", {"name": "r", "type": "max", "children": [
            {"name": " B ", "value": 1}, {"name": "C", "value": 2}]}, "tree.children[0]",
         "may not hold spaces"),
        ("alphabeta", 'MAX("a 1": 3, B: 4)', "tree.children[0]", "may not hold spaces"),
        ("minimax", {"name": "r", "type": "max", "children": [
            {"name": "D:x", "value": 1}, {"name": "C,", "value": 2}]}, "tree.children[0]",
         "colons"),
        ("minimax", "MAX(A: 3, B: " + "9" * 4400 + ")", "tree", "at most 64 characters"),
        ("minimax", {"name": "r", "type": "max", "children": [
            {"name": "a", "value": 10**40}, {"name": "b", "value": 1}]}, "tree.children[0]",
         "at most about 30 digits"),
        # Refused before it is built: building 10**100000000 held the process for minutes.
        ("minimax", {"name": "r", "type": "max", "children": [
            {"name": "a", "value": "1e100000000"}, {"name": "b", "value": 1}]},
         "tree.children[0]", "at most about 30 digits"),
        ("expectimax", {"name": "r", "type": "max", "children": [
            {"name": "c", "type": "chance", "probabilities": ["1E-100000000", "1"],
             "children": [{"name": "a", "value": 1}, {"name": "b", "value": 2}]},
            {"name": "d", "value": 0}]}, "tree.children[0]", "at most about 30 digits"),
        ("expectimax", {"name": "r", "type": "max", "children": [
            {"name": "c", "type": "chance", "probabilities": ["1/" + "3" * 40, "1"],
             "children": [{"name": "a", "value": 1}, {"name": "b", "value": 2}]},
            {"name": "d", "value": 0}]}, "tree.children[0]", "at most about 30 digits"),
        ("minimax", {"name": "r", "type": "max", "children": [
            {"value": 1}, {"name": "b", "value": 2}]}, "tree.children[0]", 'needs a "name"'),
        ("minimax", {"name": "r", "type": "max", "children": [
            {"name": "", "value": 1}, {"name": 7, "value": 2}]}, "tree.children[0]",
         'needs a "name"'),
        # The same name to the eye: é as one character and as e with an accent.
        ("minimax", {"name": "r", "type": "max", "children": [
            {"name": "\u00e9", "value": 1}, {"name": "e\u0301", "value": 2}]},
         "tree.children[1]", "unique"),
    ],
)
def test_a_tree_breaking_a_rule_is_refused_naming_the_node_and_the_rule(
    kind_name: str, tree: Any, field: str, rule: str
) -> None:
    with pytest.raises(ParamError) as refused:
        get_kind(kind_name).clean_params({"tree": tree})
    assert refused.value.field == field
    assert rule in refused.value.message


def test_a_tree_of_exactly_the_page_limit_is_accepted() -> None:
    tree = big_tree(MAX_NODES)
    params = get_kind("minimax").clean_params({"tree": tree, "allow_ties": True})
    assert params["tree"] == tree


def test_randomize_values_needs_a_tree_and_a_wide_enough_range() -> None:
    with pytest.raises(ParamError) as refused:
        get_kind("minimax").clean_params({"randomize_values": True})
    assert refused.value.field == "randomize_values"
    with pytest.raises(ParamError) as refused:
        get_kind("minimax").clean_params({"tree": AUTHORED["alphabeta"], "randomize_values": True,
                                          "min_value": 0, "max_value": 5})
    assert refused.value.field == "max_value" and "9 leaves" in refused.value.message


def test_unknown_node_fields_are_dropped_when_stored() -> None:
    # An inner node's null value is no estimate: dropped too.
    tree = {"name": "r", "type": "max", "colour": "red", "value": None,
            "children": [{"name": "a", "value": 1, "x": 1}, {"name": "b", "value": 2}]}
    params = get_kind("minimax").clean_params({"tree": tree})
    assert params["tree"] == {"name": "r", "type": "max", "children": [
        {"name": "a", "value": 1}, {"name": "b", "value": 2}]}


# --- the library ---------------------------------------------------------------------------


def test_the_library_holds_every_seed_tree_with_its_source() -> None:
    by_id = {entry.id: entry for entry in LIBRARY}
    for seed in SEED_TREES:
        entry = by_id[seed["id"]]
        assert entry.tree == seed["problem"]["tree"]
        assert entry.source == seed["source"]
        assert seed["problem"]["kind"] in entry.kinds


@pytest.mark.parametrize("entry", LIBRARY, ids=[entry.id for entry in LIBRARY])
def test_every_library_tree_poses_under_every_kind_it_suits(entry: Any) -> None:
    for kind_name in entry.kinds:
        kind = get_kind(kind_name)
        params = kind.clean_params({**entry.params, "tree": entry.text, "min_cuts": 0}
                                   if kind_name == "alphabeta" else
                                   {**entry.params, "tree": entry.text, "min_difference": 1}
                                   if kind_name == "move_ordering" else
                                   {**entry.params, "tree": entry.text})
        item = generate_item(kind_name, params, "library")
        assert item.problem["tree"] == entry.tree


def test_library_trees_give_the_seeds_worked_answers() -> None:
    by_id = {entry.id: entry for entry in LIBRARY}
    for seed in SEED_TREES:
        if seed["problem"]["kind"] != "alphabeta":
            continue
        params = get_kind("alphabeta").clean_params({"tree": by_id[seed["id"]].text,
                                                     "min_cuts": 0})
        key = generate_item("alphabeta", params, "s").answer_key
        assert key["value"] == seed["expect"]["value"]
        assert key["move"] == seed["expect"]["move"]
        assert key["pruned_leaves"] == seed["expect"].get("pruned_leaves", key["pruned_leaves"])


def test_the_library_filters_by_kind() -> None:
    assert [e.id for e in library_trees("vector")] == ["three-players"]
    assert "two-by-two" not in {e.id for e in library_trees("move_ordering")}
    assert {e.id for e in library_trees("expectimax")} == {"uniform-opponent"}
    assert len(library_trees()) == len(LIBRARY)


# --- over the API --------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_set_with_an_authored_tree_stores_it_as_json(instructor: Any, course: Any) -> None:
    _, client = instructor
    response = client.post("/api/v1/problem-sets/", {
        "course": course.pk, "title": "Lecture 4", "items": [
            {"kind": "alphabeta", "params": {"tree": "MAX(A: MIN(3, 5), B: MIN(2, 9))"},
             "points": "2"},
            {"kind": "minimax", "params": {"tree": LIBRARY[0].tree, "randomize_values": True},
             "points": "1"},
        ]}, format="json")
    assert response.status_code == 201, response.content
    first, second = response.json()["items"]
    assert first["params"]["tree"] == parse_tree_text("MAX(A: MIN(3, 5), B: MIN(2, 9))")
    assert second["params"]["tree"]["name"] == "raiz"
    assert second["params"]["randomize_values"] is True


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tree", "field", "rule"),
    [
        ("MAX(A: MIN(3, 5), B: CHANCE(2, 9))", "items[0].params.tree.children[1]",
         'node "B": alphabeta trees have only max, min inner nodes'),
        ({"name": "r", "type": "max", "children": [{"name": "x"}]},
         "items[0].params.tree.children[0]", 'node "x": a leaf needs a "value"'),
        ("MAX(MIN(3, 5) MIN(2, 9))", "items[0].params.tree", "column 15"),
    ],
)
def test_a_bad_tree_is_a_400_naming_the_node_and_nothing_is_stored(
    instructor: Any, course: Any, tree: Any, field: str, rule: str
) -> None:
    from exercises.models import ProblemSet

    _, client = instructor
    response = client.post("/api/v1/problem-sets/", {
        "course": course.pk, "title": "t",
        "items": [{"kind": "alphabeta", "params": {"tree": tree}, "points": "1"}],
    }, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert list(error["details"]) == [field]
    assert rule in error["details"][field][0] and rule in error["message"]
    assert not ProblemSet.objects.exists()


def test_a_fixed_tree_is_posed_whatever_the_quality_rules_for_random_values_say() -> None:
    # The key is the tree's: min_cuts, min_difference and the contrast shape random values.
    # Refusing them, each refusal ran 1,000 solves (11 s for a 200-node tree) first.
    uncut = generate_item("alphabeta", get_kind("alphabeta").clean_params(
        {"tree": "MAX(MIN(3, 5), MIN(4, 9))", "min_cuts": 2}), "s")
    assert uncut.answer_key["cutoffs"] == [] and uncut.answer_key["value"] == 4
    wide = generate_item("alphabeta", get_kind("alphabeta").clean_params(
        {"tree": {"name": "r", "type": "max", "children": [
            {"name": f"L{i}", "value": i} for i in range(199)]}}), "s")
    assert wide.answer_key["value"] == 198
    same = generate_item("move_ordering", get_kind("move_ordering").clean_params(
        {"tree": "MAX(3, 5)", "min_difference": 2}), "s")
    assert same.problem["tree"]["children"][1]["value"] == 5


@pytest.mark.django_db
def test_a_tree_whose_prompt_would_be_false_is_a_400_saying_why(
    instructor: Any, course: Any
) -> None:
    # Asked for the bound at a cut node, on a tree where nothing is cut.
    response = instructor[1].post("/api/v1/problem-sets/", {
        "course": course.pk, "title": "t",
        "items": [{"kind": "alphabeta", "points": "1",
                   "params": {"tree": "MAX(MIN(3, 5), MIN(4, 9))", "ask_cut_bound": True}}],
    }, format="json")
    assert response.status_code == 400, response.content
    [message] = response.json()["error"]["details"]["items[0].params.tree"]
    assert "this tree cannot be asked as the params set it" in message
    assert "no cutoff happens, so no cut node's bound can be asked" in message


@pytest.mark.django_db
def test_the_preview_computes_the_key_of_an_authored_tree(instructor: Any) -> None:
    _, client = instructor
    response = client.post("/api/v1/kinds/alphabeta/preview/",
                           {"params": {"tree": "MAX(A: MIN(3, 5), B: MIN(2, 9))"}}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["answer_key"]["pruned_leaves"] == ["B2"] and body["answer_key"]["value"] == 3


@pytest.mark.django_db
def test_the_library_api_lists_named_trees_by_kind(instructor: Any) -> None:
    _, client = instructor
    every = client.get("/api/v1/tree-library/").json()
    assert [entry["id"] for entry in every] == [entry.id for entry in LIBRARY]
    two = every[0]
    assert two["text"] == "raiz: MAX(MIN(3, 5), MIN(2, 9))"
    assert two["tree"] == LIBRARY[0].tree and two["source"]
    vector = client.get("/api/v1/tree-library/?kind=vector").json()
    assert [entry["id"] for entry in vector] == ["three-players"]
    assert vector[0]["params"] == {"players": 3}
    translated = client.get("/api/v1/tree-library/?kind=vector&lang=pt").json()
    assert translated[0]["id"] == "three-players"
    refused = client.get("/api/v1/tree-library/?kind=chess")
    assert refused.status_code == 400 and "kind" in refused.json()["error"]["details"]


@pytest.mark.django_db
def test_the_openapi_example_of_authored_trees_is_accepted(instructor: Any, course: Any) -> None:
    from exercises.apis import AUTHORED_TREES_EXAMPLE

    _, client = instructor
    response = client.post("/api/v1/problem-sets/", {**AUTHORED_TREES_EXAMPLE, "course": course.pk},
                           format="json")
    assert response.status_code == 201, response.content


@pytest.mark.django_db
def test_json_numbers_of_an_authored_tree_are_kept_as_written(instructor: Any,
                                                              course: Any) -> None:
    _, client = instructor
    tree = ('{"name": "r", "type": "max", "children": [{"name": "a", "value": '
            '0.12345678901234567891}, {"name": "b", "value": 1e-25}, {"name": "c", "value": 0.1}]}')
    body = ('{"course": ' + str(course.pk) + ', "title": "t", "items": [{"kind": "minimax", '
            '"points": "1", "params": {"tree": ' + tree + "}}]}")
    response = client.post("/api/v1/problem-sets/", body, content_type="application/json")
    assert response.status_code == 201, response.content
    leaves = response.json()["items"][0]["params"]["tree"]["children"]
    # A float would have read 0.12345678901234568; 1e-25 and 0.1 are floats' own decimals.
    assert [leaf["value"] for leaf in leaves] == ["0.12345678901234567891", 1e-25, 0.1]

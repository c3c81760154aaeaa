"""Every exercise kind: deterministic across processes, constraints met, keys equal the
engine's, bad params rejected naming the field, multiple-choice options diagnosable."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from fractions import Fraction
from typing import Any

import pytest
from django.utils import translation

from engine.misconceptions import MISCONCEPTIONS
from engine.solve import solve
from exercises.generation import GeneratedItem, generate_item, item_seed
from exercises.kinds import get_kind, kind_names
from exercises.kinds.params import ParamError
from exercises.kinds.trees import leaves, walk
from tests.conftest import REPO
from tests.exercises.digests import digests
from tests.exercises.kind_cases import BAD, GOOD

ISSUE_KINDS = {
    "minimax", "alphabeta", "move_ordering", "expectiminimax", "expectimax", "vector", "ucb1",
    "mcts_backprop", "tictactoe_position", "connect4_eval", "eval_function", "tree_size",
    "price_war", "concept_quiz", "iterative_deepening",
    "transposition_table",  # issue 18
}
READABLE_NAME = re.compile(r"^(root|[A-Z](\d+([a-z](\d+)?)?)?)$")
VECTOR_NAME = re.compile(r"^(root|[a-z](\d+([a-z])?)?)$")
"""Vector trees' nodes: a, a1, a1a, so none is named as a default player (A, B, C, D)."""
CASES = [(kind, index) for kind, cases in GOOD.items() for index in range(len(cases))]
SEEDS = [item_seed("constraints", student, 2) for student in range(6)]


def generated(kind: str, index: int) -> list[tuple[dict[str, Any], GeneratedItem]]:
    params = get_kind(kind).clean_params(GOOD[kind][index])
    return [(params, generate_item(kind, params, seed)) for seed in SEEDS]


def test_the_registry_holds_every_kind_of_the_issue() -> None:
    assert ISSUE_KINDS <= set(kind_names())
    assert ISSUE_KINDS == set(GOOD) == set(BAD)


def test_generation_is_byte_identical_in_another_process() -> None:
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    result = subprocess.run(
        [sys.executable, "-m", "tests.exercises.digests"], cwd=REPO, env=env,
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == digests()


def test_seeds_differ_per_student_and_item() -> None:
    assert item_seed("s", 1, 1) != item_seed("s", 2, 1) != item_seed("s", 1, 2)
    params = get_kind("minimax").clean_params({})
    problems = {json.dumps(generate_item("minimax", params, seed).problem) for seed in SEEDS}
    assert len(problems) == len(SEEDS)


@pytest.mark.parametrize(("kind", "index"), CASES)
def test_constraints_are_met(kind: str, index: int) -> None:
    exercise = get_kind(kind)
    for params, item in generated(kind, index):
        answer = exercise.solve(item.problem)
        assert exercise.quality_issues(item.problem, answer, params) == []
        assert set(item.answer_key) == {part.name for part in exercise.answer_parts(params)}
        tree = item.problem.get("tree")
        if tree is not None:
            names = [node["name"] for node in walk(tree)]
            assert len(names) == len(set(names))
            if kind == "vector":
                assert all(VECTOR_NAME.match(name) for name in names), names
                assert not set(names) & set(item.problem["params"]["players"])
            elif kind not in ("expectimax", "expectiminimax") or params["chance"] != "dice":
                assert all(READABLE_NAME.match(name) for name in names), names
        if "max_leaves" in params:
            values = [leaf["value"] for leaf in leaves(tree)]
            assert len(values) <= params["max_leaves"]
            assert all(params["min_value"] <= v <= params["max_value"] for v in values)
            # transposition_table has no allow_ties: leaves differ but for repeated positions'.
            if not params.get("allow_ties", True):
                assert len(set(values)) == len(values)
        if "min_cuts" in params:
            assert len(answer["cutoffs"]) >= params["min_cuts"]


def engine_key(kind: str, problem: dict[str, Any]) -> dict[str, Any]:
    """Return the key straight from the engine's public entry points, for comparison."""
    if kind in ("minimax", "expectiminimax", "expectimax", "alphabeta", "vector", "ucb1"):
        answer = solve(problem)
        keys = {"minimax": ("value", "move"), "alphabeta": ("value", "move", "pruned_leaves"),
                "vector": ("value", "move"), "ucb1": ("selected", "final_move", "scores")}
        return {key: answer[key] for key in keys.get(kind, ("value", "move"))}
    if kind == "iterative_deepening":
        iterations = solve(problem)["iterations"]
        plain = solve({**problem, "params": {**problem["params"], "reuse": "none"}})
        return {"best_moves": [iteration["move"] for iteration in iterations],
                "evaluations": [iteration["evaluations"] for iteration in iterations],
                "interrupted_move": iterations[problem["params"]["interrupted_depth"] - 2]["move"],
                "ordering_saving": (plain["iterations"][-1]["evaluations"]
                                    - iterations[-1]["evaluations"])}
    if kind == "mcts_backprop":
        return {"path": {node["name"]: {"visits": node["visits"], "reward": node["reward"]}
                         for node in solve(problem)["path"]}}
    if kind == "price_war":
        answer = solve(problem)
        return {"rational_move": answer["move"], "floor_move": answer["paranoid"]["move"]}
    if kind == "move_ordering":
        orders = problem["params"]["orders"]
        params = {k: v for k, v in problem["params"].items() if k != "orders"}
        first, second = (solve({**problem, "kind": "alphabeta",
                                "params": {**params, "order": order}}) for order in orders)
        return {"evaluated_first": first["evaluated_leaves"],
                "evaluated_second": second["evaluated_leaves"]}
    if kind == "tictactoe_position":
        return tictactoe_cli(problem)
    if kind == "connect4_eval":
        from engine.games.connect4 import parse_moves, window_score

        return {"value": window_score(parse_moves(problem["moves"]), problem["params"]["player"])}
    if kind == "tree_size":
        b = problem["branching"]
        d = problem["plies"] if "plies" in problem else 2 * problem["moves"]
        nodes = sum(b**k for k in range(d + 1))
        if problem["params"]["node_counting"] == "root_excluded":
            nodes -= 1
        perfect = b ** ((d + 1) // 2) + b ** (d // 2) - 1
        asked = {} if "plies" in problem else {"plies": d}
        return {**asked, "leaves": b**d, "nodes": nodes, "perfect_leaves": perfect}
    if kind == "eval_function":
        weights, features = problem["params"]["weights"], problem["features"]
        total = sum(Fraction(w) * (features["white"][f] - features["black"][f])
                    for f, w in weights.items())
        return {"value": int(total) if total.denominator == 1 else str(total)}
    if kind == "transposition_table":
        # A table of sound bounds never changes the root's value: plain minimax's.
        return {"value": solve({**problem, "kind": "minimax", "params": {}})["value"]}
    from exercises.concept_bank import BY_ID

    right = BY_ID[problem["question"]].options[0]
    return {"choice": next(o["id"] for o in problem["options"] if o["text"] == right)}


def tictactoe_cli(problem: dict[str, Any]) -> dict[str, Any]:
    """Ask ``python -m engine game tictactoe`` (root excluded, index order, standard rules)."""
    counts = {}
    for algorithm in ("minimax", "alphabeta"):
        out = subprocess.run(
            [sys.executable, "-m", "engine", "game", "tictactoe", "--algorithm", algorithm,
             "--board", problem["board"], "--to-move", problem["to_move"]],
            cwd=REPO, capture_output=True, text=True, check=True,
        )
        counts[algorithm] = json.loads(out.stdout)
    return {"move": str(counts["minimax"]["move"]), "value": counts["minimax"]["value"],
            "nodes_minimax": counts["minimax"]["nodes"],
            "nodes_alphabeta": counts["alphabeta"]["nodes"]}


@pytest.mark.parametrize("kind", sorted(ISSUE_KINDS))
def test_answer_keys_equal_the_engines(kind: str) -> None:
    exercise = get_kind(kind)
    params = exercise.clean_params({})
    for seed in SEEDS[:3]:
        item = generate_item(kind, params, seed)
        expected = engine_key(kind, item.problem)
        key = item.answer_key
        if kind == "ucb1":
            assert key["selected"] == expected["selected"]
            assert key["final_move"] == expected["final_move"]
            assert key["scores"] == pytest.approx(expected["scores"])
            continue
        assert {name: key[name] for name in expected} == expected, item.problem


@pytest.mark.parametrize("kind", sorted(ISSUE_KINDS))
def test_conventions_are_stored_in_the_problem(kind: str) -> None:
    exercise = get_kind(kind)
    params = exercise.clean_params({})
    problem = generate_item(kind, params, SEEDS[0]).problem
    for name in exercise.convention_names():
        assert problem["params"][name] == params[name]


def test_tictactoe_counts_follow_the_stated_conventions() -> None:
    params = get_kind("tictactoe_position").clean_params({"node_counting": "root_included"})
    item = generate_item("tictactoe_position", params, SEEDS[0])
    excluded = tictactoe_cli(item.problem)
    assert item.answer_key["nodes_minimax"] == excluded["nodes_minimax"] + 1
    assert item.answer_key["nodes_alphabeta"] == excluded["nodes_alphabeta"] + 1


@pytest.mark.parametrize(
    ("kind", "raw", "field"),
    [(kind, raw, field) for kind, cases in BAD.items() for raw, field in cases],
)
def test_bad_params_are_rejected_naming_the_field(kind: str, raw: dict[str, Any],
                                                  field: str) -> None:
    with pytest.raises(ParamError) as error:
        get_kind(kind).clean_params(raw)
    assert error.value.field == field
    assert str(error.value).startswith(f"{field}: ")


def test_unknown_params_are_rejected() -> None:
    with pytest.raises(ParamError) as error:
        get_kind("minimax").clean_params({"depht": 2})
    assert error.value.field == "depht" and "known ones" in error.value.message


def test_params_keep_every_convention_explicit() -> None:
    assert get_kind("alphabeta").clean_params({})["cut_on_equality"] is True
    assert get_kind("alphabeta").clean_params({})["root_raises_alpha"] is True
    assert get_kind("vector").clean_params({})["tie_break"] == "first"
    ucb1 = get_kind("ucb1").clean_params({})
    assert ucb1["form"] == "sqrt(c*ln N/n)" and ucb1["c"] == "2"
    assert get_kind("mcts_backprop").clean_params({})["draw_reward"] == "1/2"
    assert get_kind("tictactoe_position").clean_params({})["node_counting"] == "root_excluded"
    assert get_kind("ucb1").clean_params({"c": 1.5})["c"] == "1.5"
    assert get_kind("ucb1").clean_params({"c": "6/4"})["c"] == "3/2"


@pytest.mark.parametrize("kind", ["minimax", "alphabeta", "expectiminimax", "ucb1"])
def test_multiple_choice_wrong_options_are_named_misconceptions(kind: str) -> None:
    case = next(raw for raw in GOOD[kind] if raw.get("answer_format") == "multiple_choice")
    exercise = get_kind(kind)
    params = exercise.clean_params(case)
    for seed in SEEDS[:3]:
        item = generate_item(kind, params, seed)
        options = {option["id"]: option["value"] for option in item.problem["options"]}
        assert len(options) == params["options"]
        codes = item.trace["option_misconceptions"]
        correct = item.answer_key["choice"]
        assert codes[correct] is None
        assert options[correct] == exercise.project(item.problem, solve(item.problem))[
            exercise.choice_part]
        for option_id, code in codes.items():
            if option_id == correct:
                continue
            wrong = MISCONCEPTIONS[code].answer(item.problem)
            assert exercise.project(item.problem, wrong)[exercise.choice_part] == options[
                option_id]


def test_contrast_items_separate_minimax_from_expectation() -> None:
    params = get_kind("expectiminimax").clean_params(GOOD["expectiminimax"][2])
    for seed in SEEDS[:3]:
        key = generate_item("expectiminimax", params, seed).answer_key
        assert key["minimax_move"] != key["move"]


def test_price_war_readings_differ() -> None:
    params = get_kind("price_war").clean_params({})
    for seed in SEEDS[:3]:
        key = generate_item("price_war", params, seed).answer_key
        assert key["floor_move"] != key["rational_move"]
        # Anticipating a rational rival never earns less than the worst case.
        assert key["rational_value"] >= key["floor_value"]


def test_concept_bank_has_sixty_explained_questions_per_topic() -> None:
    from exercises.concept_bank import BANK, TOPICS

    assert len(BANK) >= 60
    assert len({question.id for question in BANK}) == len(BANK)
    for topic in TOPICS:
        assert sum(question.topic == topic for question in BANK) >= 5
    for question in BANK:
        assert len(set(question.options)) == 4 and len(question.explanation) > 40


def test_concept_questions_fixed_in_issue_18_say_what_they_mean() -> None:
    from exercises.concept_bank import BY_ID

    ties = BY_ID["minimax-ties"]
    assert "strictly better" in ties.question and ties.options[0] == "The leftmost of them"
    assert ">=" in ties.explanation and "rightmost" in ties.explanation
    perfect = BY_ID["class-perfect-information"]
    assert "hidden" in perfect.options[0] and "Poker does not" in perfect.explanation
    assert BY_ID["mcts-forms"].options[0] == "Only when c = 0 or c = 1"


# --- fixes: UCB1 and unvisited children -----------------------------------------------


def ucb1_problem(*visits: int) -> dict[str, Any]:
    children = [{"name": "ABCDEF"[i], "wins": min(1, n), "visits": n}
                for i, n in enumerate(visits)]
    return {"format": "gametree/1", "kind": "ucb1", "params": {
        "parent_visits": max(1, sum(visits)), "children": children, "c": "2",
        "form": "sqrt(c*ln N/n)"}}


def test_ucb1_quality_check_reads_the_engines_inf_for_an_unvisited_child() -> None:
    kind = get_kind("ucb1")
    params = kind.clean_params({})
    one_unvisited = ucb1_problem(0, 4, 9)
    answer = kind.solve(one_unvisited)
    assert answer["scores"]["A"] == "inf" and answer["selected"] == "A"
    issues = kind.quality_issues(one_unvisited, answer, params)  # used to raise TypeError
    assert not any("UCB1 scores" in issue for issue in issues)
    # Two unvisited children tie at infinity; the prompt's rule (the first from the left is
    # selected) decides, so the tie is no quality issue.
    two_unvisited = ucb1_problem(0, 0, 9)
    issues = kind.quality_issues(two_unvisited, kind.solve(two_unvisited), params)
    assert not any("UCB1 scores" in issue for issue in issues)


@pytest.mark.parametrize("name", ["min_visits", "max_visits"])
def test_ucb1_params_refuse_unvisited_children_and_say_why(name: str) -> None:
    with pytest.raises(ParamError) as refused:
        get_kind("ucb1").clean_params({name: 0})
    assert refused.value.field == name
    assert "unvisited" in str(refused.value)


def test_ucb1_unvisited_children_score_infinity_and_the_first_from_the_left_is_selected() -> None:
    kind = get_kind("ucb1")
    params = kind.clean_params({"children": 5, "unvisited": 3})
    for seed in range(10):
        problem = kind.generate(random.Random(seed), params)
        children = problem["params"]["children"]
        unvisited = [child["name"] for child in children if child["visits"] == 0]
        assert len(unvisited) == 3
        assert problem["params"]["parent_visits"] == sum(child["visits"] for child in children)
        key = kind.project(problem, kind.solve(problem))
        assert {name for name, score in key["scores"].items() if score == "∞"} == set(unvisited)
        assert key["selected"] == unvisited[0]
        assert key["final_move"] not in unvisited


def test_ucb1_without_unvisited_children_draws_what_it_drew_before() -> None:
    kind = get_kind("ucb1")
    default = kind.clean_params({})
    assert default["unvisited"] == 0
    assert kind.generate(random.Random(7), default) == kind.generate(
        random.Random(7), kind.clean_params({"unvisited": 0}))
    assert "∞" not in kind.render_prompt(kind.prompt_args(
        kind.generate(random.Random(7), default), default))


@pytest.mark.parametrize(("raw", "field"), [
    ({"children": 3, "unvisited": 3}, "unvisited"),
    ({"unvisited": 1, "forms_disagree": True}, "forms_disagree"),
])
def test_ucb1_unvisited_params_that_cannot_hold_name_the_field(raw: dict[str, Any],
                                                              field: str) -> None:
    with pytest.raises(ParamError) as refused:
        get_kind("ucb1").clean_params(raw)
    assert refused.value.field == field


@pytest.mark.parametrize("language", ["en", "pt", "ca"])
def test_ucb1_prompt_states_the_infinite_score_and_the_tie_rule(language: str) -> None:
    kind = get_kind("ucb1")
    args = {"c": "2", "form": "sqrt(c*ln N/n)", "parent_visits": 20, "unvisited": 1}
    with translation.override(language):
        text = kind.render_prompt(args)
    assert "∞" in text and "inf" in text and "n = 0" in text


def test_generated_ucb1_children_are_all_visited() -> None:
    kind = get_kind("ucb1")
    params = kind.clean_params({"min_visits": 1, "max_visits": 2, "children": 6})
    for seed in range(20):
        problem = kind.generate(random.Random(seed), params)
        assert all(child["visits"] >= 1 for child in problem["params"]["children"])


@pytest.mark.parametrize("draw_reward", ["0", "1/3", "1/2", "1"])
def test_mcts_statistics_shown_come_from_a_history_under_the_stated_draw_reward(
    draw_reward: str,
) -> None:
    params = get_kind("mcts_backprop").clean_params({"draw_reward": draw_reward,
                                                      "max_visits": 12})
    worth = Fraction(draw_reward)

    def possible(visits: int, reward: Fraction) -> bool:
        return any((reward - draws * worth).denominator == 1
                   and 0 <= reward - draws * worth <= visits - draws
                   for draws in range(visits + 1))

    for seed in range(60):
        problem = generate_item("mcts_backprop", params, f"seed-{seed}").problem
        for node in problem["params"]["path"]:
            assert possible(node["visits"], Fraction(node["reward"])), (seed, node)


def test_a_draw_reward_changed_after_publishing_is_judged_against_the_statistics_shown(
) -> None:
    kind = get_kind("mcts_backprop")
    params = kind.clean_params({"draw_reward": "1/2", "max_visits": 12})
    halves = []
    for seed in range(40):
        item = generate_item("mcts_backprop", params, f"seed-{seed}")
        assert kind.quality_issues(item.problem, item.trace["answer"], params) == []
        if any(Fraction(node["reward"]).denominator == 2
               for node in item.problem["params"]["path"]):
            halves.append(item.problem)
    assert halves  # some histories hold an odd number of draws
    problem = {**halves[0], "params": {**halves[0]["params"], "draw_reward": "0"}}
    issues = kind.quality_issues(problem, {}, {**params, "draw_reward": "0"})
    assert issues and "from no history where a draw is worth 0" in issues[0]

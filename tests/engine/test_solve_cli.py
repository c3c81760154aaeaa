"""solve() answer format and the ``python -m engine`` command line, errors included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import ENGINE_VERSION
from engine.cli import main
from engine.errors import ProblemError, UnknownKindError
from engine.solve import exact, solve

REPO = Path(__file__).resolve().parents[2]


def leaf(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "value": value}


def node(kind: str, name: str, *children: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "children": list(children), **extra}


def problem(kind: str, tree: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"format": "gametree/1", "kind": kind, "params": params}
    if tree is not None:
        raw["tree"] = tree
    return raw


TWO_BY_TWO = node(
    "max", "raiz",
    node("min", "A", leaf("A1", 3), leaf("A2", 5)),
    node("min", "B", leaf("B1", 2), leaf("B2", 9)),
)


def test_exact_numbers_follow_the_spec() -> None:
    from fractions import Fraction

    assert exact(3) == 3 and exact(Fraction(6, 2)) == 3
    assert exact(Fraction(7, 2)) == "7/2"
    assert (exact(float("inf")), exact(float("-inf"))) == ("inf", "-inf")


def test_float_siblings_saturate_beyond_the_float_range() -> None:
    tree = node("max", "r", node("chance", "c", leaf("a", "1e400"), leaf("b", 0),
                                 probabilities=["1/3", "2/3"]))
    answer = solve(problem("expectiminimax", tree))
    assert answer["value_float"] == "inf"
    assert answer["value"].endswith("/3")
    json.dumps(answer, allow_nan=False)


def test_minimax_answer_keys() -> None:
    answer = solve(problem("minimax", TWO_BY_TWO))
    assert answer["value"] == 3 and answer["move"] == "A"
    assert answer["principal_variation"] == ["A", "A1"]
    assert answer["node_values"] == {"A1": 3, "A2": 5, "A": 3, "B1": 2, "B2": 9, "B": 2,
                                     "raiz": 3}
    assert answer["engine_version"] == ENGINE_VERSION
    json.dumps(answer)


def test_alphabeta_answer_keys() -> None:
    answer = solve(problem("alphabeta", TWO_BY_TWO))
    assert answer["evaluated_leaves"] == ["A1", "A2", "B1"]
    assert answer["pruned_leaves"] == ["B2"]
    assert answer["cutoffs"] == [
        {"number": 1, "node": "B", "alpha": 3, "beta": 2, "pruned": ["B2"]}
    ]
    assert answer["node_bounds"] == {"B": {"lower": "-inf", "upper": 2}}
    assert "B" not in answer["node_values"]
    assert answer["trace"][0] == {"event": "enter", "node": "raiz", "depth": 0,
                                  "alpha": "-inf", "beta": "inf"}
    strict = solve(problem("alphabeta", TWO_BY_TWO, cut_on_equality=False,
                           root_raises_alpha=False))
    assert strict["conventions"] == {"cut_on_equality": False, "root_raises_alpha": False}
    assert strict["pruned_leaves"] == []


def test_orders_and_depth_limit_params() -> None:
    reverse = solve(problem("alphabeta", TWO_BY_TWO, order="reverse"))
    assert reverse["evaluated_leaves"][0] == "B2"
    best = solve(problem("alphabeta", TWO_BY_TWO, order="best-first"))
    assert best["evaluated_leaves"] == ["A1", "A2", "B1"]
    limited = solve(problem(
        "alphabeta", node("max", "r", node("min", "m", leaf("x", 1), value=4), leaf("y", 2)),
        depth_limit=1,
    ))
    assert (limited["value"], limited["evaluated_leaves"], limited["pruned_leaves"]) == (
        4, ["m", "y"], []
    )


def test_fraction_values_come_with_float_siblings() -> None:
    tree = node("max", "r", node("chance", "c", leaf("a", 1), leaf("b", 2),
                                 probabilities=["2/3", "1/3"]))
    answer = solve(problem("expectimax", tree))
    assert answer["value"] == "4/3" and answer["value_float"] == pytest.approx(4 / 3)
    assert answer["node_values"]["c"] == "4/3"
    assert answer["node_values_float"]["c"] == pytest.approx(4 / 3)
    assert answer["move"] == "c" and answer["principal_variation"] == ["c"]


def test_expectiminimax_with_utility_bounds_reports_pruning() -> None:
    tree = node(
        "max", "root",
        node("chance", "C1", leaf("a", 4), leaf("b", 6), probabilities=["1/2", "1/2"]),
        node("chance", "C2", leaf("c", -2), leaf("d", 8), probabilities=["1/2", "1/2"]),
    )
    answer = solve(problem("expectiminimax", tree, utility_bounds=[-6, 10]))
    assert answer["value"] == 5 and answer["pruned_leaves"] == ["d"]
    assert answer["cutoffs"][0]["beta"] == 4
    with pytest.raises(ProblemError, match='node "d".*outside'):
        solve(problem("expectiminimax", tree, utility_bounds=[-6, 7]))


def test_vector_answer_adds_the_paranoid_floor() -> None:
    tree = node("player", "r", leaf("a", [1, "1/2"]), leaf("b", [0, 5]), player="P")
    answer = solve(problem("vector", tree, players=["P", "Q"]))
    assert answer["value"] == [1, "1/2"] and answer["value_float"] == [1.0, 0.5]
    assert answer["paranoid"] == {"player": "P", "move": "a", "value": 1}


def test_ucb1_and_backprop_answers() -> None:
    answer = solve(problem("ucb1", parent_visits=4, c="1/2", children=[
        {"name": "a", "wins": 1, "visits": 2}, {"name": "b", "wins": 0, "visits": 0}]))
    assert answer["scores"]["b"] == "inf" and answer["selected"] == "b"
    assert answer["final_move"] == "a" and answer["c"] == "1/2"
    drawn = solve(problem("mcts_backprop", outcome="draw", path=[
        {"name": "n", "moved_by": "x", "visits": 1, "reward": 0}]))
    assert drawn["path"] == [{"name": "n", "moved_by": "x", "visits": 2, "reward": "1/2",
                              "reward_float": 0.5}]


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (problem("nonsense", TWO_BY_TWO), 'field "kind": unknown kind'),
        ({"format": "gametree/9", "kind": "minimax"}, 'field "format"'),
        (problem("minimax"), 'field "tree"'),
        (problem("alphabeta", TWO_BY_TWO, cut_on_equality="yes"), "params.cut_on_equality"),
        (problem("alphabeta", TWO_BY_TWO, order="random"), "params.order"),
        (problem("alphabeta", TWO_BY_TWO, depth_limit=-1), "params.depth_limit"),
        (problem("minimax", node("max", "r", node("chance", "c", leaf("a", 1),
                                                  probabilities=[1]))),
         'node "c": chance nodes need kind "expectiminimax"'),
        (problem("vector", TWO_BY_TWO), "params.players"),
        (problem("vector", TWO_BY_TWO, players=["A", "B"], tie_break={"player": "Z"}),
         "params.tie_break"),
        (problem("ucb1", parent_visits=4, children=[{"name": "a", "wins": 1, "visits": 2}]),
         "params.c"),
        (problem("ucb1", parent_visits=1, c=1, children=[{"name": "a", "wins": 1, "visits": 2}]),
         "params.parent_visits"),
        (problem("ucb1", parent_visits=4, c=1, form="c*ln",
                 children=[{"name": "a", "wins": 1, "visits": 2}]), "params.form"),
        (problem("ucb1", parent_visits=4, c=1, children=[{"name": "a", "wins": 3, "visits": 2}]),
         "params.children[0].wins"),
        (problem("mcts_backprop", path=[{"name": "n"}], outcome="x"), "params.path[0]"),
        (["not", "an", "object"], "JSON object"),
    ],
)
def test_bad_problems_name_the_field_or_node(raw: Any, needle: str) -> None:
    with pytest.raises(ProblemError) as error:
        solve(raw)
    assert needle in str(error.value)


def test_unknown_kind_has_its_own_error_class() -> None:
    with pytest.raises(UnknownKindError):
        solve(problem("chess", TWO_BY_TWO))


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], cwd=REPO, input=stdin,
        capture_output=True, text=True, timeout=60, check=False,
    )


def test_cli_solves_a_file_and_stdin(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(problem("alphabeta", TWO_BY_TWO)))
    from_file = run_cli("solve", str(path))
    assert from_file.returncode == 0, from_file.stderr
    assert json.loads(from_file.stdout)["pruned_leaves"] == ["B2"]
    from_stdin = run_cli("solve", "-", stdin=path.read_text())
    assert json.loads(from_stdin.stdout) == json.loads(from_file.stdout)


BAD_INPUTS = {
    "unknown kind": (problem("checkers", TWO_BY_TWO), "kind"),
    "max node without children": (problem("minimax", node("max", "Lonely")), 'node "Lonely"'),
    "probabilities not summing to 1": (
        problem("expectiminimax", node("chance", "Dice", leaf("a", 1), leaf("b", 2),
                                       probabilities=["1/2", "1/3"])),
        'node "Dice"',
    ),
    "duplicate names": (
        problem("minimax", node("max", "r", leaf("Twin", 1), leaf("Twin", 2))), 'node "Twin"'
    ),
    # Exact, yet beyond what a floating-point UCB1 score holds.
    "an exploration constant beyond the float range": (
        problem("ucb1", parent_visits=4, c="1e400",
                children=[{"name": "a", "wins": 1, "visits": 2}]),
        'field "params.c": must be at most',
    ),
    "visit counts beyond any search": (
        problem("ucb1", parent_visits=10**400, c=2,
                children=[{"name": "a", "wins": 1, "visits": 10**400}]),
        'must be at most 10^18',
    ),
    "wrong vector length": (
        problem("vector", node("player", "r", leaf("Short", [1, 2]), player="A"),
                players=["A", "B", "C"]),
        'node "Short"',
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_cli_rejects_bad_input_without_a_traceback(case: str, tmp_path: Path) -> None:
    raw, needle = BAD_INPUTS[case]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    result = run_cli("solve", str(path))
    assert result.returncode == 2
    assert needle in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_cli_refuses_numbers_too_long_to_compute_with(tmp_path: Path) -> None:
    # Written as text: this process cannot print an int of more than 4300 digits.
    tree = ('{"name": "R", "type": "max", "children": [{"name": "a", "value": %s}, '
            '{"name": "b", "value": "1/%s"}]}')
    for long, short in (("9" * 4301, "3"), ("1", "7" * 1001)):
        path = tmp_path / "long.json"
        path.write_text('{"format": "gametree/1", "kind": "minimax", "tree": %s}'
                        % (tree % (long, short)))
        result = run_cli("solve", str(path))
        assert result.returncode == 2, result.stderr
        assert "may have at most 1000 digits" in result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""


def test_cli_reads_json_decimals_exactly(tmp_path: Path) -> None:
    # Written as text: through a float the first would be 12345678901234568, and the thirds
    # would not sum to 1.
    path = tmp_path / "decimals.json"
    path.write_text(
        '{"format": "gametree/1", "kind": "expectiminimax", "tree": {"name": "R", '
        '"type": "max", "children": [{"name": "a", "value": 12345678901234567.5}, '
        '{"name": "c", "type": "chance", "probabilities": [0.33333333333333333, '
        '0.33333333333333333, 0.33333333333333334], "children": [{"name": "x", "value": 1}, '
        '{"name": "y", "value": 2}, {"name": "z", "value": 3}]}]}}')
    result = run_cli("solve", str(path))
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["node_values"]["a"] == "24691357802469135/2"
    assert answer["node_values"]["c"] == "200000000000000001/100000000000000000"


def test_cli_rejects_unreadable_and_invalid_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["solve", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["solve", str(broken)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["solve", str(nested)]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_cli_misconception_option_and_listing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(problem("alphabeta", TWO_BY_TWO)))
    assert main(["solve", str(path), "--misconception", "root_alpha_not_raised"]) == 0
    assert json.loads(capsys.readouterr().out)["pruned_leaves"] == []
    assert main(["solve", str(path), "--misconception", "nope"]) == 2
    assert "unknown misconception" in capsys.readouterr().err
    assert main(["misconceptions", "--kind", "ucb1"]) == 0
    codes = {entry["code"] for entry in json.loads(capsys.readouterr().out)}
    assert codes == {"final_move_by_ucb1", "other_ucb1_form"}


def test_help_documents_every_subcommand_and_option() -> None:
    top = run_cli("--help")
    assert top.returncode == 0
    for command in ("solve", "misconceptions", "game", "census"):
        assert command in top.stdout
    solve_help = run_cli("solve", "--help").stdout
    for option in ("PROBLEM.json", "--misconception", "--indent", "stdin"):
        assert option in solve_help
    assert run_cli("--version").stdout.strip() == f"engine {ENGINE_VERSION}"

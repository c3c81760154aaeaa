"""Every convention a key depends on is stated in the prompt, in every language, and keys
accept every answer the prompt allows (equally good moves, cuts at a node's last child)."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from django.utils import translation

from exercises.generation import generate_item, item_seed
from exercises.kinds import get_kind
from exercises.kinds.base import NUMBER_PARTS
from exercises.kinds.params import ParamError
from exercises.tree_text import parse_tree_text
from tests.exercises.kind_cases import GOOD

LANGS = ("en", "pt", "pt-br", "ca")


def prompts(kind_name: str, **params: Any) -> dict[str, str]:
    """Return the prompt of one generated item in each language."""
    kind = get_kind(kind_name)
    cleaned = kind.clean_params(params)
    item = generate_item(kind_name, cleaned, item_seed("prompts", 1, 1))
    texts = {}
    for lang in LANGS:
        with translation.override(lang):
            texts[lang] = kind.prompt_text(item.prompt["args"], cleaned)
    return texts


def sentences(text: str) -> set[str]:
    """Return the prose sentences of a prompt (long enough to be worded, not a formula)."""
    return {s.strip() for s in re.split(r"(?<=[.?])\s+", text) if len(s.split()) > 4}


@pytest.mark.parametrize(("kind_name", "params"),
                         [(kind, params) for kind, cases in GOOD.items() for params in cases])
def test_no_sentence_of_a_prompt_is_left_in_english(kind_name: str, params: dict) -> None:
    texts = prompts(kind_name, **params)
    english = sentences(texts["en"])
    for lang in ("pt", "pt-br", "ca"):
        assert not english & sentences(texts[lang]), (lang, english & sentences(texts[lang]))


MULTIPLE_CHOICE_KINDS = sorted(name for name in GOOD if get_kind(name).choice_part)


@pytest.mark.parametrize("kind_name", MULTIPLE_CHOICE_KINDS)
def test_a_multiple_choice_prompt_says_which_one_question_its_options_answer(
    kind_name: str,
) -> None:
    kind = get_kind(kind_name)
    asked = kind.answer_parts(kind.clean_params({"answer_format": "multiple_choice"}))[0]
    open_texts = prompts(kind_name)
    for lang, text in prompts(kind_name, answer_format="multiple_choice").items():
        with translation.override(lang):
            label = str(asked.title)
        # The question comes first, saying the open prompt after it is the setting, whose
        # other questions are not asked.
        assert text.endswith(" " + open_texts[lang]), lang
        assert label in text[:-len(open_texts[lang])], (lang, label)
    assert "Multiple choice" not in open_texts["en"]
    english = prompts(kind_name, answer_format="multiple_choice")["en"]
    assert english.startswith("Multiple choice: answer one question only")
    assert "its other questions are not asked here." in english


@pytest.mark.parametrize("kind_name", sorted(GOOD))
def test_every_number_part_says_whether_it_is_exact(kind_name: str) -> None:
    kind = get_kind(kind_name)
    for params in GOOD[kind_name]:
        for part in kind.answer_parts(kind.clean_params(params)):
            for lang, exact, within in (("en", "(exact)", "(within ±"),
                                        ("pt", "(exato)", "(com margem de ±"),
                                        ("ca", "(exacte)", "(amb un marge de ±")):
                with translation.override(lang):
                    label = str(part.label)
                if part.type in NUMBER_PARTS:
                    wanted = exact if part.tolerance is None else within
                    assert wanted in label, (kind_name, part.name, lang, label)


def test_alphabeta_states_the_root_window_the_last_child_cut_and_ties() -> None:
    texts = prompts("alphabeta")
    narrowing = "The root starts with the window (-inf, inf) and narrows it after each child"
    assert narrowing in texts["en"]
    assert "nothing is left to skip" in texts["en"]
    assert "any of them is accepted" in texts["en"]
    assert "qualquer uma delas é aceite" in texts["pt"]
    assert "qualquer uma delas é aceita" in texts["pt-br"]
    assert "qualsevol d'elles s'accepta" in texts["ca"]
    strict = prompts("alphabeta", depth=3, max_leaves=18, cut_on_equality=False,
                     root_raises_alpha=False)
    assert "only when alpha > beta" in strict["en"]
    assert "full window (-inf, inf)" in strict["en"]


@pytest.mark.parametrize("kind_name", ["alphabeta", "move_ordering", "iterative_deepening",
                                       "tictactoe_position"])
def test_every_alphabeta_prompt_whose_root_narrows_states_its_initial_window(
    kind_name: str,
) -> None:
    texts = prompts(kind_name)
    assert "The root starts with the window (-inf, inf)" in texts["en"]
    assert "A raiz começa com a janela (-inf, inf)" in texts["pt"]
    assert "A raiz começa com a janela (-inf, inf) e a estreita" in texts["pt-br"]
    assert "L'arrel comença amb la finestra (-inf, inf)" in texts["ca"]


@pytest.mark.parametrize(("prefer", "equally", "leftmost"), [("min", "equally bad", "y"),
                                                              ("max", "equally good", "x")])
def test_vector_tie_rule_states_its_leftmost_fallback_and_the_key_follows_it(
    prefer: str, equally: str, leftmost: str,
) -> None:
    texts = prompts("vector", players=2, tie_break={"player": "B", "prefer": prefer})
    assert f"if several are {equally} for B, the leftmost of them." in texts["en"]
    for lang in ("pt", "pt-br", "ca"):
        assert not sentences(texts["en"]) & sentences(texts[lang]), lang
    # A ties x, y, z, w at 5; B's payoffs leave x and w (max) or y and z (min) still tied.
    kind = get_kind("vector")
    problem = {"format": "gametree/1", "kind": "vector",
               "tree": parse_tree_text("A(x: (5, 3), y: (5, 1), z: (5, 1), w: (5, 3))"),
               "params": {"players": ["A", "B"], "tie_break": {"player": "B", "prefer": prefer}}}
    assert kind.project(problem, kind.solve(problem))["move"] == leftmost


def test_best_first_says_all_children_are_sorted_best_to_worst() -> None:
    texts = prompts("move_ordering")
    assert "takes its children from best to worst" in texts["en"]
    assert "do melhor para o pior" in texts["pt"] and "del millor al pitjor" in texts["ca"]


def test_tictactoe_centre_order_is_not_also_called_left_to_right() -> None:
    texts = prompts("tictactoe_position", order="centre-corners-edges")
    assert "left to right" not in texts["en"]
    assert "4, 0, 2, 6, 8, 1, 3, 5, 7" in texts["en"]


def test_a_dice_tree_without_min_levels_does_not_mention_min_moving_below() -> None:
    texts = prompts("expectiminimax", chance="dice", depth=2, min_value=0, max_value=5)
    assert "MIN moves below" not in texts["en"] and "MIN never moves" in texts["en"]
    assert "MIN moves below" in prompts("expectiminimax")["en"]


def test_ucb1_prints_the_constant_as_the_instructor_wrote_it() -> None:
    texts = prompts("ucb1", c=1.41)
    assert "c = 1.41" in texts["en"] and "141/100" not in texts["en"]
    assert "within 0.01" in texts["en"]


def test_tree_size_states_the_root_window_behind_perfect_ordering() -> None:
    # A root that does not narrow its window never cuts a 2-ply tree: b² leaves, not 2b - 1.
    texts = prompts("tree_size")
    assert "the root narrows it after each child" in texts["en"]
    assert "best child first" in texts["en"]


@pytest.mark.parametrize("form", ["c*sqrt(ln N/n)", "sqrt(c*ln N/n)"])
def test_ucb1_writes_the_logarithm_so_it_reads_one_way(form: str) -> None:
    # "ln N / n" also read as ln(N / n), far outside the tolerance.
    text = prompts("ucb1", form=form)["en"]
    assert "ln(N) / n" in text and "ln N / n" not in text


@pytest.mark.parametrize("root_player", ["max", "min"])
def test_move_ordering_says_who_moves_and_that_the_second_search_still_cuts(
        root_player: str) -> None:
    text = prompts("move_ordering", root_player=root_player)["en"]
    assert f"{root_player.upper()} moves at the root" in text
    assert "alpha-beta cuts as usual" in text and "searches all its children" not in text


def test_a_move_ordering_prompt_stored_without_its_root_player_still_renders() -> None:
    from exercises.kinds import get_kind

    kind = get_kind("move_ordering")
    params = kind.clean_params({})
    text = kind.render_prompt({"conventions": {"cut_on_equality": True,
                                               "root_raises_alpha": True},
                               "second_order": params["second_order"]})
    assert text.startswith("Run alpha-beta on this tree twice.")


def test_tree_size_says_one_move_in_the_singular() -> None:
    texts = prompts("tree_size", min_moves=1, max_moves=1)
    assert "looks 1 move ahead" in texts["en"]
    assert "antecipa 1 jogada " in texts["pt"] and "mira 1 jugada " in texts["ca"]


@pytest.mark.parametrize(("kind_name", "field"), [("alphabeta", "min_cuts"),
                                                  ("move_ordering", "min_difference")])
def test_conventions_under_which_nothing_can_cut_are_refused_by_name(kind_name: str,
                                                                     field: str) -> None:
    with pytest.raises(ParamError) as error:
        get_kind(kind_name).clean_params({"depth": 2, "root_raises_alpha": False})
    assert error.value.field == field
    assert "root_raises_alpha" in error.value.message and "depth" in error.value.message
    get_kind("alphabeta").clean_params({"depth": 2, "root_raises_alpha": False, "min_cuts": 0})


def test_tictactoe_accepts_every_move_of_equal_value() -> None:
    kind = get_kind("tictactoe_position")
    params = kind.clean_params({"allow_ties": True})
    problem = {"format": "gametree/1", "kind": "tictactoe_position", "board": "OX      X",
               "to_move": "O", "params": {name: params[name] for name in (
                   "order", "node_counting", "cut_on_equality", "root_raises_alpha")}}
    key = kind.project(problem, kind.solve(problem))
    assert isinstance(key["move"], list) and {"4", "6", "7"} <= set(key["move"])
    assert "0" not in key["move"]


TIED_ALPHABETA: dict[str, Any] = {
    "format": "gametree/1",
    "kind": "alphabeta",
    # B1=3 reaches alpha=3, so B is cut with only a bound; it is worth 3, as good as A.
    "tree": {"type": "max", "name": "root", "children": [
        {"type": "min", "name": "A", "children": [{"name": "A1", "value": 3},
                                                  {"name": "A2", "value": 5}]},
        {"type": "min", "name": "B", "children": [{"name": "B1", "value": 3},
                                                  {"name": "B2", "value": 9}]},
        {"type": "min", "name": "C", "children": [{"name": "C1", "value": 1},
                                                  {"name": "C2", "value": 8}]},
    ]},
    "params": {"cut_on_equality": True, "root_raises_alpha": True},
    "ask": {"windows": []},
}


def test_alphabeta_accepts_a_pruned_root_child_that_is_equally_good() -> None:
    kind = get_kind("alphabeta")
    key = kind.project(TIED_ALPHABETA, kind.solve(copy.deepcopy(TIED_ALPHABETA)))
    assert key["move"] == ["A", "B"]


def test_expectimax_accepts_every_decision_of_equal_value() -> None:
    kind = get_kind("expectimax")
    problem = {"format": "gametree/1", "kind": "expectimax",
               "tree": {"type": "max", "name": "root", "children": [
                   {"type": "chance", "name": "A", "probabilities": ["1/2", "1/2"],
                    "children": [{"name": "A1", "value": 2}, {"name": "A2", "value": 4}]},
                   {"type": "chance", "name": "B", "probabilities": ["1/2", "1/2"],
                    "children": [{"name": "B1", "value": 3}, {"name": "B2", "value": 3}]}]},
               "params": {}, "ask": {"node_values": [], "minimax_move": False}}
    assert kind.project(problem, kind.solve(problem))["move"] == ["A", "B"]


def test_connect4_accepts_every_column_of_equal_score() -> None:
    kind = get_kind("connect4_eval")
    problem = {"format": "gametree/1", "kind": "connect4_eval", "moves": "23422611",
               "to_move": "X", "params": {"player": "X", "ask_best_move": True}}
    # Columns 3 and 4 both leave X a position scored 10.
    assert kind.project(problem, kind.solve(problem))["move"] == ["3", "4"]
    assert "any of them is accepted" in prompts("connect4_eval", discs=12, ask_best_move=True)["en"]


def test_one_asked_node_is_named_in_the_singular() -> None:
    assert "Give also the minimax value of node " in prompts("minimax", ask_nodes=1)["en"]
    assert "Give also the value of node " in prompts("expectimax", ask_nodes=1)["en"]
    assert "Give also the values of nodes " in prompts("expectimax", chance="biased",
                                                       ask_nodes=2)["en"]


def test_alphabeta_without_ties_refuses_a_tie_hidden_by_pruning() -> None:
    kind = get_kind("alphabeta")
    params = kind.clean_params({})
    answer = kind.solve(copy.deepcopy(TIED_ALPHABETA))
    assert any("tie" in issue for issue in kind.quality_issues(TIED_ALPHABETA, answer, params))


def test_a_dice_variant_stored_without_its_depth_still_has_no_min_level() -> None:
    kind = get_kind("expectiminimax")
    args = {"chance": "dice", "nodes": [], "contrast": False}
    assert "MIN never moves" in kind.render_prompt(args)


def test_code_search_prompts_state_how_generated_states_are_counted() -> None:
    # The generated states are graded against a search that generates a child only when it
    # searches it, and finds the mover by to_move (a player may move twice in a row).
    from grading.code.contract import conventions_template

    for kind_name in ("code_minimax", "code_alphabeta", "code_expectimax"):
        text = " ".join(conventions_template(kind_name, {}).split())
        assert "Generate a child with ``game.result`` only when you are about to search it" in text
        assert "a player may move twice in a row" in text


def test_a_connect4_best_move_prompt_says_an_immediate_win_beats_any_score() -> None:
    # Columns 1 and 2 both win at once here (window scores 103 and 98): the key accepts both,
    # as the prompt now says, instead of ranking them by the table.
    from exercises.generation import generate_item
    from exercises.kinds import get_kind

    kind = get_kind("connect4_eval")
    params = kind.clean_params({"discs": 12, "ask_best_move": True, "allow_ties": True})
    item = generate_item("connect4_eval", params, "12-36")
    assert item.problem["moves"] == "453713151475"
    assert sorted(item.answer_key["move"]) == ["1", "2"]
    assert "wins at once and beats any score" in kind.render_prompt(item.prompt["args"])


def test_tictactoe_node_counts_say_a_board_reached_twice_counts_twice() -> None:
    # The census beside them counts distinct positions; the searches count every entry.
    from exercises.generation import generate_item
    from exercises.kinds import get_kind

    kind = get_kind("tictactoe_position")
    item = generate_item("tictactoe_position", kind.clean_params({}), "twice")
    assert "a board reached by two move orders counts twice" in kind.render_prompt(
        item.prompt["args"])

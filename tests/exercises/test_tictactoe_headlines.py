"""Issue 18: the teaching texts' tic-tac-toe headline numbers come out of the kind exactly.

From the empty board, counting every position a search enters below the root (the root not
counted), alpha raised at the root and cuts on alpha >= beta: minimax 549,945 nodes,
alpha-beta 18,296 in index order and 7,274 trying the centre, then the corners, then the
edges; 255,168 complete games and 5,478 positions (the empty board and the finished ones
included).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from exercises.generation import generate_item, item_seed
from exercises.kinds import get_kind
from exercises.kinds.params import ParamError

KIND = get_kind("tictactoe_position")


def key(**raw: Any) -> dict[str, Any]:
    params = KIND.clean_params({"empty_squares": 9, "allow_ties": True, **raw})
    item = generate_item(KIND.name, params, item_seed("headlines", 1, 1))
    assert item.problem["board"] == " " * 9
    return item.answer_key


def test_the_empty_board_searched_in_index_order() -> None:
    answer = key()
    assert answer["nodes_minimax"] == 549_945
    assert answer["nodes_alphabeta"] == 18_296
    assert answer["value"] == 0
    assert sorted(answer["move"]) == [str(square) for square in range(9)]


def test_centre_first_ordering_prunes_to_7274() -> None:
    answer = key(order="centre-corners-edges")
    assert answer["nodes_alphabeta"] == 7_274
    assert answer["nodes_minimax"] == 549_945


def test_counting_the_root_adds_one_to_each_search() -> None:
    answer = key(node_counting="root_included")
    assert (answer["nodes_minimax"], answer["nodes_alphabeta"]) == (549_946, 18_297)


def test_the_census_of_the_empty_board() -> None:
    answer = key(ask_search=False, ask_census=True)
    assert answer == {"games": 255_168, "positions": 5_478}


def test_multiple_choice_offers_the_other_conventions_counts() -> None:
    params = KIND.clean_params({"empty_squares": 9, "allow_ties": True,
                                "answer_format": "multiple_choice", "options": 4})
    item = generate_item(KIND.name, params, item_seed("headlines", 1, 1))
    values = {option["id"]: option["value"] for option in item.problem["options"]}
    assert values[item.answer_key["choice"]] == 18_296
    # Without cut on equality and without raising alpha at the root, from the engine.
    assert set(values.values()) == {18_296, 30_709, 146_119, 153_011}


def test_the_empty_board_needs_ties_allowed_when_the_move_is_asked() -> None:
    with pytest.raises(ParamError) as error:
        KIND.clean_params({"empty_squares": 9})
    assert error.value.field == "allow_ties"
    assert KIND.clean_params({"empty_squares": 9, "ask_search": False, "ask_census": True})


@pytest.mark.parametrize("lang", ["en", "pt", "pt-br", "ca"])
def test_the_prompt_states_every_counting_convention(lang: str) -> None:
    params = KIND.clean_params({"empty_squares": 9, "allow_ties": True, "ask_census": True})
    item = generate_item(KIND.name, params, item_seed("headlines", 1, 1))
    with translation.override(lang):
        text = KIND.render_prompt(item.prompt["args"])
    if lang == "en":
        for phrase in ("index order 0-8", "below this one (not this one)",
                       "finished positions included", "alpha >= beta",
                       "distinct sequences of moves", "counts once",
                       "rotations or reflections of each other count separately",
                       # A win scored by its depth prunes differently.
                       "+1, 0 or -1 for X whatever its depth"):
            assert phrase in text, phrase
    assert "%(" not in text

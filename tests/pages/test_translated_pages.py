"""Issue 18: pages name the evaluation table's rows and the price-war players in the page's
language, and the language switcher offers both Portuguese variants."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from exercises.generation import generate_item, item_seed
from exercises.kinds import get_kind
from pages.templatetags.pages_tags import problem_facts
from pages.tree_drawing import lay_out


def generated(kind: str) -> dict[str, Any]:
    params = get_kind(kind).clean_params({})
    return generate_item(kind, params, item_seed("pages-i18n", 1, 1)).problem


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["White", "Black", "pawns", "knights"]),
    ("pt", ["Brancas", "Pretas", "peões", "cavalos"]),
    ("pt-br", ["Brancas", "Pretas", "peões", "cavalos"]),
    ("ca", ["Blanques", "Negres", "peons", "cavalls"]),
])
def test_the_features_table_is_translated(lang: str, words: list[str]) -> None:
    problem = generated("eval_function")
    with translation.override(lang):
        facts = problem_facts(problem)
        shown = [str(side) for side in facts["feature_sides"]]
        shown += [str(name) for name, _ in facts["feature_rows"]]
    for word in words:
        assert word in shown, (word, shown)
    if lang != "en":
        assert not {"white", "black", "pawns"} & set(shown)


@pytest.mark.parametrize(("lang", "firm", "rival"), [
    ("en", "firm", "competitor"), ("pt", "empresa", "concorrente"),
    ("pt-br", "empresa", "concorrente"), ("ca", "empresa", "competidor"),
])
def test_the_price_war_tree_names_its_players(lang: str, firm: str, rival: str) -> None:
    problem = generated("price_war")
    with translation.override(lang):
        players = {node.player for node in lay_out(problem["tree"]).nodes if node.player}
    assert players == {firm, rival}


@pytest.mark.django_db
def test_the_language_switcher_offers_both_portuguese_variants() -> None:
    page = Client().get("/login/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    for code, name in (("pt", "Português (Portugal)"), ("pt-br", "Português (Brasil)")):
        assert f'<option value="{code}"' in page and name in page
    assert '<html lang="pt-br">' in page
    assert "Nome de usuário" in page
    european = Client().get("/login/", HTTP_ACCEPT_LANGUAGE="pt-PT").content.decode()
    assert '<html lang="pt">' in european and "Nome de utilizador" in european


def test_the_api_accepts_brazilian_portuguese_in_any_case(student: Any) -> None:
    for lang in ("pt-br", "pt-BR"):
        body = student[1].get("/api/v1/kinds/", {"lang": lang}).json()
        titles = {kind["name"]: kind["title"] for kind in body}
        assert titles["tictactoe_position"] == "Posição do jogo da velha"
    european = student[1].get("/api/v1/kinds/", {"lang": "pt"}).json()
    assert {kind["name"]: kind["title"] for kind in european}["tictactoe_position"] == (
        "Posição do jogo do galo"
    )

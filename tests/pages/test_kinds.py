"""Every registered kind renders: its item page (inputs drawn from its answer parts), preview."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from exercises.kinds import kind_names
from tests.pages.conftest import publish_now

pytestmark = pytest.mark.django_db


def labelled_inputs_missing(html: str) -> list[str]:
    """Return the ids of text inputs that neither a label nor an aria-label names."""
    import re

    ids = re.findall(r'<input[^>]*type="text"[^>]*id="([^"]+)"', html)
    return [
        input_id for input_id in ids
        if f'for="{input_id}"' not in html
        and not re.search(rf'id="{re.escape(input_id)}"[^>]*aria-label=', html)
        and not re.search(rf'aria-label="[^"]*"[^>]*id="{re.escape(input_id)}"', html)
    ]


@pytest.mark.parametrize("kind_name", kind_names())
def test_item_page_renders_every_kind(kind_name: str, instructor: Any, student: Any,
                                      course: Any) -> None:
    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title=f"{kind_name} set", seed="kinds",
        items=[{"kind": kind_name, "params": {}, "points": Decimal(1)}],
    ))
    assert problem_set.status == "ready", problem_set.failure_reason
    variant = problem_set.variants.get(student=student[0])
    client = Client()
    client.force_login(student[0])
    response = client.get(reverse("pages:item", args=[variant.pk, 1]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="submit-answer"' in html or 'id="submit-code"' in html
    assert labelled_inputs_missing(html) == []


def test_a_transposition_table_page_shows_positions_and_asks_flags_as_words(
        instructor: Any, student: Any, course: Any) -> None:
    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="tt set", seed="kinds",
        items=[{"kind": "transposition_table", "params": {}, "points": Decimal(1)}],
    ))
    variant = problem_set.variants.get(student=student[0])
    client = Client()
    client.force_login(student[0])
    html = client.get(reverse("pages:item", args=[variant.pk, 1])).content.decode()
    assert 'class="tree-position"' in html and ">[p2]</text>" in html
    assert 'inputmode="text" size="6" name="answer-entries-p1-flag"' in html
    assert 'inputmode="decimal" size="6" name="answer-entries-p1-value"' in html


def builder_defaults(kind_name: str, index: int = 0) -> dict[str, Any]:
    """Return what the builder posts for a row ``index`` of ``kind_name`` left at its defaults,
    with ``preview_item`` asking to preview it."""
    from exercises.kinds import get_kind
    from pages.builder_form import item_inputs

    row = item_inputs(index, get_kind(kind_name))
    data: dict[str, Any] = {"item": [str(index)], f"item-{index}-kind": kind_name,
                            "preview_item": str(index)}
    for field in row.params:
        if field.widget == "checkbox":
            if field.value:
                data[field.input_name] = "on"
        elif field.widget == "checkboxes":
            data[field.input_name] = list(field.value)
        elif field.widget in ("json", "tree"):
            data[field.input_name] = field.value
        else:
            data[field.input_name] = str(field.value)
    return data


@pytest.mark.parametrize("kind_name", kind_names())
def test_preview_renders_every_kind(kind_name: str, instructor: Any) -> None:
    client = Client()
    client.force_login(instructor[0])
    response = client.post(reverse("pages:preview"), builder_defaults(kind_name))
    assert response.status_code == 200, response.content.decode()[:500]
    assert "Preview" in response.content.decode()


def test_preview_names_a_bad_param(instructor: Any) -> None:
    client = Client()
    client.force_login(instructor[0])
    response = client.post(reverse("pages:preview"), {"item": "0", "item-0-kind": "alphabeta",
                                                      "preview_item": "0", "item-0-depth": "9"})
    assert response.status_code == 400
    assert "depth" in response.content.decode()


def test_preview_of_params_that_cannot_generate_is_a_422_naming_the_constraint(
        instructor: Any) -> None:
    client = Client()
    client.force_login(instructor[0])
    response = client.post(reverse("pages:preview"), {
        "item": "0", "item-0-kind": "alphabeta", "preview_item": "0", "item-0-depth": "2",
        "item-0-min_branching": "2", "item-0-max_branching": "2", "item-0-min_cuts": "2",
        "item-0-root_raises_alpha": "on"})
    assert response.status_code == 422
    text = response.content.decode()
    assert "no problem met the constraints in 1000 attempts" in text
    assert "fewer than min_cuts" in text


def test_item_page_asks_the_cut_bound_of_the_named_node(instructor: Any, student: Any,
                                                         course: Any) -> None:
    from exercises.services import create_problem_set

    params = {"ask_cut_bound": True, "depth": 3, "max_leaves": 18}
    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="cut bound set", seed="kinds",
        items=[{"kind": "alphabeta", "params": params, "points": Decimal(1)}],
    ))
    assert problem_set.status == "ready", problem_set.failure_reason
    variant = problem_set.variants.get(student=student[0])
    [asked] = variant.items.get().problem["ask"]["cut_bound"]
    client = Client()
    client.force_login(student[0])
    html = client.get(reverse("pages:item", args=[variant.pk, 1])).content.decode()
    assert f"A cutoff happens at {asked}" in html
    assert "cut_bound" in html and labelled_inputs_missing(html) == []


def test_the_builder_previews_the_empty_board_census(instructor: Any) -> None:
    from exercises.kinds import get_kind
    from pages.builder_form import item_inputs

    row = item_inputs(0, get_kind("tictactoe_position"))
    assert {"item-0-empty_squares", "item-0-ask_census"} <= {
        field.input_name for field in row.params}
    data = builder_defaults("tictactoe_position")
    data.update({"item-0-empty_squares": "9", "item-0-allow_ties": "on",
                 "item-0-ask_census": "on"})
    client = Client()
    client.force_login(instructor[0])
    response = client.post(reverse("pages:preview"), data)
    html = response.content.decode()
    assert response.status_code == 200, html[:500]
    for number in ("549945", "18296", "255168", "5478"):
        assert number in html.replace(",", "").replace("\u202f", "").replace(" ", ""), number


def test_an_item_page_asks_the_census_of_the_empty_board(instructor: Any, student: Any,
                                                         course: Any) -> None:
    from exercises.services import create_problem_set

    params = {"empty_squares": 9, "allow_ties": True, "ask_search": False, "ask_census": True}
    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="census set", seed="kinds",
        items=[{"kind": "tictactoe_position", "params": params, "points": Decimal(1)}],
    ))
    assert problem_set.status == "ready", problem_set.failure_reason
    variant = problem_set.variants.get(student=student[0])
    client = Client()
    client.force_login(student[0])
    html = client.get(reverse("pages:item", args=[variant.pk, 1])).content.decode()
    assert "Complete games from this position" in html
    assert "Distinct positions reachable from this one" in html
    assert "Nodes visited by minimax" not in html


SAME_IN_EVERY_LANGUAGE = {"MAX", "MIN", "minimax", "Valor", "Value", "derrota", "alpha-beta"}


def test_every_param_and_choice_has_a_human_label_in_every_language() -> None:
    from django.utils import translation

    from exercises.kinds import all_kinds
    from pages.param_labels import CHOICE_LABELS, PARAM_LABELS

    for kind in all_kinds():
        for param in kind.declared_params():
            assert param.name in PARAM_LABELS, f"{kind.name}.{param.name} has no label"
            for choice in getattr(param, "choices", ()):
                assert choice in CHOICE_LABELS, f"{kind.name}.{param.name}: {choice}"
    labels = [*PARAM_LABELS.values(),
              *(label for label in CHOICE_LABELS.values() if not isinstance(label, str))]
    with translation.override(None):
        english = [str(label) for label in labels]
    for lang in ("pt", "pt-br", "ca"):
        with translation.override(lang):
            untranslated = [en for en, label in zip(english, labels, strict=True)
                            if str(label) == en and en not in SAME_IN_EVERY_LANGUAGE]
        assert untranslated == [], lang

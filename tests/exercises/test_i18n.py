"""Prompts and labels render in English, Portuguese and Catalan."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from exercises.generation import generate_item, item_seed
from exercises.kinds import get_kind
from exercises.models import Variant
from tests.exercises.kind_cases import GOOD
from tests.exercises.test_problem_sets_api import create_set, publish

# A word each language's minimax prompt must use: the translations are really loaded.
ROOT_WORD = {"en": "root", "pt": "raiz", "ca": "arrel"}


@pytest.mark.parametrize("kind", sorted(GOOD))
def test_every_kind_renders_in_every_language(kind: str) -> None:
    exercise = get_kind(kind)
    params = exercise.clean_params(GOOD[kind][0])
    item = generate_item(kind, params, item_seed("i18n", 1, 1))
    texts = {}
    for lang in ("en", "pt", "ca"):
        with translation.override(lang):
            texts[lang] = exercise.render_prompt(item.prompt["args"])
            labels = [str(part.label) for part in exercise.answer_parts(params)]
        assert texts[lang].strip() and all(labels)
        assert "%(" not in texts[lang]
    assert texts["pt"] != texts["en"] and texts["ca"] != texts["en"]
    assert texts["pt"] != texts["ca"]


@pytest.mark.django_db
def test_assignment_prompts_follow_lang_and_accept_language(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    problem_set = create_set(client, course)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    variant = Variant.objects.get(student=student[0])
    url = f"/api/v1/assignments/{variant.pk}/"
    english = student[1].get(url).json()["items"][0]
    portuguese = student[1].get(url, {"lang": "pt"}).json()["items"][0]
    catalan = student[1].get(url, HTTP_ACCEPT_LANGUAGE="ca").json()["items"][0]
    for body, lang in ((english, "en"), (portuguese, "pt"), (catalan, "ca")):
        assert ROOT_WORD[lang] in body["prompt"], body["prompt"]
    assert portuguese["answer_parts"][0]["label"] == "valor minimax da raiz (exato)"
    assert catalan["answer_parts"][0]["label"] == "valor minimax de l'arrel (exacte)"
    bad = student[1].get(url, {"lang": "xx"})
    assert bad.status_code == 400 and bad.json()["error"]["message"].startswith("lang:")


def test_kinds_listing_is_translated(student: Any) -> None:
    body = student[1].get("/api/v1/kinds/", {"lang": "ca"}).json()
    titles = {kind["name"]: kind["title"] for kind in body}
    assert titles["price_war"] == "Guerra de preus"

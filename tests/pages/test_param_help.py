"""The builder's help lines are translated: every kind's declared help is in the catalogue
list (pages/param_help.py) and the builder shows it in the reader's language."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from exercises.kinds import all_kinds
from pages.param_help import HELP_TEXTS


def test_every_declared_help_line_is_marked_for_translation() -> None:
    declared = {param.help for kind in all_kinds() for param in kind.declared_params()}
    assert declared - set(HELP_TEXTS) == set()
    assert set(HELP_TEXTS) - declared == set(), "a help line no kind declares any more"


@pytest.mark.parametrize("language", ["pt", "pt-br", "ca"])
def test_every_help_line_has_a_translation(language: str) -> None:
    with translation.override(language):
        untranslated = [text for text in HELP_TEXTS if translation.gettext(text) == text]
    assert untranslated == []


@pytest.mark.django_db
def test_the_builder_shows_help_lines_in_the_readers_language(instructor: Any) -> None:
    client = Client()
    client.force_login(instructor[0])
    page = client.get(reverse("pages:builder"), HTTP_ACCEPT_LANGUAGE="pt")
    text = page.content.decode()
    with translation.override("pt"):
        help_text = translation.gettext("plies below the root (the root is at depth 0)")
    assert help_text != "plies below the root (the root is at depth 0)"
    assert help_text in text

"""The builder's help lines are translated: each kind's param declares its help marked for
translation (``gettext_noop`` in exercises/kinds), and the builder shows it in the reader's
language, word for word as the catalogue has it."""

from __future__ import annotations

import ast
import re
import subprocess
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from exercises.kinds import all_kinds
from pages.builder_form import param_widget

KINDS_DIR = Path(__file__).resolve().parents[2] / "exercises" / "kinds"
HELP_SPAN = re.compile(r'<span class="help" id="(item-\d+-\w+)-help">(.*?)</span>', re.S)


def declared_help() -> set[str]:
    return {param.help for kind in all_kinds() for param in kind.declared_params()}


def marked_in_kinds(scratch: Path) -> set[str]:
    """Return the msgids xgettext extracts from the kinds' modules (as makemessages would)."""
    pot = scratch / "kinds.pot"
    subprocess.run(
        ["xgettext", "--language=Python", "--from-code=UTF-8", "--keyword=gettext_noop",
         "--no-location", "-o", str(pot), *map(str, sorted(KINDS_DIR.glob("*.py")))],
        check=True,
    )
    catalogue = pot.read_text(encoding="utf-8")
    msgids = re.findall(r'^msgid ((?:".*"\n)+)', catalogue, re.M)
    return {"".join(ast.literal_eval(line) for line in block.splitlines()) for block in msgids}


def test_every_declared_help_line_is_marked_where_it_is_declared(tmp_path: Path) -> None:
    assert declared_help() - marked_in_kinds(tmp_path) == set()


@pytest.mark.parametrize("language", ["pt", "pt-br", "ca"])
def test_every_help_line_has_a_translation(language: str) -> None:
    with translation.override(language):
        untranslated = [text for text in declared_help() if translation.gettext(text) == text]
    assert untranslated == []


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "pt", "pt-br", "ca"])
def test_the_builder_shows_every_help_line_in_the_readers_language(
    instructor: Any, language: str
) -> None:
    kinds = all_kinds()
    rows: dict[str, Any] = {"item": [str(index) for index in range(len(kinds))],
                            "add_item": "1", "add_kind": kinds[0].name}
    rows.update({f"item-{index}-kind": kind.name for index, kind in enumerate(kinds)})
    client = Client()
    client.force_login(instructor[0])
    page = client.post(reverse("pages:builder"), rows, HTTP_ACCEPT_LANGUAGE=language)
    shown = {name: unescape(text) for name, text in HELP_SPAN.findall(page.content.decode())}
    shown_params = [
        (f"item-{index}-{param.name}", param)
        for index, kind in enumerate(kinds) for param in kind.declared_params()
        if param_widget(param) != "tree"  # the tree editor explains how to type a tree
    ]
    with translation.override(language):
        convention = f" ({translation.gettext('convention')})"
        expected = {name: translation.gettext(param.help) + (convention if param.convention else "")
                    for name, param in shown_params}
    assert {name: shown.get(name) for name in expected} == expected
    english = {name: param.help for name, param in shown_params if not param.convention}
    assert (english.items() <= expected.items()) == (language == "en")

"""Issue 18: every catalogue is complete, and each language words the glossary one way.

English is the source language, so its catalogue only has to list every msgid. Catalan
addresses the student with vós everywhere; "bound" is "fita" in Catalan and "limite" in both
Portuguese catalogues; "ply" is "mitja jugada" and "meia-jogada"; Brazilian Portuguese says
"jogo da velha" and "busca".
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "untranslated"
CATALOGUES = ("en", "pt", "pt_BR", "ca")


def entries(lang: str) -> dict[str, list[str]]:
    """Return msgid → its msgstr strings (plural forms included) in a catalogue."""
    spec_globals: dict[str, Any] = {"__name__": "untranslated", "__file__": str(SCRIPT)}
    exec(compile(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT), "exec"), spec_globals)
    parsed = spec_globals["parse"](REPO / "locale" / lang / "LC_MESSAGES" / "django.po")
    return {msgid: entry["msgstr"] for (_, msgid), entry in parsed.items() if msgid}


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=REPO,
                          capture_output=True, text=True, check=False)


def test_every_catalogue_translates_every_message() -> None:
    done = run_script(*CATALOGUES)
    assert done.returncode == 0, done.stdout
    for lang in CATALOGUES:
        assert re.search(rf"^{lang}: 0 of \d+ messages not translated$", done.stdout, re.M)


def test_every_code_task_is_in_every_translated_catalogue() -> None:
    # The code items translate their task with _(contract.task), a msgid the script cannot
    # extract; pt-BR would silently fall back to the European catalogue without its own entry.
    from grading.code.contract import CONTRACTS

    for lang in ("pt", "pt_BR", "ca"):
        catalogue = entries(lang)
        missing = [name for name, contract in CONTRACTS.items()
                   if not all(catalogue.get(contract.task, [""]))]
        assert missing == [], lang


def test_the_script_lists_missing_empty_and_fuzzy_messages(tmp_path: Path) -> None:
    catalogue = tmp_path / "xx" / "LC_MESSAGES" / "django.po"
    catalogue.parent.mkdir(parents=True)
    catalogue.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Tic-tac-toe position"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Connect Four evaluation"\nmsgstr "Quatre"\n',
        encoding="utf-8",
    )
    done = run_script("--locale", str(tmp_path), "xx")
    assert done.returncode == 1
    assert "untranslated: 'Tic-tac-toe position'" in done.stdout
    assert "fuzzy: 'Connect Four evaluation'" in done.stdout
    assert "missing: 'Price war'" in done.stdout


def test_both_portuguese_variants_are_languages_of_their_own() -> None:
    assert dict(settings.LANGUAGES) == {
        "en": "English", "pt": "Português (Portugal)", "pt-br": "Português (Brasil)",
        "ca": "Català",
    }


TU_FORMS = re.compile(
    r"\b(has|Has|t'has|T'has|n'has|teu|teva|teus|teves|Teu|Teva|vols|pots|saps|fes|Fes"
    r"|recorre'ls|escriu-l[oa]s?|et dona|te l')\b|^(Escriu|Obre|Tria|Demana|Mira) "
)
"""Catalan second-person singular (tu) forms: verbs, possessives, pronouns, imperatives.

Verbs whose tu imperative is also the third person ("tria", "demana") count only where a
sentence starts with them."""


def test_catalan_addresses_the_student_with_vos_throughout() -> None:
    offending = [
        (msgid, match.group(0))
        for msgid, strings in entries("ca").items()
        for text in strings
        for match in TU_FORMS.finditer(text)
        if not (match.group(0) == "Tria " and msgid.startswith("It "))  # "(it) chooses"
    ]
    assert not offending


GLOSSARY = {
    # language: (word for "bound", rejected synonyms, word for "ply")
    "ca": ("fit", r"\bcot(a|es)\b|\blímits? (superior|inferior)", r"mitja jugada|mitges jugades"),
    "pt": ("limite", r"\bcota", r"meias?-jogadas?"),
    "pt_BR": ("limite", r"\bcota", r"meias?-jogadas?"),
}


@pytest.mark.parametrize("lang", sorted(GLOSSARY))
def test_bound_and_ply_are_translated_one_way(lang: str) -> None:
    bound, rejected, ply = GLOSSARY[lang]
    for msgid, strings in entries(lang).items():
        for text in strings:
            assert not re.search(rejected, text, re.I), (msgid, text)
            if re.search(r"\bbounds?\b", msgid) and "depth" not in msgid:
                assert bound in text.lower(), (msgid, text)
            if re.search(r"\b(ply|plies)\b", msgid):
                assert re.search(ply, text, re.I), (msgid, text)


def test_brazilian_portuguese_uses_brazilian_words() -> None:
    brazilian = " ".join(" ".join(strings) for strings in entries("pt_BR").values())
    european = " ".join(" ".join(strings) for strings in entries("pt").values())
    for word in ("jogo da velha", "busca", "poda", "Você"):
        assert word in brazilian
    for word in ("jogo do galo", "pesquisa", "utilizador", "ficheiro", "aceite", "tem de "):
        assert word not in brazilian, word
    assert "jogo do galo" in european and "jogo da velha" not in european


def test_every_code_convention_is_in_every_translated_catalogue() -> None:
    # The prompts translate each convention with _(bullet), a msgid the script cannot extract.
    # Bullets are keyed with their placeholders (an English "%(draw_reward)s" stays as is).
    from exercises.kinds.code_items import translated_conventions
    from grading.code.contract import CONTRACTS, conventions_template

    bullets = {
        line.removeprefix("* ")
        for name in CONTRACTS
        for params in ({}, {"cut_on_equality": False, "root_raises_alpha": False})
        for line in translated_conventions(conventions_template(name, params),
                                           {"draw_reward": "%(draw_reward)s"}).splitlines()[1:]
    }
    assert len(bullets) == 20
    for lang in ("pt", "pt_BR", "ca"):
        catalogue = entries(lang)
        assert [bullet for bullet in bullets if not all(catalogue.get(bullet, [""]))] == [], lang


@pytest.mark.parametrize(("language", "stated"), [
    ("pt", "cresce 1 numa vitória, 1/3 num empate e 0 numa derrota"),
    ("ca", "creix 1 en una victòria, 1/3 en un empat i 0 en una derrota"),
    ("pt-br", "cresce 1 em uma vitória, 1/3 em um empate e 0 em uma derrota"),
    ("en", "grows by 1 for a win, by 1/3 for a draw and by 0 for a loss"),
])
def test_an_unusual_draw_reward_is_stated_in_the_readers_language(language: str,
                                                                 stated: str) -> None:
    from django.utils import translation

    from exercises.kinds import get_kind

    kind = get_kind("code_mcts_backprop")
    with translation.override(language):
        prompt = kind.render_prompt({"signature": "mcts_backprop(game, state, path, winner)",
                                     "conventions": {"draw_reward": "1/3"}})
    assert stated in " ".join(prompt.split())
    assert "1/2" not in prompt and "%(" not in prompt


def test_a_code_prompt_states_its_conventions_in_the_readers_language() -> None:
    from django.utils import translation

    from exercises.kinds import get_kind

    kind = get_kind("code_alphabeta")
    with translation.override("ca"):
        prompt = kind.render_prompt({"signature": "alphabeta_decision(game, state, depth)",
                                     "conventions": {"cut_on_equality": False}})
    assert "Convencions:" in prompt
    assert "Sense tall en la igualtat" in prompt and "Comenceu amb alfa" in prompt

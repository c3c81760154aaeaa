"""Colour contrast of the pages' stylesheet, and translated pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.pages.conftest import variant_of_user

STYLESHEET = Path(__file__).resolve().parents[2] / "pages" / "static" / "pages" / "pages.css"
MINIMUM_CONTRAST = 4.5

# Every (text colour, background) pair the stylesheet puts together.
COLOUR_PAIRS = [
    ("--text", "--page-bg"), ("--text", "--panel-bg"), ("--muted", "--page-bg"),
    ("--muted", "--panel-bg"), ("--accent", "--page-bg"), ("--accent", "--panel-bg"),
    ("--accent-text", "--accent"), ("--wrong", "--page-bg"), ("--right", "--page-bg"),
    ("--missed", "--page-bg"), ("--pruned", "--page-bg"), ("--pruned", "--pruned-bg"),
    ("--current", "--page-bg"), ("--focus", "--page-bg"), ("--wrong", "--panel-bg"),
    ("--text", "--max-bg"), ("--text", "--min-bg"), ("--text", "--chance-bg"),
    ("--text", "--player-bg"), ("--text", "--visited-bg"), ("--text", "--pruned-bg"),
]


def custom_properties(css: str) -> dict[str, str]:
    """Return the ``--name: #rrggbb`` custom properties declared in ``:root``."""
    root = re.search(r":root\s*\{(.*?)\}", css, re.S)
    assert root, "pages.css declares its colours in :root"
    return dict(re.findall(r"(--[\w-]+)\s*:\s*(#[0-9a-fA-F]{6})", root.group(1)))


def luminance(colour: str) -> float:
    """Return the WCAG relative luminance of ``#rrggbb``."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(foreground: str, background: str) -> float:
    """Return the WCAG contrast ratio of two colours."""
    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_ratio_is_computed_as_wcag_defines_it() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize(("foreground", "background"), COLOUR_PAIRS)
def test_text_colours_have_enough_contrast(foreground: str, background: str) -> None:
    colours = custom_properties(STYLESHEET.read_text())
    ratio = contrast(colours[foreground], colours[background])
    assert ratio >= MINIMUM_CONTRAST, f"{foreground} on {background}: {ratio:.2f}:1"


TEXT_SELECTOR = re.compile(
    r"text|label|name|value|mark|window|badge|probability|player|square|column|verdict|error"
)


def test_text_is_only_coloured_from_the_checked_palette() -> None:
    css = STYLESHEET.read_text()
    body = css[css.index("}", css.index(":root")) + 1:]
    for selector, rules in re.findall(r"([^{}]+)\{([^}]*)\}", body):
        if not TEXT_SELECTOR.search(selector):
            continue
        for colour in re.findall(r"(?<![-\w])(?:color|fill)\s*:\s*([^;]+)", rules):
            assert colour.strip().startswith("var(--"), f"{selector.strip()}: {colour}"


@pytest.mark.django_db
def test_pages_are_translated(alphabeta_set: Any, student: Any) -> None:
    variant = variant_of_user(alphabeta_set, student[0])
    client = Client()
    client.force_login(student[0])
    url = reverse("pages:item", args=[variant.pk, 1])
    for language, words in (("pt", "Submeter resposta"), ("ca", "Envia la resposta"),
                            ("en", "Submit answer")):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
        assert words in response.content.decode(), language
        assert f'<html lang="{language}">' in response.content.decode()


@pytest.mark.django_db
def test_language_switch_is_remembered(alphabeta_set: Any, student: Any) -> None:
    client = Client()
    client.force_login(student[0])
    response = client.post(reverse("set_language"), {"language": "ca", "next": "/assignments/"})
    assert response.status_code == 302
    assert "Els meus exercicis" in client.get(reverse("pages:assignments")).content.decode()

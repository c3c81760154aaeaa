"""An item's serialized answer parts are kept per process (exercises.apis.parts_of): each
language gets its own labels, what is kept is what serializing afresh gives, and a caller
changing its copy changes nothing for the next."""

from __future__ import annotations

import pytest
from django.utils import translation

from exercises.apis import _serialize_parts, parts_of
from exercises.kinds import all_kinds


@pytest.mark.parametrize("language", ["en", "pt", "pt-br", "ca"])
def test_kept_parts_are_the_serialized_parts_in_each_language(language) -> None:
    with translation.override(language):
        for kind in all_kinds():
            params = kind.clean_params({})
            fresh = _serialize_parts(kind.name, params)
            assert parts_of(kind.name, params) == fresh
            assert parts_of(kind.name, params) == fresh  # the kept copy
            mine = parts_of(kind.name, params)
            if mine:
                mine[0]["label"] = "changed"
                mine.append({"name": "extra"})
            assert parts_of(kind.name, params) == fresh


def test_each_language_keeps_its_own_labels() -> None:
    kind = next(kind for kind in all_kinds() if kind.name == "alphabeta")
    params = kind.clean_params({})
    labels = {}
    for language in ("en", "ca"):
        with translation.override(language):
            labels[language] = [part["label"] for part in parts_of(kind.name, params)]
    assert labels["en"] != labels["ca"]

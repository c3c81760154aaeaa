"""The transposition_table kind: repeated positions are true copies, the defaults ask a hit
and a bound, the asked probe is a bound when one is found, and the prompt states the rules."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from exercises.generation import generate_item
from exercises.kinds import get_kind
from exercises.kinds.trees import walk

KIND = get_kind("transposition_table")
SEEDS = [f"tt-{index}" for index in range(8)]


def subtree(node: dict[str, Any]) -> Any:
    if "children" not in node:
        return node["value"]
    return node["type"], node["position"], [subtree(child) for child in node["children"]]


@pytest.mark.parametrize("raw", [{}, {"depth": 4, "max_leaves": 24, "max_value": 30}])
def test_nodes_sharing_a_position_have_the_same_subtree(raw: dict[str, Any]) -> None:
    params = KIND.clean_params(raw)
    for seed in SEEDS:
        tree = generate_item(KIND.name, params, seed).problem["tree"]
        drawn: dict[str, Any] = {}
        for node in walk(tree):
            if "children" in node:
                assert drawn.setdefault(node["position"], subtree(node)) == subtree(node)
        assert len(drawn) < sum("children" in node for node in walk(tree))  # some repeat


def test_the_defaults_ask_a_probe_that_hits_and_keep_a_bound_entry() -> None:
    params = KIND.clean_params({})
    for seed in SEEDS:
        item = generate_item(KIND.name, params, seed)
        entries = item.answer_key["entries"]
        assert any(row and row["flag"] != "exact" for row in entries.values())
        [(node, found)] = item.answer_key["probe"].items()
        assert found is not None
        bounds_found = [probe for probe in item.trace["answer"]["probes"]
                        if probe["found"] and probe["found"]["flag"] != "exact"]
        if bounds_found:
            assert node == bounds_found[-1]["node"]


@pytest.mark.parametrize("language", ["en", "pt", "ca"])
def test_the_prompt_states_the_cut_rule_it_was_generated_with(language: str) -> None:
    strict = {"en": "only when alpha > beta", "pt": "alfa > beta", "ca": "alfa > beta"}
    with translation.override(language):
        for cut_on_equality in (True, False):
            text = KIND.render_prompt({"cut_on_equality": cut_on_equality, "probe": "B1"})
            assert ("B1" in text) and (strict[language] in text) is not cut_on_equality

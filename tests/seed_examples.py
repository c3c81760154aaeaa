"""The seed worked examples, from the repository's own copy of the contract's file.

``tests/data/seed-worked-examples.json`` is a verbatim copy of
``shared/examples/seed-worked-examples.json``, so the suite runs from a clone anywhere. It is
read on first use, not at import: a broken file fails the tests that need it, not collection.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

SEED_FILE = Path(__file__).resolve().parent / "data" / "seed-worked-examples.json"


@functools.cache
def seed_examples(part: str) -> dict[str, dict[str, Any]]:
    """Return the examples of one part of the seed file (``trees``, ``tic_tac_toe``) by id."""
    examples: list[dict[str, Any]] = json.loads(SEED_FILE.read_text(encoding="utf-8"))[part]
    return {example["id"]: example for example in examples}

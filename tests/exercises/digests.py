"""Print a digest of every kind's generated items, to compare generation across processes.

Run as ``python -m tests.exercises.digests`` with DJANGO_SETTINGS_MODULE set; needs no
database and no ``django.setup()``.
"""

from __future__ import annotations

import hashlib
import json

from exercises.generation import generate_item, item_seed
from exercises.kinds import get_kind
from tests.exercises.kind_cases import GOOD

SEEDS = [item_seed("determinism", student, 1) for student in (1, 2, 3)]


def digests() -> dict[str, str]:
    """Return "kind/case/seed" → SHA-256 of the generated problem, prompt and key."""
    result = {}
    for kind_name, cases in GOOD.items():
        for index, raw in enumerate(cases):
            params = get_kind(kind_name).clean_params(raw)
            for seed in SEEDS:
                item = generate_item(kind_name, params, seed)
                text = json.dumps(
                    [item.problem, item.prompt, item.answer_key, item.attempt], sort_keys=True
                )
                result[f"{kind_name}/{index}/{seed[:8]}"] = hashlib.sha256(
                    text.encode()
                ).hexdigest()
    return result


if __name__ == "__main__":
    print(json.dumps(digests(), sort_keys=True))

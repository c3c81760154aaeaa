"""Call the reference engine: every answer key comes from here, never from exercises code."""

from __future__ import annotations

import json
from typing import Any

import engine
from engine.errors import EngineError
from engine.solve import solve


class EngineFailure(RuntimeError):
    """Signal that the engine rejected a generated problem: a generator bug, never a student's."""


def engine_version() -> str:
    """Return the version of the engine computing the keys, stored with every answer key."""
    return engine.ENGINE_VERSION


def as_json(value: Any) -> Any:
    """Return ``value`` as plain JSON data, exactly as it will be stored."""
    return json.loads(json.dumps(value))


def solve_problem(problem: dict[str, Any]) -> dict[str, Any]:
    """Return the engine's answer (``python -m engine solve``'s JSON) to a gametree/1 problem."""
    try:
        # solve() returns plain JSON data (the CLI prints it as is); the caller stores it.
        return solve(problem)
    except EngineError as error:
        raise EngineFailure(f"the engine rejected a generated {problem.get('kind')} problem: "
                            f"{error}") from error


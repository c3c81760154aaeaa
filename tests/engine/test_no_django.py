"""The engine imports nothing outside the standard library (and itself)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_every_engine_file_imports_only_the_stdlib_and_engine() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 10
    offenders = {
        f"{path.relative_to(ENGINE.parent)}: {name}"
        for path in files
        for name in imported_modules(path)
        if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "engine"
    }
    assert not offenders, sorted(offenders)


def test_importing_the_engine_loads_no_django() -> None:
    import subprocess

    code = (
        "import sys, engine.cli, engine.solve, engine.misconceptions, engine.search; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ENGINE.parent, capture_output=True, text=True,
        check=True, timeout=60,
    )
    assert result.stdout.strip() == "[]"

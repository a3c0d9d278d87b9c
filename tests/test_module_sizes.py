"""Issue 33: no module of the package or the benchmarks is over 400 lines, and no module of
a folder imports, directly or through others of the same folder, itself (an import circle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (
    "kubectl_adapter",
    *(f"kubectl_adapter/{p.name}" for p in sorted((ROOT / "kubectl_adapter").iterdir())
      if (p / "__init__.py").is_file()),
    "benchmarks",
)  # fmt: skip
MAX_LINES = 400


def _modules(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py")


def test_every_folder_is_looked_at() -> None:
    assert {"kubectl_adapter/cli", "kubectl_adapter/kubectl", "benchmarks"} <= set(FOLDERS)


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_module_is_over_400_lines(folder: str) -> None:
    sizes = {f"{folder}/{p.name}": len(p.read_text().splitlines()) for p in _modules(folder)}
    over = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert over == {}, over


def _imports_in_folder(path: Path) -> set[str]:
    """The sibling modules ``path`` imports (``from . import x``, ``from .x import y``),
    wherever the import is (a function's lazy import counts: it is a circle all the same)."""
    siblings = {p.stem for p in path.parent.glob("*.py")}
    dotted = ".".join(path.parent.relative_to(ROOT).parts)  # benchmarks, kubectl_adapter.cli
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        if node.level == 0 and (module == dotted or module.startswith(dotted + ".")):
            module, level = module[len(dotted) + 1 :], 1  # absolute: from benchmarks.x import
        else:
            level = node.level
        if level == 1:
            if module:
                found.add(module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found & siblings - {path.stem}


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_import_circle_inside_the_folder(folder: str) -> None:
    graph = {p.stem: _imports_in_folder(p) for p in _modules(folder)}

    def reaches(start: str, target: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == target or (nxt not in seen and reaches(nxt, target, seen | {nxt})):
                return True
        return False

    circles = sorted(name for name in graph if reaches(name, name, {name}))
    assert circles == [], f"{folder}: modules on an import circle: {circles}"

"""docs/testing.md's table of states: every test it names exists, every knob it names is one.

The table says which end-to-end test sees each state the adapter judges; a renamed or removed
test, or a knob that is gone, would leave it saying what is no longer true."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.fakecluster import FakeCluster

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## States the adapter judges"
TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::([\w:]+)`")
KNOB = re.compile(r"`fc\.(\w+)")


def table_rows() -> list[list[str]]:
    text = (ROOT / "docs" / "testing.md").read_text()
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith("| state ") and "---" not in line:
            rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def defined(path: Path, dotted: str) -> bool:
    """``name`` or ``Class::method`` is defined at the top of ``path``."""
    body: list[ast.stmt] = ast.parse(path.read_text()).body
    *classes, name = dotted.split("::")
    for cls in classes:
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if found is None:
            return False
        body = found.body
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name for n in body
    )


def test_the_table_has_rows_of_three_cells() -> None:
    rows = table_rows()
    assert len(rows) >= 30
    assert all(len(row) == 3 for row in rows), [row for row in rows if len(row) != 3]


def test_every_test_the_table_names_exists() -> None:
    missing = []
    for state, _, test in table_rows():
        refs = TEST_REF.findall(test)
        assert refs or test == "waits24" or test.startswith("unit tests only"), (state, test)
        for path, dotted in refs:
            if not (ROOT / path).is_file() or not defined(ROOT / path, dotted):
                missing.append(f"{path}::{dotted}")
    assert missing == []


def test_every_knob_the_table_names_is_a_fakecluster_attribute(tmp_path: Path) -> None:
    knobs = {k for _, knob, _ in table_rows() for k in KNOB.findall(knob)}
    assert {"set_pod_ready", "restart", "expire_watches", "set_stop_delay"} <= knobs
    fc = FakeCluster(tmp_path)  # not started: only its attributes are read
    assert [k for k in sorted(knobs) if not hasattr(fc, k)] == []

"""The layering is enforced: import-linter's contract (pyproject.toml) holds, and it breaks
when a module imports upward or across (each case is injected into a copy of the package)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kubectl_adapter"
LAYERS = ("cli", "operations", "rules", "kubectl", "contract")


def lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    """Run the contract from pyproject.toml against the package found in ``project``."""
    code = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", code, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=project,
        env={"PYTHONPATH": str(project), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_module_belongs_to_a_layer() -> None:
    loose = sorted(
        p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")
    )
    assert loose == [], f"modules outside the layer folders: {loose}"
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert folders == sorted(LAYERS)


def test_each_layer_says_what_it_may_import() -> None:
    for layer in LAYERS:
        doc = (PACKAGE / layer / "__init__.py").read_text()
        assert doc.startswith('"""') and "import" in doc, layer


def test_the_package_keeps_its_layers() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line"),
    [
        # upward: a rule reaches for an operation
        ("rules/status.py", "from ..operations import waits"),
        # across: the pure rules run kubectl
        ("rules/pods.py", "from ..kubectl import runner"),
        # across: the kubectl boundary decides statuses
        ("kubectl/runner.py", "from ..rules import status"),
        # upward: the boundary composes an operation
        ("kubectl/commands.py", "from ..operations import plans"),
        # upward: the contract depends on how it is computed
        ("contract/models.py", "from ..rules import snapshots"),
        # upward, lazily inside a function: still an import
        ("contract/naming.py", "def _late() -> None:\n    from ..cli import app"),
        # upward: an operation drives the CLI
        ("operations/listing.py", "from ..cli import app"),
    ],
)
def test_an_upward_or_sideways_import_breaks_the_contract(
    tmp_path: Path, module: str, line: str
) -> None:
    copy = tmp_path / "kubectl_adapter"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text() + "\n" + line + "\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 kept, 1 broken" in result.stdout, result.stdout
    assert "cli > operations > rules | kubectl > contract BROKEN" in result.stdout


@pytest.mark.parametrize(
    ("module", "line"),
    [
        # the circle issue 33 found: the parser's "did you mean" reading the parser
        ("cli/mistyped.py", "def _late() -> None:\n    from . import parser"),
        # dispatch is app's; app is nobody's
        ("cli/dispatch.py", "def _late() -> None:\n    from . import app"),
        # the kubectl boundary goes down once: the process never calls back up to the runner
        ("kubectl/process.py", "def _late() -> None:\n    from . import runner"),
        # why a Pod fails reads what a Pod is, never the other way
        ("rules/pods.py", "def _late() -> None:\n    from . import pod_failures"),
    ],
)
def test_an_import_circle_inside_a_folder_breaks_its_contract(
    tmp_path: Path, module: str, line: str
) -> None:
    copy = tmp_path / "kubectl_adapter"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text() + "\n" + line + "\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no import circle inside a folder of kubectl_adapter BROKEN" in result.stdout, (
        result.stdout
    )

"""A real (non-editable) install renders: the template ships inside the wheel.

The editable install finds ``templates/`` through the source tree, so it would hide a wheel
that forgot the template. This test builds the wheel from a copy of the sources, installs it
into a scratch directory and renders from there, in an isolated interpreter that cannot see
the source tree or the editable install.
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_IN_WHEEL = "kubectl_adapter/templates/deployment.yaml.j2"
# What a build reads; everything else (.venv, caches, build/) stays out of the copy.
SOURCES = ["pyproject.toml", "README.md", "kubectl_adapter", "templates"]
# Failures that mean "no index to fetch setuptools from", not "the package is broken".
OFFLINE_SIGNS = (
    "No matching distribution found for setuptools",
    "Could not find a version that satisfies the requirement setuptools",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
)

RENDER = """
import json, sys
sys.path[:0] = [{site!r}, *{deps!r}]
import kubectl_adapter
from kubectl_adapter.rules.render import render_manifest
from kubectl_adapter.contract.spec import parse_spec

print(kubectl_adapter.__file__)
spec = parse_spec(json.loads({spec!r}))
sys.stdout.write(render_manifest(spec, "default"))
"""


def _pip(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("packaging")
    source = base / "src"
    source.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / name)
    out = base / "dist"
    result = _pip("wheel", "--no-deps", "-q", "-w", str(out), ".", cwd=source)
    if result.returncode != 0:
        output = result.stdout + result.stderr
        if any(sign in output for sign in OFFLINE_SIGNS):
            pytest.skip(f"cannot fetch the build backend (offline?):\n{output[-2000:]}")
        pytest.fail(f"pip wheel failed:\n{output}")
    (built,) = out.glob("kubectl_adapter-*.whl")
    return built


def test_wheel_contains_the_template(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert TEMPLATE_IN_WHEEL in names
        assert "kubectl_adapter/templates/__init__.py" in names
        shipped = archive.read(TEMPLATE_IN_WHEEL).decode("utf-8")
    assert shipped == (ROOT / "templates" / "deployment.yaml.j2").read_text(encoding="utf-8")
    # Only the package: no tests, examples or a top-level "templates" package.
    assert {name.split("/")[0] for name in names} == {
        "kubectl_adapter",
        wheel.name.split("-py3")[0] + ".dist-info",
    }


def test_installed_wheel_renders_without_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    result = _pip(
        "install",
        "--no-deps",
        "--no-index",
        "-q",
        "--target",
        str(target),
        str(wheel),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # pydantic and jinja2 come from the venv's site-packages, added as plain path entries:
    # with -S no .pth file runs, so the editable install's finder is never registered.
    deps = [str(Path(p)) for p in site.getsitepackages()]
    spec = (ROOT / "examples" / "nginx.json").read_text(encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-I", "-S", "-c", RENDER.format(site=str(target), deps=deps, spec=spec)],
        cwd=tmp_path,  # outside the repository
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    module_file, manifest = run.stdout.split("\n", 1)
    assert Path(module_file).is_relative_to(target), module_file
    golden = (ROOT / "tests" / "golden" / "nginx.yaml").read_text(encoding="utf-8")
    assert manifest == golden

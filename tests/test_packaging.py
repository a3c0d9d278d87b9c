"""A real (non-editable) install renders: the template ships inside the wheel.

The editable install finds ``templates/`` through the source tree, so it would hide a wheel
that forgot the template. This test builds the wheel from a copy of the sources, installs it
into a scratch directory and renders from there, in an isolated interpreter that cannot see
the source tree or the editable install.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

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


# -- the adapter's tree for a Manager host (packaging/manager, issue 40) -------------------------

MANAGER_PACKAGING = ROOT / "packaging" / "manager"
# Modules only docs/schema/ generation imports: the rest must run without pydantic.
SCHEMA_ONLY = {"kubectl_adapter.contract.output_models", "kubectl_adapter.contract.schemas"}
OPT = "/opt/opensource-server/kubectl-adapter"
DROP_IN = "kubectl-adapter.conf"
IMPORT_ALL = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(len(sys.argv) - 1)
"""


def test_runtime_dependencies_leave_pydantic_to_the_schema_extra() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.split(r"[<>=!~ ;\[]", dep, maxsplit=1)[0] for dep in project["dependencies"]]
    assert "pydantic" not in names
    assert any(dep.startswith("pydantic") for dep in project["optional-dependencies"]["schema"])


@pytest.fixture(scope="module")
def manager_root(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """`make install` of packaging/manager into a scratch DESTDIR, built for this interpreter's
    CPython (the production build targets 3.13; the host running the tests may not have it),
    from the wheel the tests above built (pip resolves its dependencies from its configured
    index: a local one here)."""
    base = tmp_path_factory.mktemp("manager-host")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    result = subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(MANAGER_PACKAGING),
            "install",
            f"PYTHON={sys.executable}",
            f"PYTHON_VERSION={version}",
            f"WHEEL={wheel}",
            f"BUILDDIR={base / 'build'}",
            f"DESTDIR={base / 'root'}",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    if result.returncode != 0:
        output = result.stdout + result.stderr
        if any(sign in output for sign in OFFLINE_SIGNS):
            pytest.skip(f"cannot fetch wheels or the build backend (offline?):\n{output[-2000:]}")
        pytest.fail(f"make install failed:\n{output}")
    return base / "root"


def _bare_python() -> str:
    """The interpreter this venv was made from: a python3 with no project installed in it."""
    return str(Path(sys.base_prefix) / "bin" / "python3")


def _bare_env(tree: Path, **extra: str) -> dict[str, str]:
    """PATH (for kubectl) and PYTHONPATH only; HOME is the tree's parent, so kubectl's cache
    (~/.kube/cache) is written there and not into the working directory."""
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is not on PATH"
    path = f"{Path(kubectl).parent}:/usr/bin:/bin"
    return {"PATH": path, "PYTHONPATH": str(tree), "HOME": str(tree.parent), **extra}


def test_manager_tree_layout_and_no_pydantic(manager_root: Path) -> None:
    opt = manager_root / OPT.lstrip("/")
    tree = opt / "build"
    assert {p.name for p in tree.iterdir() if p.is_dir() and not p.name.endswith(".dist-info")} == {
        "kubectl_adapter",
        "jinja2",
        "markupsafe",
        "shtab",
        "msgspec",
    }
    assert not list(tree.rglob("__pycache__")) and not (tree / "bin").exists()
    assert (opt / "bin" / "kubectl-adapter").stat().st_mode & 0o111
    settings = (manager_root / "etc" / "default" / "kubectl-adapter").read_text(encoding="utf-8")
    assert f"\nKUBECTL_ADAPTER={OPT}/bin/kubectl-adapter\n" in settings
    for unit in ("job-runner", "container-creator"):
        dropin = manager_root / "usr/lib/systemd/system" / f"{unit}.service.d" / DROP_IN
        assert "EnvironmentFile=/etc/default/kubectl-adapter" in dropin.read_text(encoding="utf-8")
    # Every module a command may import loads from the tree alone (-S: no site-packages at all).
    modules = sorted(
        ".".join(p.relative_to(tree).with_suffix("").parts)
        for p in (tree / "kubectl_adapter").rglob("*.py")
        if p.name != "__main__.py"
    )
    runtime = [m.removesuffix(".__init__") for m in modules if m not in SCHEMA_ONLY]
    code = IMPORT_ALL
    run = subprocess.run(
        [_bare_python(), "-S", "-P", "-c", code, *runtime],
        env=_bare_env(tree),
        cwd=ROOT,  # -P: the source tree's kubectl_adapter must not shadow the tree's
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) == len(runtime) > 40
    schema = subprocess.run(
        [_bare_python(), "-S", "-P", "-c", "import kubectl_adapter.contract.output_models"],
        env=_bare_env(tree),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "No module named 'pydantic'" in schema.stderr


def test_manager_tree_checks_the_cluster_with_a_bare_python3(
    manager_root: Path, cluster: Any
) -> None:
    tree = manager_root / OPT.lstrip("/") / "build"
    kubeconfig = str(cluster.kubeconfig)
    run = subprocess.run(
        [
            _bare_python(),
            "-S",
            "-P",
            "-m",
            "kubectl_adapter",
            "--kubeconfig",
            kubeconfig,
            "-n",
            "testns",
            "check",
        ],
        env=_bare_env(tree),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    document = json.loads(run.stdout)
    assert document["ok"] is True and document["namespace"] == "testns"
    assert document["missingPermissions"] == []


def test_manager_client_suite_runs_against_the_installed_launcher(manager_root: Path) -> None:
    """The Node client's own tests (real kubectl, the fake API server) with KUBECTL_ADAPTER set
    as /etc/default/kubectl-adapter sets it on a Manager host (the launcher of the tree)."""
    launcher = manager_root / OPT.lstrip("/") / "bin" / "kubectl-adapter"
    node = shutil.which("node")
    assert node, "node is not on PATH"
    env = {
        **os.environ,
        "KUBECTL_ADAPTER": str(launcher),
        "KUBECTL_ADAPTER_PYTHON": _bare_python(),
    }
    run = subprocess.run(
        [node, "--test", "integrations/manager/test/client.test.js"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 0" not in run.stdout

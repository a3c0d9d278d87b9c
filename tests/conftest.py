"""Hooks for the whole suite, and the fixtures the fake API server's own tests share.

Summary sections: a test adds a row to a section of the terminal summary (the RBAC proof
table) with ``summary_row``. The row travels in the test's report, so the process that prints
the summary gathers it: pytest-xdist's controller as well as a plain run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from tests.fakecluster import FakeCluster
    from tests.test_fakecluster import Runner

_ROW = "summary-row"

# Hypothesis' per-example deadline (200 ms by default) measures the machine, not the code: on
# a loaded 2-core CI an example that spawns nothing still overran it. No deadline by default;
# a property that bounds its own cost says so (its own ``deadline=``, or tests/cost.py).
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

# The suite's CPU is mostly start-ups: thousands of kubectl processes (the adapter's, the
# Node client's, the tests' own), each ~45 ms of CPU of which Go's garbage collector takes a
# sixth while kubectl initialises (its heap starts collecting at 4 MB). GOGC=400 lets the
# heap grow five times its live size before collecting: ~17% less CPU per kubectl, the same
# output (a short kubectl never comes near a memory limit; a long watch still collects).
# A value the caller exported wins. Every child inherits it: the CLI passes its environment
# to kubectl (``kubectl.config.kubectl_environment``), node to the adapter.
os.environ.setdefault("GOGC", "400")
# The CLI and the fake cluster start as fresh interpreters thousands of times: each compiles
# every module it imports unless it may write bytecode (``./dev test`` unsets this too, for
# pytest itself; here for a bare ``.venv/bin/pytest`` run's children).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def summary_row(request: pytest.FixtureRequest, section: str, key: str, text: str) -> None:
    """Print ``key  ->  text`` under ``section`` at the end of the run, whatever -s says."""
    request.node.user_properties.append((_ROW, (section, key, text)))


class SummarySections:
    def __init__(self) -> None:
        self.sections: dict[str, dict[str, str]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":  # its properties are the whole test's
            return
        for name, value in report.user_properties:
            if name == _ROW:
                section, key, text = value
                self.sections.setdefault(section, {})[key] = text

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for section, rows in self.sections.items():
            terminalreporter.section(section)
            width = max(len(key) for key in rows)
            for key, text in rows.items():
                terminalreporter.write_line(f"{key:<{width}}  ->  {text}")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SummarySections(), "summary-sections")


# The files that take longest (a clean-clone run's --durations), handed out first: ``./dev
# test`` gives whole files to its workers in collection order (--dist loadfile), so a long file
# collected late (the Node client's suite, ~95 s as one test) ran on while the other workers
# sat idle. Longest first keeps them busy to the end. Only the order of files changes: each
# file's tests stay together, in their own order.
FIRST = (
    "tests/e2e/test_manager_example.py",
    "tests/reliability/test_fault_table.py",
    "tests/reliability/test_output_text.py",
    "tests/e2e/test_rbac_table.py",
    "tests/reliability/test_feed_faults.py",
    "tests/reliability/test_signals_start_up.py",
    "tests/e2e/test_plans.py",
    "tests/reliability/test_waits.py",
    "tests/test_packaging.py",
    "tests/reliability/test_errors_home.py",
    "tests/test_examples.py",
    "tests/e2e/test_lifecycle.py",
    "tests/e2e/test_rbac.py",
    "tests/reliability/test_races_e2e.py",
    "tests/reliability/test_timeout_bound.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: index for index, path in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(FIRST)))


@pytest.fixture(autouse=True)
def _kubectl_over_fakes(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that fakes kubectl with pytest-subprocess (``fp``) runs it through the seam's
    in-memory side (``tests/fake_kubectl.py``): fakes have no pipes to select on."""
    if "fp" not in request.fixturenames:
        yield
        return
    from kubectl_adapter.kubectl import seam
    from tests.fake_kubectl import FakeProcesses

    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setattr(seam, "DEFAULT", FakeProcesses())
    yield


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[FakeCluster]:
    """The fake API server the ``tests/test_fakecluster*.py`` files drive (namespaces default
    and testns). A module or folder with a ``cluster`` of its own (the e2e suite's) uses that."""
    from tests.fakecluster import FakeCluster

    with FakeCluster(
        tmp_path, namespaces=("default", "testns"), pod_ready_delay=0.2, termination_delay=0.1
    ) as fc:
        yield fc


@pytest.fixture
def kubectl(cluster: FakeCluster, tmp_path: Path) -> Runner:
    """The real kubectl against ``cluster``, with a cache directory of its own."""
    from tests.test_fakecluster import make_runner

    return make_runner(cluster, tmp_path)

"""The live feed fails as ``list`` fails, before its first line (issue 39): one table of
cases, each run as ``list``, ``list -w`` and (where it applies) ``status -w``, through the
real CLI and the real kubectl against the fake API server. ``list -w`` must give ``list``'s
error document exactly (type, exit code, message, details) and print nothing before it;
``status -w`` the same type and exit code (its read is of one workload).

Before the fix ``list -w -A`` under the namespaced Role ended Forbidden without naming
rbac/clusterrole-list-all.yaml, and ``list -w -n missing`` printed nothing for ever."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ROOT, Cluster
from tests.e2e.test_rbac import Permission, identity, manifest, role_without

# A feed that wrongly goes on is stopped here (its error must come at once, as list's does).
FEED_BOUND = 60.0


@dataclass(frozen=True)
class Case:
    name: str
    flags: tuple[str, ...]  # connection and scope flags, before the command
    list_args: tuple[str, ...] = ()  # list's own flags (status -w takes none of them)
    status: bool = True  # status -w meets the same error
    setup: str = ""  # "sa": the ServiceAccount's context with rbac/role.yaml; "down": refused


CASES = [
    Case("missing namespace", ("-n", "no-such-ns"), status=False),
    Case("all namespaces under the namespaced Role", (), ("-A",), status=False, setup="sa"),
    Case("kubeconfig missing", ("--kubeconfig", "/nonexistent/kubeconfig")),
    Case("context missing", ("--context", "no-such-context")),
    Case("kubeconfig not YAML", ("--kubeconfig", "{garbage}")),
    Case("a token the API server refuses", (), setup="stranger"),
    Case("malformed selector", (), ("-l", "team in (ops"), status=False),
    Case("selector key too long", (), ("-l", f"{'a' * 64}=x"), status=False),
    Case("API server refusing connections", ("--request-timeout", "2"), setup="down"),
]


def _run(cluster: Cluster, argv: list[str]) -> tuple[int, str, float]:
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", *argv],
        capture_output=True, text=True, timeout=FEED_BOUND, cwd=ROOT, check=False,
    )  # fmt: skip
    return proc.returncode, proc.stdout, time.monotonic() - started


def _same(document: Any) -> Any:
    """The document, the per-run --cache-dir left out of the commands it quotes."""
    return json.loads(re.sub(r"--cache-dir \S+ ", "", json.dumps(document)))


@pytest.fixture(scope="module")
def setups(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[
    dict[str, Callable[[], list[str]]]
]:  # fmt: skip
    fake = cluster.require_fake()
    garbage = tmp_path_factory.mktemp("kubeconfig") / "garbage"
    garbage.write_text("{not: [yaml")
    sa = identity(cluster, cluster.namespace)
    sa.apply_rbac()
    stranger = fake.add_user_context("stranger", "not-a-token-it-knows", cluster.namespace)

    def conn(context: str | None = None) -> list[str]:
        return ["--kubeconfig", str(fake.kubeconfig), "--context", context or fake.context]

    yield {
        "": lambda: [*conn(), "-n", cluster.namespace],
        "sa": lambda: [*conn(sa.context), "-n", cluster.namespace],
        "stranger": lambda: [*conn(stranger), "-n", cluster.namespace],
        "down": lambda: [*conn(), "-n", cluster.namespace],
        "garbage": lambda: [str(garbage)],
    }
    fake.clear_rbac()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_feed_fails_as_list_fails(
    cluster: Cluster, setups: dict[str, Callable[[], list[str]]], case: Case, tmp_path: Path
) -> None:
    fake = cluster.require_fake()
    flags = [setups["garbage"]()[0] if f == "{garbage}" else f for f in case.flags]
    base = setups[case.setup]()
    if "--kubeconfig" in flags:  # the case's own kubeconfig replaces the fake's
        base = base[base.index("--context") + 2 :]
    if "--context" in flags:
        base = [base[0], base[1], *base[4:]]
    runs = {
        "list": ["list", *case.list_args],
        "list -w": ["list", "-w", *case.list_args],
        **({"status -w": ["status", f"{cluster.namespace}/feed-err", "-w"]} if case.status else {}),
    }
    if case.setup == "down":
        fake.down()
    try:
        seen = {}
        for label, command in runs.items():
            cache = ["--cache-dir", str(tmp_path / label.replace(" ", ""))]
            seen[label] = _run(cluster, [*base, *flags, *cache, *command])
    finally:
        if case.setup == "down":
            fake.up()
    code, out, _ = seen["list"]
    expected = json.loads(out)
    assert code != 0 and "error" in expected, (case.name, out)
    for label, (feed_code, feed_out, _) in seen.items():
        lines = feed_out.splitlines()
        assert len(lines) == 1, (label, case.name, feed_out)  # nothing before the error
        document = json.loads(lines[0])
        if label == "list -w":
            assert (feed_code, _same(document)) == (code, _same(expected)), (case.name, feed_out)
        else:
            assert (feed_code, document["error"]["type"]) == (
                code,
                expected["error"]["type"],
            ), (label, case.name, feed_out)
    if case.setup == "sa":
        assert "rbac/clusterrole-list-all.yaml" in expected["error"]["message"]


def test_the_namespaced_role_still_lets_the_feed_run(
    cluster: Cluster, setups: dict[str, Callable[[], list[str]]], tmp_path: Path
) -> None:
    """The control: rbac/role.yaml grants what ``list -w`` needs in its namespace (its
    first line comes), so the refusals above are about the case, not the identity."""
    argv = [
        sys.executable, "-m", "kubectl_adapter", *setups["sa"](),
        "--cache-dir", str(tmp_path / "c"), "list", "-w",
    ]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["type"] in ("ADDED", "SYNCED"), first
    finally:
        proc.terminate()
        proc.wait(timeout=FEED_BOUND)
        if proc.stdout is not None:
            proc.stdout.close()
    assert manifest("role.yaml", cluster.namespace)


@pytest.mark.parametrize("resource", ["pods", "replicasets"])
def test_a_role_that_may_not_watch_what_the_feed_watches_later_is_refused_before_the_first_line(
    cluster: Cluster, setups: dict[str, Callable[[], list[str]]], resource: str, tmp_path: Path
) -> None:
    """At rest the feed watches Deployments alone; a Role without ``watch`` on Pods or
    ReplicaSets would end it hours later, when a workload first moves. Its first lists are
    watches of all three, so the API server refuses it before the first line: Forbidden,
    typed as any kubectl refusal, with no process of its own asking (no
    SelfSubjectAccessReview: issue 42)."""
    fake = cluster.require_fake()
    sa = identity(cluster, cluster.namespace)
    group = "apps" if resource == "replicasets" else ""
    sa.apply_rbac(role_without(Permission("watch", group, resource), cluster.namespace))
    began = len(fake.requests)
    try:
        code, out, _ = _run(
            cluster, [*setups["sa"](), "--cache-dir", str(tmp_path / "c"), "list", "-w"]
        )
    finally:
        sa.apply_rbac()
    lines = out.splitlines()
    assert len(lines) == 1, out  # nothing before the error
    error = json.loads(lines[0])["error"]
    assert (code, error["type"]) == (5, "Forbidden"), out
    assert f'cannot watch resource "{resource}"' in error["message"], out
    asked = [r.path for r in fake.requests[began:] if "accessreview" in r.path]
    assert asked == []

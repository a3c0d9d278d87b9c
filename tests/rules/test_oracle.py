"""The status rules against the ecosystem: every case of the shared status oracle, fed to the
``list`` path and to the single-container ``status`` path, must reach the Manager status the
other tools' verdicts imply.

The oracle (``../shared/oracle/deployments.json`` beside the repository, see its README) is
reference data from outside the project: it is read in place, never copied here. Where it is
absent, CI fails and a local run skips, saying so. ``STATUS_ORACLE=PATH`` points elsewhere
(a git worktree sits one level deeper than the main checkout).

How each path is fed:
- list: ``snapshot_documents`` over the case's Deployment (and any unrelated Deployments),
  ReplicaSets and Pods, as ``list`` does with one ``kubectl get`` List; a missing Deployment
  is one the list does not contain.
- status: ``snapshot_document``, what ``KubernetesProvider.status`` builds from its reads;
  and ``KubernetesProvider.status`` itself, with its kubectl calls faked to print the case's
  objects as ``kubectl get ... -o json`` does: once with the name label added as Manager now
  applies it (one call, or two when that answer cannot hold every Pod), once as the fixtures
  are (a Deployment applied before the label: three calls). Eleven source fixtures name their
  Deployment in camelCase (or ``deployment/nginx-deployment``), which no provider ID can
  address; for that path alone the name is lowered to a DNS-1123 label (with the
  ReplicaSets' owner names); UIDs, which decide ownership, are untouched.

``__NOW__`` in a fixture is the moment of the check (the source uses ``time.Now()``): the
tests pin it to ``NOW`` and pin the clock the adapter reads to the same moment.
"""

from __future__ import annotations

import copy
import json
import os
import re
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pytest_subprocess import FakeProcess

from kubectl_adapter.contract.naming import (
    MANAGED_LABEL,
    NAME_LABEL,
    deployment_selector,
    is_dns1123_label,
    name_selector,
)
from kubectl_adapter.kubectl import commands
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.operations.provider import KubernetesProvider
from kubectl_adapter.rules import clock
from kubectl_adapter.rules.snapshots import snapshot_document, snapshot_documents
from tests.k8s_objects import kubectl_list, kubectl_object

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(os.environ.get("STATUS_ORACLE") or ROOT.parent / "shared/oracle/deployments.json")
NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
STATUSES = {"running", "offline", "creating", "failed", "missing", "unknown"}
# Cases where a source is judged wrong, with the argument: none so far (every scored case
# agrees). An entry here marks the case xfail(strict) in every path, with its reason.
DISPUTED: dict[str, str] = {}

Case = dict[str, Any]


@cache
def _oracle() -> dict[str, Any] | None:
    if not ORACLE.is_file():
        return None
    text = ORACLE.read_text().replace("__NOW__", NOW.strftime("%Y-%m-%dT%H:%M:%SZ"))
    return dict(json.loads(text))


def _require_oracle() -> dict[str, Any]:
    data = _oracle()
    if data is None:
        reason = f"status oracle not found at {ORACLE} (set STATUS_ORACLE=PATH to point at it)"
        if os.environ.get("CI"):
            pytest.fail(reason + "; CI always has it")
        pytest.skip(reason)
    return data


def _params() -> list[Any]:
    data = _oracle()
    if data is None:
        return [pytest.param(None, id="oracle-absent")]
    params = []
    for case in data["cases"]:
        marks = []
        if case["id"] in DISPUTED:
            marks.append(pytest.mark.xfail(reason=DISPUTED[case["id"]], strict=True))
        params.append(pytest.param(case, id=case["id"], marks=marks))
    return params


def _provider_id(case: Case) -> str:
    meta = case["deployment"]["metadata"] if case["deployment"] else case["missing"]
    return f"{meta.get('namespace', '')}/{meta['name']}"


def list_status(case: Case) -> str:
    """What ``list`` reports for the case's Deployment."""
    deployments = [d for d in [case["deployment"], *case.get("other_deployments", [])] if d]
    documents = snapshot_documents(deployments, case["replicasets"], case["pods"], now=NOW)
    found = [d for d in documents if d["providerId"] == _provider_id(case)]
    assert len(found) <= 1
    if case["deployment"] is None:
        assert not found, "a missing Deployment must not be listed"
        return "missing"
    (document,) = found
    return str(document["status"])


def status_status(case: Case) -> str:
    """What ``status`` builds from its reads (the Deployment, and ReplicaSets/Pods by label)."""
    if case["deployment"] is None:
        return "missing"
    return str(
        snapshot_document(case["deployment"], case["replicasets"], case["pods"], now=NOW)["status"]
    )


def _check(case: Case | None, path: str, got: str) -> None:
    assert case is not None
    assert got in STATUSES
    if case["expected"] is None:
        # Not scored: still fed, and both paths must agree with each other.
        assert got == list_status(case) == status_status(case), (case["id"], case.get("note"))
        return
    assert got == case["expected"], (
        f"{case['id']} ({path}): {got}, expected {case['expected']} "
        f"from {case['verdict']['tool']} {case['verdict']['value']!r}: {case.get('note', '')}"
    )


@pytest.mark.parametrize("case", _params())
def test_list_path(case: Case | None) -> None:
    _require_oracle()
    assert case is not None
    _check(case, "list", list_status(case))


@pytest.mark.parametrize("case", _params())
def test_status_path(case: Case | None) -> None:
    _require_oracle()
    assert case is not None
    _check(case, "status", status_status(case))


# -- the status command itself, over faked kubectl ----------------------------------------------


@pytest.fixture(autouse=True)
def _kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


def _addressable(case: Case) -> Case:
    """The case with a Deployment name a provider ID can carry (see the module docstring)."""
    case = copy.deepcopy(case)
    meta = (case["deployment"] or {}).get("metadata") or case["missing"]
    old = meta["name"]
    if not is_dns1123_label(old):
        new = re.sub(r"[^a-z0-9-]+", "-", old.lower()).strip("-")[:63]
        meta["name"] = new
        for rs in case["replicasets"]:
            for ref in rs["metadata"].get("ownerReferences") or []:
                if ref.get("kind") == "Deployment" and ref.get("name") == old:
                    ref["name"] = new
    return case


def _labelled(case: Case) -> Case:
    """The case as Manager applies it now: the name label on the Deployment and its Pod
    template, so (as the deployment controller copies template labels) on its ReplicaSets and
    Pods."""
    case = copy.deepcopy(case)
    deployment = case["deployment"]
    if deployment is not None:
        name = deployment["metadata"]["name"]
        template = deployment.setdefault("spec", {}).setdefault("template", {})
        for obj in (deployment, template, *case["replicasets"], *case["pods"]):
            obj.setdefault("metadata", {}).setdefault("labels", {})[NAME_LABEL] = name
    return case


def _selected(objects: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """What the API server answers for ``-l managed=true,name=NAME``."""
    wanted = {MANAGED_LABEL: "true", NAME_LABEL: name}
    return [
        obj
        for obj in objects
        if wanted.items() <= ((obj.get("metadata") or {}).get("labels") or {}).items()
    ]


def _counted_pods_seen(deployment: dict[str, Any], replicasets: list[dict[str, Any]]) -> bool:
    """Whether the ReplicaSets it owns (by uid) account for every Pod the Deployment counts."""
    uid = deployment["metadata"].get("uid")
    seen = sum(
        int((rs.get("status") or {}).get("replicas") or 0)
        for rs in replicasets
        if any(ref.get("uid") == uid for ref in rs["metadata"].get("ownerReferences") or [])
    )
    return seen >= int((deployment.get("status") or {}).get("replicas") or 0)


@pytest.mark.parametrize("labelled", [True, False], ids=["labelled", "legacy"])
@pytest.mark.parametrize("case", _params())
def test_status_command(
    case: Case | None, labelled: bool, fp: FakeProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``labelled``: one read by the name label, and a read by selector only when that answer
    cannot hold every Pod; ``legacy`` (the fixtures as they are, without the name label): the
    labelled read finds nothing, then the Deployment by name, then its Pods by selector."""
    _require_oracle()
    assert case is not None
    case = _addressable(case)
    if labelled:
        case = _labelled(case)
    monkeypatch.setattr(clock, "utc_now", lambda: NOW)
    provider = KubernetesProvider(ClusterConfig())
    pid = _provider_id(case)
    namespace, name = pid.split("/")
    deployment = case["deployment"]
    answer = _selected(
        [*([deployment] if deployment else []), *case["replicasets"], *case["pods"]], name
    )
    fp.register(
        provider.runner.argv(commands.workload(name_selector(name)), namespace=namespace),
        stdout=kubectl_list(answer),
    )
    get = commands.get_deployment(name)
    if deployment:
        fp.register(
            provider.runner.argv(get, namespace=namespace), stdout=kubectl_object(deployment)
        )
    else:  # what kubectl says for a 404
        fp.register(
            provider.runner.argv(get, namespace=namespace),
            stderr=f'Error from server (NotFound): deployments.apps "{name}" not found\n',
            returncode=1,
        )
    if deployment is not None:
        owned = [
            "get",
            "replicasets,pods",
            "-l",
            deployment_selector(deployment),
            "-o",
            "json",
            "-v=6",
        ]
        fp.register(
            provider.runner.argv(owned, namespace=namespace),
            stdout=kubectl_list([*case["replicasets"], *case["pods"]]),
        )
    snapshot = provider.status(pid)
    if deployment is None:
        expected = 2  # the labelled read, then the 404
    elif deployment in answer:
        expected = 1 if _counted_pods_seen(deployment, answer) else 2
    else:
        expected = 3
    assert len(fp.calls) == expected
    _check(case, "status command", snapshot.status)


def test_agreement_figure(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """All scored cases agree on both paths; the figure is printed in the test summary."""
    data = _require_oracle()
    scored = [case for case in data["cases"] if case["expected"] is not None]
    undisputed = [case for case in scored if case["id"] not in DISPUTED]
    figures = {}
    wrong: list[str] = []
    for path, judge in (("list", list_status), ("status", status_status)):
        agree = [case for case in scored if judge(case) == case["expected"]]
        figures[path] = len(agree)
        wrong += [f"{path}:{case['id']}" for case in undisputed if case not in agree]
    line = (
        f"status oracle: {len(data['cases'])} cases fed, {len(scored)} scored; agreeing: "
        f"list path {figures['list']}/{len(scored)}, status path {figures['status']}/"
        f"{len(scored)}; disputed: {len(DISPUTED)}"
    )
    request.node.user_properties.append(("agreement", line))
    with capsys.disabled():
        print("\n" + line)
    assert not wrong, line + f"; disagreeing: {wrong}"
    assert figures == {"list": len(undisputed), "status": len(undisputed)}

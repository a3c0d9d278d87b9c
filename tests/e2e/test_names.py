"""Issue 41: a workload is named as kubectl names a Deployment, checked against the real
kubectl on the same cluster: every form kubectl 1.32 takes for one Deployment names the same
workload here, on a pipe and on a pseudo-terminal; what kubectl refuses is refused; several
names are answered each as if alone; ``list -o name`` feeds back. Property-tested over names."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.e2e.conftest import ROOT, Cluster, Result, spec
from tests.e2e.terminal import on_terminal

# Every type kubectl 1.32 resolves to deployments.apps (checked by the first test).
FORMS = [
    *(
        resource + group
        for resource in ("deployment", "deployments", "Deployment", "DEPLOYMENTS", "deploy")
        for group in ("", ".apps", ".v1.apps")
    ),
]
# Looks like one, kubectl refuses it: so does the adapter (InvalidProviderId, exit 2).
NOT_FORMS = ["Deploy", "DEPLOY", "deployment.extensions", "deployment.apps.v1", "deploy.Apps"]


@pytest.fixture(scope="module")
def web(cluster: Cluster) -> str:
    name, cid = cluster.workload("named")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert created.code == 0, created
    return name


def no_namespace_argv(cluster: Cluster, *args: str) -> list[str]:
    """The CLI without -n: a name without namespace takes the context's (testns)."""
    return [
        sys.executable,
        "-m",
        "kubectl_adapter",
        *cluster._conn_flags(),
        "--cache-dir",
        cluster._cache_dir(),
        *args,
    ]


def piped(argv: list[str]) -> Result:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
    doc = json.loads(proc.stdout) if proc.stdout.strip() else None
    return Result(proc.returncode, doc, proc.stderr)


def kubectl_names(cluster: Cluster, form: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["kubectl", *cluster._conn_flags(), "--cache-dir", cluster._cache_dir(), "-n",
         cluster.namespace, "get", form, "-o", "name"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("kind", FORMS)
def test_every_form_kubectl_takes_names_the_same_deployment(
    cluster: Cluster, web: str, kind: str
) -> None:
    assert kubectl_names(cluster, f"{kind}/{web}").stdout == f"deployment.apps/{web}\n"
    pid = f"{cluster.namespace}/{web}"
    on_pipe = cluster.adapter("status", f"{kind}/{web}")  # with -n
    assert (on_pipe.code, on_pipe.doc["providerId"], on_pipe.doc["status"]) == (0, pid, "running")
    context = piped(no_namespace_argv(cluster, "status", f"{kind}/{web}"))  # the context's
    assert (context.code, context.doc["providerId"]) == (0, pid)
    seen = on_terminal(cluster, "status", kind, web)  # kubectl's separate-type form
    assert seen.code == 0, seen
    assert seen.out.splitlines()[1].split()[:2] == [pid, "running"]


@pytest.mark.parametrize("kind", NOT_FORMS)
def test_what_kubectl_refuses_is_refused(cluster: Cluster, web: str, kind: str) -> None:
    refused = kubectl_names(cluster, f"{kind}/{web}")
    assert refused.returncode != 0 and "doesn't have a resource type" in refused.stderr
    on_pipe = cluster.adapter("status", f"{kind}/{web}")
    assert (on_pipe.code, on_pipe.error_type) == (2, "InvalidProviderId")


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kind=st.sampled_from(FORMS),
    name=st.from_regex(r"\A[a-z]([-a-z0-9]{0,14}[a-z0-9])?\Z"),
)
def test_any_name_in_any_form_is_the_deployment_kubectl_would_get(
    cluster: Cluster, kind: str, name: str
) -> None:
    """A name that names nothing: kubectl's NotFound names it; the adapter's pipe answers it
    `missing` under the same provider ID, and a terminal gets NotFound (exit 3)."""
    got = kubectl_names(cluster, f"{kind}/{name}")
    assert f'deployments.apps "{name}" not found' in got.stderr
    on_pipe = cluster.adapter("status", f"{kind}/{name}")
    assert on_pipe.code == 0
    assert on_pipe.doc["providerId"] == f"{cluster.namespace}/{name}"
    assert on_pipe.doc["status"] == "missing"


def test_n_contradicting_a_provider_id_is_refused_as_kubectl_refuses_it(
    cluster: Cluster, web: str
) -> None:
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": web, "namespace": "default"},
    }
    kubectl = subprocess.run(
        ["kubectl", *cluster._conn_flags(), "-n", cluster.namespace, "create", "--dry-run=client",
         "-f", "-"],
        input=json.dumps(manifest), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert kubectl.returncode != 0 and "does not match the namespace" in kubectl.stderr
    on_pipe = cluster.adapter("status", f"default/{web}")  # -n testns
    assert (on_pipe.code, on_pipe.error_type) == (2, "InvalidProviderId")
    assert "does not match" in on_pipe.doc["error"]["message"]
    seen = on_terminal(cluster, "status", f"default/{web}")
    assert seen.code == 2 and "does not match the namespace -n gives (testns)" in seen.err
    agreeing = cluster.adapter("status", f"{cluster.namespace}/{web}")
    assert agreeing.code == 0 and agreeing.doc["status"] == "running"


def test_a_namespace_called_deployment(cluster: Cluster, web: str) -> None:
    """``deployment/NAME`` is the type, as kubectl reads it; the namespace ``deployment`` is
    reached with -n, or with --provider-ids (Manager's form)."""
    cluster.kubectl("create", "namespace", "deployment")
    name, cid = cluster.workload("in-ns-deployment")
    made = cluster.adapter(
        "create", "--spec", "-", stdin=spec(name, cid), flags=["-n", "deployment"]
    )
    assert made.code == 0 and made.doc["providerId"] == f"deployment/{name}", made
    as_type = piped(no_namespace_argv(cluster, "status", f"deployment/{name}"))
    assert as_type.doc["providerId"] == f"testns/{name}" and as_type.doc["status"] == "missing"
    as_type = piped(no_namespace_argv(cluster, "status", f"deployment/{web}"))
    assert as_type.doc["providerId"] == f"testns/{web}" and as_type.doc["status"] == "running"
    managers = piped(no_namespace_argv(cluster, "--provider-ids", "status", f"deployment/{name}"))
    assert (managers.doc["providerId"], managers.doc["status"]) == (f"deployment/{name}", "running")
    by_n = piped(no_namespace_argv(cluster, "-n", "deployment", "status", name))
    assert by_n.doc["providerId"] == f"deployment/{name}"
    gone = piped(no_namespace_argv(cluster, "--provider-ids", "delete", f"deployment/{name}"))
    assert gone.code == 0 and gone.doc["deleted"] is True


def test_several_names_each_answered_alone_exit_the_worst(cluster: Cluster, web: str) -> None:
    pid = f"{cluster.namespace}/{web}"
    both = cluster.adapter("status", web, "nope-41")
    assert both.code == 0
    assert [(i["providerId"], i["status"]) for i in both.doc["items"]] == [
        (pid, "running"),
        (f"{cluster.namespace}/nope-41", "missing"),
    ]
    stopped = cluster.adapter("stop", "nope-41", f"deploy/{web}")
    assert stopped.code == 3  # the worst: NotFound (3) beside a success (0)
    missing, done = stopped.doc["items"]
    assert missing["providerId"] == f"{cluster.namespace}/nope-41"
    assert missing["error"]["type"] == "NotFound"
    assert (done["providerId"], done["status"]) == (pid, "offline")
    seen = on_terminal(cluster, "start", web, "nope-41", columns=80)
    assert seen.code == 3
    assert seen.out.splitlines()[1].split()[:2] == [pid, "running"]
    assert 'deployments.apps "nope-41" not found in namespace testns' in seen.err
    alone = cluster.adapter("status", web)  # one name: the Snapshot, exactly as ever
    assert alone.doc["providerId"] == pid and "items" not in alone.doc


def test_list_o_name_feeds_back(cluster: Cluster, web: str) -> None:
    adapter = shlex.join(no_namespace_argv(cluster))
    line = (
        f"{adapter} list -l org.mieweb.opensource-server.name={web} -o name"
        f" | xargs -n1 {adapter} stop -o name"
    )
    proc = subprocess.run(
        ["bash", "-c", line], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert (proc.returncode, proc.stdout) == (0, f"deployment.apps/{web}\n"), proc.stderr
    assert cluster.adapter("status", web).doc["status"] == "offline"
    assert cluster.adapter("start", web).code == 0


def test_a_provider_id_without_namespace_offers_one(cluster: Cluster) -> None:
    refused: Any = piped(no_namespace_argv(cluster, "--provider-ids", "status", "web-1")).doc
    assert "did you mean testns/web-1?" in refused["error"]["message"]
    seen = on_terminal(cluster, "--provider-ids", "status", "web-1")
    assert seen.code == 2 and "did you mean testns/web-1?" in seen.err

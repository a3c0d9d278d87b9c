"""Drift rules (rules/drift.py) and the take-back patch (rules/restore.py), table-driven over
Deployment JSON with managedFields shaped as the API server writes them: Apply entries
without "." on maps, Update entries with "." on the items and maps they created."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_subprocess import FakeProcess

from kubectl_adapter.contract.naming import name_selector
from kubectl_adapter.kubectl import commands
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.operations.provider import KubernetesProvider
from kubectl_adapter.rules.drift import drift
from kubectl_adapter.rules.restore import restore_patch, taken_back
from tests.k8s_objects import (
    CONTAINER,
    MANAGED,
    NAME,
    NODE,
    deployment,
    kubectl_list,
    pod,
    replicaset,
)

APPLIED = "org.mieweb.opensource-server.applied"
MAIN = 'k:{"name":"main"}'
TEMPLATE_SPEC = ("f:spec", "f:template", "f:spec")


def tree(*paths: tuple[str, ...]) -> dict[str, Any]:
    """A fieldsV1 tree of leaf paths; a path ending in "." marks the node above it."""
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        for segment in path:
            node = node.setdefault(segment, {})
    return root


def entry(
    manager: str, operation: str, *paths: tuple[str, ...], subresource: str | None = None
) -> dict[str, Any]:
    found = {
        "manager": manager,
        "operation": operation,
        "apiVersion": "apps/v1",
        "time": "2026-11-30T00:00:00Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": tree(*paths),
    }
    if subresource:
        found["subresource"] = subresource
    return found


def main_path(*rest: str) -> tuple[str, ...]:
    return (*TEMPLATE_SPEC, "f:containers", MAIN, *rest)


def env_item(name: str, *rest: str) -> tuple[str, ...]:
    return main_path("f:env", f'k:{{"name":"{name}"}}', *rest)


def manager_apply(env: tuple[str, ...] = ("KEY",), legacy: bool = False) -> dict[str, Any]:
    """Manager's Apply entry for ``deployment(env=...)`` (what the fake and a real API server
    record for the rendered manifest); ``legacy``: applied before the name label existed."""
    labels = (MANAGED, NODE, CONTAINER) if legacy else (MANAGED, NODE, CONTAINER, NAME)
    paths: list[tuple[str, ...]] = [
        ("f:metadata", "f:annotations", f"f:{APPLIED}"),
        *(("f:metadata", "f:labels", f"f:{label}") for label in labels),
        ("f:spec", "f:selector"),
        *(("f:spec", "f:template", "f:metadata", "f:labels", f"f:{label}") for label in labels),
        (*TEMPLATE_SPEC, "f:hostname"),
        main_path("."),
        main_path("f:name"),
        main_path("f:image"),
        *(
            main_path("f:resources", f"f:{group}", f"f:{key}")
            for group in ("limits", "requests")
            for key in ("cpu", "memory")
        ),
    ]
    for name in env:
        paths += [env_item(name, "."), env_item(name, "f:name"), env_item(name, "f:value")]
    return entry("opensource-server-manager", "Apply", *paths)


CONTROLLER = [
    entry(
        "kube-controller-manager",
        "Update",
        ("f:metadata", "f:annotations", "f:deployment.kubernetes.io/revision"),
    ),
    entry(
        "kube-controller-manager",
        "Update",
        ("f:status", "f:availableReplicas"),
        ("f:spec", "f:template", "f:spec", "f:containers", MAIN, "f:image"),
        subresource="status",
    ),
]


def workload(
    *others: dict[str, Any], env: dict[str, str] | None = None, command: bool = False
) -> dict[str, Any]:
    env = {"KEY": "value"} if env is None else env
    dep = deployment(env=env)
    dep["metadata"]["annotations"][APPLIED] = json.dumps(
        {"command": command, "env": sorted(env)}, separators=(",", ":")
    )
    dep["metadata"]["managedFields"] = [manager_apply(tuple(env)), *CONTROLLER, *others]
    return dep


def without(dep: dict[str, Any], manager: str, path: tuple[str, ...]) -> dict[str, Any]:
    """``dep`` with ``path`` taken from ``manager``'s set (another manager changed it)."""
    for found in dep["metadata"]["managedFields"]:
        if found["manager"] == manager:
            node = found["fieldsV1"]
            for segment in path[:-1]:
                node = node[segment]
            del node[path[-1]]
    return dep


def main(dep: dict[str, Any]) -> dict[str, Any]:
    return dep["spec"]["template"]["spec"]["containers"][0]


OURS = "opensource-server-manager"


def image_edited() -> dict[str, Any]:
    dep = without(
        workload(entry("kubectl-edit", "Update", main_path("f:image"))), OURS, main_path("f:image")
    )
    main(dep)["image"] = "nginx:1.28"
    return dep


def env_value_set() -> dict[str, Any]:
    dep = workload(entry("kubectl-set", "Update", env_item("KEY", "f:value")))
    return without(dep, OURS, env_item("KEY", "f:value"))


def env_added() -> dict[str, Any]:
    dep = workload(
        entry(
            "kubectl-client-side-apply",
            "Update",
            env_item("EXTRA", "."),
            env_item("EXTRA", "f:name"),
            env_item("EXTRA", "f:value"),
        )
    )
    main(dep)["env"].append({"name": "EXTRA", "value": "1"})
    return dep


def env_removed() -> dict[str, Any]:
    dep = workload()
    # The API server drops a removed field from every manager's set: only the record knows.
    for path in (env_item("KEY", "."), env_item("KEY", "f:name"), env_item("KEY", "f:value")):
        without(dep, OURS, path)
    main(dep)["env"] = []
    return dep


def command_added() -> dict[str, Any]:
    dep = workload(entry("kubectl-edit", "Update", main_path("f:command")))
    main(dep)["command"] = ["sleep", "1"]
    return dep


def command_removed() -> dict[str, Any]:
    dep = workload(command=True)
    return dep  # the record says a command was applied; the container has none


def args_added() -> dict[str, Any]:
    dep = workload(entry("kubectl", "Apply", main_path("f:args")))
    main(dep)["args"] = ["--verbose"]
    return dep


def memory_set() -> dict[str, Any]:
    path = main_path("f:resources", "f:limits", "f:memory")
    dep = without(workload(entry("kubectl-set", "Update", path)), OURS, path)
    main(dep)["resources"]["limits"]["memory"] = "2Gi"
    return dep


def resource_added() -> dict[str, Any]:
    path = main_path("f:resources", "f:limits", "f:ephemeral-storage")
    dep = workload(entry("kubectl-edit", "Update", path))
    main(dep)["resources"]["limits"]["ephemeral-storage"] = "1Gi"
    return dep


def cpu_removed() -> dict[str, Any]:
    path = main_path("f:resources", "f:requests", "f:cpu")
    dep = without(workload(), OURS, path)
    del main(dep)["resources"]["requests"]["cpu"]
    return dep


def scaled(replicas: int, manager: str = "kubectl") -> dict[str, Any]:
    dep = workload(entry(manager, "Update", ("f:spec", "f:replicas"), subresource="scale"))
    dep["spec"]["replicas"] = replicas
    return dep


def paused() -> dict[str, Any]:
    dep = workload(entry("kubectl-rollout", "Update", ("f:spec", "f:paused")))
    dep["spec"]["paused"] = True
    return dep


def sidecar_added() -> dict[str, Any]:
    item = (*TEMPLATE_SPEC, "f:containers", 'k:{"name":"sidecar"}')
    dep = workload(
        entry(
            "kubectl-patch",
            "Update",
            (*item, "."),
            (*item, "f:name"),
            (*item, "f:image"),
            (*item, "f:imagePullPolicy"),
            (*item, "f:terminationMessagePath"),
        )
    )
    dep["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "busybox"})
    return dep


def init_added() -> dict[str, Any]:
    item = (*TEMPLATE_SPEC, "f:initContainers", 'k:{"name":"setup"}')
    dep = workload(entry("istio-injector", "Update", (*item, "."), (*item, "f:image")))
    dep["spec"]["template"]["spec"]["initContainers"] = [{"name": "setup", "image": "busybox"}]
    return dep


def label_changed() -> dict[str, Any]:
    path = ("f:metadata", "f:labels", f"f:{NODE}")
    dep = without(workload(entry("kubectl-label", "Update", path)), OURS, path)
    dep["metadata"]["labels"][NODE] = "8"
    return dep


def label_removed() -> dict[str, Any]:
    path = ("f:spec", "f:template", "f:metadata", "f:labels", f"f:{NODE}")
    dep = without(workload(), OURS, path)
    del dep["spec"]["template"]["metadata"]["labels"][NODE]
    return dep


def name_label_changed() -> dict[str, Any]:
    """``kubectl label deployment web-1 ...name=web-9 --overwrite``: the label now names
    another Deployment (whose status read would pick this one's Pods up, were it not for the
    ownership check by uid)."""
    path = ("f:metadata", "f:labels", f"f:{NAME}")
    dep = without(workload(entry("kubectl-label", "Update", path)), OURS, path)
    dep["metadata"]["labels"][NAME] = "web-9"
    return dep


def name_label_removed() -> dict[str, Any]:
    """Taken off the Pod template only (it is still on the Deployment): not a legacy one."""
    path = ("f:spec", "f:template", "f:metadata", "f:labels", f"f:{NAME}")
    dep = without(workload(), OURS, path)
    del dep["spec"]["template"]["metadata"]["labels"][NAME]
    return dep


def legacy() -> dict[str, Any]:
    """Applied before the name label existed: neither the Deployment nor its template has
    it, and Manager's apply never owned it. Not a change: the next reconfigure adds it."""
    dep = workload()
    dep["metadata"]["managedFields"][0] = manager_apply(legacy=True)
    for labels in (dep["metadata"]["labels"], dep["spec"]["template"]["metadata"]["labels"]):
        del labels[NAME]
    return dep


def strategy_set() -> dict[str, Any]:
    path = ("f:spec", "f:strategy", "f:type")
    dep = workload(entry("kubectl-edit", "Update", path))
    dep["spec"]["strategy"] = {"type": "Recreate"}
    return dep


# (id, Deployment, expected [(what, change, name, by, value)])
Expected = list[tuple[str, str, str | None, list[str], Any]]
CASES: list[tuple[str, dict[str, Any], Expected]] = [
    (
        "image by kubectl edit",
        image_edited(),
        [("image", "changed", None, ["kubectl-edit"], "nginx:1.28")],
    ),
    (
        "env value by kubectl set env",
        env_value_set(),
        [("env", "changed", "KEY", ["kubectl-set"], None)],
    ),
    (
        "env added by a hand apply",
        env_added(),
        [("env", "added", "EXTRA", ["kubectl-client-side-apply"], None)],
    ),
    (
        "env removed: seen against the record, by nobody",
        env_removed(),
        [("env", "removed", "KEY", [], None)],
    ),
    (
        "command where Manager sets none",
        command_added(),
        [("command", "added", None, ["kubectl-edit"], None)],
    ),
    ("command Manager set, removed", command_removed(), [("command", "removed", None, [], None)]),
    (
        "args by a hand server-side apply",
        args_added(),
        [("command", "added", None, ["kubectl"], None)],
    ),
    (
        "memory limit by kubectl set resources",
        memory_set(),
        [("resources", "changed", "limits.memory", ["kubectl-set"], None)],
    ),
    (
        "a resource Manager never sets",
        resource_added(),
        [("resources", "added", "limits.ephemeral-storage", ["kubectl-edit"], None)],
    ),
    ("a CPU request removed", cpu_removed(), [("resources", "removed", None, [], None)]),
    ("replicas 3 by kubectl scale", scaled(3), [("replicas", "changed", None, ["kubectl"], 3)]),
    (
        "paused by kubectl rollout pause",
        paused(),
        [("paused", "changed", None, ["kubectl-rollout"], True)],
    ),
    (
        "a sidecar container added",
        sidecar_added(),
        [("container", "added", "sidecar", ["kubectl-patch"], None)],
    ),
    (
        "an init container injected",
        init_added(),
        [("container", "added", "setup", ["istio-injector"], None)],
    ),
    (
        "the node-id label altered",
        label_changed(),
        [("labels", "changed", NODE, ["kubectl-label"], "8")],
    ),
    ("a template label removed", label_removed(), [("labels", "removed", NODE, [], None)]),
    (
        "the name label altered",
        name_label_changed(),
        [("labels", "changed", NAME, ["kubectl-label"], "web-9")],
    ),
    (
        "the name label removed from the template",
        name_label_removed(),
        [("labels", "removed", NAME, [], None)],
    ),
    ("another spec field", strategy_set(), [("other", "changed", None, ["kubectl-edit"], None)]),
]


@pytest.mark.parametrize(("dep", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_kind_of_change(dep: dict[str, Any], expected: Expected) -> None:
    found = drift(dep)
    assert found.state == "drifted"
    got = [(c.what, c.change, c.name, list(c.by), c.value) for c in found.changes]
    assert got == expected, found.document()["summary"]


def _in_sync_cases() -> list[tuple[str, dict[str, Any]]]:
    restarted = workload(
        entry(
            "kubectl-rollout",
            "Update",
            (
                "f:spec",
                "f:template",
                "f:metadata",
                "f:annotations",
                "f:kubectl.kubernetes.io/restartedAt",
            ),
        )
    )
    shared = workload(entry("kubectl", "Apply", main_path("f:image"), main_path("f:name")))
    return [
        ("as applied, with the controller's status and revision", workload()),
        ("started and stopped by Manager (kubectl scale to 0 and 1)", scaled(0)),
        ("scaled back to 1", scaled(1)),
        ("restarted (kubectl rollout restart)", restarted),
        ("a hand server-side apply of the same values: shared ownership", shared),
        ("no env, no command", workload(env={})),
        ("applied before the name label existed (no name label anywhere)", legacy()),
    ]


@pytest.mark.parametrize(
    ("dep",), [(c[1],) for c in _in_sync_cases()], ids=[c[0] for c in _in_sync_cases()]
)
def test_in_sync(dep: dict[str, Any]) -> None:
    found = drift(dep)
    assert (found.state, found.changes) == ("in-sync", ()), found.document()


def test_without_managed_fields_drift_is_unknown() -> None:
    dep = workload()
    del dep["metadata"]["managedFields"]
    assert drift(dep).state == "unknown"
    assert drift(None).document() == {
        "state": "unknown",
        "changes": [],
        "summary": "",
        "restored": [],
    }


def test_without_managers_apply_drift_is_unknown() -> None:
    dep = workload()
    dep["metadata"]["managedFields"] = CONTROLLER
    assert drift(dep).state == "unknown"


def test_a_broken_record_is_ignored_not_an_error() -> None:
    dep = env_removed()
    dep["metadata"]["annotations"][APPLIED] = "{not json"
    assert drift(dep).state == "in-sync"


def test_summary_names_changes_and_managers_never_env_values() -> None:
    dep = env_value_set()
    dep["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = "s3cret"
    text = json.dumps(drift(dep).document())
    assert "s3cret" not in text
    assert drift(image_edited()).document()["summary"] == (
        "image changed to nginx:1.28 by kubectl-edit"
    )


def test_several_changes_are_all_reported_in_a_stable_order() -> None:
    dep = sidecar_added()
    extra = paused()["metadata"]["managedFields"][-1]
    dep["metadata"]["managedFields"].append(extra)
    dep["spec"]["paused"] = True
    assert [c.what for c in drift(dep).changes] == ["container", "paused"]


# -- restore ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dep", "patch"),
    [
        (
            sidecar_added(),
            {
                "spec": {
                    "template": {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}
                }
            },
        ),
        (
            init_added(),
            {
                "spec": {
                    "template": {
                        "spec": {"initContainers": [{"name": "setup", "$patch": "delete"}]}
                    }
                }
            },
        ),
        (
            env_added(),
            {
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {"name": "main", "env": [{"name": "EXTRA", "$patch": "delete"}]}
                            ]
                        }
                    }
                }
            },
        ),
        (
            command_added(),
            {"spec": {"template": {"spec": {"containers": [{"name": "main", "command": None}]}}}},
        ),
        (
            resource_added(),
            {
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "main",
                                    "resources": {"limits": {"ephemeral-storage": None}},
                                }
                            ]
                        }
                    }
                }
            },
        ),
        (scaled(3), {"spec": {"replicas": 1}}),
        (paused(), {"spec": {"paused": None}}),
        (strategy_set(), {"spec": {"strategy": {"type": None}}}),
    ],
    ids=["sidecar", "init", "env", "command", "resource", "replicas", "paused", "other"],
)
def test_restore_patch_removes_what_apply_leaves(
    dep: dict[str, Any], patch: dict[str, Any]
) -> None:
    expected = patch | {"metadata": {"uid": dep["metadata"]["uid"]}}
    assert restore_patch(dep, drift(dep)) == expected


@pytest.mark.parametrize(
    "dep",
    [image_edited(), env_value_set(), env_removed(), memory_set(), label_changed(), workload()],
    ids=["image", "env value", "env removed", "memory", "label", "in sync"],
)
def test_restore_patch_leaves_to_the_apply_what_it_takes_back(dep: dict[str, Any]) -> None:
    assert restore_patch(dep, drift(dep)) is None


def test_restore_patch_merges_changes_and_a_removed_item_covers_its_fields() -> None:
    dep = sidecar_added()
    more = env_added()["metadata"]["managedFields"][-1]
    dep["metadata"]["managedFields"].append(more)
    main(dep)["env"].append({"name": "EXTRA", "value": "1"})
    patch = restore_patch(dep, drift(dep))
    assert patch is not None
    containers = patch["spec"]["template"]["spec"]["containers"]
    assert {c["name"]: c for c in containers} == {
        "sidecar": {"name": "sidecar", "$patch": "delete"},
        "main": {"name": "main", "env": [{"name": "EXTRA", "$patch": "delete"}]},
    }


def test_taken_back_lists_what_is_gone_after() -> None:
    before = drift(sidecar_added())
    assert taken_back(before, []) == [c.document() for c in before.changes]
    assert taken_back(before, [(c.what, c.path) for c in before.changes]) == []


def test_drift_does_not_change_its_input() -> None:
    dep = sidecar_added()
    kept = copy.deepcopy(dep)
    drift(dep)
    restore_patch(dep, drift(dep))
    assert dep == kept


def test_a_hand_applied_env_var_migrated_to_manager_is_still_foreign() -> None:
    """kubectl apply --server-side moves a hand client-side apply's fields to its own manager
    (CSA -> SSA migration): Manager then owns them, and only the record shows they are not its."""
    dep = workload()
    mine = dep["metadata"]["managedFields"][0]["fieldsV1"]
    extra = tree(env_item("EXTRA", "."), env_item("EXTRA", "f:name"), env_item("EXTRA", "f:value"))
    env = mine["f:spec"]["f:template"]["f:spec"]["f:containers"][MAIN]["f:env"]
    env.update(extra["f:spec"]["f:template"]["f:spec"]["f:containers"][MAIN]["f:env"])
    main(dep)["env"].append({"name": "EXTRA", "value": "1"})
    found = drift(dep)
    assert [(c.what, c.change, c.name, c.by) for c in found.changes] == [
        ("env", "added", "EXTRA", ())
    ]
    patch = restore_patch(dep, found)
    assert patch is not None
    assert patch["spec"]["template"]["spec"]["containers"] == [
        {"name": "main", "env": [{"name": "EXTRA", "$patch": "delete"}]}
    ]


def test_an_empty_env_list_left_by_another_manager_is_no_change() -> None:
    dep = env_removed()
    dep["metadata"]["managedFields"].append(
        entry("kubectl-client-side-apply", "Update", main_path("f:env"))
    )
    found = drift(dep)
    assert [(c.what, c.change, c.name) for c in found.changes] == [("env", "removed", "KEY")]
    assert restore_patch(dep, found) is None


# -- no extra call: drift comes with the reads list and status already make --------------------

K = ["kubectl", "-n", "testns", "--request-timeout", "10s"]


@pytest.fixture
def _kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


def _drifted(i: int) -> list[dict[str, Any]]:
    """Workload i: a sidecar added, running, as ``kubectl get ... --show-managed-fields``."""
    dep = sidecar_added()
    dep["metadata"]["name"] = f"web-{i}"
    dep["metadata"]["uid"] = f"uid-{i}"
    for labels in (dep["metadata"]["labels"], dep["spec"]["template"]["metadata"]["labels"]):
        labels[CONTAINER] = str(i)
        labels[NAME] = f"web-{i}"
    dep["spec"]["selector"]["matchLabels"][CONTAINER] = str(i)
    rs = replicaset(dep, f"h{i:09d}")
    return [dep, rs, pod(rs)]


@pytest.mark.usefixtures("_kubectl_on_path")
@pytest.mark.parametrize("n", [1, 500])
def test_list_reports_drift_in_one_call(fp: FakeProcess, n: int) -> None:
    from kubectl_adapter.kubectl.commands import list_workloads

    items = [obj for i in range(n) for obj in _drifted(i)]
    fp.register([*K, *list_workloads(None)], stdout=kubectl_list(items))
    snapshots = KubernetesProvider(ClusterConfig(namespace="testns")).list()
    assert len(fp.calls) == 1
    assert "--show-managed-fields" in fp.calls[0]
    assert len(snapshots) == n
    assert {s.drift.summary for s in snapshots} == {"container sidecar added by kubectl-patch"}


@pytest.mark.usefixtures("_kubectl_on_path")
def test_status_reports_drift_in_its_one_call(fp: FakeProcess) -> None:
    dep, rs, p = _drifted(42)
    named = [*K, *commands.workload(name_selector("web-42"))]
    fp.register(named, stdout=kubectl_list([dep, rs, p]))
    snapshot = KubernetesProvider(ClusterConfig(namespace="testns")).status("testns/web-42")
    assert len(fp.calls) == 1
    assert (snapshot.status, snapshot.drift.state) == ("running", "drifted")
    assert snapshot.drift.changes[0].by == ["kubectl-patch"]


def test_the_main_container_itself_is_never_a_change_to_take_back() -> None:
    """Another manager co-owning the main item (".") says nothing by itself; a patch that
    deleted it would delete the container."""
    dep = workload(entry("kubectl", "Apply", main_path(".")))
    without(dep, OURS, main_path("."))
    found = drift(dep)
    assert found.state == "in-sync", found.document()
    assert restore_patch(dep, found) is None


SEGMENTS = st.sampled_from(
    [
        ".",
        "f:spec",
        "f:template",
        "f:metadata",
        "f:labels",
        "f:annotations",
        "f:containers",
        "f:initContainers",
        "f:env",
        "f:image",
        "f:command",
        "f:replicas",
        "f:paused",
        "f:resources",
        "f:limits",
        MAIN,
        'k:{"name":"sidecar"}',
        'k:{"name":"X"}',
        "k:not json",
        "v:1",
        "i:0",
    ]
)
TREES = st.recursive(
    st.just({}), lambda inner: st.dictionaries(SEGMENTS, inner, max_size=4), max_leaves=30
)


@settings(max_examples=150, deadline=None)
@given(
    trees=st.lists(st.tuples(st.sampled_from(["kubectl", OURS, "x"]), TREES), max_size=4),
    replicas=st.integers(0, 5),
    paused=st.booleans(),
)
def test_drift_and_restore_never_fail_on_any_field_tree(
    trees: list[tuple[str, dict[str, Any]]], replicas: int, paused: bool
) -> None:
    """managedFields as any tree the encoding allows: drift answers, the patch is JSON."""
    dep = workload(
        *(entry(manager, "Update", ()) | {"fieldsV1": tree_} for manager, tree_ in trees)
    )
    dep["spec"]["replicas"] = replicas
    dep["spec"]["paused"] = paused
    found = drift(dep)
    assert found.state in ("in-sync", "drifted")
    json.dumps(found.document())
    patch = restore_patch(dep, found)
    if patch is not None:
        assert patch["metadata"] == {"uid": dep["metadata"]["uid"]}
        json.dumps(patch)


# -- what reconfigure does about each change (DriftChange.reconfigure) ---------------------

# Every case reconfigure takes back (tests/e2e/test_drift.py proves it on the fake), but the
# Deployment's own identity label, which reconfigure refuses to rewrite.
REFUSED = {"the node-id label altered"}


@pytest.mark.parametrize(("dep",), [(c[1],) for c in CASES], ids=[c[0] for c in CASES])
def test_each_change_says_what_reconfigure_does_about_it(
    dep: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    case = request.node.callspec.id
    verdicts = {c["reconfigure"] for c in drift(dep).document()["changes"]}
    assert verdicts == ({"refuses"} if case in REFUSED else {"restores"}), case


def spread_constraint_added() -> dict[str, Any]:
    """A keyed item of a list a strategic merge patch does not merge by key: no patch can
    name it, so reconfigure leaves it."""
    key = 'k:{"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}'
    path = (*TEMPLATE_SPEC, "f:topologySpreadConstraints", key)
    dep = workload(entry("kubectl-edit", "Update", (*path, "f:maxSkew")))
    dep["spec"]["template"]["spec"]["topologySpreadConstraints"] = [
        {"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 1}
    ]
    return dep


def test_a_change_no_patch_can_name_is_kept_and_left_out_of_the_patch() -> None:
    dep = spread_constraint_added()
    (change,) = drift(dep).document()["changes"]
    assert (change["what"], change["reconfigure"]) == ("other", "keeps")
    assert restore_patch(dep, drift(dep)) is None


# -- issue 32: drift that is not drift, and drift nobody reported -------------------------------


def _limits_rewritten(cpu: str, memory: str) -> dict[str, Any]:
    """``kubectl rollout undo`` writes the template back as kubectl read it: quantities in
    the API server's canonical form, owned by kubectl from then on."""
    cpu_at = main_path("f:resources", "f:limits", "f:cpu")
    memory_at = main_path("f:resources", "f:limits", "f:memory")
    dep = workload(entry("kubectl", "Update", cpu_at, memory_at))
    dep = without(without(dep, OURS, cpu_at), OURS, memory_at)
    record = json.loads(dep["metadata"]["annotations"][APPLIED])
    record["resources"] = {
        "limits.cpu": "1000m",
        "limits.memory": "1024Mi",
        "requests.cpu": "250m",
        "requests.memory": "256Mi",
    }
    dep["metadata"]["annotations"][APPLIED] = json.dumps(record, separators=(",", ":"))
    main(dep)["resources"]["limits"] = {"cpu": cpu, "memory": memory}
    return dep


def test_quantities_equal_by_value_to_what_manager_applied_are_no_change() -> None:
    """Live 1/1Gi against applied 1000m/1024Mi: the same quantities, no drift."""
    assert drift(_limits_rewritten("1", "1Gi")).state == "in-sync"
    changed = drift(_limits_rewritten("2", "1Gi"))
    assert [(c.what, c.name) for c in changed.changes] == [("resources", "limits.cpu")]


def test_a_label_added_to_the_deployment_by_hand_is_reported_and_kept() -> None:
    path = ("f:metadata", "f:labels", "f:team")
    dep = workload(entry("kubectl-label", "Update", path))
    dep["metadata"]["labels"]["team"] = "ops"
    (change,) = drift(dep).changes
    assert change.document() | {"by": None} == {
        "what": "labels",
        "change": "added",
        "path": "metadata.labels.team",
        "name": "team",
        "by": None,
        "value": "ops",
        "reconfigure": "keeps",
    }
    assert change.by == ("kubectl-label",)


def test_a_rollback_by_the_adapter_is_named_in_the_summary_while_it_is_current() -> None:
    """A change made after the rollback is drift, and the summary names the rollback before
    it (tests/reliability/test_drift_own_changes.py: the undo's own fields are no drift)."""
    dep = command_added()
    applied = dep["metadata"]["managedFields"][0]["time"]
    mark = json.dumps(
        {"at": "2026-11-30T00:05:00Z", "by": "--rollback-on-failure"}
        | {"failedRevision": "2", "revision": "1", "fields": {}, "applied": applied}
    )
    dep["metadata"]["annotations"]["org.mieweb.opensource-server.rolled-back"] = mark
    found = drift(dep)
    assert found.rollback == {
        "by": "--rollback-on-failure",
        "failedRevision": "2",
        "revision": "1",
        "at": "2026-11-30T00:05:00Z",
    }
    assert found.document()["summary"].startswith(
        "rolled back by --rollback-on-failure at 2026-11-30T00:05:00Z: revision 2 (the spec "
        "Manager last applied) failed; revision 1 runs the template before it; command added"
    )
    # Manager's next apply makes the mark stale: no rollback is claimed any more
    dep["metadata"]["managedFields"][0]["time"] = "2026-11-30T02:00:00Z"
    assert drift(dep).rollback is None
    assert not drift(dep).document()["summary"].startswith("rolled back")

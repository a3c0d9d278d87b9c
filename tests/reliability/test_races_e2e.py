"""Two Manager jobs on one workload, end to end: the real CLI and kubectl, the fake API server.

Every race is an exact interleaving, not a hope that threads collide: the fake holds one
request of the first job (``FakeCluster.on_request``) while the competing job, another
``kubectl-adapter`` process, runs to completion, then lets the request go on. So each trial
is deterministic, and one trial per interleaving proves the point; the independent trials
run side by side (one workload each) to keep the module short.

Each test states the invariant Manager relies on (success means the outcome holds; a racing
job is reported with a typed error) and checks it against the server's state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest

from kubectl_adapter.contract.naming import MANAGED_LABEL, identity_labels, selector_string
from tests.e2e.conftest import WAIT_TIMEOUT, Cluster, Result, spec
from tests.fakecluster import FakeCluster
from tests.fakecluster.faults import Hook
from tests.reliability.helpers import fake_testns


def selector(container_id: str) -> str:
    """The ``-l`` value as the adapter passes it (and kubectl sends it on)."""
    return selector_string(identity_labels(container_id))


@dataclass
class Trial:
    """One race: the first job's result, the competing job's results, the server's state."""

    name: str
    cid: str
    result: Result | None = None
    competing: list[Result] = field(default_factory=list)
    hook: Hook | None = None
    uid_before: str | None = None
    after: dict[str, Any] | None = None


def _ok(result: Result) -> Any:
    assert result.code == 0, (result.code, result.doc, result.stderr[-2000:])
    return result.doc


class Races:
    def __init__(self, cluster: Cluster, fake: FakeCluster) -> None:
        self.cluster = cluster
        self.fake = fake
        self.ns = cluster.namespace

    def pid(self, trial: Trial) -> str:
        return f"{self.ns}/{trial.name}"

    def running(self, prefix: str) -> Trial:
        name, cid = self.cluster.workload(prefix)
        _ok(self.cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))
        deployment = self.cluster.deployment(name)
        assert deployment is not None
        return Trial(name, cid, uid_before=deployment["metadata"]["uid"])

    def compete(self, trial: Trial, *args: str, stdin: Any = None) -> Callable[[], None]:
        """A callback running another job (a CLI process) to completion."""

        def run() -> None:
            trial.competing.append(self.cluster.adapter(*args, stdin=stdin))

        return run

    def finish(self, trial: Trial, result: Result) -> Trial:
        trial.result = result
        trial.after = self.cluster.deployment(trial.name)
        return trial

    # -- 1. reconfigure racing a delete ---------------------------------------------------

    def reconfigure_vs_delete(self, stopped: bool) -> Trial:
        trial = self.running("rc-del-stopped" if stopped else "rc-del")
        if stopped:
            _ok(self.cluster.adapter("stop", self.pid(trial)))
        trial.hook = self.fake.on_request(
            before=self.compete(trial, "delete", self.pid(trial)),
            method="PATCH",
            path_regex=rf"/deployments/{trial.name}$",
            kubectl_command="kubectl apply",
        )
        changed = spec(trial.name, trial.cid, cpus=0.2)
        return self.finish(
            trial,
            self.cluster.adapter("reconfigure", self.pid(trial), "--spec", "-", stdin=changed),
        )

    def reconfigure_vs_recreate(self) -> Trial:
        trial = self.running("rc-new")
        original = spec(trial.name, trial.cid)

        def delete_and_create() -> None:
            self.compete(trial, "delete", self.pid(trial))()
            self.compete(trial, "create", "--spec", "-", stdin=original)()

        trial.hook = self.fake.on_request(
            before=delete_and_create,
            method="PATCH",
            path_regex=rf"/deployments/{trial.name}$",
            kubectl_command="kubectl apply",
        )
        changed = spec(trial.name, trial.cid, env={"KEY": "changed"})
        return self.finish(
            trial,
            self.cluster.adapter("reconfigure", self.pid(trial), "--spec", "-", stdin=changed),
        )

    def reconfigure_vs_stop(self) -> Trial:
        trial = self.running("rc-stop")
        trial.hook = self.fake.on_request(
            before=self.compete(trial, "stop", self.pid(trial)),
            method="PATCH",
            path_regex=rf"/deployments/{trial.name}$",
            kubectl_command="kubectl apply",
        )
        changed = spec(trial.name, trial.cid, cpus=0.2)
        return self.finish(
            trial,
            self.cluster.adapter("reconfigure", self.pid(trial), "--spec", "-", stdin=changed),
        )

    # -- 2. start / create racing a stop or a delete --------------------------------------

    def _after_write(self, trial: Trial, *competing: str) -> None:
        """Once the write (start's patch, create's apply) is made, before its answer reaches
        kubectl: the wait's watches, started before the write (issue 38), go on from there
        and see the competing job's change. The operation reads nothing after its wait, so
        this is the last point another job can land and still be this one's to report."""
        trial.hook = self.fake.on_request(
            after=self.compete(trial, *competing),
            method="PATCH",
            path_regex=rf"/namespaces/{self.ns}/deployments/{trial.name}$",
        )

    def start_vs_stop(self) -> Trial:
        trial = self.running("st-stop")
        _ok(self.cluster.adapter("stop", self.pid(trial)))
        # Its next Pod never becomes ready, so the start's rollout is still under way when
        # the stop lands (a rollout complete before it would be start's success).
        never_ready = spec(trial.name, trial.cid, env={"FAKE_NEVER_READY": "1"})
        _ok(self.cluster.adapter("reconfigure", self.pid(trial), "--spec", "-", stdin=never_ready))
        self._after_write(trial, "stop", self.pid(trial))
        return self.finish(trial, self.cluster.adapter("start", self.pid(trial)))

    def start_vs_delete(self) -> Trial:
        trial = self.running("st-del")
        _ok(self.cluster.adapter("stop", self.pid(trial)))
        # Its next Pod never becomes ready (the fake's kubelet), so the start's rollout is
        # still under way whatever the timing: the delete lands inside the wait.
        never_ready = spec(trial.name, trial.cid, env={"FAKE_NEVER_READY": "1"})
        _ok(self.cluster.adapter("reconfigure", self.pid(trial), "--spec", "-", stdin=never_ready))
        self._after_write(trial, "delete", self.pid(trial))
        return self.finish(trial, self.cluster.adapter("start", self.pid(trial)))

    def create_vs_delete(self) -> Trial:
        name, cid = self.cluster.workload("cr-del")
        trial = Trial(name, cid)
        self._after_write(trial, "delete", self.pid(trial))
        never_ready = spec(name, cid, env={"FAKE_NEVER_READY": "1"})
        created = self.cluster.adapter("create", "--spec", "-", stdin=never_ready)
        return self.finish(trial, created)

    def create_vs_stop(self) -> Trial:
        name, cid = self.cluster.workload("cr-stop")
        trial = Trial(name, cid)
        self._after_write(trial, "stop", self.pid(trial))
        never_ready = spec(name, cid, env={"FAKE_NEVER_READY": "1"})
        created = self.cluster.adapter("create", "--spec", "-", stdin=never_ready)
        return self.finish(trial, created)

    def create_vs_unlabel(self) -> Trial:
        """Once create's apply is made, another hand removes Manager's managed label. The
        Deployment's watch selects by name alone (its list is the ownership check's read);
        the wait sees the Deployment leave Manager's label as a watch selecting on it would
        (DELETED), and says so as it always did."""
        name, cid = self.cluster.workload("cr-unlabel")
        trial = Trial(name, cid)
        unlabel = ("label", "deployment", name, f"{MANAGED_LABEL}-")
        trial.hook = self.fake.on_request(
            after=lambda: self.cluster.kubectl(*unlabel),
            method="PATCH",
            path_regex=rf"/namespaces/{self.ns}/deployments/{name}$",
            kubectl_command="kubectl apply",
        )
        never_ready = spec(name, cid, env={"FAKE_NEVER_READY": "1"})
        created = self.cluster.adapter("create", "--spec", "-", stdin=never_ready)
        return self.finish(trial, created)

    # -- 3. delete trusting a 404 ---------------------------------------------------------

    def delete_vs_recreate(self) -> Trial:
        """Another job deletes it just before our DELETE (so ours is answered 404), and
        creates it again before delete looks why, so a Deployment of that name exists when
        delete returns."""
        trial = self.running("dl-new")

        def then_recreate_after_the_wait_looked() -> None:
            self.fake.on_request(
                before=self.compete(
                    trial, "create", "--spec", "-", stdin=spec(trial.name, trial.cid)
                ),
                method="GET",
                path_regex=rf"/namespaces/{self.ns}/deployments$",
                query={"fieldSelector": f"metadata.name={trial.name}"},
                kubectl_command="kubectl get",
            )

        trial.hook = self.fake.on_request(
            before=self.compete(trial, "delete", self.pid(trial)),
            after=then_recreate_after_the_wait_looked,
            method="DELETE",
            path_regex=rf"/deployments/{trial.name}$",
            kubectl_command="kubectl delete",
        )
        return self.finish(trial, self.cluster.adapter("delete", self.pid(trial)))

    def delete_answered_404(self) -> Trial:
        """A 404 that is not the API server's truth (a proxy in the way) answers the delete
        call. (Every DELETE answered so: tests/reliability/test_waits.py.)"""
        trial = self.running("dl-404")
        path = rf"/deployments/{trial.name}$"
        trial.hook = self.fake.on_request(  # from the delete call on, not the adapter's read
            before=lambda: self.fake.fail_next(1, 404, path_regex=path),
            method="DELETE",
            path_regex=path,
            kubectl_command="kubectl delete",
        )
        return self.finish(trial, self.cluster.adapter("delete", self.pid(trial)))

    # -- 4. stop racing a start -----------------------------------------------------------

    def stop_vs_start(self) -> Trial:
        """The start lands just after stop's scale: the wait would then hold a new, running
        pod that will never go. (A start after the wait's first read:
        tests/reliability/test_waits.py.)"""
        trial = self.running("sp-start")
        self._after_write(trial, "start", self.pid(trial))
        stopped = self.cluster.adapter("stop", self.pid(trial), flags=["--timeout", "60"])
        return self.finish(trial, stopped)


SCENARIOS: dict[str, Callable[[Races], Trial]] = {
    "stop_vs_start": Races.stop_vs_start,  # first: it alone waits out one 10 s slice
    "reconfigure_vs_delete_running": lambda r: r.reconfigure_vs_delete(stopped=False),
    "reconfigure_vs_delete_stopped": lambda r: r.reconfigure_vs_delete(stopped=True),
    "reconfigure_vs_recreate": Races.reconfigure_vs_recreate,
    "reconfigure_vs_stop": Races.reconfigure_vs_stop,
    "start_vs_stop": Races.start_vs_stop,
    "start_vs_delete": Races.start_vs_delete,
    "create_vs_delete": Races.create_vs_delete,
    "create_vs_stop": Races.create_vs_stop,
    "create_vs_unlabel": Races.create_vs_unlabel,
    "delete_vs_recreate": Races.delete_vs_recreate,
    "delete_answered_404": Races.delete_answered_404,
}


@pytest.fixture(scope="module")
def trials(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Trial]]:
    with fake_testns(tmp_path_factory.mktemp("races")) as (cluster, fake):
        races = Races(cluster, fake)
        with ThreadPoolExecutor(max_workers=4, thread_name_prefix="race") as pool:
            futures = {key: pool.submit(run, races) for key, run in SCENARIOS.items()}
            yield {key: future.result(timeout=240) for key, future in futures.items()}


def _trial(trials: dict[str, Trial], key: str) -> tuple[Trial, Result]:
    trial = trials[key]
    assert trial.hook is None or (trial.hook.fired.is_set() and not trial.hook.errors), (
        "the competing job did not run at its point",
        trial.hook and trial.hook.errors,
    )
    for competing in trial.competing:
        _ok(competing)
    assert trial.result is not None
    return trial, trial.result


def _why(result: Result) -> str:
    return json.dumps(result.doc)[:1500] + result.stderr[-500:]


# -- 1 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["reconfigure_vs_delete_running", "reconfigure_vs_delete_stopped"])
def test_reconfigure_racing_a_delete_never_recreates(trials: dict[str, Trial], key: str) -> None:
    trial, result = _trial(trials, key)
    assert trial.competing[0].doc["deleted"] is True
    assert trial.after is None, "the reconfigure re-created the deleted Deployment"
    assert (result.code, result.error_type) == (3, "NotFound"), _why(result)
    assert "deleted by another operation" in result.doc["error"]["message"]


def test_reconfigure_of_a_replaced_deployment_is_a_conflict(trials: dict[str, Trial]) -> None:
    trial, result = _trial(trials, "reconfigure_vs_recreate")
    assert (result.code, result.error_type) == (6, "Conflict"), _why(result)
    assert trial.after is not None and trial.after["metadata"]["uid"] != trial.uid_before
    env = trial.after["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "KEY", "value": "value"}], "the new Deployment was changed"


def test_reconfigure_racing_a_stop_applies_again_and_keeps_it_stopped(
    trials: dict[str, Trial],
) -> None:
    trial, result = _trial(trials, "reconfigure_vs_stop")
    doc = _ok(result)
    assert (doc["status"], doc["replicas"], doc["cpus"]) == ("offline", 0, 0.2)
    assert trial.after is not None and trial.after["spec"]["replicas"] == 0
    assert trial.after["metadata"]["uid"] == trial.uid_before


# -- 2 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["start_vs_stop", "create_vs_stop"])
def test_start_or_create_raced_by_a_stop_is_a_conflict(trials: dict[str, Trial], key: str) -> None:
    trial, result = _trial(trials, key)
    competing = [_why(other) for other in trial.competing]
    assert (result.code, result.error_type) == (6, "Conflict"), (_why(result), competing)
    assert "scaled to 0" in result.doc["error"]["message"]
    assert trial.after is not None and trial.after["spec"]["replicas"] == 0


@pytest.mark.parametrize("key", ["start_vs_delete", "create_vs_delete"])
def test_start_or_create_raced_by_a_delete_is_not_found(trials: dict[str, Trial], key: str) -> None:
    trial, result = _trial(trials, key)
    assert trial.after is None
    assert (result.code, result.error_type) == (3, "NotFound"), _why(result)
    assert "deleted by another operation" in result.doc["error"]["message"], _why(result)
    # Said when the watch saw it, not after a 10 s slice (the delete ran inside the wait).
    assert result.seconds < trial.competing[0].seconds + 8, _why(result)


def test_create_whose_deployment_loses_the_managed_label_says_it_was_deleted(
    trials: dict[str, Trial],
) -> None:
    """What the label-selected watch showed (the object left its selector: DELETED), create's
    watch by name shows the wait the same: NotFound at once, and nothing more written."""
    trial, result = _trial(trials, "create_vs_unlabel")
    assert (result.code, result.error_type) == (3, "NotFound"), _why(result)
    assert "deleted by another operation while create" in result.doc["error"]["message"]
    assert result.seconds < float(WAIT_TIMEOUT), _why(result)  # as the watch saw it
    assert trial.after is not None and MANAGED_LABEL not in trial.after["metadata"]["labels"]


# -- 3 ------------------------------------------------------------------------------------------


def test_delete_raced_by_a_delete_and_recreate_is_not_deleted(trials: dict[str, Trial]) -> None:
    trial, result = _trial(trials, "delete_vs_recreate")
    assert trial.after is not None and trial.after["metadata"]["uid"] != trial.uid_before
    assert result.code != 0, "deleted:true while a Deployment of that name exists"
    assert (result.code, result.error_type) == (6, "Conflict"), _why(result)


def test_delete_answered_404_for_a_deployment_that_stays_is_not_deleted(
    trials: dict[str, Trial],
) -> None:
    trial, result = _trial(trials, "delete_answered_404")
    assert trial.after is not None and trial.after["metadata"]["uid"] == trial.uid_before
    assert (result.code, result.error_type) == (8, "Unavailable"), _why(result)


# -- 4 ------------------------------------------------------------------------------------------


def test_stop_raced_by_a_start_says_so_within_one_slice(trials: dict[str, Trial]) -> None:
    trial, result = _trial(trials, "stop_vs_start")
    assert (result.code, result.error_type) == (6, "Conflict"), _why(result)
    assert "scaled back up" in result.doc["error"]["message"]
    # One 10 s slice (plus the competing start it waited on), not --timeout 60.
    assert result.seconds < 30, result.seconds
    assert trial.after is not None and trial.after["spec"]["replicas"] == 1

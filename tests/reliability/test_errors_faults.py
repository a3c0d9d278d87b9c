"""API faults, end to end: the real kubectl against the fake API server's fault injection,
and the error type Manager gets (it decides retry-or-give-up from it).

* start/stop's ``kubectl patch`` (the scale, with its ownership tests) whose request fails:
  each fault must come back typed by its cause, never InvalidInput (which the adapter reads
  as "a test operation refused": not Manager's). These cases run the adapter's exact patch
  argv through its runner (kubectl, classify, the runner's kubeconfig rules).
* 429/503 with ``Retry-After`` outlasting the request timeout: Unavailable, ``status`` unknown.
* Two creates of one hostname by different containers: the loser gets Conflict.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from kubectl_adapter.contract.errors import AdapterError
from kubectl_adapter.kubectl import commands
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.runner import KubectlRunner
from tests.e2e.conftest import Cluster, concurrently, spec
from tests.fakecluster import FakeCluster

DEPLOYMENT_PATH = r"/apis/apps/v1/namespaces/testns/deployments/(?P<name>[^/]+)$"
_cache = itertools.count()

# HTTP code (and Retry-After) of the failed GET -> the error type the adapter must report.
SCALE_FAULTS: dict[str, tuple[int, int | None, str]] = {
    "401": (401, None, "Unauthorized"),
    "403": (403, None, "Forbidden"),
    "404": (404, None, "NotFound"),
    "409": (409, None, "Conflict"),
    "429": (429, None, "Unavailable"),
    "429-retry-after": (429, 1, "Unavailable"),
    "500": (500, None, "Unavailable"),
    "502": (502, None, "Unavailable"),
    "503": (503, None, "Unavailable"),
    "503-retry-after": (503, 1, "Unavailable"),
    "504": (504, None, "Unavailable"),
}


@pytest.fixture(scope="module")
def fake(cluster: Cluster) -> Iterator[FakeCluster]:
    fake = cluster.require_fake()
    name = "scaled"
    fake.create_object(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "testns", "labels": {"app": name}},
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"containers": [{"name": "main", "image": "nginx:latest"}]},
                },
            },
        }
    )
    yield fake
    fake.clear_faults()


def scale(fake: FakeCluster, cluster: Cluster, *, cache: str | None = None) -> AdapterError:
    """The adapter's own scale, ``kubectl patch`` (provider argv, runner, real kubectl)."""
    config = ClusterConfig(
        kubeconfig=str(fake.kubeconfig),
        context=fake.context,
        namespace="testns",
        request_timeout=1,
        call_timeout=30,
        cache_dir=cache or str(cluster.workdir / f"scale-cache-{next(_cache)}"),
    )
    with pytest.raises(AdapterError) as info:
        KubectlRunner(config).run(
            commands.patch_replicas("scaled", 0, {"app": "scaled"}), namespace="testns"
        )
    return info.value


@pytest.mark.parametrize("case", sorted(SCALE_FAULTS))
def test_scale_fault_is_typed_by_its_cause(fake: FakeCluster, cluster: Cluster, case: str) -> None:
    code, retry_after, expected = SCALE_FAULTS[case]
    fake.clear_faults()
    fake.fail_next(50, code, method="PATCH", path_regex=DEPLOYMENT_PATH, retry_after=retry_after)
    try:
        error = scale(fake, cluster)
    finally:
        fake.clear_faults()
    assert error.type == expected, (case, error.to_json())


def test_scale_that_hangs_is_unavailable(fake: FakeCluster, cluster: Cluster) -> None:
    fake.black_hole(True, path_regex=DEPLOYMENT_PATH)
    try:
        error = scale(fake, cluster)
    finally:
        fake.black_hole(False)
    assert error.type == "Unavailable", error.to_json()


def test_scale_refused_is_unavailable(fake: FakeCluster, cluster: Cluster) -> None:
    # With discovery cached (as with Manager's --cache-dir) the PATCH itself meets the refusal.
    cache = str(cluster.workdir / "scale-warm-cache")
    fake.fail_next(1, 500, method="PATCH", path_regex=DEPLOYMENT_PATH)
    scale(fake, cluster, cache=cache)  # warms the cache, then fails harmlessly
    fake.down()
    try:
        error = scale(fake, cluster, cache=cache)
    finally:
        fake.up()
    assert error.type == "Unavailable", error.to_json()
    assert error.details["reason"] == "connection refused", error.to_json()


# -- 429 with Retry-After, through the CLI ----------------------------------------------------

THROTTLED = ["--request-timeout", "1"]


@pytest.fixture
def throttled(fake: FakeCluster) -> Iterator[None]:
    fake.clear_faults()
    fake.fail_next(10_000, 429, retry_after=1)
    try:
        yield
    finally:
        fake.clear_faults()


@pytest.mark.usefixtures("throttled")
def test_status_under_throttling_is_unknown(cluster: Cluster) -> None:
    result = cluster.adapter("status", "testns/scaled", flags=THROTTLED)
    assert result.code == 0, result
    assert result.doc["status"] == "unknown", result.doc
    assert result.doc["message"].startswith("Unavailable: "), result.doc


@pytest.mark.usefixtures("throttled")
@pytest.mark.parametrize("args", [["list"], ["stop", "testns/scaled"], ["delete", "testns/x"]])
def test_commands_under_throttling_are_unavailable(cluster: Cluster, args: list[str]) -> None:
    result = cluster.adapter(*args, flags=THROTTLED)
    assert (result.code, result.error_type) == (8, "Unavailable"), result
    details = result.doc["error"]["details"]
    if args[0] == "stop":
        # Its first call is its wait's watch (issue 38), refused 429 before the patch: kubectl
        # get --watch says "TooManyRequests" (its request has no client-side rate limiter).
        assert details["writeSent"] is False, result.doc
        assert "TooManyRequests" in details["stderr"], result.doc
    else:
        assert "rate limiter" in details["stderr"], result.doc


# -- one hostname, two containers ---------------------------------------------------------------


def _outcome(result: Any) -> tuple[int, str | None]:
    return result.code, result.error_type


def test_create_that_lost_the_name_after_its_watch_listed_is_conflict(
    fake: FakeCluster, cluster: Cluster
) -> None:
    """The race's worst interleaving, made deterministic: the loser's Deployment watch (its
    ownership check's read) lists no Deployment of the name, and the winner's create lands
    between that list and the loser's apply, which then meets the winner's selector."""
    name, winner = cluster.workload("race-det")
    won: list[Any] = []
    hook = fake.on_request(
        before=lambda: won.append(
            cluster.adapter("create", "--spec", "-", stdin=spec(name, winner))
        ),
        method="PATCH",
        path_regex=rf"/deployments/{name}$",
        kubectl_command="kubectl apply",
    )
    loser = cluster.adapter("create", "--spec", "-", stdin=spec(name, f"{winner}-other"))
    assert hook.fired.is_set() and not hook.errors, hook.errors
    assert [_outcome(result) for result in won] == [(0, None)], won
    assert _outcome(loser) == (6, "Conflict"), loser
    message = loser.doc["error"]["message"]
    assert message.startswith(f"a Deployment named {name} now belongs to another container")
    labels = cluster.deployment(name)["metadata"]["labels"]  # type: ignore[index]
    assert labels["org.mieweb.opensource-server.container-id"] == winner


@pytest.mark.parametrize("trial", range(3))
def test_concurrent_creates_of_one_hostname(cluster: Cluster, trial: int) -> None:
    name, first = cluster.workload(f"race-{trial}")
    second = f"{first}-other"
    results = concurrently(
        {
            cid: (lambda cid=cid: cluster.adapter("create", "--spec", "-", stdin=spec(name, cid)))
            for cid in (first, second)
        }
    )
    outcomes = sorted(_outcome(r) for r in results.values())
    assert outcomes == [(0, None), (6, "Conflict")], results
    won = next(cid for cid, r in results.items() if r.code == 0)
    labels = cluster.deployment(name)["metadata"]["labels"]  # type: ignore[index]
    assert labels["org.mieweb.opensource-server.container-id"] == won

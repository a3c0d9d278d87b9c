"""Where the fake was less than Kubernetes (issue 30), through the real kubectl.

A registry host in brackets (``[::1]:5000/app:1``), which a real kubelet pulls, was refused
as InvalidImageName; a Pod created without ``status`` (what a person applies) crashed the
fake kubelet's loop with a KeyError, so no Pod ran after it. A case that needs the fake to
be told "this image is fine" is a gap in the fake.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.e2e.conftest import Cluster, spec
from tests.fakecluster import FakeCluster
from tests.fakecluster.container_errors import invalid_image_message
from tests.reliability.helpers import fake_testns


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, FakeCluster]]:
    with fake_testns(tmp_path_factory.mktemp("gaps")) as env:
        yield env


def test_an_image_on_a_registry_in_brackets_runs(env: tuple[Cluster, FakeCluster]) -> None:
    cluster, _ = env
    name, cid = cluster.workload("ipv6")
    created = cluster.adapter(
        "create", "--spec", "-", stdin=spec(name, cid, image="[::1]:5000/app:1")
    )
    assert (created.code, created.doc.get("status")) == (0, "running"), created.doc
    assert created.doc["image"] == "[::1]:5000/app:1"


def test_a_pod_applied_without_status_runs_and_the_kubelet_goes_on(
    env: tuple[Cluster, FakeCluster],
) -> None:
    cluster, fake = env
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "by-hand"},
        "spec": {"containers": [{"name": "main", "image": "nginx:latest"}]},
    }
    cluster.kubectl("apply", "-f", "-", stdin=json.dumps(pod))
    fake.wait_for(
        lambda: (
            (fake.get("pods", "testns", "by-hand") or {}).get("status", {}).get("phase")
            == "Running"
        ),
        message="the Pod applied without status never ran",
    )
    shown = cluster.kubectl_json("get", "pod", "by-hand")
    assert shown["status"]["qosClass"] == "BestEffort"
    # The kubelet still runs every other Pod: a workload created after it gets running.
    name, cid = cluster.workload("after")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert (created.code, created.doc.get("status")) == (0, "running"), created.doc


_PATH = st.from_regex(r"[a-z0-9]+(?:[._-][a-z0-9]+)*", fullmatch=True)
_TAG = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}", fullmatch=True)


@given(
    address=st.ip_addresses(v=6),
    port=st.none() | st.integers(1, 65535),
    path=st.lists(_PATH, min_size=1, max_size=3),
    tag=st.none() | _TAG,
)
def test_every_bracketed_ipv6_registry_parses(
    address: ipaddress.IPv6Address, port: int | None, path: list[str], tag: str | None
) -> None:
    """distribution/reference's ``host`` includes ``[IPv6]``, with or without a port, in any
    of its spellings (compressed, exploded); only a lowercase repository path is required."""
    for spelled in (address.compressed, address.exploded, address.exploded.upper()):
        host = f"[{spelled}]" + (f":{port}" if port is not None else "")
        image = f"{host}/{'/'.join(path)}" + (f":{tag}" if tag is not None else "")
        assert invalid_image_message(image) is None, image


@pytest.mark.parametrize(
    "image",
    ["[::1/app:1", "::1]:5000/app:1", "[::1]:port/app:1", "[::1]:5000/App:1", "[g::1]/app"],
)
def test_a_malformed_bracketed_host_is_still_invalid(image: str) -> None:
    assert invalid_image_message(image) is not None

"""The kubelet's model of one Pod: failure behaviours, simulation state, status pieces."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

from .container_errors import invalid_image_message
from .nodes import parse_mem

OK, PULL_ERROR, CRASH, OOM, NEVER_READY = "ok", "pull_error", "crash", "oom", "never_ready"
INVALID_IMAGE, CONFIG_ERROR = "invalid_image", "config_error"
BEHAVIOURS = (OK, PULL_ERROR, CRASH, OOM, NEVER_READY, INVALID_IMAGE, CONFIG_ERROR)
# Behaviours that keep a container from being created at all (it stays waiting).
NOT_CREATED = (PULL_ERROR, INVALID_IMAGE, CONFIG_ERROR)
TERMINAL = ("Succeeded", "Failed")
# How often the kubelet retries a container it could not create for want of a ConfigMap/Secret.
CONFIG_RETRY_SECONDS = 1.0
# A stop delay that outlasts any grace period: the container ignores SIGTERM and is killed
# (exit 137) when its Pod's grace period ends.
WHOLE_GRACE = math.inf


@dataclass
class PodSim:
    behaviour: str
    stage: str = "pending"
    due: float = 0.0
    restarts: int = 0
    deleting_since: float | None = None
    # When the kubelet kills what still runs (deletion + grace, shortened by a later DELETE).
    kill_at: float = math.inf
    grace_seen: int | None = None
    started_at: str = ""
    container_ids: dict[str, str] = field(default_factory=dict)
    init_index: int = 0  # the init container running (or failing) now
    target: str = ""  # the container that cannot be created (config error, bad image)
    unready: bool = False  # its readiness probe fails (FakeCluster.set_pod_ready)


def _env(c: dict[str, Any]) -> dict[str, str]:
    return {
        str(e.get("name")): str(e.get("value", ""))
        for e in c.get("env") or []
        if isinstance(e, dict)
    }


def parse_stop_delay(value: str | float) -> float:
    """``FAKE_STOP_SECONDS``: seconds, or ``grace`` for a container that ignores SIGTERM."""
    if value == "grace":
        return WHOLE_GRACE
    seconds = float(value)
    if seconds < 0 or math.isnan(seconds):
        raise ValueError(f"a stop delay is >= 0 seconds or 'grace', not {value!r}")
    return seconds


def classify_container(c: dict[str, Any], overrides: dict[str, str]) -> str:
    image = str(c.get("image", ""))
    for pattern, behaviour in overrides.items():
        if pattern in image:
            return behaviour
    if invalid_image_message(image) is not None:
        return INVALID_IMAGE
    env = _env(c)
    cmd = " ".join(str(x) for x in (c.get("command") or []) + (c.get("args") or []))
    if (
        "does-not-exist" in image
        or image.startswith("fake.invalid/")
        or env.get("FAKE_PULL_ERROR") == "1"
    ):
        return PULL_ERROR
    if "oomkill" in image or env.get("FAKE_OOM") == "1":
        return OOM
    limit = ((c.get("resources") or {}).get("limits") or {}).get("memory")
    if limit is not None and parse_mem(limit) < 4 * 1024**2:
        return OOM
    if "crashloop" in image or "exit 1" in cmd or env.get("FAKE_CRASH") == "1":
        return CRASH
    if "never-ready" in image or env.get("FAKE_NEVER_READY") == "1":
        return NEVER_READY
    return OK


def _target_name(pod: dict[str, Any], overrides: dict[str, str]) -> str:
    containers = pod["spec"].get("containers") or []
    bad = [c for c in containers if classify_container(c, overrides) != OK]
    return (bad[0] if bad else containers[0] if containers else {}).get("name", "")


def _flip(c: dict[str, Any], on: bool, now: str) -> dict[str, Any]:
    want = "True" if on else "False"
    if c.get("status") != want:
        c["status"] = want
        c["lastTransitionTime"] = now
    return c


def _not_ready(kind: str, names: list[str], now: str) -> dict[str, Any]:
    return {
        "type": kind,
        "status": "False",
        "lastProbeTime": None,
        "lastTransitionTime": now,
        "reason": "ContainersNotReady",
        "message": f"containers with unready status: [{' '.join(names)}]",
    }


def _cstatus(c: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": c["name"],
        "state": state,
        "lastState": {},
        "ready": False,
        "restartCount": 0,
        "image": c.get("image", ""),
        "imageID": "",
        "started": False,
    }


def _container_id(pod: dict[str, Any], name: str, restarts: int) -> str:
    seed = f"{pod['metadata']['uid']}{name}{restarts}"
    return "containerd://" + hashlib.sha256(seed.encode()).hexdigest()


def _image_id(image: str) -> str:
    repo = image.split("@")[0].rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image
    if "/" not in repo:
        repo = f"docker.io/library/{repo}"
    return f"{repo}@sha256:{hashlib.sha256(image.encode()).hexdigest()}"


def _min(a: float | None, b: float) -> float:
    return b if a is None else min(a, b)

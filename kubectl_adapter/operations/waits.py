"""Bounded waits on kubectl, with the reason attached when they fail.

``kubectl rollout status`` returns the moment the rollout completes (it watches), but it never
notices a pod stuck in ImagePullBackOff or CrashLoopBackOff: it would wait out the whole
timeout. So the wait runs in slices; between slices one read looks for failures that will
not heal, and the wait ends early with RolloutFailed when it finds one (or when the
Deployment says ReplicaFailure: no Pod can be created). An Unschedulable Pod still in its grace
is not such a failure: the next slice ends when the grace does, and the read after it decides.
"""

from __future__ import annotations

from collections.abc import Callable
from math import ceil
from time import monotonic
from typing import Any

from ..contract.errors import AdapterError, RolloutFailed, Timeout
from ..kubectl.runner import KubectlRunner, process_bound, wait_timeout_args
from ..kubectl.transcript import Wait
from ..rules import clock
from ..rules.selection import select_owned
from ..rules.status import rollout_check

SLICE_SECONDS = 10.0

Explainer = Callable[[], tuple[str, dict[str, Any]]]
Reader = Callable[[], tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]]


def wait_rollout(
    runner: KubectlRunner,
    namespace: str,
    name: str,
    timeout: float,
    read: Reader,
    explain: Explainer,
    *,
    slice_seconds: float = SLICE_SECONDS,
) -> None:
    """Wait until the Deployment's rollout is complete, at most ``timeout`` seconds."""
    deadline = monotonic() + timeout
    next_slice = slice_seconds
    first = True
    while True:
        remaining = deadline - monotonic()
        step = max(1.0, min(remaining, next_slice))
        try:
            runner.run(
                ["rollout", "status", f"deployment/{name}", *wait_timeout_args(step)],
                namespace=namespace,
                timeout=process_bound(step),
                stream=True,
                request_timeout=False,
                wait=Wait(timeout, first, slice_seconds),
            )
            return
        except RolloutFailed as exc:
            raise _enrich(RolloutFailed, exc, explain) from exc
        except Timeout as exc:
            if monotonic() >= deadline - 0.5:
                raise _at_deadline(exc, explain, timeout, f"{namespace}/{name}") from exc
        deployment, replicasets, pods = read()
        if deployment is None:
            raise RolloutFailed(f"deployment {namespace}/{name} was deleted during the wait")
        first = False
        check = rollout_check(
            deployment, select_owned(deployment, replicasets, pods), now=clock.utc_now()
        )
        if check.failure is not None:
            message, details = explain()
            raise RolloutFailed(
                f"rollout of {namespace}/{name} cannot succeed: {check.failure} | {message}",
                details,
            )
        next_slice = slice_seconds
        if check.recheck_in is not None:
            # kubectl takes whole seconds: end the slice just after the grace does.
            next_slice = min(slice_seconds, ceil(check.recheck_in) + 1.0)


def _at_deadline(
    exc: AdapterError, explain: Explainer, timeout: float, workload: str
) -> AdapterError:
    """The bound is spent. A Pod failing by then (crash loop, pull error, no Pod can be
    created) is RolloutFailed: retrying the same spec fails again. Otherwise a Timeout: the
    Pod was still starting, or started and never became ready."""
    message, details = explain()
    details["kubectl"] = exc.details
    failing = details.get("failing") or []
    if failing:
        return RolloutFailed(
            f"rollout of {workload} cannot succeed: {failing[0]} | {message}", details
        )
    return Timeout(f"rollout not complete after {timeout:g}s: {message}", details)


def _enrich(
    kind: type[AdapterError], exc: AdapterError, explain: Explainer, timeout: float | None = None
) -> AdapterError:
    """The same error kind, carrying conditions, pod reasons and events."""
    message, details = explain()
    details["kubectl"] = exc.details
    prefix = f"rollout not complete after {timeout:g}s" if timeout is not None else exc.message
    return kind(f"{prefix}: {message}", details)

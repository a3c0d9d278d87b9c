"""How to reach one Manager node's cluster: the kubectl flags every call carries, and the
bounds on every call and on the whole command."""

from __future__ import annotations

from dataclasses import dataclass

from .bounds import DEFAULT_CALL_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WAIT_TIMEOUT

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_WAIT_TIMEOUT",
    "ClusterConfig",
]


@dataclass(frozen=True)
class ClusterConfig:
    """A Manager node: kubeconfig + context + namespace, and the bounds on every wait.

    ``timeout`` bounds each wait (rollout, pod deletion); ``call_timeout`` bounds any single
    kubectl process that is not a wait; ``request_timeout`` is kubectl's own per-request limit.
    ``deadline`` bounds the whole command: every kubectl process gets at most what is left of
    it, counted from ``started`` (a ``time.monotonic()`` value; default: when the runner is
    made). ``None`` means no overall deadline (library use); the CLI always sets one.
    """

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    kubectl: str | None = None
    timeout: float = DEFAULT_WAIT_TIMEOUT
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    cache_dir: str | None = None
    node_id: str | None = None
    verbose: int = 0  # 1: log each kubectl command (-v); 2: and kubectl's stderr (-vv)
    dry_run: bool = False
    deadline: float | None = None
    started: float | None = None

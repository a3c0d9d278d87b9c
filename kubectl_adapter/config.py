"""How to reach one Manager node's cluster: the kubectl flags every call carries."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_WAIT_TIMEOUT = 300.0
DEFAULT_REQUEST_TIMEOUT = 10.0
DEFAULT_CALL_TIMEOUT = 60.0


@dataclass(frozen=True)
class ClusterConfig:
    """A Manager node: kubeconfig + context + namespace, and the bounds on every wait.

    ``timeout`` bounds each wait (rollout, pod deletion); ``call_timeout`` bounds any single
    kubectl process that is not a wait; ``request_timeout`` is kubectl's own per-request limit.
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
    verbose: bool = False
    dry_run: bool = False
